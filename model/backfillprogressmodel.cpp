#include "backfillprogressmodel.h"

#include "reviewmodel.h"

#include <QBrush>
#include <QColor>
#include <QFont>

#include <algorithm>

namespace reprint::model {

namespace {

bool sameState(const backfill::PartitionState &a, const backfill::PartitionState &b)
{
    return a.state == b.state && a.rows == b.rows && a.seconds == b.seconds && a.error == b.error
        && a.boundary == b.boundary && a.updatedAt == b.updatedAt;
}

QColor stateColour(backfill::PartitionStage state)
{
    switch (state) {
    case backfill::PartitionStage::Staged: return {0x3f, 0xa8, 0x5b};
    case backfill::PartitionStage::Failed: return {0xd6, 0x45, 0x45};
    case backfill::PartitionStage::Staging: return {0x3b, 0x82, 0xd6};
    case backfill::PartitionStage::Queued: break;
    }
    return {};
}

} // namespace

BackfillProgressModel::BackfillProgressModel(QObject *parent)
    : QAbstractTableModel(parent)
{
    m_flushTimer.setSingleShot(true);
    m_flushTimer.setInterval(kCoalesceMs);
    connect(&m_flushTimer, &QTimer::timeout, this, &BackfillProgressModel::flush);
}

void BackfillProgressModel::setPartitions(const std::vector<backfill::PartitionState> &partitions)
{
    for (const backfill::PartitionState &p : partitions)
        queue(p);
}

void BackfillProgressModel::updatePartition(const backfill::PartitionState &partition)
{
    queue(partition);
}

void BackfillProgressModel::queue(const backfill::PartitionState &partition)
{
    const QString name = QString::fromStdString(partition.partition);
    auto it = m_pending.find(name);
    if (it == m_pending.end()) {
        m_pending.insert(name, partition);
        m_pendingOrder.append(name);
    } else {
        *it = partition;
    }
    if (!m_flushTimer.isActive())
        m_flushTimer.start();
}

void BackfillProgressModel::flush()
{
    m_flushTimer.stop();
    if (m_pendingOrder.isEmpty())
        return;
    std::vector<Row> added;
    std::vector<int> changed;
    for (const QString &name : std::as_const(m_pendingOrder)) {
        const backfill::PartitionState &p = m_pending[name];
        const int row = m_rowOf.value(name, -1);
        if (row < 0) {
            const auto v = m_verdicts.find(name);  // verdicts may come before their partition
            added.push_back({p, v == m_verdicts.end() ? std::nullopt : std::optional(*v)});
        } else if (!sameState(m_rows[row].state, p)) {
            m_rows[row].state = p;
            changed.push_back(row);
        }
    }
    m_pending.clear();
    m_pendingOrder.clear();
    if (added.empty() && changed.empty())
        return;

    if (!added.empty()) {
        const int first = int(m_rows.size());
        beginInsertRows({}, first, first + int(added.size()) - 1);
        for (Row &r : added) {
            m_rowOf.insert(QString::fromStdString(r.state.partition), int(m_rows.size()));
            m_rows.push_back(std::move(r));
        }
        endInsertRows();
    }
    if (!changed.empty()) {
        std::sort(changed.begin(), changed.end());
        std::vector<std::pair<int, int>> ranges;
        for (int row : changed) {
            if (!ranges.empty() && ranges.back().second + 1 >= row)
                ranges.back().second = row;
            else
                ranges.emplace_back(row, row);
        }
        if (int(ranges.size()) > kMaxRanges)
            ranges = {{ranges.front().first, ranges.back().second}};
        for (const auto &[first, last] : ranges)
            Q_EMIT dataChanged(index(first, 0), index(last, ColumnCount - 1));
    }
    recount();
    Q_EMIT progressApplied();
}

void BackfillProgressModel::recount()
{
    m_staged = m_failed = m_staging = 0;
    m_rowsStaged = 0;
    m_stagedSeconds = 0;
    for (const Row &r : m_rows) {
        switch (r.state.state) {
        case backfill::PartitionStage::Staged:
            ++m_staged;
            m_rowsStaged += r.state.rows;
            m_stagedSeconds += r.state.seconds;
            break;
        case backfill::PartitionStage::Failed: ++m_failed; break;
        case backfill::PartitionStage::Staging: ++m_staging; break;
        case backfill::PartitionStage::Queued: break;
        }
    }
}

double BackfillProgressModel::workRate() const
{
    return m_stagedSeconds > 0 ? double(m_rowsStaged) / m_stagedSeconds : 0;
}

void BackfillProgressModel::setVerdicts(const QHash<QString, backfill::Verdict> &verdicts)
{
    m_verdicts = verdicts;
    int first = -1;
    int last = -1;
    for (int row = 0; row < int(m_rows.size()); ++row) {
        const auto it = verdicts.find(QString::fromStdString(m_rows[row].state.partition));
        const std::optional<backfill::Verdict> v = it == verdicts.end() ? std::nullopt : std::optional(*it);
        if (v == m_rows[row].verdict)
            continue;
        m_rows[row].verdict = v;
        first = first < 0 ? row : first;
        last = row;
    }
    if (first >= 0)
        Q_EMIT dataChanged(index(first, VerdictColumn), index(last, VerdictColumn));
}

void BackfillProgressModel::setValidating(bool validating)
{
    if (validating == m_validating)
        return;
    m_validating = validating;
    if (!m_rows.empty())
        Q_EMIT dataChanged(index(0, VerdictColumn), index(int(m_rows.size()) - 1, VerdictColumn));
}

void BackfillProgressModel::clear()
{
    m_flushTimer.stop();
    m_pending.clear();
    m_pendingOrder.clear();
    beginResetModel();
    m_rows.clear();
    m_rowOf.clear();
    m_verdicts.clear();
    m_validating = false;
    recount();
    endResetModel();
}

const backfill::PartitionState *BackfillProgressModel::partition(int row) const
{
    return row >= 0 && row < int(m_rows.size()) ? &m_rows[row].state : nullptr;
}

QString BackfillProgressModel::stateLabel(backfill::PartitionStage state)
{
    switch (state) {
    case backfill::PartitionStage::Queued: return tr("queued");
    case backfill::PartitionStage::Staging: return tr("staging…");
    case backfill::PartitionStage::Staged: return tr("staged");
    case backfill::PartitionStage::Failed: return tr("failed");
    }
    return tr("queued");
}

int BackfillProgressModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int BackfillProgressModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant BackfillProgressModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Row &row = m_rows[index.row()];
    const backfill::PartitionState &p = row.state;
    const bool staged = p.state == backfill::PartitionStage::Staged;
    const double rate = staged && p.seconds > 0 ? double(p.rows) / p.seconds : -1;

