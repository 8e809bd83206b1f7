#pragma once
// The partitions of one backfill while it stages: one row per partition in the engine's
// order (boundary partitions first), with its state, rows, seconds, rows per second, the
// verdict once the review is stored, and a failed partition's error as a sentence.
//
// Feeding: setPartitions() (a snapshot read back from the warehouse) and updatePartition()
// (one partition) only queue the change. Queued changes are applied together kCoalesceMs
// after the first of them, so a burst of any size costs one pass and a bounded number of
// signals: new partitions arrive as one rowsInserted, changed rows as dataChanged over at
// most kMaxRanges contiguous ranges (else one range spanning them all). Only clear()
// resets the model (the screen follows another backfill). flush() applies what is queued
// now; progressApplied() follows every pass that changed something.
//
// The model holds values only; it never queries. Thread affinity: GUI thread.

#include "backfill/engine.h"
#include "backfill/review.h"

#include <QAbstractTableModel>
#include <QHash>
#include <QLocale>
#include <QTimer>

#include <optional>
#include <vector>

namespace reprint::model {

class BackfillProgressModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column { PartitionColumn, StateColumn, RowsColumn, SecondsColumn, RateColumn, VerdictColumn, DetailColumn, ColumnCount };
    enum Role {
        StateRole = Qt::UserRole + 1,  // QString: queued, staging, staged, failed (as stored)
        BoundaryRole,                  // bool: first or last partition of the window
        ValueRole,                     // the cell's number (rows, seconds, rows/s), else invalid
        VerdictRole,                   // int(backfill::Verdict), invalid until the review is stored
        PartitionRole,                 // QString: the partition's name
    };
    static constexpr int kCoalesceMs = 50;
    static constexpr int kMaxRanges = 8;

    explicit BackfillProgressModel(QObject *parent = nullptr);

    // Queues the partitions of a snapshot; partitions the model lacks are appended in the
    // snapshot's order.
    void setPartitions(const std::vector<backfill::PartitionState> &partitions);
    // Queues one partition's new state (last one wins within an interval).
    void updatePartition(const backfill::PartitionState &partition);
    // The worst verdict over each partition's measures (keyed by partition name); applied
    // at once, and to a partition still queued when it arrives. Partitions absent from
    // `verdicts` keep none.
    void setVerdicts(const QHash<QString, backfill::Verdict> &verdicts);
    // While true, staged partitions without a verdict read "validating…".
    void setValidating(bool validating);
    // Forgets every partition and verdict (a reset); queued changes are dropped.
    void clear();
    // Applies queued changes now.
    void flush();

    // Counts over the applied rows.
    int total() const { return int(m_rows.size()); }
    int stagedCount() const { return m_staged; }
    int failedCount() const { return m_failed; }
    int stagingCount() const { return m_staging; }
    qint64 rowsStaged() const { return m_rowsStaged; }
    // Staged rows per second of staging work (sum of rows / sum of seconds), 0 when none.
    double workRate() const;
    const backfill::PartitionState *partition(int row) const;
    int rowOf(const QString &partition) const { return m_rowOf.value(partition, -1); }

    static QString stateLabel(backfill::PartitionStage state);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

Q_SIGNALS:
    // A pass applied changes (rows inserted or changed); the counts above are current.
    void progressApplied();

private:
    struct Row {
        backfill::PartitionState state;
        std::optional<backfill::Verdict> verdict;
    };
    void queue(const backfill::PartitionState &partition);
    void recount();

    std::vector<Row> m_rows;
    QHash<QString, int> m_rowOf;
    QHash<QString, backfill::Verdict> m_verdicts;  // the last setVerdicts(), by partition
    QHash<QString, backfill::PartitionState> m_pending;
    QStringList m_pendingOrder;
    QTimer m_flushTimer;
    bool m_validating = false;
    int m_staged = 0;
    int m_failed = 0;
    int m_staging = 0;
    qint64 m_rowsStaged = 0;
    double m_stagedSeconds = 0;
    QLocale m_locale;
};

} // namespace reprint::model
