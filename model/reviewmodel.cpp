#include "reviewmodel.h"

#include <QBrush>
#include <QColor>
#include <QDateTime>
#include <QFont>

#include <algorithm>
#include <cmath>
#include <map>

namespace reprint::model {

using backfill::Verdict;

namespace {

std::optional<double> number(const std::optional<std::string> &text)
{
    if (!text)
        return std::nullopt;
    bool ok = false;
    const double v = QString::fromStdString(*text).toDouble(&ok);
    return ok ? std::optional<double>(v) : std::nullopt;
}

int decimalsOf(const std::optional<std::string> &text)
{
    if (!text)
        return 0;
    const auto dot = text->find('.');
    if (dot == std::string::npos)
        return 0;
    // numeric text keeps the column's scale; trailing zeros of a sum still say it.
    return int(text->size() - dot - 1);
}

// ISO 8601 or PostgreSQL's text form ("2026-03-09 00:00:00+00").
qint64 instantMs(const std::string &text)
{
    QString s = QString::fromStdString(text);
    s.replace(QLatin1Char(' '), QLatin1Char('T'));
    if (s.size() >= 3 && (s.at(s.size() - 3) == QLatin1Char('+') || s.at(s.size() - 3) == QLatin1Char('-')))
        s += QStringLiteral(":00");
    const QDateTime t = QDateTime::fromString(s, Qt::ISODate);
    return t.isValid() ? t.toMSecsSinceEpoch() : 0;
}

QColor verdictColour(Verdict v)
{
    switch (v) {
    case Verdict::Unchanged:
        return {};
    case Verdict::Expected:
        return QColor(0x2e, 0x9e, 0x5b);
    case Verdict::Unexpected:
        return QColor(0xd9, 0x8c, 0x1f);
    case Verdict::MismatchSource:
        return QColor(0xd6, 0x3b, 0x3b);
    }
    return {};
}

} // namespace

ReviewModel::ReviewModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

void ReviewModel::setReview(const backfill::Review &review)
{
    beginResetModel();
    m_review = review;
    rebuild();
    endResetModel();
}

void ReviewModel::setLocale(const QLocale &locale)
{
    m_locale = locale;
    if (rowCount() > 0)
        Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, columnCount() - 1), {Qt::DisplayRole});
}

void ReviewModel::rebuild()
{
    m_measures.clear();
    m_decimals.clear();
    m_rows.clear();
    for (const auto &p : m_review.partitions)
        for (const auto &m : p.measures)
            if (!m_measures.contains(QString::fromStdString(m.measure)))
                m_measures << QString::fromStdString(m.measure);
    m_decimals.assign(m_measures.size(), 0);

    Row totals;
    totals.partition = tr("Window total");
    totals.place = Place::Totals;
    totals.cells.resize(m_measures.size());
    for (const auto &p : m_review.partitions) {
        Row row;
        row.partition = QString::fromStdString(p.partition);
        row.startMs = instantMs(p.start);
        row.place = !p.inScope ? Place::Outside : p.boundary ? Place::Boundary : Place::Window;
        row.cells.resize(m_measures.size());
        for (const auto &m : p.measures) {
            const int i = int(m_measures.indexOf(QString::fromStdString(m.measure)));
            Cell &c = row.cells[i];
            c.oldValue = number(m.oldValue);
            c.newValue = number(m.newValue);
            c.source = number(m.source);
            c.verdict = m.verdict;
            m_decimals[i] = std::max({m_decimals[i], decimalsOf(m.oldValue), decimalsOf(m.newValue), decimalsOf(m.source)});
            row.worst = std::max(row.worst, m.verdict);
            if (c.oldValue != c.newValue)
                row.changed = true;
            if (p.inScope) {
                Cell &t = totals.cells[i];
                auto add = [](std::optional<double> &sum, const std::optional<double> &v) {
                    if (v)
                        sum = sum.value_or(0) + *v;
                };
                add(t.oldValue, c.oldValue);
                add(t.newValue, c.newValue);
                add(t.source, c.source);
                t.verdict = std::max(t.verdict, c.verdict);
                totals.worst = std::max(totals.worst, c.verdict);
                if (c.oldValue != c.newValue)
                    totals.changed = true;
            }
        }
        row.problem = isProblem(row.worst);
        m_rows.push_back(std::move(row));
    }
    totals.problem = isProblem(totals.worst);
    if (!m_rows.empty())
        m_rows.push_back(std::move(totals));
}

std::array<int, 4> ReviewModel::verdictCounts(bool inScope) const
{
    std::array<int, 4> counts{0, 0, 0, 0};
    for (const auto &p : m_review.partitions) {
        if (p.inScope != inScope)
            continue;
        for (const auto &m : p.measures)
            ++counts[std::size_t(m.verdict)];
    }
    return counts;
}

bool ReviewModel::outsideClean() const
{
    for (const auto &p : m_review.partitions)
        if (!p.inScope)
            for (const auto &m : p.measures)
                if (m.verdict != Verdict::Unchanged && m.verdict != Verdict::Expected)
                    return false;
    return true;
}

