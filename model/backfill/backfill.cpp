// Engine::backfillSteps and Engine::runSteps: the two ways a window is staged (a backfill
// and its cascade, validated and left for review; the scheduled run of one partition,
// published at once). Each is a short orchestration of the rooms: claim, stage, validate,
// publish, ledger.
#include "engine.h"

#include "claim.h"
#include "ledger.h"
#include "modelsql.h"
#include "publish.h"
#include "reviewfacts.h"
#include "session.h"
#include "sqltext.h"
#include "stage.h"
#include "validate.h"
#include "window.h"

#include <QDateTime>


#include <algorithm>
#include <chrono>
#include <optional>
#include <deque>
#include <map>
#include <set>
#include <utility>

namespace reprint::backfill {

namespace {

// A resumed backfill's cascade: the backfill, then its members in the order they were
// recorded, and the models of those members.
struct Resumed {
    std::vector<long long> ids;
    std::set<std::string> models;
};

std::vector<std::string> splitList(const std::string &text)
{
    std::vector<std::string> out;
    for (const QString &item : QString::fromStdString(text).split(QLatin1Char(','), Qt::SkipEmptyParts))
        out.push_back(item.toStdString());
    return out;
}

// A resume takes its model and window from the backfill itself (into `req`), and resumes a
// cascade as a whole: a downstream member alone would read the upstream's target instead
// of its staged rows.
Task<Result<Resumed>> readResumed(const std::string &conninfo, BackfillRequest &req, CancelTokenPtr cancel)
{
    auto conn = co_await openSession(conninfo, "reprint", cancel);
    if (!conn)
        co_return conn.error();
    auto b = co_await readBackfill(**conn, req.resumeId, false);
    if (!b)
        co_return b.error();
    const std::string id = std::to_string(req.resumeId);
    auto family = co_await (*conn)->query("SELECT coalesce((SELECT parent_id::text FROM reprint.backfills WHERE id = $1), ''), "
                                          "coalesce((SELECT string_agg(id::text, ',' ORDER BY id) FROM reprint.backfills "
                                          "WHERE parent_id = $1), ''), "
                                          "coalesce((SELECT string_agg(model, ',') FROM reprint.backfills WHERE parent_id = $1), '')",
                                          args(id));
    (*conn)->close();
    if (!family)
        co_return family.error();
    const auto &row = family->last().rows.front();
    if (!row[0]->empty())
        co_return usage("backfill " + id + " is part of the cascade of backfill " + *row[0],
                        "Resume the cascade as a whole: `reprint backfill --resume " + *row[0] + "`.");
    Resumed out;
    out.ids.push_back(req.resumeId);
    for (const std::string &child : splitList(*row[1]))
        out.ids.push_back(std::stoll(child));
    // The members left out when it started stay out.
    for (const std::string &name : splitList(*row[2]))
        out.models.insert(name);
    req.cascade = out.ids.size() > 1;
    req.model = b->model;
    req.from = b->from;
    req.to = b->to;
    co_return out;
}

// The downstream models left out of this backfill: those named by --leave-out (each must
// be downstream of the root), and on a resume those its cascade did not stage.
Result<std::set<std::string>> leftOut(const Spec &spec, const Window &w, const BackfillRequest &req, const Resumed &resumed)
{
    std::set<std::string> leaveOut(req.leaveOut.begin(), req.leaveOut.end());
    if (!leaveOut.empty() && !req.cascade)
        return usage("--leave-out needs --cascade", "Add --cascade, or drop --leave-out: without a cascade every downstream model is left stale.");
    const std::vector<DownstreamWindow> downstream = downstreamWindows(spec, w);
    for (const std::string &name : leaveOut)
        if (std::none_of(downstream.begin(), downstream.end(), [&](const DownstreamWindow &d) { return d.model->name == name; })) {
            std::string names;
            for (const DownstreamWindow &d : downstream)
                names += (names.empty() ? "" : ", ") + d.model->name;
            return usage("--leave-out " + name + ": it is not downstream of " + w.model->name,
                         downstream.empty() ? "Nothing is downstream of " + w.model->name + "; drop --leave-out."
                                            : "The downstream models are " + names + ".");
        }
    if (req.resumeId > 0 && req.cascade)
        for (const DownstreamWindow &d : downstream)
            if (!resumed.models.count(d.model->name))
                leaveOut.insert(d.model->name);
    return leaveOut;
}

// Tells the progress callback what the backfill does now.
struct Announcer {
    ProgressFn progress;
    int total = 0;
    void operator()(const std::string &phase, long long id, const std::string &message) const
    {
        if (!progress)
            return;
        BackfillEvent e;
        e.backfillId = id;
        e.phase = phase;
        e.message = message;
        e.total = total;
        progress(e);
    }
};

// The view a cascade's downstream members read `member`'s model through.
std::string cascadeViewName(long long id, const Model &model)
{
    return quoteRelation("reprint_staging", stageTableName(id, model) + "_cascade");
}

// A resume takes each member's claim back; each downstream member's SQL reads its upstreams
// through their cascade views.
Task<Status> reclaimMembers(warehouse::Connection &c, const Spec &spec, std::vector<Member> &members, const Resumed &resumed,
                            const EngineOptions &opt)
{
    if (resumed.ids.size() != members.size())
        co_return conflict("the downstream models of " + members[0].model->name + " changed since cascade "
                               + std::to_string(resumed.ids[0]) + " started (" + std::to_string(resumed.ids.size() - 1)
                               + " then, " + std::to_string(members.size() - 1) + " now)",
                           "Abandon it (`reprint abandon " + std::to_string(resumed.ids[0]) + "`) and start a new cascade.");
    std::map<std::string, std::string> views;
    for (std::size_t i = 0; i < members.size(); ++i) {
        if (i > 0) {
            auto dsql = co_await describeModel(c, spec, *members[i].model, views);
            if (!dsql)
                co_return dsql.error();
            members[i].sql = std::move(*dsql);
        }
        auto rec = co_await resumeClaim(c, resumed.ids[i], members[i].sql, members[i].window, opt);
        if (!rec)
            co_return rec.error();
        members[i].rec = std::move(*rec);
        views[members[i].model->name] = cascadeViewName(resumed.ids[i], *members[i].model);
    }
    co_return warehouse::ok();
}

// Every member is recorded and claimed in one transaction: all or none. Downstream members
// read their upstreams through views of the staged rows.
Task<Status> claimMembers(warehouse::Connection &c, const Spec &spec, std::vector<Member> &members, const EngineOptions &opt)
{
    auto r = co_await c.execute("BEGIN");
    if (!r)
        co_return r.error();
    for (Member &mem : members) {
        auto rec = co_await recordAndClaimIn(c, mem.sql, mem.window, "backfill", opt, members[0].rec.id);
        if (!rec) {
            co_await rollback(c);
            co_return rec.error();
        }
        mem.rec = std::move(*rec);
    }
    std::map<std::string, std::string> views;
    for (std::size_t i = 0; i + 1 < members.size() && r; ++i) {
        const std::string view = cascadeViewName(members[i].rec.id, *members[i].model);
        r = co_await c.query(cascadeViewSql(members[i], view));
        views[members[i].model->name] = view;
    }
    if (r)
        r = co_await c.execute("COMMIT");
    if (!r) {
        co_await rollback(c);
        co_return r.error();
    }
    for (std::size_t i = 1; i < members.size(); ++i) {
        auto dsql = co_await describeModel(c, spec, *members[i].model, views);
        if (!dsql)
            co_return dsql.error();
        members[i].sql = std::move(*dsql);
    }
    co_return warehouse::ok();
}

// The partitions of `mem` to stage, in stagingOrder (boundary partitions first). A resume
// re-stages what is not staged (or only what failed); `done` counts the partitions it keeps.
std::deque<std::pair<Partition, bool>> stageQueue(const Member &mem, const BackfillRequest &req, int &done)
{
    auto wanted = [&](const Partition &p) {
        if (req.resumeId <= 0)
            return true;
        auto it = mem.rec.states.find(epoch(p));
        const PartitionStage state = it == mem.rec.states.end() ? PartitionStage::Queued : it->second;
        return req.retryFailed ? state == PartitionStage::Failed : state != PartitionStage::Staged;
    };
    const std::vector<std::pair<Partition, bool>> order = stagingOrder(mem.window);
    std::deque<std::pair<Partition, bool>> queue;
    done = 0;
    for (const auto &item : order) {
        if (wanted(item.first))
            queue.push_back(item);
        else
            ++done;
    }
    return queue;
}

// Validates each staged member. A member that cannot be validated fails the whole backfill
// (never a zombie `staging`: the failure is stored and the claim let go at once); a member
// that fails validation adds its message.
// Waits for the source checks still being read (those no validation took), so that none
// outlives the members it reads for.
Task<void> settle(std::vector<PendingChecks> &checks)
{
    for (PendingChecks &pending : checks)
        if (pending.group)
            co_await joinAll(std::exchange(pending.group, {}));
}

Task<Result<std::string>> validateMembers(warehouse::Connection &c, std::vector<Member> &members, const EngineOptions &opt,
                                          const std::string &conninfo, std::vector<PendingChecks> &checks, const Announcer &announce,
                                          Laps &laps)
{
    const long long root = members[0].rec.id;
    std::string failures;
    for (std::size_t i = 0; i < members.size(); ++i) {
        Member &mem = members[i];
        announce("validating", mem.rec.id, "validating " + windowText(mem.window.first(), mem.window.last()) + " of " + mem.model->name);
        laps.lap("stage");
        auto v = co_await validateMember(c, mem, opt, std::exchange(checks[i], {}), laps);
        if (!v) {
            Error e = v.error();
            if (!backfill::isConcurrencyConflict(e.kind)) {
                for (Member &other : members)
                    co_await markFailed(c, other.rec.id, Failure::Error, "validation of " + mem.model->name + " failed: " + e.toSentence(), conninfo);
                e.message = "backfill " + std::to_string(root) + " (" + mem.model->name + ") could not be validated: " + e.message;
                e.hint += std::string(e.hint.empty() ? "" : " ") + "Its staged partitions are kept: once fixed, `reprint backfill --resume "
                          + std::to_string(root) + "` validates again; `reprint abandon " + std::to_string(root)
                          + "` frees the window.";
            }
            co_return e;
        }
        if (!v->passed)
            failures += (failures.empty() ? "" : " ") + (members.size() > 1 ? mem.model->name + ": " : std::string()) + v->message;
    }
    co_return failures;
}

// The members of a backfill: the root, then (with --cascade) each downstream model it
// stages, described from the catalog. The downstream models it leaves stale go to `stale`.
Task<Result<std::vector<Member>>> membersOf(warehouse::Connection &c, const Spec &spec, const BackfillRequest &req,
                                            Member root, const std::set<std::string> &leaveOut,
                                            std::vector<std::string> &stale)
{
    std::vector<Member> members{std::move(root)};
    for (const DownstreamWindow &dw : downstreamWindows(spec, members[0].window, leaveOut)) {
        if (!req.cascade || !dw.staged)
            stale.push_back(dw.model->name + " " + dw.window.text());
        else
            members.push_back(Member{dw.model, dw.window, {}, {}});
    }
    for (std::size_t i = 1; i < members.size(); ++i) {
        auto dsql = co_await describeModel(c, spec, *members[i].model);
        if (!dsql)
            co_return dsql.error();
        members[i].sql = std::move(*dsql);
    }
    co_return members;
}

// Stages each member of the backfill in turn (the root first), each member's source
// checks starting on their own connections beside its staging (the root's on
// `rootChecks`, opened when the backfill started). A member that fails to
// stage marks the others failed; the checks started are joined before returning.
Task<Status> stageMembers(warehouse::Connection &c, std::vector<Member> &members, const BackfillRequest &req,
                          const std::string &conninfo, const EngineOptions &options, const CheckSessions &rootChecks,
                          std::vector<PendingChecks> &checks, const Announcer &announce, const ProgressFn &progress,
                          const CancelTokenPtr &cancel)
{
    const auto executor = co_await asio::this_coro::executor;
    for (std::size_t i = 0; i < members.size(); ++i) {
        Member &mem = members[i];
        int done = 0;
        auto queue = stageQueue(mem, req, done);
        if (i == 0)
            checks[i] = startChecks(executor, rootChecks, mem.sql, mem.window.before, mem.window.after);
        else
            checks[i] = startChecks(executor, conninfo, mem.sql, mem.window.before, mem.window.after, cancel);
        const int parallel = std::min(req.parallel, mem.model->maxParallel);
        announce("staging", mem.rec.id, "staging " + counted(static_cast<long long>(queue.size()), "partition") + " of " + mem.model->name + " over "
                                            + counted(std::max(1, std::min<int>(parallel, static_cast<int>(queue.size()))), "connection"));
        auto staged = co_await stageMember(c, mem, conninfo, options, std::move(queue), done, parallel, progress, cancel);
        if (!staged) {
            co_await settle(checks);
            for (Member &other : members)
                if (other.rec.id != mem.rec.id)
                    co_await markFailed(c, other.rec.id, Failure::Error, "a model of its cascade failed to stage: " + mem.model->name, conninfo);
            co_return staged.error();
        }
    }
    co_return warehouse::ok();
}

} // namespace

Task<Result<BackfillOutcome>> Engine::backfillSteps(BackfillRequest req, ProgressFn progress, CancelTokenPtr cancel)
{
    Laps laps;  // --timings: from the start, connecting included
    if (!cancel)
        cancel = std::make_shared<CancelToken>();
    if (req.retryFailed && req.resumeId <= 0)
        co_return usage("--retry-failed needs --resume ID", "Name the backfill whose failed partitions to re-stage.");
    Resumed resumed;
    if (req.resumeId > 0) {
        auto r = co_await readResumed(m_conninfo, req, cancel);
        if (!r)
            co_return r.error();
        resumed = std::move(*r);
    }
    auto m = model(req.model);
    if (!m)
        co_return m.error();
    auto w = windowOf(**m, req.from, req.to);
    if (!w)
        co_return w.error();
    if (req.parallel < 1)
        co_return usage("--parallel must be at least 1");
    auto leaveOut = leftOut(m_spec, *w, req, resumed);
    if (!leaveOut)
        co_return leaveOut.error();
    // The root's check sessions connect while this one connects, reads the catalog and
    // claims the window: the checks start with the staging, on sessions already there.
    const auto executor = co_await asio::this_coro::executor;
    const CheckSessions rootChecks = openCheckSessions(executor, m_conninfo, (*m)->checks.size(), cancel);
    auto s = co_await open(*m, cancel);
    if (!s)
        co_return s.error();
    auto &c = *(*s)->conn;
    const Announcer announce{progress, static_cast<int>(w->partitions.size())};

    std::vector<std::string> stale;  // "model window" of each downstream model this backfill leaves stale
    Member root{*m, *w, (*s)->sql, {}};  // named, not a temporary in the co_await (GCC 12 frees such twice)
    auto cascade = co_await membersOf(c, m_spec, req, std::move(root), *leaveOut, stale);
    if (!cascade)
        co_return cascade.error();
    std::vector<Member> &members = *cascade;
    laps.lap("connect and read the catalog");
    announce("claiming", req.resumeId, "claiming " + windowText(w->first(), w->last()) + " of " + (*m)->name
                                           + (members.size() > 1 ? " and " + counted(static_cast<long long>(members.size() - 1), "downstream model") : ""));
    // No ?: inside co_await (GCC 12, see connectTo).
    Status claimed = warehouse::ok();
    if (req.resumeId > 0)
        claimed = co_await reclaimMembers(c, m_spec, members, resumed, m_options);
    else
        claimed = co_await claimMembers(c, m_spec, members, m_options);
    if (!claimed)
        co_return claimed.error();
    laps.lap("claim the window");
    BackfillOutcome outcome;
    outcome.id = members[0].rec.id;
    outcome.takeover = members[0].rec.takeover;
    if (!outcome.takeover.empty())
        announce("claiming", outcome.id, outcome.takeover);

    std::vector<PendingChecks> checks(members.size());
    auto staged = co_await stageMembers(c, members, req, m_conninfo, m_options, rootChecks, checks, announce, progress, cancel);
    if (!staged)
        co_return staged.error();

    auto failures = co_await validateMembers(c, members, m_options, m_conninfo, checks, announce, laps);
    co_await settle(checks);
    if (!failures)
        co_return failures.error();
    outcome.validationPassed = failures->empty();
    outcome.staleDownstream = stale;
    auto reviews = co_await readReviewCascade(c, m_spec, outcome.id);
    if (!reviews)
        co_return reviews.error();
    outcome.review = std::move(reviews->front());
    outcome.cascade.assign(std::make_move_iterator(reviews->begin() + 1), std::make_move_iterator(reviews->end()));
    laps.lap("read the review back");
    outcome.timings = laps.timings();
    announce("done", outcome.id, failures->empty() ? "validation passed" : "validation failed: " + *failures);
    co_return outcome;
}

Task<Result<RunOutcome>> Engine::runSteps(std::string modelName, std::string partition, CancelTokenPtr cancel)
{
    if (!cancel)
        cancel = std::make_shared<CancelToken>();
    auto s = co_await openWindow(modelName, partition, partition, cancel);
    if (!s)
        co_return s.error();
    auto &c = *(*s)->conn;
    const ModelSql &sql = (*s)->sql;
    const Model *m = (*s)->model;
    const Window *w = &*(*s)->window;
    auto rec = co_await recordAndClaim(c, sql, *w, "run", m_options);
    if (!rec)
        co_return rec.error();
    StageRun run;
    run.conninfo = m_conninfo;
    run.model = m;
    run.sql = &sql;
    run.id = rec->id;
    run.stage = rec->stage;
    run.cancel = cancel;
    run.total = 1;
    const auto t0 = std::chrono::steady_clock::now();
    auto staged = co_await stagePartition(c, run, w->first(), true);
    if (!staged) {
        co_await markFailed(c, rec->id, Failure::Error, "partition " + partition + ": " + staged.error().toSentence(), m_conninfo);
        auto drop = co_await c.query("DROP TABLE IF EXISTS " + rec->stage);
        (void)drop;
        auto released = co_await c.query("DELETE FROM reprint.claims WHERE backfill_id = $1", args(std::to_string(rec->id)));
        (void)released;
        Error e = staged.error();
        e.message = "run of " + modelName + " " + partition + " failed: " + e.message;
        co_return e;
    }
    auto r = co_await c.execute("BEGIN");
    if (r)
        r = co_await c.query("SELECT set_config('lock_timeout', $1, true), "
                             "pg_advisory_xact_lock(hashtext('reprint.publish'), hashtext($2))",
                             args(std::to_string(m_options.lockTimeoutMs) + "ms", modelName));
    if (!r) {
        co_await rollback(c);
        co_return r.error();
    }
    PublishPlan plan;
    plan.id = rec->id;
    plan.window = &*w;
    plan.stage = rec->stage;
    plan.note = "scheduled run";
    plan.auditAction = "run";
    plan.strategy = m->publish;
    plan.options = &m_options;
    plan.retry = "`reprint run --model " + modelName + " --partition " + partition + "`";
    auto published = co_await publishWindow(c, sql, plan);
    if (published)
        r = co_await c.execute("COMMIT");
    if (!published || !r) {
        const Error e = !published ? published.error() : r.error();
        co_await rollback(c);
        co_await markFailed(c, rec->id, Failure::Error, e.toSentence(), m_conninfo);
        co_return e;
    }
    RunOutcome out;
    out.id = rec->id;
    out.partition = w->first().name;
    out.rows = published->rowsInserted;
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    co_return out;
}

} // namespace reprint::backfill
