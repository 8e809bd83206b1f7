#include "engine.h"

#include "claim.h"
#include "ledger.h"
#include "migrations.h"
#include "modelsql.h"
#include "privileges.h"
#include "publish.h"
#include "session.h"
#include "sqltext.h"
#include "stage.h"
#include "validate.h"
#include "window.h"

#include <QDateTime>


#include <algorithm>
#include <chrono>
#include <optional>
#include <map>
#include <set>

namespace reprint::backfill {

std::string counted(long long n, const std::string &noun, const std::string &plural)
{
    return std::to_string(n) + " " + (n == 1 ? noun : plural.empty() ? noun + "s" : plural);
}

std::string completeCommands(const std::string &text, const std::string &specPath)
{
    if (specPath.empty())
        return text;
    std::string path = specPath;
    if (path.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+=:,@") != std::string::npos) {
        path = "'";
        for (char ch : specPath)
            path += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
        path += "'";
    }
    static const std::set<std::string> verbs = {"init", "status", "run", "backfill", "diff", "publish", "cancel",
                                                "abandon", "undo", "report", "history"};
    std::string out;
    std::size_t pos = 0;
    while (pos < text.size()) {
        const std::size_t open = text.find('`', pos);
        if (open == std::string::npos)
            break;
        const std::size_t close = text.find('`', open + 1);
        if (close == std::string::npos)
            break;
        std::string command = text.substr(open + 1, close - open - 1);
        if (command.rfind("reprint ", 0) == 0 && command.find(" --spec ") == std::string::npos) {
            const std::size_t verbEnd = std::min(command.find(' ', 8), command.size());
            if (verbs.count(command.substr(8, verbEnd - 8)))
                command.insert(verbEnd, " --spec " + path);
        }
        out += text.substr(pos, open - pos) + "`" + command + "`";
        pos = close + 1;
    }
    return out + text.substr(std::min(pos, text.size()));
}

const char *toString(PartitionProgress::State state)
{
    switch (state) {
    case PartitionProgress::State::Queued: return "queued";
    case PartitionProgress::State::Staging: return "staging";
    case PartitionProgress::State::Staged: return "staged";
    case PartitionProgress::State::Failed: return "failed";
    }
    return "queued";
}

PartitionStage partitionStageFrom(std::string_view word)
{
    for (PartitionStage s : {PartitionStage::Queued, PartitionStage::Staging, PartitionStage::Staged, PartitionStage::Failed})
        if (word == toString(s))
            return s;
    return PartitionStage::Queued;
}

Engine::Engine(const Spec &spec, std::string conninfo, EngineOptions options)
    : m_spec(spec)
    , m_conninfo(std::move(conninfo))
    , m_options(std::move(options))
{
    if (m_options.holder.empty())
        m_options.holder = holderName();
}

Result<const Model *> Engine::model(const std::string &name) const
{
    if (const Model *m = m_spec.model(name))
        return m;
    std::string names;
    for (const Model &m : m_spec.models)
        names += (names.empty() ? "" : ", ") + m.name;
    return usage("no model '" + name + "' in " + m_spec.path, "The spec's models are: " + names + ".");
}

Result<std::string> Engine::transformHash(const Model &model) const
{
    return transformHashOf(m_spec, model);
}

Task<Result<std::shared_ptr<Engine::Session>>> Engine::open(const Model *model, CancelTokenPtr cancel)
{
    auto conn = co_await openSession(m_conninfo, "reprint", cancel);
    if (!conn)
        co_return conn.error();
    auto schema = co_await requireSchema(**conn);
    if (!schema)
        co_return schema.error();
    auto s = std::make_shared<Session>();
    s->conn = *conn;
    if (model) {
        auto sql = co_await describeModel(**conn, m_spec, *model);
        if (!sql)
            co_return sql.error();
        s->sql = std::move(*sql);
    }
    co_return s;
}

Task<Result<std::shared_ptr<Engine::Session>>> Engine::openWindow(std::string modelName, std::string from, std::string to,
                                                                  CancelTokenPtr cancel)
{
    auto m = model(modelName);
    if (!m)
        co_return m.error();
    auto w = windowOf(**m, from, to);
    if (!w)
        co_return w.error();
    auto s = co_await open(*m, std::move(cancel));
    if (!s)
        co_return s.error();
    (*s)->model = *m;
    (*s)->window = std::move(*w);
    co_return s;
}

namespace {

// The names of the `count` partitions ending with the newest one of `sql`'s target that
// holds rows (a date or timestamp column read as a wall time in the model's zone).
Task<Result<std::pair<std::string, std::string>>> latestPartitions(warehouse::Connection &c, const ModelSql &sql, int count)
{
    auto newest = co_await c.query("SELECT extract(epoch FROM max(" + sql.instantOf(sql.column, "$1") + "))::bigint::text FROM " + sql.target,
                                   args(sql.model->timezone));
    if (!newest)
        co_return newest.error();
    const Value &last = newest->last().rows.front()[0];
    if (!last)
        co_return Error::make(ErrorKind::Data, sql.target + " holds no rows, so there is no latest partition of " + sql.model->name
                                                   + " to show",
                              "Name a window: --from P --to P.");
    const PartitionScheme scheme = sql.model->scheme();
    Partition first = scheme.containing(QDateTime::fromSecsSinceEpoch(std::stoll(*last), scheme.timezone()));
    const std::string to = first.name;
    for (int i = 1; i < count; ++i)
        first = scheme.previous(first);
    co_return std::pair{first.name, to};
}

// When each partition of `w` was last loaded, and who claims it: what status shows beside
// the totals.
struct PartitionMarks {
    std::map<long long, std::string> loadedAt;  // partition start epoch -> UTC instant text
    struct Holder {
        long long from, to;  // [from, to) epochs
        std::string who;     // "backfill 12 (ana, staging)" or "run 7 (…)"
    };
    std::vector<Holder> claims;