QString ReviewModel::verdictLabel(Verdict verdict)
{
    switch (verdict) {
    case Verdict::Unchanged:
        return tr("= unchanged");
    case Verdict::Expected:
        return tr("✓ expected");
    case Verdict::Unexpected:
        return tr("! unexpected");
    case Verdict::MismatchSource:
        return tr("✗ mismatch source");
    }
    return {};
}

QString ReviewModel::placeLabel(Place place)
{
    switch (place) {
    case Place::Window:
        return tr("window");
    case Place::Boundary:
        return tr("boundary");
    case Place::Outside:
        return tr("outside");
    case Place::Totals:
        return tr("sum of window");
    }
    return {};
}

int ReviewModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int ReviewModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : kFixedColumns + int(m_measures.size()) * kFieldsPerMeasure;
}

QVariant ReviewModel::fieldValue(const Row &row, int measure, Field field) const
{
    const Cell &c = row.cells[std::size_t(measure)];
    switch (field) {
    case Field::Old:
        return c.oldValue ? QVariant(*c.oldValue) : QVariant();
    case Field::New:
        return c.newValue ? QVariant(*c.newValue) : QVariant();
    case Field::Delta:
        if (!c.oldValue && !c.newValue)
            return {};
        return c.newValue.value_or(0) - c.oldValue.value_or(0);
    case Field::DeltaPercent: {
        const double oldV = c.oldValue.value_or(0);
        const double delta = c.newValue.value_or(0) - oldV;
        if (oldV == 0)
            return delta == 0 && c.oldValue ? QVariant(0.0) : QVariant();
        return 100.0 * delta / std::abs(oldV);
    }
    case Field::Source:
        return c.source ? QVariant(*c.source) : QVariant();
    case Field::Verdict:
        return int(c.verdict);
    }
    return {};
}

QString ReviewModel::formatted(const QVariant &value, int measure, Field field) const
{
    if (field == Field::Verdict)
        return verdictLabel(Verdict(value.toInt()));
    if (!value.isValid())
        return field == Field::DeltaPercent ? QString() : QStringLiteral("—");
    const double v = value.toDouble();
    if (field == Field::DeltaPercent) {
        if (v == 0)
            return m_locale.toString(0.0, 'f', 0) + QStringLiteral(" %");
        const int digits = std::abs(v) >= 10 ? 1 : 2;
        return (v > 0 ? QStringLiteral("+") : QString()) + m_locale.toString(v, 'f', digits) + QStringLiteral(" %");
    }
    const QString text = m_locale.toString(v, 'f', m_decimals[std::size_t(measure)]);
    if (field == Field::Delta && v > 0)
        return QStringLiteral("+") + text;
    return text;
}

QVariant ReviewModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Row &row = m_rows[std::size_t(index.row())];
    const int column = index.column();
    const bool totals = row.place == Place::Totals;

    switch (role) {
    case PlaceRole:
        return int(row.place);
    case ProblemRole:
        return row.problem;
    case ChangedRole:
        return row.changed;
    case TotalsRole:
        return totals;
    case PartitionRole:
        return totals ? QString() : row.partition;
    default:
        break;
    }

    if (column < kFixedColumns)
        return partitionColumnData(row, column, role);
    const int measure = (column - kFixedColumns) / kFieldsPerMeasure;
    const Field field = Field((column - kFixedColumns) % kFieldsPerMeasure);
    return measureColumnData(row, measure, field, role);
}

QVariant ReviewModel::partitionColumnData(const Row &row, int column, int role) const
{
    const bool totals = row.place == Place::Totals;
    switch (role) {
    case Qt::DisplayRole:
        return column == 0 ? row.partition : placeLabel(row.place);
    case Qt::EditRole:
    case ValueRole:
        return column == 0 ? QVariant(qreal(row.startMs)) : QVariant(int(row.place));
    case SortRole:
        if (column == 0)
            return row.startMs;
        return int(row.place);
    case VerdictRole:
        return int(row.worst);
    case MeasureRole:
        return QString();
    case FieldRole:
        return -1;
    case Qt::FontRole:
        if (totals || (column == 1 && row.place != Place::Window)) {
            QFont f;
            f.setBold(true);
            return f;
        }
        return {};
    case Qt::ToolTipRole:
        if (column == 1)
            switch (row.place) {
            case Place::Boundary:
                return tr("First or last partition of the window: its rows are diffed by key.");
            case Place::Outside:
                return tr("Just outside the window: the backfill must not change it, and its check must pass.");
            case Place::Totals:
                return tr("Sums over the window's partitions.");
            case Place::Window:
                return {};
            }
        return {};
    default:
        return {};
    }
}

