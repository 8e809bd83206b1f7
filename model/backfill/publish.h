#pragma once
// Publish: replaces a validated window of the target in the caller's transaction, by the
// model's strategy (replace the rows, or swap whole physical partitions), with the checks
// and the drift guard that make what is published exactly what was validated; the writer
// fence and the COMMIT read back shared with undo. Internal to the engine. Thread
// affinity: the io_context of the calling coroutine.

#include "engine.h"
#include "ledger.h"
#include "modelsql.h"
#include "swap.h"
#include "validate.h"

namespace reprint::backfill {

struct PublishPlan {
    long long id = 0;
    const Window *window = nullptr;
    std::string stage;          // quoted
    std::string archiveName;    // unquoted, in reprint_archive; empty: no archive (scheduled run)
    std::string note, overrideReason, auditAction;
    PublishStrategy strategy = PublishStrategy::Replace;
    const EngineOptions *options = nullptr;
    CancelTokenPtr cancel;      // a swap waiting for its lock gives up when it is cancelled
    std::string retry;          // the command that tries again, e.g. `reprint publish 7 --approve NOTE`
};

// Publishes the stage over the window of the target, inside the caller's open transaction,
// by the plan's strategy: swapPartitions where the window is whole physical partitions (and
// the model allows it), replaceRows otherwise; the backfill is recorded published, its
// claim released and its stage dropped (after a replace; before a swap takes its lock, so
// that the lock covers the catalog change alone). The one publish path of runs and backfills.
Task<Result<PublishOutcome>> publishWindow(warehouse::Connection &c, const ModelSql &sql, const PublishPlan &plan);

// COMMITs the transaction that makes backfill `id` `done` (published, undone). A COMMIT
// that does not answer (the connection dropped) has an unknown outcome: it is read back
// from the warehouse on a new connection, so that the message says what the warehouse
// holds. `again`: the hint when it rolled back.
Task<Status> commitOrReadBack(warehouse::Connection &c, const std::string &conninfo, long long id, BackfillStatus done,
                              const std::string &again);

// Inside the publish transaction: waits (lock_timeout) until no other transaction writes
// the target and keeps it so until COMMIT: SHARE ROW EXCLUSIVE, which readers' ACCESS
// SHARE does not conflict with. On a partitioned target it covers every partition.
Task<Status> fenceWriters(warehouse::Connection &c, const ModelSql &sql, int timeoutMs, const std::string &nothingDone,
                          const std::string &again);

// Inside the publish transaction: checks that backfill `id` may be published exactly as
// validated (status, validation or override, four eyes, claim, transform hash, target
// and source drift), then replaces its window. The drift guard reads the source checks on
// `checkSessions` (opened by the caller, shared by the members of a cascade).
Task<Result<PublishOutcome>> publishMember(warehouse::Connection &c, const Spec &spec, const Model &m, const Window &w,
                                           const BackfillRow &b, const PublishRequest &req, const EngineOptions &options,
                                           const CheckSessions &checkSessions, CancelTokenPtr cancel, Laps &laps);

// Inside the undo transaction: backfill `b` is a published backfill whose archive is kept,
// and nobody claims its window `w`; otherwise a conflict saying what `b` is and what to do.
Task<Status> checkUndoable(warehouse::Connection &c, const BackfillRow &b, const Window &w);

// Inside the undo transaction, under the writer fence: puts the rows `b`'s publish
// replaced back from its archive (a swap's detached partitions inherit it), records the
// undo (audit with `overrideReason`, loads) and drops the archive.
Task<Result<UndoOutcome>> restoreWindow(warehouse::Connection &c, const ModelSql &sql, const Window &w, const BackfillRow &b,
                                        const std::string &overrideReason);

} // namespace reprint::backfill