    std::string claimOf(long long key) const
    {
        std::string who;
        for (const Holder &h : claims)
            if (h.from <= key && key < h.to)
                who = h.who;
        return who;
    }
};

Task<Result<PartitionMarks>> readMarks(warehouse::Connection &c, const std::string &modelName, const Window &w)
{
    const Params bounds = args(modelName, w.first().startText(), w.last().endText());
    auto loads = co_await c.query(
        "SELECT extract(epoch FROM partition_start)::bigint, to_char(loaded_at AT TIME ZONE 'UTC', "
        "'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"') FROM reprint.partition_loads "
        "WHERE model = $1 AND partition_start >= $2 AND partition_start < $3",
        bounds, oids(0, kTimestamptzOid, kTimestamptzOid));
    if (!loads)
        co_return loads.error();
    auto claims = co_await c.query(
        "SELECT extract(epoch FROM lower(c.span))::bigint, extract(epoch FROM upper(c.span))::bigint, "
        "CASE b.kind WHEN 'run' THEN 'run ' ELSE 'backfill ' END || b.id || ' (' || b.operator || ', ' || b.status || ')' "
        "FROM reprint.claims c JOIN reprint.backfills b ON b.id = c.backfill_id "
        "WHERE c.model = $1 AND c.span && tstzrange($2, $3)",
        bounds, oids(0, kTimestamptzOid, kTimestamptzOid));
    if (!claims)
        co_return claims.error();
    PartitionMarks marks;
    for (const auto &row : loads->last().rows)
        marks.loadedAt[std::stoll(*row[0])] = row[1].value_or("");
    for (const auto &row : claims->last().rows)
        marks.claims.push_back({std::stoll(*row[0]), std::stoll(*row[1]), *row[2]});
    co_return marks;
}

} // namespace

Task<Result<std::shared_ptr<Engine::Session>>> Engine::openLatestWindow(std::string modelName, CancelTokenPtr cancel)
{
    auto m = model(modelName);
    if (!m)
        co_return m.error();
    auto s = co_await open(*m, std::move(cancel));
    if (!s)
        co_return s.error();
    auto latest = co_await latestPartitions(*(*s)->conn, (*s)->sql, kLatestPartitions);
    if (!latest)
        co_return latest.error();
    auto w = windowOf(**m, latest->first, latest->second);
    if (!w)
        co_return w.error();
    (*s)->model = *m;
    (*s)->window = std::move(*w);
    co_return s;
}

Task<Result<int>> Engine::init()
{
    auto conn = co_await openSession(m_conninfo);
    if (!conn)
        co_return conn.error();
    auto outcome = co_await migrate(**conn);
    if (!outcome)
        co_return outcome.error();
    co_return outcome->toVersion;
}

Task<Result<std::vector<StatusRow>>> Engine::status(std::string modelName, std::string from, std::string to,
                                                    CancelTokenPtr cancel, StatusReads reads)
{
    if (from.empty() != to.empty())
        co_return usage("status needs both --from and --to, or neither (then the latest " + std::to_string(kLatestPartitions)
                            + " partitions that hold data)",
                        "Give both, e.g. --from 2026-03-01 --to 2026-03-31.");
    // No ?: inside co_await (GCC 12, see connectTo).
    Result<std::shared_ptr<Session>> s = Error::make(ErrorKind::Internal, "no session");
    if (from.empty())
        s = co_await openLatestWindow(modelName, cancel);
    else
        s = co_await openWindow(modelName, from, to, cancel);
    if (!s)
        co_return s.error();
    auto &c = *(*s)->conn;
    const ModelSql &sql = (*s)->sql;
    const Model *m = (*s)->model;
    const Window *w = &*(*s)->window;

    // The checks scan the source on connections of their own while the totals are read.
    const bool withChecks = reads == StatusReads::TotalsAndChecks;
    PendingChecks pending;
    if (withChecks) {
        const auto executor = co_await asio::this_coro::executor;
        pending = startChecks(executor, m_conninfo, sql, w->first(), w->last(), cancel);
    }
    auto totals = co_await readTotals(c, sql, sql.target, w->first(), w->last());
    Result<CheckValues> checks = CheckValues{};
    if (withChecks)
        checks = co_await awaitChecks(std::move(pending));  // on every path: `sql` must outlive it
    if (!totals)
        co_return totals.error();
    if (!checks)
        co_return checks.error();
    auto marks = co_await readMarks(c, modelName, *w);
    if (!marks)
        co_return marks.error();

    std::vector<StatusRow> out;
    out.reserve(w->partitions.size());
    for (const Partition &p : w->partitions) {
        const long long key = epoch(p);
        StatusRow row;
        row.partition = p;
        row.rows = std::stoll(*totalOf(*totals, key, 0));
        for (std::size_t i = 0; i < m->measures.size(); ++i)
            row.measures.emplace_back(m->measures[i], totalOf(*totals, key, i + 1).value_or(""));
        row.checksRead = withChecks;
        for (const Check &ck : m->checks) {
            if (!withChecks)
                break;
            const Value source = checkOf(*checks, ck.name, key);
            const Value mine = totalOf(*totals, key, measureIndex(*m, ck.measure));
            std::string state = !source ? "unknown" : agrees(mine, source, ck.tolerance) ? "ok" : "mismatch";
            row.checks.emplace_back(ck.name, state);
            row.checkValues.emplace_back(ck.name, source.value_or(""));
        }
        if (auto it = marks->loadedAt.find(key); it != marks->loadedAt.end())
            row.loadedAt = it->second;
        row.claimedBy = marks->claimOf(key);
        out.push_back(std::move(row));
    }
    co_return out;
}

Task<Result<std::vector<HistoryRow>>> Engine::history(std::string modelName)
{
    auto s = co_await open(nullptr, {});
    if (!s)
        co_return s.error();
    std::vector<std::string> names;
    for (const Model &m : m_spec.models)
        if (modelName.empty() || m.name == modelName)
            names.push_back(m.name);
    co_return co_await readHistory(*(*s)->conn, names, 0);
}

Task<Result<PublishOutcome>> Engine::publishSteps(PublishRequest req, CancelTokenPtr cancel)
{
    Laps laps;  // --timings: from the start, connecting included
    if (req.note.empty())
        co_return usage("publishing needs an approval note", "Pass --approve \"why this is right\".");
    // The drift guard's sessions connect while this one connects, reads the backfill and
    // fences the target's writers: by the guard they are ready (one per check, at most
    // three, for the model with the most; the members of a cascade share them).
    std::size_t checkCount = 0;
    for (const Model &m : m_spec.models)
        checkCount = std::max(checkCount, m.checks.size());
    const auto executor = co_await asio::this_coro::executor;
    const CheckSessions checkSessions = openCheckSessions(executor, m_conninfo, checkCount, cancel);
    auto s = co_await open(nullptr, cancel);
    if (!s)
        co_return s.error();
    auto &c = *(*s)->conn;
    const std::string id = std::to_string(req.id);
    auto first = co_await readBackfill(c, req.id, false);
    if (!first)
        co_return first.error();
    auto parent = co_await c.query("SELECT coalesce(parent_id::text, '') FROM reprint.backfills WHERE id = $1", args(id));
    if (!parent)
        co_return parent.error();
    if (!parent->last().scalar().empty())
        co_return usage("backfill " + id + " is part of the cascade of backfill " + parent->last().scalar(),
                        "Publish the cascade as a whole: `reprint publish " + parent->last().scalar() + " --approve NOTE`.");
    // The backfill and, for a cascade, its downstream backfills: one transaction for all.
    auto children = co_await c.query("SELECT id::text FROM reprint.backfills WHERE parent_id = $1 ORDER BY id", args(id));
    if (!children)
        co_return children.error();
    std::vector<long long> ids{req.id};
    for (const auto &row : children->last().rows)
        ids.push_back(std::stoll(*row[0]));

    auto fail = [&](Error e) -> Task<Result<PublishOutcome>> {
        co_await rollback(c);
        co_return e;
    };
    auto r = co_await c.execute("BEGIN");
    if (r)
        r = co_await c.query("SELECT set_config('lock_timeout', $1, true)", args(std::to_string(m_options.lockTimeoutMs) + "ms"));
    if (!r)
        co_return co_await fail(r.error());
    PublishOutcome total;
    total.id = req.id;
    laps.lap("connect and read the backfill");
    for (long long memberId : ids) {
        auto b = co_await readBackfill(c, memberId, true);
        if (!b)
            co_return co_await fail(b.error());
        auto m = model(b->model);
        if (!m)
            co_return co_await fail(m.error());
        const Window claimed = b->window(**m);
        const Window *w = &claimed;
        auto locked = co_await c.query("SELECT pg_advisory_xact_lock(hashtext('reprint.publish'), hashtext($1))", args((*m)->name));
        if (!locked)
            co_return co_await fail(locked.error());
        laps.lap("check the request and read the catalog");
        auto out = co_await publishMember(c, m_spec, **m, *w, *b, req, m_options, checkSessions, cancel, laps);
        if (!out)
            co_return co_await fail(out.error());
        total.rowsReplaced += out->rowsReplaced;
        total.rowsInserted += out->rowsInserted;
        total.approver = out->approver;
        total.strategy = out->strategy;
        if (total.lockedAt == std::chrono::steady_clock::time_point() || out->lockedAt < total.lockedAt)
            total.lockedAt = out->lockedAt;
    }
    auto committed = co_await commitOrReadBack(c, m_conninfo, req.id, BackfillStatus::Published,
                                               "Publish it again: `reprint publish " + id + " --approve NOTE`.");
    total.lockHeldMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - total.lockedAt).count();
    if (!committed)
        co_return committed.error();
    laps.lap("commit");
    total.timings = laps.timings();
    co_return total;
}

