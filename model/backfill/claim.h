#pragma once
// The claim: a backfill's exclusive hold on a window of a model (reprint.claims, an
// exclusion constraint on the span), who holds it (host:pid) and its lease, kept alive by a
// heartbeat while staging. Scheduled runs and other backfills cannot write a claimed window.
// Internal to the engine. Thread affinity: the io_context of the calling coroutine.

#include "engine.h"
#include "modelsql.h"

namespace reprint::backfill {

// Creates the backfill row, claims the window, records its partitions and creates the
// stage table, in one transaction. Returns the id, the stage (quoted) and any takeover.
struct Recorded {
    long long id = 0;
    std::string stage;
    std::string takeover;
    std::map<long long, PartitionStage> states;  // resume: each partition's state as stored
};

// The claim's heartbeat while a member stages. Its connection also LISTENs for cancel
// requests from other processes (Engine::requestCancel): one for this backfill cancels
// `cancel`, as Ctrl-C would. stop() ends it at once (it wakes the wait; the connection
// stays open for its owner).
struct Heartbeat {
    bool stopped = false;
    bool lost = false;  // the claim row was gone at a beat: another backfill took the window
    warehouse::ConnectionPtr conn;
    void stop()
    {
        stopped = true;
        if (conn)
            conn->wake();
    }
};

std::string holderName();

// True when `holder` (holderName() of some process) is a process of this host that no
// longer runs: its claim is held by nobody, whatever its lease says.
bool holderGone(const std::string &holder);

// Serialises the claims of `model` until the transaction ends: a claim checked under it
// (claimedBy) stays free until this transaction inserts its own.
Task<Status> lockClaims(warehouse::Connection &c, const Model &model);

// The conflict naming who claims partitions of [from, to] of `model` (only live leases
// when `liveOnly`), or nothing when nobody does; a failed lookup is returned as its error.
Task<std::optional<Error>> claimedBy(warehouse::Connection &c, const Model &model, const Partition &from, const Partition &to,
                                     bool liveOnly);

// Claims [start, end) of a model for a backfill row that this transaction inserts.
// Expired leases overlapping it are taken over (their backfills are marked failed).
// Returns the takeover message (empty if none) or a Conflict naming the holder.
Task<Result<std::string>> claimWindow(warehouse::Connection &c, long long id, const Model &model,
                                      const Partition &from, const Partition &to, const EngineOptions &opt);

// Inside the caller's transaction: creates the backfill row, claims the window, records
// its partitions and creates the stage table. Returns the id, the stage (quoted) and any
// takeover of an expired claim.
Task<Result<Recorded>> recordAndClaimIn(warehouse::Connection &c, const ModelSql &sql, const Window &w,
                                        const std::string &kind, const EngineOptions &opt, long long parentId);

Task<Result<Recorded>> recordAndClaim(warehouse::Connection &c, const ModelSql &sql, const Window &w,
                                      const std::string &kind, const EngineOptions &opt);

// Takes a backfill's claim back for a resume: a lapsed lease (its process died or was
// cancelled) is renewed for this process; a live one held elsewhere is a conflict; a claim
// taken over by another backfill can only be re-taken if the window is free again.
Task<Result<Recorded>> resumeClaim(warehouse::Connection &c, long long id, const ModelSql &sql, const Window &w,
                                   const EngineOptions &opt);

// The error of a backfill whose claim was taken over while it ran (its lease lapsed: the
// process was stopped, suspended or cut off longer than the lease), naming the taker.
Task<Error> claimLost(warehouse::Connection &c, long long id);

// Renews backfill `id`'s lease every opt.heartbeatSeconds and hears cancel requests, on
// `conn`: the backfill's own session, idle while its stage workers run on theirs (no
// connection of its own to open). Until hb->stop() and the coroutine's end, nothing else may
// use `conn`; it is left open, no longer LISTENing.
Task<void> heartbeat(warehouse::ConnectionPtr conn, long long id, EngineOptions opt, std::shared_ptr<Heartbeat> hb,
                     CancelTokenPtr cancel);

} // namespace reprint::backfill
