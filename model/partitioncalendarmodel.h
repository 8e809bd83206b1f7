#pragma once
// A model's partitions laid out as a calendar, with the engine's statistics of each.
//
// Layout (rows x columns), by the model's grain, in the model's timezone:
//   day    one row per month, 37 columns: the month's days under their weekday, Monday
//          first (column = weekday of the 1st - 1 + day - 1), like a wall calendar;
//   hour   one row per day, 24 columns by the hour of the day; the second occurrence of
//          an hour the clocks repeat goes to a 25th column (only present when needed);
//   week   one row per ISO year, 53 columns (ISO week - 1);
//   month  one row per year, 12 columns.
// A cell that holds no partition (before the 1st of a month, week 53 of a short year)
// is an invalid slot: flags() is Qt::NoItemFlags and data() is empty.
//
// Partitions are numbered in time order by their ordinal (0 .. partitionCount() - 1);
// ordinalOf() and indexOfOrdinal() convert between cells and ordinals. The window always
// covers whole years; partitions that start after `now` are "future": never selectable,
// never asked for statistics.
//
// Data: setStatus() merges the engine's StatusRows (EngineClient::status) into the
// partitions they name; a partition the engine has not reported on yet has
// HasStatusRole false. setHistory() adds the published backfills (claim state
// "published"). The model runs no query and holds no connection.
//
// Thread affinity: GUI thread (an item model). Owns no QObject other than itself.

#include "calendarcache.h"
#include "engineclient.h"

#include "backfill/partition.h"
#include "backfill/spec.h"

#include <QAbstractTableModel>
#include <QColor>
#include <QDateTime>
#include <QList>
#include <QLocale>

#include <optional>
#include <vector>

namespace reprint::model {

class PartitionCalendarModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Role {
        PartitionNameRole = Qt::UserRole + 1, // QString, the CLI's name ("2026-03-10")
        OrdinalRole,        // int, position in time order
        StartRole,          // QDateTime in the model's timezone
        EndRole,            // QDateTime, exclusive
        HasStatusRole,      // bool: the engine has reported on this partition
        RowsRole,           // qlonglong; invalid without status
        MeasuresRole,       // QVariantList of {name, value} maps, declared measures in order
        ChecksRole,         // QVariantList of {name, measure, state, value, source, difference} maps
        HealthRole,         // Health (int)
        LoadedAtRole,       // QDateTime (UTC); invalid when unknown
        ClaimRole,          // QString: "backfill 7 (alice, staged)", "published by backfill 3", or empty
        ClaimStateRole,     // ClaimState (int)
        MetricRole,         // double: the colour metric's value; invalid when it has none
        MetricTextRole,     // QString: the metric's value in words ("62 % of the weekday median")
        EmptyRole,          // bool: reported with zero rows
        FutureRole,         // bool: starts after now
        TodayRole,          // bool: contains now
        WeekendRole,        // bool: a Saturday or Sunday (day and hour grain); also on headers
        GroupRole,          // int: the year a row belongs to (vertical header data)
    };
    Q_ENUM(Role)

    enum class Health { NotLoaded, NoChecks, Ok, Unknown, Mismatch };
    Q_ENUM(Health)
    enum class ClaimState { None, Running, Staged, Published };
    Q_ENUM(ClaimState)
    enum class Metric { Checks, RowsVsMedian, Measure, Freshness, Claims };
    Q_ENUM(Metric)

    struct LegendEntry {
        QColor colour;
        QString label;
    };

    explicit PartitionCalendarModel(QObject *parent = nullptr);
    ~PartitionCalendarModel() override;

    // The model whose partitions are shown, over the whole years firstYear..lastYear.
    // Drops every statistic (a model reset).
    void setModel(const backfill::Model &model, int firstYear, int lastYear);
    // Grows or shrinks the window to firstYear..lastYear, keeping the statistics of the
    // partitions still in it (a model reset).
    void setYears(int firstYear, int lastYear);
    bool hasModel() const { return m_hasModel; }
    const backfill::Model &model() const { return m_model; }
    backfill::Grain grain() const { return m_model.grain; }
    int firstYear() const { return m_firstYear; }
    int lastYear() const { return m_lastYear; }

    // The instant that separates past from future; defaults to the current time when
    // the model is set. Tests pin it.
    void setNow(const QDateTime &now);
    QDateTime now() const { return m_now; }