Task<Result<std::string>> Engine::requestCancel(long long id)
{
    auto s = co_await open(nullptr, {});
    if (!s)
        co_return s.error();
    auto &c = *(*s)->conn;
    const std::string ids = std::to_string(id);
    auto b = co_await beginWithBackfill(c, id);
    if (!b)
        co_return b.error();
    if (!isUnderway(b->status)) {
        co_await rollback(c);
        co_return conflict("backfill " + ids + " is " + toString(b->status) + ", not staging: there is nothing to cancel",
                           b->status == BackfillStatus::Staged ? "To drop what it staged, abandon it (`reprint abandon " + ids + "`)."
                                                 : std::string());
    }
    auto claim = co_await c.query("SELECT holder, lease_expires < now(), " + utcTimeText("lease_expires") + " FROM reprint.claims WHERE backfill_id = $1",
                                  args(ids));
    if (!claim) {
        co_await rollback(c);
        co_return claim.error();
    }
    if (claim->last().rows.empty() || *claim->last().rows.front()[1] == "t") {
        const std::string since = claim->last().rows.empty() ? std::string() : " (lease lapsed " + *claim->last().rows.front()[2] + ")";
        co_await rollback(c);
        co_return conflict("backfill " + ids + "'s process stopped answering" + since + ": nobody is staging it to cancel",
                           "Resume it (`reprint backfill --resume " + ids + "`) or abandon it (`reprint abandon " + ids + "`).");
    }
    const std::string holder = *claim->last().rows.front()[0];
    auto r = co_await c.query("INSERT INTO reprint.audit (backfill_id, action, note) VALUES ($1, 'cancel', $2)",
                         args(ids, "asked " + holder + " to cancel"));
    if (r)
        r = co_await c.query("SELECT pg_notify('reprint_cancel', $1)", args(ids));
    if (r)
        r = co_await c.execute("COMMIT");
    if (!r) {
        co_await rollback(c);
        co_return r.error();
    }
    co_return holder;
}

