#include "rowdiffmodel.h"

#include "engineclient.h"

#include <QBrush>
#include <QColor>
#include <QJsonDocument>
#include <QJsonArray>
#include <QJsonValue>
#include <QFont>

#include <cmath>

namespace reprint::model {

namespace {

QJsonObject objectOf(const std::string &json)
{
    return QJsonDocument::fromJson(QByteArray::fromStdString(json)).object();
}

QString textOf(const QJsonValue &v)
{
    switch (v.type()) {
    case QJsonValue::Null:
        return QStringLiteral("NULL");
    case QJsonValue::Undefined:
        return {};
    case QJsonValue::Bool:
        return v.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    case QJsonValue::Double: {
        const double d = v.toDouble();
        return d == double(qint64(d)) && std::abs(d) < 1e15 ? QString::number(qint64(d)) : QString::number(d, 'g', 15);
    }
    case QJsonValue::String:
        return v.toString();
    default:
        return QString::fromUtf8(QJsonDocument(v.isArray() ? QJsonDocument(v.toArray()) : QJsonDocument(v.toObject()))
                                     .toJson(QJsonDocument::Compact));
    }
}

} // namespace

RowDiffModel::RowDiffModel(EngineClient *client, QObject *parent)
    : QAbstractTableModel(parent)
    , m_client(client)
{
    connect(m_client, &EngineClient::rowDiffPageFinished, this, &RowDiffModel::pageArrived);
    connect(m_client, &EngineClient::failed, this, [this](quint64 token, const DatabaseError &error) {
        if (token != m_pending)
            return;
        m_pending = 0;
        m_complete = true;
        Q_EMIT loadFailed(error);
    });
}

void RowDiffModel::setPartition(qint64 id, const QString &partition, qint64 expected)
{
    beginResetModel();
    m_id = id;
    m_partition = partition;
    m_expected = expected;
    m_pending = 0;
    m_complete = expected == 0;
    m_basis.clear();
    m_keyColumns.clear();
    m_valueColumns.clear();
    m_rows.clear();
    endResetModel();
}

void RowDiffModel::clear()
{
    setPartition(0, {}, 0);
}

int RowDiffModel::oldColumnOf(const QString &name) const
{
    const int i = int(m_valueColumns.indexOf(name));
    return i < 0 ? -1 : 2 + 2 * i;
}

bool RowDiffModel::canFetchMore(const QModelIndex &parent) const
{
    if (parent.isValid() || m_complete || m_pending || m_partition.isEmpty())
        return false;
    return m_expected < 0 || qint64(m_rows.size()) < m_expected;
}

void RowDiffModel::fetchMore(const QModelIndex &parent)
{
    if (!canFetchMore(parent))
        return;
    m_pending = m_client->rowDiffPage(m_id, m_partition, qint64(m_rows.size()), m_batchSize);
}

void RowDiffModel::pageArrived(quint64 token, const backfill::RowDiffPage &page)
{
    if (token != m_pending)
        return;
    // m_pending stays set until the page is in: a fetchMore() from a slot connected to
    // the reset or the insert below must not ask for the same offset again.
    if (m_valueColumns.isEmpty() && !page.columns.empty()) {
        beginResetModel();
        m_basis = QString::fromStdString(page.basis);
        for (const auto &k : page.key)
            m_keyColumns << QString::fromStdString(k);
        for (const auto &c : page.columns)
            if (!m_keyColumns.contains(QString::fromStdString(c)))
                m_valueColumns << QString::fromStdString(c);
        endResetModel();
    }
    const int n = int(page.rows.size());
    if (n < m_batchSize)
        m_complete = true;
    if (n > 0) {
        beginInsertRows({}, int(m_rows.size()), int(m_rows.size()) + n - 1);
        for (const auto &r : page.rows) {
            Entry e;
            e.change = QString::fromStdString(r.change);
            const QJsonObject key = objectOf(r.key);
            QStringList parts;
            for (const QString &k : m_keyColumns.isEmpty() ? key.keys() : m_keyColumns)
                parts << (m_keyColumns.size() > 1 ? k + QLatin1Char('=') : QString()) + textOf(key.value(k));
            e.key = parts.join(QStringLiteral(", "));
            e.oldRow = objectOf(r.oldRow);
            e.newRow = objectOf(r.newRow);
            m_rows.push_back(std::move(e));
        }
        endInsertRows();
    }
    if (m_expected >= 0 && qint64(m_rows.size()) >= m_expected)
        m_complete = true;
    m_pending = 0;
    Q_EMIT batchLoaded(n);
}

int RowDiffModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int RowDiffModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : 2 + 2 * int(m_valueColumns.size());
}

QVariant RowDiffModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Entry &e = m_rows[std::size_t(index.row())];
    if (role == ChangeRole)
        return e.change;
    if (index.column() == 0) {
        if (role == Qt::DisplayRole)
            return e.change;
        if (role == Qt::ForegroundRole)
            return QBrush(e.change == QLatin1String("added")     ? QColor(0x2e, 0x9e, 0x5b)
                          : e.change == QLatin1String("removed") ? QColor(0xd6, 0x3b, 0x3b)
                                                                 : QColor(0xd9, 0x8c, 0x1f));
        return {};
    }
    if (index.column() == 1)
        return role == Qt::DisplayRole ? QVariant(e.key) : QVariant();
    const int valueIndex = (index.column() - 2) / 2;
    const bool isNew = (index.column() - 2) % 2 == 1;
    const QString &name = m_valueColumns.at(valueIndex);
    const QJsonObject &side = isNew ? e.newRow : e.oldRow;
    const bool present = !side.isEmpty();
    const bool cellChanged = e.change != QLatin1String("changed") || e.oldRow.value(name) != e.newRow.value(name);
    switch (role) {
    case Qt::DisplayRole:
        return present ? textOf(side.value(name)) : QString();
    case CellChangedRole:
        return cellChanged;
    case ColumnNameRole:
        return name;
    case SideRole:
        return isNew ? QStringLiteral("new") : QStringLiteral("old");
    case Qt::BackgroundRole:
        if (!present || !cellChanged)
            return {};
        if (e.change == QLatin1String("added"))
            return QBrush(QColor(0x2e, 0x9e, 0x5b, 40));
        if (e.change == QLatin1String("removed"))
            return QBrush(QColor(0xd6, 0x3b, 0x3b, 40));
        return QBrush(isNew ? QColor(0xd9, 0x8c, 0x1f, 70) : QColor(0xd9, 0x8c, 0x1f, 35));
    case Qt::FontRole:
        if (present && cellChanged && e.change == QLatin1String("changed")) {
            QFont f;
            f.setBold(isNew);
            return f;
        }
        return {};
    case Qt::TextAlignmentRole: {
        const QJsonValue v = side.value(name);
        return QVariant::fromValue((v.isDouble() ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignVCenter);
    }
    default:
        return {};
    }
}

QVariant RowDiffModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= columnCount())
        return QAbstractTableModel::headerData(section, orientation, role);
    if (section < 2) {
        if (role == Qt::DisplayRole)
            return section == 0 ? tr("Change") : m_keyColumns.join(QStringLiteral(", "));
        return {};
    }
    const QString &name = m_valueColumns.at((section - 2) / 2);
    const bool isNew = (section - 2) % 2 == 1;
    switch (role) {
    case Qt::DisplayRole:
        return name + QLatin1Char('\n') + (isNew ? tr("new") : tr("old"));
    case ColumnNameRole:
        return name;
    case SideRole:
        return isNew ? QStringLiteral("new") : QStringLiteral("old");
    default:
        return {};
    }
}

} // namespace reprint::model