namespace {

QString verdictToolTip(Verdict verdict)
{
    switch (verdict) {
    case Verdict::Unchanged:
        return ReviewModel::tr("Old and new agree.");
    case Verdict::Expected:
        return ReviewModel::tr("Changed, and the source check agrees with the new value.");
    case Verdict::Unexpected:
        return ReviewModel::tr("Changed, and no check vouches for it: look before approving.");
    case Verdict::MismatchSource:
        return ReviewModel::tr("The value disagrees with the source check: validation fails here.");
    }
    return {};
}

} // namespace

QVariant ReviewModel::measureColumnData(const Row &row, int measure, Field field, int role) const
{
    const bool totals = row.place == Place::Totals;
    const Verdict verdict = row.cells[std::size_t(measure)].verdict;
    switch (role) {
    case Qt::DisplayRole:
        return formatted(fieldValue(row, measure, field), measure, field);
    case Qt::EditRole:
    case ValueRole:
        return field == Field::Verdict ? QVariant() : fieldValue(row, measure, field);
    case SortRole: {
        const QVariant v = fieldValue(row, measure, field);
        return v.isValid() ? v.toDouble() : -std::numeric_limits<double>::infinity();
    }
    case VerdictRole:
        return int(verdict);
    case MeasureRole:
        return m_measures.at(measure);
    case FieldRole:
        return int(field);
    case Qt::TextAlignmentRole:
        return QVariant::fromValue(field == Field::Verdict ? Qt::AlignLeft | Qt::AlignVCenter
                                                           : Qt::AlignRight | Qt::AlignVCenter);
    case Qt::ForegroundRole:
        if (field == Field::Verdict && verdict != Verdict::Unchanged)
            return QBrush(verdictColour(verdict));
        return {};
    case Qt::BackgroundRole:
        if ((field == Field::Verdict || field == Field::New) && verdict != Verdict::Unchanged) {
            QColor c = verdictColour(verdict);
            c.setAlpha(verdict == Verdict::Expected ? 28 : 48);
            return QBrush(c);
        }
        return {};
    case Qt::FontRole:
        if (totals || (field == Field::Verdict && (verdict == Verdict::MismatchSource || verdict == Verdict::Unexpected))) {
            QFont f;
            f.setBold(true);
            return f;
        }
        return {};
    case Qt::ToolTipRole:
        if (field == Field::Verdict)
            return verdictToolTip(verdict);
        if (field == Field::Source && !row.cells[std::size_t(measure)].source)
            return tr("No check for %1.").arg(m_measures.at(measure));
        return {};
    default:
        return {};
    }
}

QVariant ReviewModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= columnCount())
        return QAbstractTableModel::headerData(section, orientation, role);
    if (section < kFixedColumns) {
        if (role == Qt::DisplayRole)
            return section == 0 ? tr("Partition") : tr("Where");
        if (role == MeasureRole)
            return QString();
        if (role == FieldRole)
            return -1;
        return {};
    }
    const int measure = (section - kFixedColumns) / kFieldsPerMeasure;
    const Field field = Field((section - kFixedColumns) % kFieldsPerMeasure);
    static const char *const names[] = {QT_TR_NOOP("old"), QT_TR_NOOP("new"), QT_TR_NOOP("Δ"),
                                        QT_TR_NOOP("Δ %"), QT_TR_NOOP("source"), QT_TR_NOOP("verdict")};
    switch (role) {
    case Qt::DisplayRole:
        return m_measures.at(measure) + QLatin1Char('\n') + tr(names[int(field)]);
    case Qt::TextAlignmentRole:
        return QVariant::fromValue(field == Field::Verdict ? Qt::AlignLeft | Qt::AlignVCenter
                                                           : Qt::AlignRight | Qt::AlignVCenter);
    case MeasureRole:
        return m_measures.at(measure);
    case FieldRole:
        return int(field);
    default:
        return {};
    }
}

QString ReviewModel::toTsv(const QModelIndexList &indexes)
{
    if (indexes.isEmpty())
        return {};
    const QAbstractItemModel *model = indexes.first().model();
    std::map<int, std::map<int, QString>> cells;  // row -> column -> text
    std::map<int, bool> columns;
    for (const QModelIndex &i : indexes) {
        cells[i.row()][i.column()] = i.data(Qt::DisplayRole).toString();
        columns[i.column()] = true;
    }
    auto clean = [](QString s) {
        s.replace(QLatin1Char('\t'), QLatin1Char(' '));
        s.replace(QLatin1Char('\n'), QLatin1Char(' '));
        return s;
    };
    QStringList lines;
    QStringList header;
    for (const auto &[c, _] : columns)
        header << clean(model->headerData(c, Qt::Horizontal, Qt::DisplayRole).toString());
    lines << header.join(QLatin1Char('\t'));
    for (const auto &[r, row] : cells) {
        QStringList fields;
        for (const auto &[c, _] : columns) {
            auto it = row.find(c);
            fields << (it == row.end() ? QString() : clean(it->second));
        }
        lines << fields.join(QLatin1Char('\t'));
    }
    return lines.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

} // namespace reprint::model