Task<Status> Engine::abandonSteps(long long id)
{
    auto s = co_await open(nullptr, {});
    if (!s)
        co_return s.error();
    auto &c = *(*s)->conn;
    auto fail = [&](Error e) -> Task<Status> {
        co_await rollback(c);
        co_return e;
    };
    auto r = co_await c.execute("BEGIN");
    if (!r)
        co_return r.error();
    // A cascade is abandoned as a whole: the backfill and its downstream backfills; a
    // member alone would leave its root publishing without it.
    auto parent = co_await c.query("SELECT coalesce(parent_id::text, '') FROM reprint.backfills WHERE id = $1", args(std::to_string(id)));
    if (!parent)
        co_return co_await fail(parent.error());
    if (!parent->last().rows.empty() && !parent->last().scalar().empty())
        co_return co_await fail(usage("backfill " + std::to_string(id) + " is part of the cascade of backfill " + parent->last().scalar(),
                                      "Abandon the cascade as a whole: `reprint abandon " + parent->last().scalar() + "`."));
    auto children = co_await c.query("SELECT id FROM reprint.backfills WHERE parent_id = $1 ORDER BY id", args(std::to_string(id)));
    if (!children)
        co_return co_await fail(children.error());
    std::vector<long long> members{id};
    for (const auto &row : children->last().rows)
        members.push_back(std::stoll(*row[0]));
    for (long long memberId : members) {
        const std::string ids = std::to_string(memberId);
        auto b = co_await readBackfill(c, memberId, true);
        if (!b)
            co_return co_await fail(b.error());
        if (isClosed(b->status)) {
            const std::string hint = b->status == BackfillStatus::Published ? "Use `reprint undo " + ids + "` to restore the replaced rows." : "";
            co_return co_await fail(conflict("backfill " + ids + " is " + toString(b->status) + "; only unpublished backfills can be abandoned", hint));
        }
        if (isUnderway(b->status)) {
            auto live = co_await c.query("SELECT holder, " + utcTimeText("lease_expires") + " FROM reprint.claims WHERE backfill_id = $1 "
                                         "AND lease_expires >= now()",
                                         args(ids));
            if (!live)
                co_return co_await fail(live.error());
            if (!live->last().rows.empty() && !holderGone(*live->last().rows[0][0]))
                co_return co_await fail(conflict("backfill " + ids + " is still staging in " + *live->last().rows[0][0],
                                                 "Cancel it there, or wait until its lease expires at " + *live->last().rows[0][1] + "."));
        }
        if (!b->stageTable.empty())
            r = co_await c.query("DROP TABLE IF EXISTS " + quoteRelation("reprint_staging", b->stageTable) + " CASCADE");
        if (r)
            r = co_await c.query("UPDATE reprint.backfills SET status = 'abandoned', updated_at = now() WHERE id = $1", args(ids));
        if (r)
            r = co_await c.query("DELETE FROM reprint.claims WHERE backfill_id = $1", args(ids));
        if (r)
            r = co_await c.query("INSERT INTO reprint.audit (backfill_id, action) VALUES ($1, 'abandon')", args(ids));
        if (!r)
            co_return co_await fail(r.error());
    }
    r = co_await c.execute("COMMIT");
    if (!r)
        co_return co_await fail(r.error());
    co_return warehouse::ok();
}

