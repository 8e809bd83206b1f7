#include "throughputseriesmodel.h"

#include <algorithm>

namespace reprint::model {

ThroughputSeriesModel::ThroughputSeriesModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

bool ThroughputSeriesModel::addSample(double elapsedSeconds, qint64 rowsStaged, int partitionsDone)
{
    if (!m_samples.empty() && elapsedSeconds < m_samples.back().elapsed + m_spacing)
        return false;
    // The rate over the trailing window: from the newest sample at least a window old (or
    // the run's start) to now.
    double fromElapsed = m_segment.elapsed;
    qint64 fromRows = m_segment.rows;
    for (auto it = m_samples.rbegin(); it != m_samples.rend() && it->elapsed >= m_segment.elapsed; ++it) {
        if (it->elapsed <= elapsedSeconds - kWindowSeconds) {
            fromElapsed = it->elapsed;
            fromRows = it->rows;
            break;
        }
    }
    const double span = elapsedSeconds - fromElapsed;
    Sample s;
    s.elapsed = elapsedSeconds;
    s.rows = rowsStaged;
    s.done = partitionsDone;
    s.rate = span > 0 ? std::max(0.0, double(rowsStaged - fromRows) / span) : 0;
    append(s);
    return true;
}

void ThroughputSeriesModel::append(const Sample &s)
{
    const int row = int(m_samples.size());
    beginInsertRows({}, row, row);
    m_samples.push_back(s);
    m_maxRate = std::max(m_maxRate, s.rate);
    endInsertRows();
    if (m_samples.size() % kRowsPerSpacing == 0)
        m_spacing *= 2;
}

void ThroughputSeriesModel::beginSegment(double elapsedSeconds, qint64 rowsStaged, int partitionsDone)
{
    if (!m_samples.empty()) {
        const Sample last = m_samples.back();
        elapsedSeconds = std::max(elapsedSeconds, last.elapsed);
        m_closedSeconds += std::max(0.0, last.elapsed - m_segment.elapsed);
        m_closedRows += std::max<qint64>(0, last.rows - m_segment.rows);
        if (last.rate > 0) {
            append({last.elapsed, last.rows, last.done, 0});
            if (elapsedSeconds > last.elapsed)
                append({elapsedSeconds, rowsStaged, partitionsDone, 0});
        }
    }
    m_segment = {elapsedSeconds, rowsStaged, partitionsDone, 0};
}

double ThroughputSeriesModel::averageRate() const
{
    double seconds = m_closedSeconds;
    qint64 rows = m_closedRows;
    if (!m_samples.empty() && m_samples.back().elapsed >= m_segment.elapsed) {
        seconds += m_samples.back().elapsed - m_segment.elapsed;
        rows += std::max<qint64>(0, m_samples.back().rows - m_segment.rows);
    }
    return seconds > 0 ? double(rows) / seconds : 0;
}

void ThroughputSeriesModel::clear()
{
    beginResetModel();
    m_samples.clear();
    m_spacing = kInitialSpacing;
    m_maxRate = 0;
    m_segment = {};
    m_closedSeconds = 0;
    m_closedRows = 0;
    endResetModel();
}

int ThroughputSeriesModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_samples.size());
}

int ThroughputSeriesModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ThroughputSeriesModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    if (role != Qt::DisplayRole && role != Qt::EditRole)
        return {};
    const Sample &s = m_samples[index.row()];
    switch (index.column()) {
    case ElapsedColumn: return s.elapsed;
    case RateColumn: return s.rate;
    case DoneColumn: return s.done;
    }
    return {};
}

QVariant ThroughputSeriesModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case ElapsedColumn: return tr("Seconds");
    case RateColumn: return tr("Rows/s");
    case DoneColumn: return tr("Partitions done");
    }
    return {};
}

} // namespace reprint::model