    switch (role) {
    case StateRole:
        return QLatin1String(backfill::toString(p.state));
    case BoundaryRole:
        return p.boundary;
    case PartitionRole:
        return QString::fromStdString(p.partition);
    case VerdictRole:
        return row.verdict ? QVariant(int(*row.verdict)) : QVariant();
    case ValueRole:
        switch (index.column()) {
        case RowsColumn: return staged ? QVariant(p.rows) : QVariant();
        case SecondsColumn: return p.seconds > 0 ? QVariant(p.seconds) : QVariant();
        case RateColumn: return rate >= 0 ? QVariant(rate) : QVariant();
        default: return {};
        }
    case Qt::DisplayRole:
        switch (index.column()) {
        case PartitionColumn: return QString::fromStdString(p.partition);
        case StateColumn: return stateLabel(p.state);
        case RowsColumn: return staged ? m_locale.toString(p.rows) : QStringLiteral("—");
        case SecondsColumn: return p.seconds > 0 ? m_locale.toString(p.seconds, 'f', p.seconds < 10 ? 2 : 1) : QStringLiteral("—");
        case RateColumn: return rate >= 0 ? m_locale.toString(qRound64(rate)) : QStringLiteral("—");
        case VerdictColumn:
            if (row.verdict)
                return ReviewModel::verdictLabel(*row.verdict);
            return m_validating && staged ? tr("validating…") : QString();
        case DetailColumn:
            if (p.state == backfill::PartitionStage::Failed)
                return QString::fromStdString(p.error);
            return p.boundary ? tr("boundary") : QString();
        }
        return {};
    case Qt::ToolTipRole:
        if (index.column() == DetailColumn && !p.error.empty())
            return QString::fromStdString(p.error);
        if (index.column() == PartitionColumn && p.boundary)
            return tr("Boundary partition: the first or last of the window, where backfills usually go wrong.");
        return {};
    case Qt::TextAlignmentRole:
        if (index.column() == RowsColumn || index.column() == SecondsColumn || index.column() == RateColumn)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        return int(Qt::AlignLeft | Qt::AlignVCenter);
    case Qt::ForegroundRole:
        if (index.column() == StateColumn || (index.column() == DetailColumn && p.state == backfill::PartitionStage::Failed)) {
            const QColor c = stateColour(p.state);
            return c.isValid() ? QVariant(QBrush(c)) : QVariant();
        }
        if (index.column() == VerdictColumn && row.verdict) {
            switch (*row.verdict) {
            case backfill::Verdict::MismatchSource: return QBrush(QColor(0xd6, 0x45, 0x45));
            case backfill::Verdict::Unexpected: return QBrush(QColor(0xd9, 0x9a, 0x1e));
            case backfill::Verdict::Expected: return QBrush(QColor(0x3f, 0xa8, 0x5b));
            case backfill::Verdict::Unchanged: return {};
            }
        }
        return {};
    case Qt::FontRole:
        if (index.column() == PartitionColumn && p.boundary) {
            QFont f;
            f.setBold(true);
            return f;
        }
        return {};
    case Qt::DecorationRole:
        if (index.column() == PartitionColumn)
            return p.boundary ? QColor(0xd9, 0x9a, 0x1e) : QColor(Qt::transparent);
        return {};
    }
    return {};
}

QVariant BackfillProgressModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return QAbstractTableModel::headerData(section, orientation, role);
    if (role == Qt::DisplayRole) {
        switch (section) {
        case PartitionColumn: return tr("Partition");
        case StateColumn: return tr("State");
        case RowsColumn: return tr("Rows");
        case SecondsColumn: return tr("Seconds");
        case RateColumn: return tr("Rows/s");
        case VerdictColumn: return tr("Verdict");
        case DetailColumn: return tr("Detail");
        }
    }
    if (role == Qt::TextAlignmentRole)
        return int((section == RowsColumn || section == SecondsColumn || section == RateColumn ? Qt::AlignRight : Qt::AlignLeft)
                   | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole && section == PartitionColumn)
        return tr("Boundary partitions (marked) come first: they are the likeliest to be wrong.");
    return {};
}

} // namespace reprint::model