Task<Result<UndoOutcome>> Engine::undoSteps(UndoRequest req, CancelTokenPtr cancel)
{
    auto conn = co_await openSession(m_conninfo, "reprint", cancel);
    if (!conn)
        co_return conn.error();
    auto first = co_await readBackfill(**conn, req.id, false);
    if (!first)
        co_return first.error();
    (*conn)->close();
    auto m = model(first->model);
    if (!m)
        co_return m.error();
    const Window claimed = first->window(**m);
    const Window *w = &claimed;
    auto s = co_await open(*m, cancel);
    if (!s)
        co_return s.error();
    auto &c = *(*s)->conn;
    const ModelSql &sql = (*s)->sql;
    const std::string id = std::to_string(req.id);
    auto fail = [&](Error e) -> Task<Result<UndoOutcome>> {
        co_await rollback(c);
        co_return e;
    };

    auto r = co_await c.execute("BEGIN");
    if (r)
        r = co_await c.query("SELECT set_config('lock_timeout', $1, true), "
                             "pg_advisory_xact_lock(hashtext('reprint.publish'), hashtext($2))",
                             args(std::to_string(m_options.lockTimeoutMs) + "ms", (*m)->name));
    if (!r)
        co_return co_await fail(r.error());
    auto b = co_await readBackfill(c, req.id, true);
    if (!b)
        co_return co_await fail(b.error());
    if (auto undoable = co_await checkUndoable(c, *b, *w); !undoable)
        co_return co_await fail(undoable.error());
    // Writers are fenced off first, so that a write committing while undo waits is read by
    // the guard below, never thrown away by the restore (as in publish).
    if (auto fenced = co_await fenceWriters(c, sql, m_options.lockTimeoutMs, "nothing of backfill " + id + " was undone",
                                            "Undo again with `reprint undo " + id + "`");
        !fenced)
        co_return co_await fail(fenced.error());
    // The drift guard: the window must still hold exactly what this backfill published.
    if (req.overrideReason.empty()) {
        auto moved = co_await totalsDrift(c, sql, *w, req.id, StoredTotal::New);
        if (!moved)
            co_return co_await fail(moved.error());
        if (*moved)
            co_return co_await fail(drift("the window was written after backfill " + id + " was published: " + (*moved)->partition
                                              + " " + (*moved)->measure + " is " + (*moved)->current.value_or("NULL")
                                              + ", published " + (*moved)->stored.value_or("NULL") + "; nothing was undone",
                                          "Undoing would throw that write away. Pass --override REASON to undo anyway."));
    }
    auto out = co_await restoreWindow(c, sql, *w, *b, req.overrideReason);
    if (!out)
        co_return co_await fail(out.error());
    auto committed = co_await commitOrReadBack(c, m_conninfo, req.id, BackfillStatus::Undone, "Undo it again: `reprint undo " + id + "`.");
    if (!committed)
        co_return committed.error();
    co_return *out;
}

