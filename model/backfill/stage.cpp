#include "stage.h"

#include "ledger.h"
#include "swap.h"
#include "session.h"
#include "sqltext.h"
#include <chrono>

namespace reprint::backfill {

namespace {

void report(StageRun &run, const PartitionProgress &p)
{
    if (!run.progress)
        return;
    BackfillEvent e;
    e.backfillId = run.id;
    e.phase = "staging";
    e.partition = p;
    e.done = run.done;
    e.total = run.total;
    run.progress(e);
}

// "(a, b)" or "a": a model's key as the spec names it.
std::string joinKey(const std::vector<std::string> &key)
{
    std::string out;
    for (const std::string &k : key)
        out += (out.empty() ? "" : ", ") + k;
    return key.size() == 1 ? out : "(" + out + ")";
}

Task<void> stageWorker(std::shared_ptr<StageRun> run)
{
    auto conn = co_await openSession(run->conninfo, "reprint", run->cancel);
    if (!conn) {
        if (!run->firstFailure)
            run->firstFailure = conn.error();
        co_return;
    }
    // Named after the backfill, so that its lock waits can be found in pg_stat_activity.
    const std::string application = "reprint backfill " + std::to_string(run->id);
    auto named = co_await (*conn)->query("SELECT set_config('application_name', $1, false)", args(application));
    (void)named;
    while (!run->queue.empty() && !(run->cancel && run->cancel->isCancelled())) {
        auto [p, boundary] = run->queue.front();
        run->queue.pop_front();
        auto r = co_await stagePartition(**conn, *run, p, boundary);
        if (!r && !run->firstFailure) {
            run->firstFailure = r.error();
            run->firstFailurePartition = p.name;
        }
    }
    (*conn)->close();
}

// The leak and key guards on what the transform produced for partition `p` (the stage
// insert's counts): every row inside [start, end), every key once.
std::optional<Error> guardStagedRows(const Model &model, const Partition &p, const warehouse::ResultSet &set)
{
    const long long leaked = std::stoll(set.at(0, "leaked").value_or("0"));
    const long long repeated = std::stoll(set.at(0, "repeated_keys").value_or("0"));
    if (leaked > 0)
        return Error::make(EngineKind::Spec,
                           "the transform produced " + counted(leaked, "row") + " outside [" + p.startText() + ", " + p.endText()
                               + "), e.g. " + model.partitionColumn + " = " + set.at(0, "example").value_or("NULL"),
                           "Fix the transform's filter on :start and :end (" + model.transformFile
                               + "); nothing was staged for this partition.");
    if (repeated > 0)
        return Error::make(EngineKind::Spec,
                           "the transform produced " + counted(repeated, "key") + " more than once in partition " + p.name
                               + ", e.g. key " + joinKey(model.key) + " = " + set.at(0, "repeated_example").value_or("?")
                               + "; a key must name one row",
                           "Fix the transform (" + model.transformFile + ") so that it emits one row per key, "
                           "or correct `key:` in the spec; nothing was staged for this partition.");
    return std::nullopt;
}

// A stage shaped as the target's partitions carries its unique indexes: a key the
// transform repeats is refused by them before the key guard counts it. Said the same way.
Error repeatedUniqueKey(const Model &model, const Partition &p, const Error &e)
{
    Error out = Error::make(EngineKind::Spec,
                            "the transform produced a row more than once for a unique key of " + model.target.display()
                                + " in partition " + p.name + (e.detail.empty() ? std::string() : ": " + e.detail)
                                + "; a key must name one row",
                            "Fix the transform (" + model.transformFile + ") so that it emits one row per key, "
                            "or correct `key:` in the spec; nothing was staged for this partition.");
    out.sqlstate = e.sqlstate;
    return out;
}

} // namespace

std::string stageTableName(long long id, const Model &model)
{
    std::string name = "b";
    name += std::to_string(id) + "_" + model.name;
    return name.substr(0, 63);
}

Task<Status> createStage(warehouse::Connection &c, const ModelSql &sql, const Window &w, long long id)
{
    const std::string ids = std::to_string(id);
    const std::string stage = quoteRelation("reprint_staging", stageTableName(id, *w.model));
    // Partitioned as the window's physical partitions where publish will swap them in: the
    // model may swap, the window fits, and the target has no generated column (those are
    // computed by the target's own partitions, so such a stage is copied at publish).
    SwapLayout layout;
    bool partitioned = false;
    if (w.model->publish != PublishStrategy::Replace) {
        auto found = co_await swapLayoutOf(c, sql, w);
        if (!found)
            co_return found.error();
        layout = std::move(*found);
        auto generated = co_await c.query("SELECT count(*) FROM pg_attribute WHERE attrelid = $1::regclass AND attnum > 0 "
                                          "AND NOT attisdropped AND attgenerated <> ''",
                                          args(sql.target));
        if (!generated)
            co_return generated.error();
        partitioned = layout.fits() && generated->last().scalar("0") == "0";
    }
    std::string ddl;
    if (!partitioned) {
        ddl = "CREATE TABLE " + stage + " (LIKE " + sql.target + " INCLUDING DEFAULTS);\nCREATE INDEX ON " + stage + " (" + sql.column + ")";
    } else {
        ddl = "CREATE TABLE " + stage + " (LIKE " + sql.target + " INCLUDING DEFAULTS) PARTITION BY RANGE (" + sql.column + ");\n";
        for (std::size_t i = 0; i < layout.partitions.size(); ++i) {
            const PhysicalPartition &part = layout.partitions[i];
            const std::string table = quoteRelation("reprint_staging", ("b" + ids + "p" + std::to_string(i) + "_" + w.model->name).substr(0, 63));
            ddl += "CREATE TABLE " + table + successorShape(sql) + ";\n"
                   "ALTER TABLE " + table + " ADD CONSTRAINT " + kSwapBounds + " " + swapBoundsCheck(sql, part) + ";\n"
                   "ALTER TABLE " + stage + " ATTACH PARTITION " + table + " " + partitionBounds(part) + ";\n";
        }
        ddl += "CREATE TABLE " + quoteRelation("reprint_staging", ("b" + ids + "d_" + w.model->name).substr(0, 63)) + " PARTITION OF "
               + stage + " DEFAULT";
    }
    auto r = co_await c.execute(std::move(ddl));
    if (!r)
        co_return r.error();
    co_return warehouse::ok();
}

Task<Status> stagePartition(warehouse::Connection &c, StageRun &run, const Partition &p, bool boundary)
{
    PartitionProgress prog;
    prog.partition = p.name;
    prog.boundary = boundary;
    prog.state = PartitionProgress::State::Staging;
    report(run, prog);
    const Params key = {std::to_string(run.id), p.startText()};
    const std::vector<warehouse::TypeOid> keyTypes = {0, kTimestamptzOid};
    auto marked = co_await c.query("UPDATE reprint.backfill_partitions SET state = 'staging', error = NULL, "
                                   "updated_at = now() WHERE backfill_id = $1 AND partition_start = $2",
                                   key, keyTypes);
    const auto t0 = std::chrono::steady_clock::now();
    std::optional<Error> failure;
    long long rows = 0;
    if (!marked) {
        failure = marked.error();
    } else {
        auto r = co_await c.execute("BEGIN");
        if (r)
            r = co_await c.query("DELETE FROM " + run.stage + " AS s WHERE " + run.sql->inWindow("s"),
                                 args(run.sql->lowerValue(p), run.sql->upperValue(p)));
        const std::string insert = run.sql->stageInsert(run.stage);
        if (r)
            r = co_await c.query(insert, args(p.startText(), p.endText()), kBounds);
        if (r) {
            const auto &set = r->last();
            rows = std::stoll(set.at(0, "rows").value_or("0"));
            failure = guardStagedRows(*run.model, p, set);
        } else if (r.error().kind == ErrorKind::UniqueViolation) {
            failure = repeatedUniqueKey(*run.model, p, r.error());
        } else {
            failure = inSourceFile(r.error(), run.model->transformName, run.model->transformSql, insert,
                                   insert.find(run.sql->transform));
        }
        if (!failure) {
            const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            auto u = co_await c.query("UPDATE reprint.backfill_partitions SET state = 'staged', rows = $3, "
                                      "seconds = $4, error = NULL, updated_at = now() "
                                      "WHERE backfill_id = $1 AND partition_start = $2",
                                      args(key[0], key[1], std::to_string(rows), std::to_string(secs)), keyTypes);
            if (u)
                u = co_await c.execute("COMMIT");
            if (!u)
                failure = u.error();
        }
        if (failure)
            co_await rollback(c);
    }
    prog.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ++run.done;
    if (!failure) {
        prog.state = PartitionProgress::State::Staged;
        prog.rows = rows;
        report(run, prog);
        co_return warehouse::ok();
    }
    const bool cancelled = failure->kind == ErrorKind::Cancelled || (run.cancel && run.cancel->isCancelled());
    if (c.isOpen()) {
        const std::string state = cancelled ? "queued" : "failed";
        const Value error = cancelled ? Value() : Value(failure->toSentence());
        auto u = co_await c.query("UPDATE reprint.backfill_partitions SET state = $3, error = $4, updated_at = now() "
                                  "WHERE backfill_id = $1 AND partition_start = $2",
                                  args(key[0], key[1], state, error), keyTypes);
        (void)u;
    }
    prog.state = cancelled ? PartitionProgress::State::Queued : PartitionProgress::State::Failed;
    prog.error = failure->toSentence();
    report(run, prog);
    co_return *failure;
}

Task<Status> stageMember(warehouse::Connection &c, Member &member, const std::string &conninfo, const EngineOptions &opt,
                         std::deque<std::pair<Partition, bool>> queue, int alreadyDone, int parallel, ProgressFn progress,
                         CancelTokenPtr cancel)
{
    auto run = std::make_shared<StageRun>();
    run->conninfo = conninfo;
    run->model = member.model;
    run->sql = &member.sql;
    run->id = member.rec.id;
    run->stage = member.rec.stage;
    run->cancel = cancel;
    run->progress = std::move(progress);
    run->total = static_cast<int>(member.window.partitions.size());
    run->done = alreadyDone;
    run->queue = std::move(queue);
    parallel = std::max(1, std::min(parallel, static_cast<int>(run->queue.size())));

    auto executor = co_await asio::this_coro::executor;
    auto hb = std::make_shared<Heartbeat>();
    auto hbGroup = std::make_shared<JoinGroup>(executor);
    spawnJoined(hbGroup, heartbeat(c.shared_from_this(), member.rec.id, opt, hb, cancel));
    auto workers = std::make_shared<JoinGroup>(executor);
    for (int i = 0; i < parallel; ++i)
        spawnJoined(workers, stageWorker(run));
    co_await joinAll(workers);
    hb->stop();
    co_await joinAll(hbGroup);

    const std::string id = std::to_string(member.rec.id);
    if (hb->lost)
        co_return co_await claimLost(c, member.rec.id);
    if (cancel->isCancelled()) {
        // Read back what was staged: a cancel may have arrived after a partition finished.
        auto staged = co_await c.query("SELECT count(*) FILTER (WHERE state = 'staged'), count(*) "
                                       "FROM reprint.backfill_partitions WHERE backfill_id = $1",
                                       args(id));
        const std::string counts = staged ? *staged->last().rows[0][0] + " of " + *staged->last().rows[0][1] : "some";
        co_await markFailed(c, member.rec.id, Failure::Cancelled, "cancelled after " + counts + " partitions were staged", conninfo);
        co_return Error::make(ErrorKind::Cancelled,
                              "backfill " + id + " was cancelled after " + counts + " partitions were staged; nothing was published",
                              "Its staged partitions are kept: finish it with `reprint backfill --resume " + id
                                  + "`, or free the window with `reprint abandon " + id + "`.");
    }
    if (run->firstFailure) {
        Error e = *run->firstFailure;
        const std::string where = run->firstFailurePartition.empty() ? "" : "partition " + run->firstFailurePartition + ": ";
        const bool recorded = co_await markFailed(c, member.rec.id, Failure::Error, where + e.toSentence(), conninfo);
        e.message = "backfill " + id + " (" + member.model->name + ") failed: " + where + e.message;
        if (!recorded)
            e.message += "; the warehouse could not be reached to record it, so it still shows backfill " + id
                         + " staging (its claim is taken back by a resume once this process has exited)";
        e.hint += std::string(e.hint.empty() ? "" : " ") + "Once fixed, `reprint backfill --resume " + id
                  + " --retry-failed` re-stages only the failed partitions.";
        co_return e;
    }
    co_return warehouse::ok();
}

std::string cascadeViewSql(const Member &member, const std::string &view)
{
    const std::string id = std::to_string(member.rec.id);
    const ModelSql &sql = member.sql;
    const std::string instant = sql.instantOf("t." + sql.column, quoteLiteral(member.model->timezone));
    return "CREATE VIEW " + view + " AS SELECT " + sql.columnList + " FROM " + member.rec.stage + " UNION ALL SELECT "
           + sql.columnList + " FROM " + sql.target + " AS t WHERE NOT (" + instant
           + " >= (SELECT window_start FROM reprint.backfills WHERE id = " + id + ") AND " + instant
           + " < (SELECT window_end FROM reprint.backfills WHERE id = " + id + "))";
}

} // namespace reprint::backfill
