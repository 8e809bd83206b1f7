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
#include <QCryptographicHash>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTimeZone>

#include <boost/asio/redirect_error.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <deque>
#include <map>
#include <set>
#include <thread>
#include <cstdlib>
#include <unistd.h>

namespace reprint::backfill {

using warehouse::ConnectionPtr;
using warehouse::kTimestamptzOid;
using warehouse::Params;
using warehouse::Reply;
using warehouse::Value;
using warehouse::args;
using warehouse::oids;

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

struct Engine::Session {
    ConnectionPtr conn;
    ModelSql sql;
    const Model *model = nullptr;     // openWindow(): the model
    std::optional<Window> window;     // openWindow(): its window
};

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
                                                    CancelTokenPtr cancel)
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

    auto totals = co_await readTotals(c, sql, sql.target, w->first(), w->last());
    if (!totals)
        co_return totals.error();
    auto checks = co_await readChecksAtOnce(m_conninfo, sql, w->first(), w->last(), cancel);
    if (!checks)
        co_return checks.error();
    auto loads = co_await c.query(
        "SELECT extract(epoch FROM partition_start)::bigint, to_char(loaded_at AT TIME ZONE 'UTC', "
        "'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"') FROM reprint.partition_loads "
        "WHERE model = $1 AND partition_start >= $2 AND partition_start < $3",
        args(modelName, w->first().startText(), w->last().endText()), oids(0, kTimestamptzOid, kTimestamptzOid));
    if (!loads)
        co_return loads.error();
    std::map<long long, std::string> loadedAt;
    for (const auto &row : loads->last().rows)
        loadedAt[std::stoll(*row[0])] = row[1].value_or("");
    auto claims = co_await c.query(
        "SELECT extract(epoch FROM lower(c.span))::bigint, extract(epoch FROM upper(c.span))::bigint, "
        "CASE b.kind WHEN 'run' THEN 'run ' ELSE 'backfill ' END || b.id || ' (' || b.operator || ', ' || b.status || ')' "
        "FROM reprint.claims c JOIN reprint.backfills b ON b.id = c.backfill_id "
        "WHERE c.model = $1 AND c.span && tstzrange($2, $3)",
        args(modelName, w->first().startText(), w->last().endText()), oids(0, kTimestamptzOid, kTimestamptzOid));
    if (!claims)
        co_return claims.error();

    std::vector<StatusRow> out;
    out.reserve(w->partitions.size());
    for (const Partition &p : w->partitions) {
        const long long key = epoch(p);
        StatusRow row;
        row.partition = p;
        row.rows = std::stoll(*totalOf(*totals, key, 0));
        for (std::size_t i = 0; i < m->measures.size(); ++i)
            row.measures.emplace_back(m->measures[i], totalOf(*totals, key, i + 1).value_or(""));
        for (const Check &ck : m->checks) {
            const Value source = checkOf(*checks, ck.name, key);
            const Value mine = totalOf(*totals, key, measureIndex(*m, ck.measure));
            std::string state = !source ? "unknown" : agrees(mine, source, ck.tolerance) ? "ok" : "mismatch";
            row.checks.emplace_back(ck.name, state);
            row.checkValues.emplace_back(ck.name, source.value_or(""));
        }
        if (auto it = loadedAt.find(key); it != loadedAt.end())
            row.loadedAt = it->second;
        for (const auto &cr : claims->last().rows)
            if (std::stoll(*cr[0]) <= key && key < std::stoll(*cr[1]))
                row.claimedBy = *cr[2];
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

// The partitions of `mem` to stage, boundary partitions first: they are the likeliest to be
// wrong, so their review is ready earliest. A resume re-stages what is not staged (or only
// what failed); `done` counts the partitions it keeps.
std::deque<std::pair<Partition, bool>> stageQueue(const Member &mem, const BackfillRequest &req, int &done)
{
    auto wanted = [&](const Partition &p) {
        if (req.resumeId <= 0)
            return true;
        auto it = mem.rec.states.find(epoch(p));
        const std::string state = it == mem.rec.states.end() ? "queued" : it->second;
        return req.retryFailed ? state == "failed" : state != "staged";
    };
    const Window &mw = mem.window;
    std::vector<std::pair<Partition, bool>> order;
    order.emplace_back(mw.first(), true);
    if (mw.partitions.size() > 1)
        order.emplace_back(mw.last(), true);
    for (std::size_t i = 1; i + 1 < mw.partitions.size(); ++i)
        order.emplace_back(mw.partitions[i], false);
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
Task<Result<std::string>> validateMembers(warehouse::Connection &c, std::vector<Member> &members, const EngineOptions &opt,
                                          const std::string &conninfo, const CancelTokenPtr &cancel, const Announcer &announce,
                                          Laps &laps)
{
    const long long root = members[0].rec.id;
    std::string failures;
    for (Member &mem : members) {
        announce("validating", mem.rec.id, "validating " + windowText(mem.window.first(), mem.window.last()) + " of " + mem.model->name);
        laps.lap("stage");
        auto v = co_await validateMember(c, mem, opt, conninfo, cancel, laps);
        if (!v) {
            Error e = v.error();
            if (e.kind != ErrorKind::Conflict) {
                for (Member &other : members)
                    co_await markFailed(c, other.rec.id, "validation of " + mem.model->name + " failed: " + e.toSentence(), conninfo);
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
    auto s = co_await open(*m, cancel);
    if (!s)
        co_return s.error();
    auto &c = *(*s)->conn;
    const Announcer announce{progress, static_cast<int>(w->partitions.size())};

    std::vector<Member> members(1);
    members[0].model = *m;
    members[0].window = *w;
    members[0].sql = (*s)->sql;
    std::vector<std::string> stale;  // "model window" of each downstream model this backfill leaves stale
    for (const DownstreamWindow &dw : downstreamWindows(m_spec, *w, *leaveOut)) {
        if (!req.cascade || !dw.staged)
            stale.push_back(dw.model->name + " " + dw.window.text());
        else
            members.push_back(Member{dw.model, dw.window, {}, {}});
    }
    for (std::size_t i = 1; i < members.size(); ++i) {
        auto dsql = co_await describeModel(c, m_spec, *members[i].model);
        if (!dsql)
            co_return dsql.error();
        members[i].sql = std::move(*dsql);
    }
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

    for (Member &mem : members) {
        int done = 0;
        auto queue = stageQueue(mem, req, done);
        const int parallel = std::min(req.parallel, mem.model->maxParallel);
        announce("staging", mem.rec.id, "staging " + counted(static_cast<long long>(queue.size()), "partition") + " of " + mem.model->name + " over "
                                            + counted(std::max(1, std::min<int>(parallel, static_cast<int>(queue.size()))), "connection"));
        auto staged = co_await stageMember(c, mem, m_conninfo, m_options, std::move(queue), done, parallel, progress, cancel);
        if (!staged) {
            for (Member &other : members)
                if (other.rec.id != mem.rec.id)
                    co_await markFailed(c, other.rec.id, "a model of its cascade failed to stage: " + mem.model->name, m_conninfo);
            co_return staged.error();
        }
    }

    auto failures = co_await validateMembers(c, members, m_options, m_conninfo, cancel, announce, laps);
    if (!failures)
        co_return failures.error();
    outcome.validationPassed = failures->empty();
    outcome.staleDownstream = stale;
    auto reviews = co_await reviewCascade(outcome.id);
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
        co_await markFailed(c, rec->id, "partition " + partition + ": " + staged.error().toSentence(), m_conninfo);
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
        co_await markFailed(c, rec->id, e.toSentence(), m_conninfo);
        co_return e;
    }
    RunOutcome out;
    out.id = rec->id;
    out.partition = w->first().name;
    out.rows = published->rowsInserted;
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    co_return out;
}

namespace {

// Backfill `id`'s stored totals, per partition and measure, into `rv`.
Task<Status> readReviewTotals(warehouse::Connection &c, long long id, Review &rv)
{
    auto r = co_await c.query("SELECT partition, partition_start::text, in_scope::text, boundary::text, measure, "
                              "old::text, new::text, source::text, verdict FROM reprint.partition_totals "
                              "WHERE backfill_id = $1 ORDER BY partition_start, measure <> 'rows', measure",
                              args(std::to_string(id)));
    if (!r)
        co_return r.error();
    for (const auto &row : r->last().rows) {
        if (rv.partitions.empty() || rv.partitions.back().partition != *row[0]) {
            PartitionReview pr;
            pr.partition = *row[0];
            pr.start = *row[1];
            pr.inScope = *row[2] == "true";
            pr.boundary = *row[3] == "true";
            rv.partitions.push_back(std::move(pr));
        }
        MeasureTotals mt;
        mt.measure = *row[4];
        mt.oldValue = row[5];
        mt.newValue = row[6];
        mt.source = row[7];
        parseVerdict(*row[8], &mt.verdict);
        rv.partitions.back().measures.push_back(std::move(mt));
    }
    co_return warehouse::ok();
}

// The measures of `m` whose target columns are floats (compared with a tolerance).
Task<void> readFloatMeasures(warehouse::Connection &c, const Model &m, Review &rv)
{
    if (m.measures.empty())
        co_return;
    std::vector<Value> names(m.measures.begin(), m.measures.end());
    auto floats = co_await c.query("SELECT a.attname::text FROM pg_attribute a WHERE a.attrelid = to_regclass($1) "
                                   "AND a.attname = ANY($2::text[]) AND a.atttypid IN ('float4'::regtype, 'float8'::regtype) "
                                   "ORDER BY a.attnum",
                                   args(quoteRelation(m.target.schema, m.target.table), arrayLiteral(names)));
    if (floats)
        for (const auto &row : floats->last().rows)
            rv.floatMeasures.push_back(*row[0]);
}

// The cascade backfill `id` belongs to: the root and its members, root first (empty when
// it is no cascade).
Task<Status> readCascade(warehouse::Connection &c, long long id, Review &rv)
{
    auto family = co_await c.query(
        "SELECT b.id::text, b.model, b.from_partition, b.to_partition, b.status, coalesce(b.validation, '') "
        "FROM reprint.backfills b WHERE b.id = coalesce((SELECT parent_id FROM reprint.backfills WHERE id = $1), $1) "
        "OR b.parent_id = coalesce((SELECT parent_id FROM reprint.backfills WHERE id = $1), $1) ORDER BY b.parent_id NULLS FIRST, b.id",
        args(std::to_string(id)));
    if (!family)
        co_return family.error();
    if (family->last().rows.size() > 1)
        for (const auto &row : family->last().rows)
            rv.cascade.push_back({std::stoll(*row[0]), *row[1], *row[2], *row[3], *row[4], *row[5]});
    co_return warehouse::ok();
}

// The row diffs' changed columns that no measure of `m` covers: unexpected.
Task<Status> readUnexpectedColumns(warehouse::Connection &c, const Model &m, long long id, Review &rv)
{
    auto diffs = co_await c.query("SELECT partition, column_changes::text FROM reprint.row_diffs WHERE backfill_id = $1 "
                                  "ORDER BY partition_start",
                                  args(std::to_string(id)));
    if (!diffs)
        co_return diffs.error();
    const auto measures = m.allMeasures();
    for (const auto &row : diffs->last().rows) {
        const QJsonObject counts = QJsonDocument::fromJson(QByteArray::fromStdString(row[1].value_or("{}"))).object();
        for (auto it = counts.begin(); it != counts.end(); ++it) {
            const std::string column = it.key().toStdString();
            if (it.value().toInteger() > 0 && std::find(measures.begin(), measures.end(), column) == measures.end())
                rv.unexpectedColumns.push_back({*row[0], column, it.value().toInteger()});
        }
    }
    co_return warehouse::ok();
}

} // namespace

Task<Result<Review>> Engine::review(long long id)
{
    auto s = co_await open(nullptr, {});
    if (!s)
        co_return s.error();
    auto &c = *(*s)->conn;
    auto b = co_await readBackfill(c, id, false);
    if (!b)
        co_return b.error();
    Review rv;
    rv.backfillId = id;
    rv.model = b->model;
    rv.status = b->status;
    rv.validation = b->validation;
    rv.validationMessage = b->validationMessage;
    rv.from = b->from;
    rv.to = b->to;
    if (auto totals = co_await readReviewTotals(c, id, rv); !totals)
        co_return totals.error();
    if (auto cascade = co_await readCascade(c, id, rv); !cascade)
        co_return cascade.error();
    const Model *m = m_spec.model(b->model);
    if (!m)
        co_return rv;
    co_await readFloatMeasures(c, *m, rv);
    if (rv.cascade.empty() || rv.cascade.front().id == id) {
        // Downstream models this window makes stale: those not staged with it.
        for (const DownstreamWindow &d : downstreamWindows(m_spec, b->window(*m)))
            if (std::none_of(rv.cascade.begin(), rv.cascade.end(), [&](const CascadeMember &c) { return c.model == d.model->name; }))
                rv.staleDownstream.push_back(d.model->name + " " + d.window.text());
    }
    if (auto unexpected = co_await readUnexpectedColumns(c, *m, id, rv); !unexpected)
        co_return unexpected.error();
    // Keep the spec's measure order.
    const auto order = m->allMeasures();
    for (auto &p : rv.partitions)
        std::stable_sort(p.measures.begin(), p.measures.end(), [&](const MeasureTotals &a, const MeasureTotals &b) {
            return std::find(order.begin(), order.end(), a.measure) < std::find(order.begin(), order.end(), b.measure);
        });
    co_return rv;
}

Task<Result<std::vector<Review>>> Engine::reviewCascade(long long id)
{
    auto root = co_await review(id);
    if (!root)
        co_return root.error();
    std::vector<Review> out;
    if (!root->cascade.empty() && root->cascade.front().id != id)
        co_return usage("backfill " + std::to_string(id) + " is part of the cascade of backfill " + std::to_string(root->cascade.front().id),
                        "Review the cascade as a whole: `reprint diff " + std::to_string(root->cascade.front().id) + "`.");
    const std::vector<CascadeMember> members = root->cascade;
    out.push_back(std::move(*root));
    for (std::size_t i = 1; i < members.size(); ++i) {
        auto r = co_await review(members[i].id);
        if (!r)
            co_return r.error();
        out.push_back(std::move(*r));
    }
    co_return out;
}

Task<Result<RowDiff>> Engine::rowDiff(long long id, std::string partition)
{
    auto conn = co_await openSession(m_conninfo);
    if (!conn)
        co_return conn.error();
    auto b = co_await readBackfill(**conn, id, false);
    if (!b)
        co_return b.error();
    auto m = model(b->model);
    if (!m)
        co_return m.error();
    const Window claimed = b->window(**m);
    const Window *w = &claimed;
    auto p = w->scheme.parse(partition);
    if (!p)
        co_return p.error();
    if (p->start < w->first().start || !(p->start < w->last().end))
        co_return usage("partition " + partition + " is not in backfill " + std::to_string(id) + "'s window "
                            + windowText(w->first(), w->last()),
                        "Row diffs are kept for partitions inside the window.");
    auto s = co_await open(*m, {});
    if (!s)
        co_return s.error();
    auto &c = *(*s)->conn;
    auto stored = co_await c.query("SELECT added::text, removed::text, changed::text, sample::text, column_changes::text, "
                                   "old_repeats::text, new_repeats::text "
                                   "FROM reprint.row_diffs WHERE backfill_id = $1 AND partition_start = $2",
                                   args(std::to_string(id), p->startText()), oids(0, kTimestamptzOid));
    if (!stored)
        co_return stored.error();
    if (!stored->last().rows.empty()) {
        const auto &row = stored->last().rows.front();
        RowDiff d;
        d.backfillId = id;
        d.partition = p->name;
        d.added = std::stoll(*row[0]);
        d.removed = std::stoll(*row[1]);
        d.changed = std::stoll(*row[2]);
        d.sampleJson = *row[3];
        d.oldRepeats = std::stoll(*row[5]);
        d.newRepeats = std::stoll(*row[6]);
        const QJsonObject counts = QJsonDocument::fromJson(QByteArray::fromStdString(*row[4])).object();
        for (const std::string &col : (*s)->sql.columns)
            if (counts.contains(QString::fromStdString(col)))
                d.columnChanges.push_back({col, counts.value(QString::fromStdString(col)).toInteger()});
        co_return d;
    }
    if (b->status != "staged" || b->stageTable.empty())
        co_return usage("backfill " + std::to_string(id) + " is " + b->status + " and its staged rows are gone",
                        "Row diffs are computed from the stage; only the boundary partitions' diffs are kept after publish.");
    co_return co_await computeRowDiff(c, (*s)->sql, id, *p, quoteRelation("reprint_staging", b->stageTable),
                                      m_options.sampleRows);
}

Task<Result<PublishOutcome>> Engine::publishSteps(PublishRequest req, CancelTokenPtr cancel)
{
    Laps laps;  // --timings: from the start, connecting included
    if (req.note.empty())
        co_return usage("publishing needs an approval note", "Pass --approve \"why this is right\".");
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
        auto out = co_await publishMember(c, m_spec, **m, *w, *b, req, m_options, m_conninfo, cancel, laps);
        if (!out)
            co_return co_await fail(out.error());
        total.rowsReplaced += out->rowsReplaced;
        total.rowsInserted += out->rowsInserted;
        total.approver = out->approver;
        total.strategy = out->strategy;
        if (total.lockedAt == std::chrono::steady_clock::time_point() || out->lockedAt < total.lockedAt)
            total.lockedAt = out->lockedAt;
    }
    auto committed = co_await commitOrReadBack(c, m_conninfo, req.id, "published",
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
    if (b->status != "staging" && b->status != "planned") {
        co_await rollback(c);
        co_return conflict("backfill " + ids + " is " + b->status + ", not staging: there is nothing to cancel",
                           b->status == "staged" ? "To drop what it staged, abandon it (`reprint abandon " + ids + "`)."
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
        if (b->status == "published" || b->status == "undone" || b->status == "abandoned") {
            const std::string hint = b->status == "published" ? "Use `reprint undo " + ids + "` to restore the replaced rows." : "";
            co_return co_await fail(conflict("backfill " + ids + " is " + b->status + "; only unpublished backfills can be abandoned", hint));
        }
        if (b->status == "staging" || b->status == "planned") {
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
    auto committed = co_await commitOrReadBack(c, m_conninfo, req.id, "undone", "Undo it again: `reprint undo " + id + "`.");
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

Task<Status> ProgressListener::open()
{
    auto conn = co_await openSession(m_conninfo);
    if (!conn)
        co_return conn.error();
    auto r = co_await (*conn)->execute("LISTEN reprint_progress");
    if (!r)
        co_return r.error();
    m_conn = *conn;
    co_return warehouse::ok();
}

Task<Result<std::optional<long long>>> ProgressListener::next(std::chrono::milliseconds timeout)
{
    if (!m_conn)
        co_return Error::make(ErrorKind::Connection, "the progress listener is not open");
    auto conn = m_conn;
    auto n = co_await conn->waitForNotification(timeout);
    if (!n)
        co_return n.error();
    if (!*n)
        co_return std::optional<long long>();
    co_return std::optional<long long>(std::atoll((*n)->payload.c_str()));
}

void ProgressListener::close()
{
    if (m_conn)
        m_conn->close();
    m_conn.reset();
}

Task<Result<BackfillProgress>> Engine::progress(long long id)
{
    auto s = co_await open(nullptr, {});
    if (!s)
        co_return s.error();
    auto &c = *(*s)->conn;
    const std::string ids = std::to_string(id);
    auto b = co_await readBackfill(c, id, false);
    if (!b)
        co_return b.error();
    BackfillProgress out;
    const std::vector<std::string> models(1, b->model);
    auto hist = co_await readHistory(c, models, id);
    if (!hist)
        co_return hist.error();
    if (!hist->empty())
        out.backfill = hist->front();
    auto parts = co_await c.query(
        "SELECT p.partition, p.state, coalesce(p.rows, 0)::text, coalesce(p.seconds, 0)::text, coalesce(p.error, ''), "
        "(p.partition_start = b.window_start OR p.partition_end = b.window_end)::text, "
        "to_char(p.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"') "
        "FROM reprint.backfill_partitions p JOIN reprint.backfills b ON b.id = p.backfill_id WHERE p.backfill_id = $1 "
        "ORDER BY (p.partition_start = b.window_start OR p.partition_end = b.window_end) DESC, p.partition_start",
        args(ids));
    if (!parts)
        co_return parts.error();
    for (const auto &row : parts->last().rows) {
        PartitionState p;
        p.partition = *row[0];
        p.state = *row[1];
        p.rows = std::stoll(*row[2]);
        p.seconds = std::stod(*row[3]);
        p.error = *row[4];
        p.boundary = *row[5] == "true";
        p.updatedAt = row[6].value_or("");
        out.partitions.push_back(std::move(p));
    }
    auto claim = co_await c.query("SELECT holder, lease_expires::text, heartbeat_at::text FROM reprint.claims WHERE backfill_id = $1",
                                  args(ids));
    if (!claim)
        co_return claim.error();
    if (!claim->last().rows.empty()) {
        const auto &row = claim->last().rows.front();
        out.claimHolder = *row[0];
        out.leaseExpires = *row[1];
        out.heartbeatAt = *row[2];
    }
    auto waits = co_await c.query(
        "SELECT a.pid::text, extract(epoch FROM now() - a.query_start)::text, "
        "(SELECT string_agg(coalesce(nullif(x.application_name, ''), 'a session') || ' (pid ' || x.pid || ', ' || "
        "coalesce(x.usename::text, '?') || '): ' || left(x.query, 120), '; ') "
        " FROM pg_stat_activity x WHERE x.pid = ANY (pg_blocking_pids(a.pid))) "
        "FROM pg_stat_activity a WHERE a.application_name = $1 AND cardinality(pg_blocking_pids(a.pid)) > 0",
        args("reprint backfill " + ids));
    if (!waits)
        co_return waits.error();
    for (const auto &row : waits->last().rows)
        out.waits.push_back({std::stoi(*row[0]), std::stod(row[1].value_or("0")), row[2].value_or("")});
    co_return out;
}

// Every privilege error of the operations below is explained here, and only here.
// (Named vectors: GCC 12 rejects braced lists as arguments of a co_await.)
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