Task<Result<int>> Engine::pruneArchives(int retentionDays)
{
    auto s = co_await open(nullptr, {});
    if (!s)
        co_return s.error();
    auto &c = *(*s)->conn;
    // An archive goes once it is older than the retention and a later publish of the same
    // model has replaced (part of) its window; the latest publish of a window keeps its own.
    auto r = co_await c.query(
        "SELECT b.id::text, b.archive_table FROM reprint.backfills b "
        "WHERE b.status = 'published' AND b.archive_table IS NOT NULL "
        "AND b.published_at < now() - make_interval(days => $1) "
        "AND EXISTS (SELECT 1 FROM reprint.backfills later WHERE later.model = b.model AND later.status = 'published' "
        "AND later.published_at > b.published_at "
        "AND tstzrange(later.window_start, later.window_end) && tstzrange(b.window_start, b.window_end))",
        args(std::to_string(retentionDays)));
    if (!r)
        co_return r.error();
    int dropped = 0;
    for (const auto &row : r->last().rows) {
        auto x = co_await c.execute("BEGIN");
        if (x)
            x = co_await c.query("DROP TABLE IF EXISTS " + quoteRelation("reprint_archive", *row[1]) + " CASCADE");
        if (x)
            x = co_await c.query("UPDATE reprint.backfills SET archive_table = NULL, updated_at = now() WHERE id = $1", args(*row[0]));
        if (x)
            x = co_await c.execute("COMMIT");
        if (!x) {
            co_await rollback(c);
            co_return x.error();
        }
        ++dropped;
    }
    co_return dropped;
}