    // Merges statistics; rows naming partitions outside the window are ignored.
    // Emits dataChanged over the rows touched.
    void setStatus(const StatusRows &rows);
    void setHistory(const HistoryRows &rows);
    // Drops every statistic (dataChanged over everything).
    void clearStatus();
    // The statistics shown and when they were read, for the cache the calendar opens
    // from (calendarcache.h); applyCache() shows them as read at the cache's time.
    CalendarCache statusSnapshot() const;
    void applyCache(const CalendarCache &cache);
    // When the statistics shown were read (the newest setStatus(), or the cache's).
    QDateTime statusTime() const { return m_statusTime; }
    void setStatusTime(const QDateTime &time) { m_statusTime = time; }

    void setMetric(Metric metric, const QString &measure = {});
    Metric metric() const { return m_metric; }
    QString metricMeasure() const { return m_metricMeasure; }
    // The colours of the current metric and what they mean, in order.
    QList<LegendEntry> legend() const;

    int partitionCount() const { return int(m_cells.size()); }
    const backfill::Partition &partition(int ordinal) const { return m_cells[std::size_t(ordinal)].partition; }
    const backfill::StatusRow *status(int ordinal) const;
    // The partitions first..last by name: "2026-03-09", or "2026-03-09 .. 2026-03-14".
    QString namesText(int first, int last) const;
    // The ordinal of the partition named `name` (any name the scheme parses), or -1.
    int ordinalOfName(const QString &name) const;
    int ordinalOf(const QModelIndex &index) const;
    // The ordinal in the cell at row, column, or -1 (no QModelIndex needed: for painting).
    int ordinalAt(int row, int column) const;
    QModelIndex indexOfOrdinal(int ordinal) const;
    // The last partition that is not in the future, or -1.
    int lastPastOrdinal() const { return m_lastPast; }
    bool isFuture(int ordinal) const { return ordinal > m_lastPast; }
    bool isFailing(int ordinal) const;
    Health health(int ordinal) const;
    // The partitions that fail a check, in order.
    std::vector<int> failingOrdinals() const;
    // The first row of `year`, or -1.
    int rowOfYear(int year) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex &index) const override;
    QHash<int, QByteArray> roleNames() const override;

    // The colour of a partition under the current metric (invalid for future or
    // unreported partitions). The view paints with it; BackgroundRole returns it too.
    QColor colourOf(int ordinal) const;
    // What a view needs to paint a cell, without QVariants.
    struct CellSummary {
        QColor colour;       // invalid: nothing to colour (future, not reported)
        Health health = Health::NotLoaded;
        ClaimState claimState = ClaimState::None;
        bool hasStatus = false;
        bool empty = false;  // reported with zero rows
        bool future = false;
        bool today = false;
        bool weekend = false;
        int label = 0;       // day of month (day), hour (hour), week (week) or month (month)
    };
    CellSummary summary(int ordinal) const;
    // A tooltip in rich text: the partition, its bounds, rows, measures and checks.
    QString toolTipOf(int ordinal) const;

private:
    struct Cell {
        backfill::Partition partition;
        QDate date;          // local date of the start
        int row = 0;
        int column = 0;
        int label = 0;       // see CellSummary::label
        bool weekend = false;
        std::optional<backfill::StatusRow> status;
        std::vector<double> measureValues; // declared measures, parsed; NaN when empty
        QDateTime loadedAt;
        Health health = Health::NotLoaded;
        ClaimState claimState = ClaimState::None;
        QString published;   // "published by backfill 3" from history
        double metric = 0;
        bool hasMetric = false;
        QColor colour;
    };
    struct RowInfo {
        QString label;
        int group = 0;
        bool weekend = false;
    };

    // The grid (partitioncalendarlayout.cpp): layout() places every partition of the
    // years in its row and column, keeping what was known of partitions still shown.
    void layout();
    static qint64 placeInGrid(Cell &cell, backfill::Grain grain);
    static RowInfo rowOf(const QDate &date, backfill::Grain grain, const QLocale &locale);
    void moveRepeatedHours();
    void indexSlots();
    void keepKnown(std::vector<Cell> &old);
    void updateDerived(Cell &cell) const;
    void recomputeMetric();
    int metricMeasureIndex() const;
    double metricValue(const Cell &cell, int ordinal, int measureIndex) const;
    QColor metricColour(const Cell &cell) const;
    double medianRatio(int ordinal) const;
    QVariantList checksOf(const Cell &cell) const;

    backfill::Model m_model;
    bool m_hasModel = false;
    int m_firstYear = 0;
    int m_lastYear = 0;
    QDateTime m_now;
    QDateTime m_statusTime;
    int m_lastPast = -1;
    int m_columns = 0;
    std::vector<Cell> m_cells;
    std::vector<RowInfo> m_rows;
    std::vector<int> m_slots;  // rows * columns -> ordinal or -1
    Metric m_metric = Metric::Checks;
    QString m_metricMeasure;
    double m_metricMin = 0;
    double m_metricMax = 0;
};

} // namespace reprint::model
