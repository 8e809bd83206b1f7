// PartitionCalendarModel's grid: which row and column each partition takes, by grain
// (see the layout notes in partitioncalendarmodel.h).

#include "partitioncalendarmodel.h"

#include <limits>
#include <unordered_map>

namespace reprint::model {

using backfill::Grain;
using backfill::Partition;

void PartitionCalendarModel::layout()
{
    std::vector<Cell> old;
    old.swap(m_cells);
    m_rows.clear();
    m_slots.clear();
    m_lastPast = -1;
    m_columns = 0;
    const backfill::PartitionScheme scheme = m_model.scheme();
    if (!scheme.isValid())
        return;
    const QTimeZone &zone = scheme.timezone();
    const Partition first = scheme.containing(QDate(m_firstYear, 1, 1).startOfDay(zone));
    const Partition last = scheme.containing(QDate(m_lastYear, 12, 31).endOfDay(zone));
    std::vector<Partition> parts = scheme.range(first, last);

    const Grain grain = m_model.grain;
    const QLocale locale;
    m_columns = grain == Grain::Day ? 37 : grain == Grain::Hour ? 24 : grain == Grain::Week ? 53 : 12;
    qint64 rowKey = std::numeric_limits<qint64>::min();
    m_cells.reserve(parts.size());
    for (Partition &p : parts) {
        Cell c;
        c.partition = std::move(p);
        const qint64 key = placeInGrid(c, grain);
        if (key != rowKey) {
            rowKey = key;
            m_rows.push_back(rowOf(c.date, grain, locale));  // once a row: a year of hours has 365
        }
        c.row = int(m_rows.size()) - 1;
        m_cells.push_back(std::move(c));
    }
    if (grain == Grain::Hour)
        moveRepeatedHours();
    indexSlots();
    if (!old.empty())
        keepKnown(old);
}

// The cell's date, column, label and weekend flag; returns the key of its row (a new key
// starts a new row).
qint64 PartitionCalendarModel::placeInGrid(Cell &c, Grain grain)
{
    const QDate date = c.partition.start.date();
    c.date = date;
    c.weekend = date.dayOfWeek() >= 6 && (grain == Grain::Day || grain == Grain::Hour);
    switch (grain) {
    case Grain::Day:
        c.column = QDate(date.year(), date.month(), 1).dayOfWeek() - 1 + date.day() - 1;
        c.label = date.day();
        return qint64(date.year()) * 12 + date.month() - 1;
    case Grain::Hour:
        c.column = c.partition.start.time().hour();
        c.label = c.column;
        return date.toJulianDay();
    case Grain::Week: {
        int isoYear = 0;
        const int week = date.weekNumber(&isoYear);
        c.column = week - 1;
        c.label = week;
        return isoYear;
    }
    case Grain::Month:
        c.column = date.month() - 1;
        c.label = date.month();
        return date.year();
    }
    return 0;
}

// The header of the row whose first cell falls on `date`.
PartitionCalendarModel::RowInfo PartitionCalendarModel::rowOf(const QDate &date, Grain grain, const QLocale &locale)
{
    RowInfo info;
    switch (grain) {
    case Grain::Day:
        info.label = locale.monthName(date.month(), QLocale::ShortFormat);
        info.group = date.year();
        break;
    case Grain::Hour:
        info.label = locale.toString(date, QStringLiteral("ddd d MMM"));
        info.group = date.year();
        info.weekend = date.dayOfWeek() >= 6;
        break;
    case Grain::Week: {
        int isoYear = 0;
        date.weekNumber(&isoYear);
        info.label = QString::number(isoYear);
        info.group = isoYear;
        break;
    }
    case Grain::Month:
        info.label = QString::number(date.year());
        info.group = date.year();
        break;
    }
    return info;
}

// The repeated hour of an autumn change: its second partition takes column 24.
void PartitionCalendarModel::moveRepeatedHours()
{
    for (std::size_t i = 1; i < m_cells.size(); ++i)
        if (m_cells[i].row == m_cells[i - 1].row && m_cells[i].label <= m_cells[i - 1].label) {
            m_cells[i].column = 24;
            m_columns = 25;
        }
}

// Every slot of the grid to the ordinal it shows, and the last partition that has started.
void PartitionCalendarModel::indexSlots()
{
    m_slots.assign(m_rows.size() * std::size_t(m_columns), -1);
    for (std::size_t i = 0; i < m_cells.size(); ++i) {
        m_slots[std::size_t(m_cells[i].row) * std::size_t(m_columns) + std::size_t(m_cells[i].column)] = int(i);
        if (m_cells[i].partition.start <= m_now)
            m_lastPast = int(i);
    }
}

// Keep what was known of partitions that are still in the window.
void PartitionCalendarModel::keepKnown(std::vector<Cell> &old)
{
    std::unordered_map<qint64, std::size_t> byStart;
    for (std::size_t i = 0; i < m_cells.size(); ++i)
        byStart.emplace(m_cells[i].partition.start.toSecsSinceEpoch(), i);
    for (Cell &o : old) {
        auto it = byStart.find(o.partition.start.toSecsSinceEpoch());
        if (it == byStart.end())
            continue;
        Cell &c = m_cells[it->second];
        c.status = std::move(o.status);
        c.published = o.published;
        updateDerived(c);
    }
}

} // namespace reprint::model