Task<Result<BackfillOutcome>> Engine::backfill(BackfillRequest req, ProgressFn progress, CancelTokenPtr cancel)
{
    std::vector<std::string> models;
    if (req.resumeId == 0 && !req.cascade)
        models.push_back(req.model);
    const long long id = req.resumeId;
    auto r = co_await backfillSteps(std::move(req), std::move(progress), std::move(cancel));
    if (r)
        co_return r;
    std::vector<Step> steps = {Step::Open, Step::Claim, Step::Stage, Step::Validate};
    co_return co_await explainPrivilege(m_conninfo, m_spec, std::move(models), id, std::move(steps), r.error());
}

Task<Result<RunOutcome>> Engine::run(std::string modelName, std::string partition, CancelTokenPtr cancel)
{
    auto r = co_await runSteps(modelName, std::move(partition), std::move(cancel));
    if (r)
        co_return r;
    std::vector<std::string> models = {modelName};
    std::vector<Step> steps = {Step::Open, Step::Claim, Step::Stage, Step::Publish};
    co_return co_await explainPrivilege(m_conninfo, m_spec, std::move(models), 0, std::move(steps), r.error());
}

Task<Result<PublishOutcome>> Engine::publish(PublishRequest req, CancelTokenPtr cancel)
{
    const long long id = req.id;
    auto r = co_await publishSteps(std::move(req), std::move(cancel));
    if (r)
        co_return r;
    std::vector<Step> steps = {Step::Open, Step::Publish};
    co_return co_await explainPrivilege(m_conninfo, m_spec, {}, id, std::move(steps), r.error());
}

Task<Result<UndoOutcome>> Engine::undo(UndoRequest req, CancelTokenPtr cancel)
{
    const long long id = req.id;
    auto r = co_await undoSteps(std::move(req), std::move(cancel));
    if (r)
        co_return r;
    std::vector<Step> steps = {Step::Open, Step::Undo};
    co_return co_await explainPrivilege(m_conninfo, m_spec, {}, id, std::move(steps), r.error());
}

Task<Status> Engine::abandon(long long id)
{
    auto r = co_await abandonSteps(id);
    if (r)
        co_return r;
    std::vector<Step> steps = {Step::Open, Step::Abandon};
    co_return co_await explainPrivilege(m_conninfo, m_spec, {}, id, std::move(steps), r.error());
}

} // namespace reprint::backfill
