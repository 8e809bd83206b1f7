#include "specmodelsmodel.h"

#include "backfill/spec.h"

#include <QVariantMap>

namespace reprint::model {

namespace {

QString q(const std::string &s)
{
    return QString::fromStdString(s);
}

QStringList qList(const std::vector<std::string> &v)
{
    QStringList out;
    out.reserve(static_cast<qsizetype>(v.size()));
    for (const std::string &s : v)
        out.append(q(s));
    return out;
}

} // namespace

SpecModelsModel::SpecModelsModel(QObject *parent)
    : QAbstractListModel(parent)
{
}

SpecModelsModel::~SpecModelsModel() = default;

bool SpecModelsModel::load(const QString &path, QString *error)
{
    auto spec = backfill::loadSpec(path.toStdString());
    if (!spec) {
        if (error)
            *error = q(spec.error().toSentence());
        return false;
    }
    setSpec(*spec);
    return true;
}

void SpecModelsModel::setSpec(const backfill::Spec &spec)
{
    beginResetModel();
    m_entries.clear();
    m_entries.reserve(spec.models.size());
    for (const backfill::Model &m : spec.models) {
        Entry e;
        e.name = q(m.name);
        e.target = q(m.target.display());
        e.grain = QString::fromLatin1(backfill::toString(m.grain));
        e.timezone = q(m.timezone);
        e.partitionColumn = q(m.partitionColumn);
        e.key = qList(m.key);
        e.measures = qList(m.measures);
        for (const backfill::Check &c : m.checks)
            e.checks.append({q(c.name), q(c.measure), c.tolerance, q(c.sourceFile)});
        e.dependsOn = qList(m.dependsOn);
        e.transformFile = q(m.transformFile);
        m_entries.push_back(std::move(e));
    }
    m_specPath = q(spec.path);
    m_warehouse = q(spec.warehouse);
    endResetModel();
}

void SpecModelsModel::clear()
{
    beginResetModel();
    m_entries.clear();
    m_specPath.clear();
    m_warehouse.clear();
    endResetModel();
}

void SpecModelsModel::setConnectionState(ConnectionState state)
{
    if (state == m_connectionState)
        return;
    m_connectionState = state;
    if (!m_entries.empty())
        Q_EMIT dataChanged(index(0), index(rowCount() - 1), {ConnectionStateRole});
}

int SpecModelsModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_entries.size());
}

QVariant SpecModelsModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Entry &e = m_entries[static_cast<std::size_t>(index.row())];
    switch (role) {
    case Qt::DisplayRole:
    case NameRole:
        return e.name;
    case Qt::ToolTipRole:
        return tr("%1\n%2, partitioned by %3 (%4)").arg(e.target, e.grain, e.partitionColumn, e.timezone);
    case TargetRole:
        return e.target;
    case GrainRole:
        return e.grain;
    case TimezoneRole:
        return e.timezone;
    case PartitionColumnRole:
        return e.partitionColumn;
    case KeyRole:
        return e.key;
    case MeasuresRole:
        return e.measures;
    case ChecksRole: {
        QVariantList checks;
        for (const Check &c : e.checks)
            checks.append(QVariantMap{{QStringLiteral("name"), c.name},
                                      {QStringLiteral("measure"), c.measure},
                                      {QStringLiteral("tolerance"), c.tolerance},
                                      {QStringLiteral("source"), c.source}});
        return checks;
    }
    case ChecksCountRole:
        return static_cast<int>(e.checks.size());
    case DependsOnRole:
        return e.dependsOn;
    case TransformFileRole:
        return e.transformFile;
    case ConnectionStateRole:
        return QVariant::fromValue(m_connectionState);
    default:
        return {};
    }
}

QHash<int, QByteArray> SpecModelsModel::roleNames() const
{
    QHash<int, QByteArray> names = QAbstractListModel::roleNames();
    names.insert(NameRole, "name");
    names.insert(TargetRole, "target");
    names.insert(GrainRole, "grain");
    names.insert(TimezoneRole, "timezone");
    names.insert(PartitionColumnRole, "partitionColumn");
    names.insert(KeyRole, "key");
    names.insert(MeasuresRole, "measures");
    names.insert(ChecksRole, "checks");
    names.insert(ChecksCountRole, "checksCount");
    names.insert(DependsOnRole, "dependsOn");
    names.insert(TransformFileRole, "transformFile");
    names.insert(ConnectionStateRole, "connectionState");
    return names;
}

} // namespace reprint::model
