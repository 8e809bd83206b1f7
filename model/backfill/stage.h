#pragma once
// The stage: builds partitions of a window into the backfill's stage table with the
// model's own transform (the one code path of the scheduled run and the backfill), each
// partition in one transaction, over parallel connections, with the leak and key guards.
// Internal to the engine. Thread affinity: the io_context of the calling coroutine; the
// workers share a StageRun on that thread without locks.

#include "claim.h"
#include "engine.h"
#include "modelsql.h"
#include <deque>

namespace reprint::backfill {

// What the staging workers share. Lives on the io_context thread; no locks needed.
struct StageRun {
    std::string conninfo;
    const Model *model = nullptr;
    const ModelSql *sql = nullptr;
    long long id = 0;
    std::string stage;                 // quoted relation
    std::deque<std::pair<Partition, bool>> queue;  // partition, boundary
    CancelTokenPtr cancel;
    ProgressFn progress;
    int done = 0;
    int total = 0;
    std::optional<Error> firstFailure;
    std::string firstFailurePartition;
};

// One model of a backfill: the model asked for, or a downstream model of a cascade.
struct Member {
    const Model *model = nullptr;
    Window window;
    ModelSql sql;
    Recorded rec;
};

std::string stageTableName(long long id, const Model &model);

// Creates the stage of backfill `id` over window `w`, inside the caller's transaction.
// Where the model may swap (`publish: swap|auto`) and the window is whole physical
// partitions of the target that this role may swap, the stage is partitioned as they are:
// one table per window partition, shaped as the target's (its constraints and indexes,
// and a CHECK of its bounds, so that ATTACH need not scan it), which publish attaches in
// place of the old partition instead of copying its rows (publish.cpp); rows the
// transform puts outside the window land in a default partition, where the leak guard
// finds them. Otherwise one table with an index on the partition column. Either way the
// stage is read and written through its one name.
Task<Status> createStage(warehouse::Connection &c, const ModelSql &sql, const Window &w, long long id);

// Builds one partition into the stage: the one code path of the scheduled run and the
// backfill. Replaces whatever the stage held for the partition, in one transaction,
// and refuses rows whose partition column falls outside [start, end) (leak guard).
Task<Status> stagePartition(warehouse::Connection &c, StageRun &run, const Partition &p, bool boundary);

// Stages the queued partitions of `member` over `parallel` connections, keeping its
// claim's lease alive meanwhile. On a cancel or a failure the backfill is marked failed
// (resumable) and the error says what to do.
Task<Status> stageMember(warehouse::Connection &c, Member &member, const std::string &conninfo, const EngineOptions &opt,
                         std::deque<std::pair<Partition, bool>> queue, int alreadyDone, int parallel, ProgressFn progress,
                         CancelTokenPtr cancel);

// The relation that stands for `member`'s model while its downstream models stage in a
// cascade: the staged rows inside the window, the target outside it. The window is read
// from the backfill row, so no value is written into SQL text.
std::string cascadeViewSql(const Member &member, const std::string &view);

} // namespace reprint::backfill
