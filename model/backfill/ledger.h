#pragma once
// The ledger: the one reader and writer of a backfill's row in reprint.backfills (its
// status, window, validation, stage and archive), and of the history built from those rows.
// Internal to the engine. Thread affinity: the io_context of the calling coroutine, on the
// connection it is given.

#include "engine.h"

namespace reprint::backfill {

// The backfill row as publish, review and abandon need it.
struct BackfillRow {
    long long id = 0;
    std::string model, kind;
    BackfillStatus status = BackfillStatus::Planned;
    std::string validation, validationMessage, transformHash, stageTable, operatorName;
    std::string from, to, archiveTable;
    bool archiveKept = false;          // archiveTable is set and the table is still there (not pruned)
    QDateTime windowStart, windowEnd;  // the instants the window was claimed over, [start, end)
    // The window as it was claimed (its stored instants, not its names read again).
    Window window(const Model &m) const { return windowSpanning(m, windowStart, windowEnd); }
};

// Backfills of `models` (or only backfill `id` when it is not 0), oldest first.
Task<Result<std::vector<HistoryRow>>> readHistory(warehouse::Connection &c, const std::vector<std::string> &models, long long id);

Task<Result<BackfillRow>> readBackfill(warehouse::Connection &c, long long id, bool forUpdate);

// BEGIN, then backfill `id`'s row FOR UPDATE; the transaction is rolled back when the
// row cannot be read.
Task<Result<BackfillRow>> beginWithBackfill(warehouse::Connection &c, long long id);

// Records backfill `id` as failed (staging did not complete) for `why`, with `error` the
// sentence a person reads, and lets its lease lapse so that a resume or another backfill
// can take the window; false when the warehouse could not be told (it then still shows
// the backfill staging).
Task<bool> markFailed(warehouse::Connection &conn, long long id, Failure why, const std::string &error,
                      const std::string &conninfo);

} // namespace reprint::backfill
