#include "engine.h"

#include "migrations.h"
#include "modelsql.h"
#include "privileges.h"
#include "sqltext.h"
#include "window.h"
#include "warehouse/localcluster.h"

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

namespace asio = warehouse::asio;

namespace {

const std::vector<warehouse::TypeOid> kBounds = {kTimestamptzOid, kTimestamptzOid};

// Per partition start (epoch seconds): rows, then each declared measure.
using Totals = std::map<long long, std::vector<Value>>;
// Per check name: per partition start: value.
using CheckValues = std::map<std::string, std::map<long long, Value>>;

// The stored error of a backfill whose staging was cancelled begins with this word (the
// one place that writes it and the one that reads it: HistoryRow::cancelled).
constexpr const char *kCancelledError = "cancelled";

long long epoch(const Partition &p)
{
    return p.start.toSecsSinceEpoch();
}

std::string holderName()
{
    char host[256] = {0};
    if (::gethostname(host, sizeof host - 1) != 0)
        host[0] = '\0';
    return std::string(host[0] ? host : "localhost") + ":" + std::to_string(::getpid());
}

// True when `holder` (holderName() of some process) is a process of this host that no
// longer runs: its claim is held by nobody, whatever its lease says.
bool holderGone(const std::string &holder)
{
    const std::size_t colon = holder.rfind(':');
    if (colon == std::string::npos)
        return false;
    const std::string self = holderName();
    if (holder.compare(0, colon, self, 0, self.rfind(':')) != 0 || self.rfind(':') != colon)
        return false;
    char *end = nullptr;
    const long pid = std::strtol(holder.c_str() + colon + 1, &end, 10);
    if (pid <= 0 || *end != '\0')
        return false;
    return !warehouse::processRunning(static_cast<pid_t>(pid));
}

Error conflict(std::string message, std::string hint)
{
    return Error::make(ErrorKind::Conflict, std::move(message), std::move(hint));
}

Error drift(std::string message, std::string hint)
{
    return Error::make(ErrorKind::Drift, std::move(message), std::move(hint));
}

Error usage(std::string message, std::string hint = {})
{
    return Error::make(ErrorKind::Usage, std::move(message), std::move(hint));
}

Task<void> rollback(warehouse::Connection &c)
{
    if (c.isOpen()) {
        auto r = co_await c.execute("ROLLBACK");
        (void)r;
    }
}

Task<Result<Totals>> readTotals(warehouse::Connection &c, const ModelSql &sql, const std::string &relation,
                                const Partition &from, const Partition &to)
{
    auto r = co_await c.query(sql.totals(relation), args(sql.lowerValue(from), sql.upperValue(to), sql.grainText(), sql.model->timezone));
    if (!r)
        co_return r.error();
    Totals out;
    for (const auto &row : r->last().rows) {
        std::vector<Value> values(row.begin() + 1, row.end());
        out[std::stoll(*row[0])] = std::move(values);
    }
    co_return out;
}

// Waits until `pending` coroutines spawned with spawnJoined() have finished.
struct JoinGroup {
    explicit JoinGroup(asio::any_io_executor ex) : timer(ex) {}
    int pending = 0;
    asio::steady_timer timer;
};

void spawnJoined(const std::shared_ptr<JoinGroup> &group, Task<void> task)
{
    ++group->pending;
    asio::co_spawn(group->timer.get_executor(), std::move(task), [group](std::exception_ptr e) {
        if (e)
            std::rethrow_exception(e);
        if (--group->pending == 0)
            group->timer.cancel();
    });
}

Task<void> joinAll(std::shared_ptr<JoinGroup> group)
{
    while (group->pending > 0) {
        group->timer.expires_at(asio::steady_timer::time_point::max());
        boost::system::error_code ec;
        co_await group->timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    }
}

// The checks being read by readChecksAtOnce(): each worker takes the next one.
struct CheckRun {
    std::string conninfo;
    const ModelSql *sql = nullptr;
    Params params;
    CancelTokenPtr cancel;
    std::size_t next = 0;
    std::vector<Result<Reply>> replies;
};

Task<void> checkWorker(std::shared_ptr<CheckRun> run)
{
    auto conn = co_await openSession(run->conninfo, "reprint", run->cancel);
    while (run->next < run->replies.size()) {
        const std::size_t i = run->next++;
        if (!conn)
            run->replies[i] = conn.error();
        else
            run->replies[i] = co_await (*conn)->query(run->sql->checks[i].sql, run->params, kBounds);
    }
    if (conn)
        (*conn)->close();
}

// The model's checks over [from, to], read on connections of their own (one per check,
// at most three) at the same time: each check is one independent query, usually a scan
// of the source, and they dominate validation and the publish's drift guard.
Task<Result<CheckValues>> readChecksAtOnce(const std::string &conninfo, const ModelSql &sql, const Partition &from,
                                           const Partition &to, CancelTokenPtr cancel)
{
    auto run = std::make_shared<CheckRun>();
    run->conninfo = conninfo;
    run->sql = &sql;
    run->params = args(from.startText(), to.endText(), sql.grainText(), sql.model->timezone);
    run->cancel = std::move(cancel);
    run->replies.resize(sql.checks.size());
    auto group = std::make_shared<JoinGroup>(co_await asio::this_coro::executor);
    const std::size_t workers = std::min<std::size_t>(sql.checks.size(), 3);
    for (std::size_t i = 0; i < workers; ++i)
        spawnJoined(group, checkWorker(run));
    co_await joinAll(group);
    CheckValues out;
    for (std::size_t i = 0; i < sql.checks.size(); ++i) {
        const BoundCheck &bc = sql.checks[i];
        const Result<Reply> &r = run->replies[i];
        if (!r) {
            Error e = r.error();
            const std::size_t begin = bc.sql.find("(\n");
            const Error located = inSourceFile(e, bc.check->sourceName, bc.check->sql, bc.sql,
                                               begin == std::string::npos ? begin : begin + 2);
            e.message = "check '" + bc.check->name + "' "
                        + (located.message != e.message ? "failed: " + located.message
                                                        : "(" + bc.check->sourceFile + ") failed: " + e.message);
            co_return e;
        }
        auto &values = out[bc.check->name];
        for (const auto &row : r->last().rows)
            values[std::stoll(*row[0])] = row[1];
    }
    co_return out;
}

// Index of a measure in Totals' value vectors ("rows" is 0).
std::size_t measureIndex(const Model &m, const std::string &measure)
{
    if (measure == "rows")
        return 0;
    for (std::size_t i = 0; i < m.measures.size(); ++i)
        if (m.measures[i] == measure)
            return i + 1;
    return 0;
}

Value totalOf(const Totals &t, long long p, std::size_t index)
{
    auto it = t.find(p);
    if (it == t.end())
        return index == 0 ? Value("0") : Value();
    return it->second[index];
}

Value checkOf(const CheckValues &cv, const std::string &check, long long p)
{
    auto it = cv.find(check);
    if (it == cv.end())
        return Value();
    auto jt = it->second.find(p);
    // A check returns one row per partition that has source data: no row means zero.
    return jt == it->second.end() ? Value("0") : jt->second;
}

// The verdict of one measure of one partition. `current` is what the partition holds now
// (new inside the window, old outside it).
Verdict verdictOf(const Model &model, const std::string &measure, const Value &oldValue, const Value &current,
                  const CheckValues &cv, long long p, bool inScope)
{
    const auto checks = model.checksFor(measure);
    for (const Check *c : checks)
        if (!agrees(current, checkOf(cv, c->name, p), c->tolerance))
            return Verdict::MismatchSource;
    if (!inScope)
        return Verdict::Unchanged;
    double tol = 0;
    for (const Check *c : checks)
        tol = std::max(tol, c->tolerance);
    if (agrees(oldValue, current, tol))
        return Verdict::Unchanged;
    return checks.empty() ? Verdict::Unexpected : Verdict::Expected;
}

std::string stageTableName(long long id, const Model &model)
{
    std::string name = "b";
    name += std::to_string(id) + "_" + model.name;
    return name.substr(0, 63);
}

// Serialises the claims of `model` until the transaction ends: a claim checked under it
// (claimedBy) stays free until this transaction inserts its own.
Task<Status> lockClaims(warehouse::Connection &c, const Model &model)
{
    auto r = co_await c.query("SELECT pg_advisory_xact_lock(hashtext('reprint.claim'), hashtext($1))", args(model.name));
    if (!r)
        co_return r.error();
    co_return warehouse::ok();
}

// The conflict naming who claims partitions of [from, to] of `model` (only live leases
// when `liveOnly`), or nothing when nobody does; a failed lookup is returned as its error.
Task<std::optional<Error>> claimedBy(warehouse::Connection &c, const Model &model, const Partition &from, const Partition &to,
                                     bool liveOnly)
{
    auto holder = co_await c.query(
        "SELECT b.id::text, b.operator, b.status, b.kind, c.holder, lower(c.span)::text, upper(c.span)::text, "
        "b.from_partition, b.to_partition, " + utcTimeText("c.lease_expires") + " "
        "FROM reprint.claims c JOIN reprint.backfills b ON b.id = c.backfill_id "
        "WHERE c.model = $1 AND c.span && tstzrange($2, $3) AND ($4 = 'false' OR c.lease_expires >= now()) ORDER BY b.id LIMIT 1",
        args(model.name, from.startText(), to.endText(), liveOnly ? "true" : "false"), oids(0, kTimestamptzOid, kTimestamptzOid));
    if (!holder)
        co_return holder.error();
    const auto &r = holder->last();
    if (r.rows.empty())
        co_return std::nullopt;
    const auto &row = r.rows.front();
    const std::string holderId = *row[0];
    co_return conflict("partitions " + *row[7] + ".." + *row[8] + " of " + model.name + " are claimed by "
                           + (*row[3] == "run" ? "scheduled run " : "backfill ") + holderId + " (operator " + *row[1]
                           + ", status " + *row[2] + ", holder " + *row[4] + ", lease until " + *row[9] + ")",
                       *row[2] == "staging" || *row[2] == "planned"
                           ? "Wait for it to finish, or for its lease to expire if its process died."
                           : "Publish it (`reprint publish " + holderId + " --approve NOTE`) or free the window with `reprint abandon "
                                 + holderId + "`.");
}

// Claims [start, end) of a model for a backfill row that this transaction inserts.
// Expired leases overlapping it are taken over (their backfills are marked failed).
// Returns the takeover message (empty if none) or a Conflict naming the holder.
Task<Result<std::string>> claimWindow(warehouse::Connection &c, long long id, const Model &model,
                                      const Partition &from, const Partition &to, const EngineOptions &opt)
{
    if (auto locked = co_await lockClaims(c, model); !locked)
        co_return locked.error();
    auto expired = co_await c.query(
        "WITH gone AS (DELETE FROM reprint.claims WHERE model = $1 AND span && tstzrange($2, $3) "
        "AND lease_expires < now() RETURNING backfill_id, holder, operator, lease_expires) "
        "UPDATE reprint.backfills b SET status = 'failed', updated_at = now(), "
        "error = 'claim lease expired (holder ' || g.holder || '); taken over by backfill ' || $4 "
        "FROM gone g WHERE b.id = g.backfill_id AND b.status IN ('planned', 'staging') "
        "RETURNING b.id::text, g.holder, g.operator, " + utcTimeText("g.lease_expires"),
        args(model.name, from.startText(), to.endText(), std::to_string(id)), oids(0, kTimestamptzOid, kTimestamptzOid));
    if (!expired)
        co_return expired.error();
    std::string takeover;
    for (const auto &row : expired->last().rows)
        takeover += (takeover.empty() ? "" : "; ") + std::string("took over the expired claim of backfill ") + *row[0]
                    + " (operator " + *row[2] + ", holder " + *row[1] + ", lease expired " + *row[3] + ")";

    auto claimed = co_await c.query("SAVEPOINT claim");
    if (!claimed)
        co_return claimed.error();
    claimed = co_await c.query(
        "INSERT INTO reprint.claims (backfill_id, model, span, holder, lease_expires) "
        "VALUES ($1, $2, tstzrange($3, $4), $5, now() + make_interval(secs => $6))",
        args(std::to_string(id), model.name, from.startText(), to.endText(), opt.holder, std::to_string(opt.leaseSeconds)),
        oids(0, 0, kTimestamptzOid, kTimestamptzOid));
    if (claimed)
        co_return takeover;
    if (claimed.error().sqlstate != "23P01")
        co_return claimed.error();
    auto undo = co_await c.query("ROLLBACK TO SAVEPOINT claim");
    if (!undo)
        co_return undo.error();
    if (auto held = co_await claimedBy(c, model, from, to, false))
        co_return *held;
    co_return conflict("the window " + windowText(from, to) + " of " + model.name + " is claimed by another backfill",
                       "Try again; the claim was released while this one was being taken.");
}

} // namespace

std::string counted(long long n, const std::string &noun, const std::string &plural)
{
    return std::to_string(n) + " " + (n == 1 ? noun : plural.empty() ? noun + "s" : plural);
}

Task<Result<ConnectionPtr>> openSession(std::string conninfo, std::string application, CancelTokenPtr cancel)
{
    auto conn = co_await warehouse::Connection::connect(conninfo);
    if (!conn)
        co_return conn.error();
    // Every session runs in UTC, whatever the model's zone: the model's timezone decides
    // where partitions begin and end (the engine passes those as explicit values), never
    // what a transform's or a check's value means (docs/contract-notes.md, "Session time
    // zone"). The scheduled run and the backfill share this, so both compute alike.
    auto set = co_await (*conn)->query("SELECT set_config('application_name', $1, false), set_config('TimeZone', 'UTC', false)",
                                       args(application));
    if (!set)
        co_return set.error();
    if (cancel)
        cancel->attach((*conn)->cancelHandle());
    co_return *conn;
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

void CancelToken::cancel()
{
    m_cancelled = true;
    std::vector<warehouse::CancelHandle> handles;
    {
        std::lock_guard lock(m_mutex);
        handles = m_handles;
    }
    for (const auto &h : handles)
        h.cancel();
}

void CancelToken::attach(const warehouse::CancelHandle &handle)
{
    std::lock_guard lock(m_mutex);
    m_handles.push_back(handle);
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

namespace {

// Backfills of `models` (or only backfill `id` when it is not 0), oldest first.
Task<Result<std::vector<HistoryRow>>> readHistory(warehouse::Connection &c, const std::vector<std::string> &models, long long id)
{
    std::vector<Value> values(models.begin(), models.end());
    const Value only = id > 0 ? Value(std::to_string(id)) : Value();
    auto r = co_await c.query(
        "SELECT b.id::text, b.model, b.kind, b.status, coalesce(b.validation, ''), b.from_partition, b.to_partition, "
        "b.operator, coalesce(b.approver, ''), coalesce(b.note, ''), coalesce(b.override_reason, ''), "
        "to_char(b.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'), "
        "coalesce(to_char(b.published_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'), ''), "
        "coalesce(b.error, ''), "
        "(b.status IN ('planned', 'staging') AND coalesce(c.lease_expires < now(), true))::text, coalesce(c.holder, '') "
        "FROM reprint.backfills b LEFT JOIN reprint.claims c ON c.backfill_id = b.id "
        "WHERE b.model = ANY($1::text[]) AND ($2::bigint IS NULL OR b.id = $2::bigint) ORDER BY b.id",
        args(arrayLiteral(values), only));
    if (!r)
        co_return r.error();
    std::vector<HistoryRow> out;
    for (const auto &row : r->last().rows) {
        HistoryRow h;
        h.id = std::stoll(*row[0]);
        h.model = *row[1];
        h.kind = *row[2];
        h.status = *row[3];
        h.validation = *row[4];
        h.from = *row[5];
        h.to = *row[6];
        h.operatorName = *row[7];
        h.approver = *row[8];
        h.note = *row[9];
        h.overrideReason = *row[10];
        h.createdAt = *row[11];
        h.publishedAt = *row[12];
        h.error = *row[13];
        // Interrupted: its lease lapsed, or its holder is a process of this host that is gone
        // (a resume or an abandon may take the claim at once).
        h.leaseExpired = *row[14] == "true" || ((h.status == "staging" || h.status == "planned") && holderGone(*row[15]));
        h.cancelled = h.status == "failed" && h.error.rfind(kCancelledError, 0) == 0;
        out.push_back(std::move(h));
    }
    co_return out;
}

} // namespace

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

// Builds one partition into the stage: the one code path of the scheduled run and the
// backfill. Replaces whatever the stage held for the partition, in one transaction,
// and refuses rows whose partition column falls outside [start, end) (leak guard).
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
            const long long leaked = std::stoll(set.at(0, "leaked").value_or("0"));
            const long long repeated = std::stoll(set.at(0, "repeated_keys").value_or("0"));
            if (repeated > 0 && leaked == 0)
                failure = Error::make(ErrorKind::Spec,
                                      "the transform produced " + counted(repeated, "key") + " more than once in partition "
                                          + p.name + ", e.g. key " + joinKey(run.model->key) + " = "
                                          + set.at(0, "repeated_example").value_or("?") + "; a key must name one row",
                                      "Fix the transform (" + run.model->transformFile + ") so that it emits one row per key, "
                                          "or correct `key:` in the spec; nothing was staged for this partition.");
            if (leaked > 0)
                failure = Error::make(ErrorKind::Spec,
                                      "the transform produced " + counted(leaked, "row") + " outside ["
                                          + p.startText() + ", " + p.endText() + "), e.g. "
                                          + run.model->partitionColumn + " = " + set.at(0, "example").value_or("NULL"),
                                      "Fix the transform's filter on :start and :end (" + run.model->transformFile
                                          + "); nothing was staged for this partition.");
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

// The claim's heartbeat while a member stages. Its connection also LISTENs for cancel
// requests from other processes (Engine::requestCancel): one for this backfill cancels
// `cancel`, as Ctrl-C would. stop() ends it at once (closing the connection wakes the wait).
struct Heartbeat {
    bool stopped = false;
    bool lost = false;  // the claim row was gone at a beat: another backfill took the window
    ConnectionPtr conn;
    void stop()
    {
        stopped = true;
        if (conn)
            conn->close();
    }
};

Task<void> heartbeat(std::string conninfo, long long id, EngineOptions opt, std::shared_ptr<Heartbeat> hb, CancelTokenPtr cancel)
{
    auto conn = co_await openSession(conninfo);
    if (!conn || hb->stopped)
        co_return;
    hb->conn = *conn;
    // Without the LISTEN (it never fails on a live connection) the wait below is just the
    // beat's timer: no request is heard, the lease is still kept.
    (void)co_await (*conn)->execute("LISTEN reprint_cancel");
    const std::string self = std::to_string(id);
    using Clock = std::chrono::steady_clock;
    auto next = Clock::now() + std::chrono::seconds(opt.heartbeatSeconds);
    while (!hb->stopped) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(next - Clock::now());
        auto heard = co_await (*conn)->waitForNotification(std::max(left, std::chrono::milliseconds(1)));
        if (hb->stopped || !heard)
            break;
        if (*heard && (*heard)->payload == self) {
            // PQcancel blocks: from a thread of its own, as the CLI's Ctrl-C does.
            std::thread([cancel] { cancel->cancel(); }).detach();
            continue;
        }
        if (Clock::now() < next)
            continue;
        auto r = co_await (*conn)->query("UPDATE reprint.claims SET heartbeat_at = now(), "
                                         "lease_expires = now() + make_interval(secs => $2) WHERE backfill_id = $1",
                                         args(self, std::to_string(opt.leaseSeconds)));
        if (r && r->last().affectedRows == 0) {
            // Our lease lapsed (this process was not heard from) and the claim was taken
            // over: stop staging, as a cancel would; stageMember says why.
            hb->lost = true;
            std::thread([cancel] { cancel->cancel(); }).detach();
            break;
        }
        next = Clock::now() + std::chrono::seconds(opt.heartbeatSeconds);
    }
    (*conn)->close();
}

struct Validation {
    std::vector<PartitionReview> partitions;
    bool passed = true;
    std::string message;
};

Validation validate(const Window &w, const Totals &oldTotals, const Totals &newTotals, const CheckValues &checks)
{
    const Model &m = *w.model;
    const auto measures = m.allMeasures();
    Validation v;
    std::vector<std::string> inWindowProblems, outsideProblems;
    std::string widenFrom, widenTo;

    std::vector<std::pair<Partition, bool>> all;
    all.emplace_back(w.before, false);
    for (const Partition &p : w.partitions)
        all.emplace_back(p, true);
    all.emplace_back(w.after, false);

    for (std::size_t i = 0; i < all.size(); ++i) {
        const auto &[p, inScope] = all[i];
        const long long key = epoch(p);
        PartitionReview pr;
        pr.partition = p.name;
        pr.start = p.startText();
        pr.inScope = inScope;
        pr.boundary = !inScope || p == w.first() || p == w.last();
        for (std::size_t mi = 0; mi < measures.size(); ++mi) {
            MeasureTotals mt;
            mt.measure = measures[mi];
            mt.oldValue = totalOf(oldTotals, key, mi);
            mt.newValue = inScope ? totalOf(newTotals, key, mi) : mt.oldValue;
            const auto checksHere = m.checksFor(mt.measure);
            if (!checksHere.empty())
                mt.source = checkOf(checks, checksHere.front()->name, key);
            mt.verdict = verdictOf(m, mt.measure, mt.oldValue, mt.newValue, checks, key, inScope);
            if (mt.verdict == Verdict::MismatchSource) {
                const Check *failing = checksHere.front();
                for (const Check *c : checksHere)
                    if (!agrees(mt.newValue, checkOf(checks, c->name, key), c->tolerance))
                        failing = c;
                const std::string detail = p.name + " " + mt.measure + ": " + (inScope ? "new " : "current ")
                                           + mt.newValue.value_or("NULL") + " vs source "
                                           + checkOf(checks, failing->name, key).value_or("NULL") + " (check '"
                                           + failing->name + "')";
                if (inScope) {
                    inWindowProblems.push_back(detail);
                } else {
                    outsideProblems.push_back(detail);
                    if (i == 0)
                        widenFrom = p.name;
                    else
                        widenTo = p.name;
                }
            }
            pr.measures.push_back(std::move(mt));
        }
        v.partitions.push_back(std::move(pr));
    }
    if (!inWindowProblems.empty()) {
        v.passed = false;
        v.message = "the backfilled data disagrees with its source: " + inWindowProblems.front()
                    + (inWindowProblems.size() > 1 ? " (and " + std::to_string(inWindowProblems.size() - 1) + " more)" : "")
                    + ". Fix the transform or the check, then run the backfill again; nothing was published.";
    }
    if (!outsideProblems.empty()) {
        v.passed = false;
        std::string widen;
        if (!widenFrom.empty())
            widen += "--from " + widenFrom;
        if (!widenTo.empty())
            widen += std::string(widen.empty() ? "" : " ") + "--to " + widenTo;
        const std::string names = !widenFrom.empty() && !widenTo.empty() ? widenFrom + " and " + widenTo
                                  : !widenFrom.empty()                   ? widenFrom
                                                                         : widenTo;
        v.message += std::string(v.message.empty() ? "" : " ") + "The partition" + (names.find(" and ") != std::string::npos ? "s " : " ")
                     + names + " just outside the window also disagree" + (names.find(" and ") != std::string::npos ? "" : "s")
                     + " with the source (" + outsideProblems.front() + "). Widen the window: " + widen + ".";
    }
    return v;
}

Result<RowDiff> rowDiffFrom(const ModelSql &sql, long long id, const std::string &partition, const warehouse::ResultSet &rs)
{
    RowDiff d;
    d.backfillId = id;
    d.partition = partition;
    if (rs.rows.empty())
        return Error::make(ErrorKind::Internal, "the row diff returned nothing");
    const auto &row = rs.rows.front();
    d.added = std::stoll(row[0].value_or("0"));
    d.removed = std::stoll(row[1].value_or("0"));
    d.changed = std::stoll(row[2].value_or("0"));
    d.sampleJson = row[3].value_or("[]");
    d.oldRepeats = std::stoll(row[4].value_or("0"));
    d.newRepeats = std::stoll(row[5].value_or("0"));
    std::size_t i = 6;
    for (const std::string &c : sql.columns) {
        if (std::find(sql.model->key.begin(), sql.model->key.end(), c) != sql.model->key.end())
            continue;
        d.columnChanges.push_back({c, std::stoll(row[i++].value_or("0"))});
    }
    return d;
}

std::string columnChangesJson(const RowDiff &d)
{
    QJsonObject o;
    for (const auto &c : d.columnChanges)
        o.insert(QString::fromStdString(c.column), static_cast<qint64>(c.count));
    return QJsonDocument(o).toJson(QJsonDocument::Compact).toStdString();
}

Task<Result<RowDiff>> computeRowDiff(warehouse::Connection &c, const ModelSql &sql, long long id, const Partition &p,
                                     const std::string &stage, int sampleRows)
{
    auto r = co_await c.query(sql.rowDiff(stage), args(sql.lowerValue(p), sql.upperValue(p), std::to_string(sampleRows)));
    if (!r)
        co_return r.error();
    auto d = rowDiffFrom(sql, id, p.name, r->last());
    if (!d)
        co_return d.error();
    auto stored = co_await c.query(
        "INSERT INTO reprint.row_diffs (backfill_id, partition_start, partition, added, removed, changed, "
        "column_changes, sample, old_repeats, new_repeats) VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8::jsonb, $9, $10) "
        "ON CONFLICT (backfill_id, partition_start) DO UPDATE SET added = excluded.added, removed = excluded.removed, "
        "changed = excluded.changed, column_changes = excluded.column_changes, sample = excluded.sample, "
        "old_repeats = excluded.old_repeats, new_repeats = excluded.new_repeats",
        args(std::to_string(id), p.startText(), p.name, std::to_string(d->added), std::to_string(d->removed),
         std::to_string(d->changed), columnChangesJson(*d), d->sampleJson, std::to_string(d->oldRepeats),
         std::to_string(d->newRepeats)),
        oids(0, kTimestamptzOid));
    if (!stored)
        co_return stored.error();
    co_return *d;
}

// The backfill row as publish, review and abandon need it.
struct BackfillRow {
    long long id = 0;
    std::string model, kind, status, validation, validationMessage, transformHash, stageTable, operatorName;
    std::string from, to, archiveTable;
    QDateTime windowStart, windowEnd;  // the instants the window was claimed over, [start, end)
    // The window as it was claimed (its stored instants, not its names read again).
    Window window(const Model &m) const { return windowSpanning(m, windowStart, windowEnd); }
};

Task<Result<BackfillRow>> readBackfill(warehouse::Connection &c, long long id, bool forUpdate)
{
    const std::string lock = forUpdate ? " FOR UPDATE" : "";
    auto r = co_await c.query(std::string("SELECT id::text, model, kind, status, coalesce(validation, ''), "
                                          "coalesce(validation_message, ''), transform_hash, coalesce(stage_table, ''), "
                                          "operator, from_partition, to_partition, coalesce(archive_table, ''), "
                                          "extract(epoch FROM window_start)::bigint::text, extract(epoch FROM window_end)::bigint::text "
                                          "FROM reprint.backfills WHERE id = $1")
                                  + lock,
                              args(std::to_string(id)));
    if (!r)
        co_return r.error();
    if (r->last().rows.empty())
        co_return usage("there is no backfill " + std::to_string(id), "`reprint history --spec S` lists them.");
    const auto &row = r->last().rows.front();
    BackfillRow b;
    b.id = id;
    b.model = *row[1];
    b.kind = *row[2];
    b.status = *row[3];
    b.validation = *row[4];
    b.validationMessage = *row[5];
    b.transformHash = *row[6];
    b.stageTable = *row[7];
    b.operatorName = *row[8];
    b.from = *row[9];
    b.to = *row[10];
    b.archiveTable = *row[11];
    b.windowStart = QDateTime::fromSecsSinceEpoch(std::stoll(*row[12]), QTimeZone::utc());
    b.windowEnd = QDateTime::fromSecsSinceEpoch(std::stoll(*row[13]), QTimeZone::utc());
    co_return b;
}

// BEGIN, then backfill `id`'s row FOR UPDATE; the transaction is rolled back when the
// row cannot be read.
Task<Result<BackfillRow>> beginWithBackfill(warehouse::Connection &c, long long id)
{
    auto r = co_await c.execute("BEGIN");
    if (!r)
        co_return r.error();
    auto b = co_await readBackfill(c, id, true);
    if (!b)
        co_await rollback(c);
    co_return b;
}

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

// A physical partition of the target that is exactly one partition of the window.
struct PhysicalPartition {
    std::string schema, name;   // unquoted
    std::string lower, upper;   // its bounds as the catalog prints them (literals of the column's type)
};

// How the window lies on the target's physical partitions: one per window partition, in
// order, or `misfit` saying why a swap cannot replace the window.
struct SwapLayout {
    std::vector<PhysicalPartition> partitions;
    std::string misfit;
};

Task<Result<SwapLayout>> swapLayoutOf(warehouse::Connection &c, const ModelSql &sql, const Window &w)
{
    SwapLayout layout;
    auto key = co_await c.query("SELECT p.partstrat::text, p.partnatts::int, coalesce(a.attname::text, '') "
                                "FROM pg_partitioned_table p "
                                "LEFT JOIN pg_attribute a ON a.attrelid = p.partrelid AND a.attnum = p.partattrs[0] "
                                "WHERE p.partrelid = $1::regclass",
                                args(sql.target));
    if (!key)
        co_return key.error();
    if (key->last().rows.empty()) {
        layout.misfit = sql.target + " is not a partitioned table";
        co_return layout;
    }
    const auto &k = key->last().rows.front();
    if (*k[0] != "r" || *k[1] != "1" || *k[2] != sql.model->partitionColumn) {
        layout.misfit = sql.target + " is not range-partitioned on " + sql.column + " alone";
        co_return layout;
    }
    // A swap detaches and attaches partitions and builds their successors beside them: only
    // the owner of the target and its partitions may, with CREATE on their schemas. A role
    // that may only write the target's rows (docs/privileges.md) replaces instead.
    auto may = co_await c.query("SELECT current_user::text, bool_and(pg_has_role(current_user, k.relowner, 'USAGE') "
                                "AND has_schema_privilege(k.relnamespace, 'CREATE'))::text FROM pg_class k "
                                "WHERE k.oid = $1::regclass OR k.oid IN (SELECT i.inhrelid FROM pg_inherits i WHERE i.inhparent = $1::regclass)",
                                args(sql.target));
    if (!may)
        co_return may.error();
    if (may->last().rows.front()[1] != "true") {
        layout.misfit = "role " + may->last().rows.front()[0].value_or("?") + " may not swap partitions of " + sql.target
                        + " (only their owner may, with CREATE on their schema)";
        co_return layout;
    }
    std::vector<Value> lowers, uppers;
    for (const Partition &p : w.partitions) {
        lowers.emplace_back(sql.lowerValue(p));
        uppers.emplace_back(sql.upperValue(p));
    }
    // A leaf whose bounds are exactly [lower, upper) of each window partition, compared in
    // the column's type; bounds the catalog prints unquoted (MINVALUE, DEFAULT) never match.
    const std::string type = sql.columnType;
    auto kids = co_await c.query(
        "WITH want AS (SELECT lo, hi, ord FROM unnest($2::text[], $3::text[]) WITH ORDINALITY AS u(lo, hi, ord)), "
        "kids AS (SELECT n.nspname::text AS schema, k.relname::text AS name, k.relkind::text AS kind, b[1] AS lo, b[2] AS hi "
        "  FROM pg_inherits i JOIN pg_class k ON k.oid = i.inhrelid JOIN pg_namespace n ON n.oid = k.relnamespace, "
        "  regexp_match(pg_get_expr(k.relpartbound, k.oid), '^FOR VALUES FROM \\(''([^'']*)''\\) TO \\(''([^'']*)''\\)$') AS b "
        "  WHERE i.inhparent = $1::regclass) "
        "SELECT w.ord::text, k.schema, k.name, k.kind, k.lo, k.hi FROM want w "
        "LEFT JOIN kids k ON k.lo::" + type + " = w.lo::" + type + " AND k.hi::" + type + " = w.hi::" + type + " ORDER BY w.ord",
        args(sql.target, arrayLiteral(lowers), arrayLiteral(uppers)));
    if (!kids)
        co_return kids.error();
    const auto &rows = kids->last().rows;
    for (std::size_t i = 0; i < rows.size() && i < w.partitions.size(); ++i) {
        if (!rows[i][1]) {
            layout.misfit = "partition " + w.partitions[i].name + " is not one whole physical partition of " + sql.target;
            break;
        }
        if (*rows[i][3] != "r") {
            layout.misfit = "physical partition " + quoteRelation(*rows[i][1], *rows[i][2]) + " is itself partitioned";
            break;
        }
        layout.partitions.push_back({*rows[i][1], *rows[i][2], *rows[i][4], *rows[i][5]});
    }
    if (layout.misfit.empty() && layout.partitions.size() != w.partitions.size())
        layout.misfit = "the window does not map one to one onto physical partitions of " + sql.target;
    co_return layout;
}

// $1: a partition (quoted). Its indexes that are part of an index of the partitioned
// table: that index's oid, then the partition's index name.
constexpr const char *kPartitionIndexesSql =
    "SELECT p.inhparent::text, c.relname::text FROM pg_index x JOIN pg_class c ON c.oid = x.indexrelid "
    "JOIN pg_inherits p ON p.inhrelid = x.indexrelid WHERE x.indrelid = $1::regclass ORDER BY c.relname";

bool isLockTimeout(const Error &e)
{
    return e.sqlstate == "55P03";
}

// Inside the caller's open transaction: builds one table per window partition from the
// stage (no lock on the target beyond ACCESS SHARE), then, under a short ACCESS EXCLUSIVE
// lock on the target, detaches each old partition (into the archive, or dropped when
// there is none) and attaches the new one under its name. The lock is asked for with a
// short lock_timeout so that readers never queue behind it for long, and retried with
// backoff; when it cannot be had, the swap is rolled back to before the lock and a
// conflict says so. Readers see all old or all new: the catalog change commits at once.
Task<Result<PublishOutcome>> swapWindow(warehouse::Connection &c, const ModelSql &sql, const PublishPlan &plan,
                                        const SwapLayout &layout)
{
    PublishOutcome out;
    out.id = plan.id;
    out.strategy = "swap";
    const Window &w = *plan.window;
    const std::string id = std::to_string(plan.id);
    const std::string like = " (LIKE " + sql.target
                             + " INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING INDEXES INCLUDING GENERATED "
                               "INCLUDING STORAGE INCLUDING COMPRESSION)";
    std::vector<std::string> fresh;  // quoted, in the old partitions' schemas
    Result<Reply> r = Reply{};
    for (std::size_t i = 0; i < layout.partitions.size() && r; ++i) {
        const PhysicalPartition &part = layout.partitions[i];
        const std::string table = quoteRelation(part.schema, ("reprint_new_" + id + "_" + std::to_string(i)).substr(0, 63));
        fresh.push_back(table);
        const Params bounds = {sql.lowerValue(w.partitions[i]), sql.upperValue(w.partitions[i])};
        r = co_await c.query("CREATE TABLE " + table + like);
        if (r)
            r = co_await c.query("INSERT INTO " + table + " (" + sql.columnList + ") SELECT " + sql.columnList + " FROM "
                                     + plan.stage + " AS t WHERE " + sql.inWindow("t"),
                                 bounds);
        if (r) {
            out.rowsInserted += r->last().affectedRows;
            // Lets ATTACH skip scanning the new rows while it holds the lock.
            r = co_await c.query("ALTER TABLE " + table + " ADD CONSTRAINT reprint_swap_bounds CHECK (" + sql.column
                                 + " IS NOT NULL AND " + sql.column + " >= " + quoteLiteral(part.lower) + "::" + sql.columnType
                                 + " AND " + sql.column + " < " + quoteLiteral(part.upper) + "::" + sql.columnType + ")");
        }
        if (r)
            r = co_await c.query("SELECT count(*) FROM ONLY " + quoteRelation(part.schema, part.name));
        if (r)
            out.rowsReplaced += std::stoll(r->last().scalar("0"));
    }
    if (r)
        r = co_await c.query("SELECT count(*) FROM " + plan.stage);
    if (!r)
        co_return r.error();
    if (std::stoll(r->last().scalar("0")) != out.rowsInserted)
        co_return Error::make(ErrorKind::Data,
                              "the stage of backfill " + id + " holds " + r->last().scalar("0") + " rows but the window's "
                                  + std::to_string(layout.partitions.size()) + " partitions take "
                                  + std::to_string(out.rowsInserted) + "; nothing was published",
                              "Some staged rows lie outside every partition of the window. Check the transform's bounds.");
    const std::string archive = plan.archiveName.empty() ? std::string() : quoteRelation("reprint_archive", plan.archiveName);
    if (!archive.empty()) {
        // The detached partitions become children of one archive table, so that undo
        // and prune treat a swapped publish like a replaced one.
        r = co_await c.query("CREATE TABLE " + archive + " (LIKE " + sql.target + " INCLUDING DEFAULTS)");
        if (!r)
            co_return r.error();
    }

    const EngineOptions &opt = *plan.options;
    auto timer = asio::steady_timer(co_await asio::this_coro::executor);
    int backoffMs = 100;
    for (int attempt = 1;; ++attempt) {
        r = co_await c.execute("SAVEPOINT reprint_swap");
        if (r)
            r = co_await c.query("SELECT set_config('lock_timeout', $1, true)", args(std::to_string(opt.swapLockTimeoutMs) + "ms"));
        if (r)
            r = co_await c.execute("LOCK TABLE " + sql.target + " IN ACCESS EXCLUSIVE MODE");
        if (r)
            out.lockedAt = std::chrono::steady_clock::now();
        for (std::size_t i = 0; i < layout.partitions.size() && r; ++i) {
            const PhysicalPartition &part = layout.partitions[i];
            const std::string old = quoteRelation(part.schema, part.name);
            const std::string parked = ("b" + id + "_" + std::to_string(i) + "_" + part.name).substr(0, 63);
            // The old partition's index names, by the target's index each is part of: the new
            // partition takes them over, so that names stay what the warehouse's owners chose.
            auto indexes = co_await c.query(kPartitionIndexesSql, args(old));
            if (!indexes) {
                r = indexes.error();
                break;
            }
            r = co_await c.execute("ALTER TABLE " + sql.target + " DETACH PARTITION " + old);
            if (r && archive.empty())
                r = co_await c.execute("DROP TABLE " + old);
            if (r && !archive.empty()) {
                // Parked, its indexes give their names up first.
                for (std::size_t j = 0; j < indexes->last().rows.size() && r; ++j) {
                    const std::string name = *indexes->last().rows[j][1];
                    const std::string moved = ("b" + id + "_" + std::to_string(i) + "_" + std::to_string(j) + "_" + name).substr(0, 63);
                    r = co_await c.execute("ALTER INDEX " + quoteRelation(part.schema, name) + " RENAME TO " + quoteIdentifier(moved));
                }
                if (r)
                    r = co_await c.execute("ALTER TABLE " + old + " RENAME TO " + quoteIdentifier(parked));
                if (r)
                    r = co_await c.execute("ALTER TABLE " + quoteRelation(part.schema, parked) + " SET SCHEMA reprint_archive");
                if (r)
                    r = co_await c.execute("ALTER TABLE " + quoteRelation("reprint_archive", parked) + " INHERIT " + archive);
            }
            if (r)
                r = co_await c.execute("ALTER TABLE " + fresh[i] + " RENAME TO " + quoteIdentifier(part.name));
            if (r)
                r = co_await c.execute("ALTER TABLE " + sql.target + " ATTACH PARTITION " + old + " FOR VALUES FROM ("
                                       + quoteLiteral(part.lower) + ") TO (" + quoteLiteral(part.upper) + ")");
            if (r)
                r = co_await c.execute("ALTER TABLE " + old + " DROP CONSTRAINT reprint_swap_bounds");
            Result<Reply> taken = Reply{};
            if (r)
                taken = co_await c.query(kPartitionIndexesSql, args(old));
            if (r && !taken)
                r = taken.error();
            for (std::size_t j = 0; r && j < taken->last().rows.size(); ++j) {
                const auto &row = taken->last().rows[j];
                for (const auto &was : indexes->last().rows)
                    if (*was[0] == *row[0] && *was[1] != *row[1])
                        r = co_await c.execute("ALTER INDEX " + quoteRelation(part.schema, *row[1]) + " RENAME TO "
                                               + quoteIdentifier(*was[1]));
            }
        }
        if (r)
            r = co_await c.query("SELECT set_config('lock_timeout', $1, true)", args(std::to_string(opt.lockTimeoutMs) + "ms"));
        if (r)
            r = co_await c.execute("RELEASE SAVEPOINT reprint_swap");
        if (r)
            co_return out;
        const Error e = r.error();
        auto back = co_await c.execute("ROLLBACK TO SAVEPOINT reprint_swap");
        if (!back)
            co_return e;
        if (!isLockTimeout(e))
            co_return e;
        if (plan.cancel && plan.cancel->isCancelled())
            co_return Error::make(ErrorKind::Cancelled, "cancelled while waiting for the lock on " + sql.target + "; nothing was published");
        if (attempt >= opt.swapLockTries)
            co_return conflict("could not lock " + sql.target + " to swap "
                                   + counted(static_cast<long long>(layout.partitions.size()), "partition") + ": other sessions held it through " + std::to_string(attempt) + " tries of "
                                   + std::to_string(opt.swapLockTimeoutMs) + " ms; nothing was published",
                               "Publish again when the target is quieter, or set `publish: replace` for this model: it never "
                               "waits for readers.");
        timer.expires_after(std::chrono::milliseconds(backoffMs));
        boost::system::error_code ec;
        co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
        backoffMs = std::min(backoffMs * 2, 2000);
    }
}

// A replace whose delete or insert waited past lock_timeout for rows that another session
// holds locked (an open UPDATE, SELECT ... FOR UPDATE) gives up: the caller rolls back.
Error rowsLocked(Error e, const ModelSql &sql, const PublishPlan &plan)
{
    if (!isLockTimeout(e))
        return e;
    const std::string what = plan.auditAction == "run" ? "the run" : "backfill " + std::to_string(plan.id);
    return conflict("could not replace " + windowText(plan.window->first(), plan.window->last()) + " of " + sql.target
                        + ": another session held rows of it locked for more than " + std::to_string(plan.options->lockTimeoutMs)
                        + " ms (lock timeout); nothing of " + what + " was published",
                    "Publish again once that session has committed or rolled back"
                        + (plan.retry.empty() ? std::string(".") : ": " + plan.retry + "."));
}

// Replaces the window's rows of the target with the stage's, inside the caller's open
// transaction: archive (optional) and delete in one pass, insert, status, audit,
// loads, claim released, stage dropped. The one publish path of runs and backfills.
Task<Result<PublishOutcome>> replaceWindow(warehouse::Connection &c, const ModelSql &sql, const PublishPlan &plan)
{
    PublishOutcome out;
    out.id = plan.id;
    const Window &w = *plan.window;
    const Params bounds = {sql.lowerValue(w.first()), sql.upperValue(w.last())};
    const std::string where = " AS t WHERE " + sql.inWindow("t");
    Result<Reply> r = Reply{};
    SwapLayout layout;
    if (plan.strategy != PublishStrategy::Replace) {
        auto found = co_await swapLayoutOf(c, sql, w);
        if (!found)
            co_return found.error();
        layout = std::move(*found);
        if (!layout.misfit.empty() && plan.strategy == PublishStrategy::Swap)
            co_return Error::make(ErrorKind::Spec,
                                  "model " + sql.model->name + " asks for `publish: swap`, but " + layout.misfit
                                      + "; nothing was published",
                                  "Scope the window to whole physical partitions, or set `publish: auto` (swap where it "
                                  "can, replace otherwise) or `publish: replace` in the spec.");
    }
    if (plan.strategy != PublishStrategy::Replace && layout.misfit.empty()) {
        auto swapped = co_await swapWindow(c, sql, plan, layout);
        if (!swapped)
            co_return swapped.error();
        out = *swapped;
    } else {
        out.strategy = "replace";
        out.lockedAt = std::chrono::steady_clock::now();
        if (!plan.archiveName.empty()) {
            const std::string archive = quoteRelation("reprint_archive", plan.archiveName);
            r = co_await c.query("CREATE TABLE " + archive + " (LIKE " + sql.target + " INCLUDING DEFAULTS)");
            if (r)
                r = co_await c.query("WITH gone AS (DELETE FROM " + sql.target + where + " RETURNING " + sql.columnList
                                         + ") INSERT INTO " + archive + " (" + sql.columnList + ") SELECT " + sql.columnList
                                         + " FROM gone",
                                     bounds);
        } else {
            r = co_await c.query("DELETE FROM " + sql.target + where, bounds);
        }
        if (!r)
            co_return rowsLocked(r.error(), sql, plan);
        out.rowsReplaced = r->last().affectedRows;
        r = co_await c.query("INSERT INTO " + sql.target + " (" + sql.columnList + ") SELECT " + sql.columnList + " FROM "
                             + plan.stage);
        if (!r)
            co_return rowsLocked(r.error(), sql, plan);
        out.rowsInserted = r->last().affectedRows;
    }

    std::vector<Value> starts, ends;
    for (const Partition &p : w.partitions) {
        starts.emplace_back(p.startText());
        ends.emplace_back(p.endText());
    }
    const Value reason = plan.overrideReason.empty() ? Value() : Value(plan.overrideReason);
    const Value archiveName = plan.archiveName.empty() ? Value() : Value(plan.archiveName);
    r = co_await c.query("UPDATE reprint.backfills SET status = 'published', approver = current_user, note = $2, "
                         "override_reason = $3, published_at = now(), updated_at = now(), archive_table = $4 "
                         "WHERE id = $1 RETURNING approver",
                         args(std::to_string(plan.id), plan.note, reason, archiveName));
    if (r) {
        out.approver = r->last().scalar();
        r = co_await c.query("INSERT INTO reprint.audit (backfill_id, action, note, override_reason) VALUES ($1, $2, $3, $4)",
                             args(std::to_string(plan.id), plan.auditAction, plan.note, reason));
    }
    if (r)
        r = co_await c.query("INSERT INTO reprint.partition_loads (model, partition_start, partition_end, loaded_at, backfill_id) "
                             "SELECT $1, s, e, now(), $4 FROM unnest($2::timestamptz[], $3::timestamptz[]) AS u(s, e) "
                             "ON CONFLICT (model, partition_start) DO UPDATE SET partition_end = excluded.partition_end, "
                             "loaded_at = excluded.loaded_at, backfill_id = excluded.backfill_id",
                             args(sql.model->name, arrayLiteral(starts), arrayLiteral(ends), std::to_string(plan.id)));
    if (r)
        r = co_await c.query("DELETE FROM reprint.claims WHERE backfill_id = $1", args(std::to_string(plan.id)));
    if (r)
        r = co_await c.query("DROP TABLE IF EXISTS " + plan.stage + " CASCADE");
    if (!r)
        co_return r.error();
    co_return out;
}

// Creates the backfill row, claims the window, records its partitions and creates the
// stage table, in one transaction. Returns the id, the stage (quoted) and any takeover.
struct Recorded {
    long long id = 0;
    std::string stage;
    std::string takeover;
    std::map<long long, std::string> states;  // resume: each partition's state as stored
};

// Inside the caller's transaction: creates the backfill row, claims the window, records
// its partitions and creates the stage table. Returns the id, the stage (quoted) and any
// takeover of an expired claim.
Task<Result<Recorded>> recordAndClaimIn(warehouse::Connection &c, const ModelSql &sql, const Window &w,
                                        const std::string &kind, const EngineOptions &opt, long long parentId)
{
    // A refused claim takes no id (a rollback does not give a sequence value back): a live
    // claim of the window is seen here, under the model's claim lock, before the row exists.
    if (auto locked = co_await lockClaims(c, *w.model); !locked)
        co_return locked.error();
    if (auto held = co_await claimedBy(c, *w.model, w.first(), w.last(), true))
        co_return *held;
    const Value parent = parentId > 0 ? Value(std::to_string(parentId)) : Value();
    auto r = co_await c.query("INSERT INTO reprint.backfills (model, target, kind, window_start, window_end, from_partition, "
                              "to_partition, transform_hash, parent_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id",
                              args(w.model->name, w.model->target.display(), kind, w.first().startText(), w.last().endText(),
                                   w.first().name, w.last().name, sql.transformHash, parent),
                              oids(0, 0, 0, kTimestamptzOid, kTimestamptzOid));
    if (!r)
        co_return r.error();
    Recorded rec;
    rec.id = std::stoll(r->last().scalar("0"));
    auto claim = co_await claimWindow(c, rec.id, *w.model, w.first(), w.last(), opt);
    if (!claim)
        co_return claim.error();
    rec.takeover = *claim;
    const std::string stageName = stageTableName(rec.id, *w.model);
    rec.stage = quoteRelation("reprint_staging", stageName);
    std::vector<Value> starts, ends, names;
    for (const Partition &p : w.partitions) {
        starts.emplace_back(p.startText());
        ends.emplace_back(p.endText());
        names.emplace_back(p.name);
    }
    r = co_await c.query("INSERT INTO reprint.backfill_partitions (backfill_id, partition_start, partition_end, partition) "
                         "SELECT $1, s, e, n FROM unnest($2::timestamptz[], $3::timestamptz[], $4::text[]) AS u(s, e, n)",
                         args(std::to_string(rec.id), arrayLiteral(starts), arrayLiteral(ends), arrayLiteral(names)));
    if (r)
        r = co_await c.query("CREATE TABLE " + rec.stage + " (LIKE " + sql.target + " INCLUDING DEFAULTS)");
    if (r)
        r = co_await c.query("CREATE INDEX ON " + rec.stage + " (" + sql.column + ")");
    if (r)
        r = co_await c.query("UPDATE reprint.backfills SET status = 'staging', stage_table = $2, updated_at = now() "
                             "WHERE id = $1",
                             args(std::to_string(rec.id), stageName));
    if (!r)
        co_return r.error();
    co_return rec;
}

Task<Result<Recorded>> recordAndClaim(warehouse::Connection &c, const ModelSql &sql, const Window &w,
                                      const std::string &kind, const EngineOptions &opt)
{
    auto r = co_await c.execute("BEGIN");
    if (!r)
        co_return r.error();
    auto rec = co_await recordAndClaimIn(c, sql, w, kind, opt, 0);
    if (rec)
        r = co_await c.execute("COMMIT");
    if (!rec || !r) {
        co_await rollback(c);
        co_return !rec ? rec.error() : r.error();
    }
    co_return rec;
}

// Takes a backfill's claim back for a resume: a lapsed lease (its process died or was
// cancelled) is renewed for this process; a live one held elsewhere is a conflict; a claim
// taken over by another backfill can only be re-taken if the window is free again.
Task<Result<Recorded>> resumeClaim(warehouse::Connection &c, long long id, const ModelSql &sql, const Window &w,
                                   const EngineOptions &opt)
{
    const std::string ids = std::to_string(id);
    auto b = co_await beginWithBackfill(c, id);
    if (!b)
        co_return b.error();
    if (b->status == "published" || b->status == "undone" || b->status == "abandoned" || b->kind != "backfill") {
        co_await rollback(c);
        co_return conflict("backfill " + ids + " is " + b->status + " and cannot be resumed", "Start a new backfill of the window.");
    }
    if (b->model != w.model->name) {
        co_await rollback(c);
        co_return conflict("backfill " + ids + " is of " + b->model + ", not " + w.model->name + "; the spec changed since it started",
                           "Abandon it (`reprint abandon " + ids + "`) and start a new backfill.");
    }
    if (b->transformHash != sql.transformHash) {
        co_await rollback(c);
        co_return conflict("the transform of " + w.model->name + " changed since backfill " + ids
                               + " started staging; resuming would mix two versions of it",
                           "Abandon it (`reprint abandon " + ids + "`) and start a new backfill.");
    }
    Recorded rec;
    rec.id = id;
    rec.stage = quoteRelation("reprint_staging", b->stageTable);
    if (b->status != "staged") {
        // A claim whose holder is gone (this host, its pid no longer runs) is free at once.
        auto held = co_await c.query("SELECT holder FROM reprint.claims WHERE backfill_id = $1", args(ids));
        if (!held) {
            co_await rollback(c);
            co_return held.error();
        }
        const std::string gone = !held->last().rows.empty() && holderGone(*held->last().rows[0][0]) ? *held->last().rows[0][0] : "";
        auto renewed = co_await c.query("UPDATE reprint.claims SET holder = $2, heartbeat_at = now(), "
                                        "lease_expires = now() + make_interval(secs => $3) "
                                        "WHERE backfill_id = $1 AND (lease_expires < now() OR holder = $2 OR holder = $4) RETURNING 1",
                                        args(ids, opt.holder, std::to_string(opt.leaseSeconds), gone));
        if (!renewed) {
            co_await rollback(c);
            co_return renewed.error();
        }
        if (renewed->last().rows.empty()) {
            auto live = co_await c.query("SELECT holder, " + utcTimeText("lease_expires") + " FROM reprint.claims WHERE backfill_id = $1", args(ids));
            if (!live) {
                co_await rollback(c);
                co_return live.error();
            }
            if (!live->last().rows.empty()) {
                const auto &row = live->last().rows.front();
                co_await rollback(c);
                co_return conflict("backfill " + ids + " is still staging in " + *row[0] + " (lease until " + *row[1] + ")",
                                   "Cancel it there, or resume once its lease has expired.");
            }
            auto claim = co_await claimWindow(c, id, *w.model, w.first(), w.last(), opt);
            if (!claim) {
                co_await rollback(c);
                co_return claim.error();
            }
            rec.takeover = *claim;
        }
    }
    auto states = co_await c.query("SELECT extract(epoch FROM partition_start)::bigint, state FROM reprint.backfill_partitions "
                                   "WHERE backfill_id = $1",
                                   args(ids));
    if (states)
        for (const auto &row : states->last().rows)
            rec.states[std::stoll(*row[0])] = *row[1];
    if (states)
        states = co_await c.query("UPDATE reprint.backfills SET status = 'staging', error = NULL, updated_at = now() WHERE id = $1",
                                  args(ids));
    if (states)
        states = co_await c.query("CREATE TABLE IF NOT EXISTS " + rec.stage + " (LIKE " + sql.target + " INCLUDING DEFAULTS)");
    if (states)
        states = co_await c.execute("COMMIT");
    if (!states) {
        co_await rollback(c);
        co_return states.error();
    }
    co_return rec;
}

// Marks a backfill failed (staging did not complete) and lets its lease lapse so that a
// resume or another backfill can take the window.
// Records backfill `id` as failed with `error` and lets its lease lapse; false when the
// warehouse could not be told (it then still shows the backfill staging).
Task<bool> markFailed(warehouse::Connection &conn, long long id, const std::string &error, const std::string &conninfo)
{
    // After a lost connection (a server restart), on a new one: the stored state must agree
    // with the message the user reads.
    ConnectionPtr fresh;
    if (!conn.isOpen() && !conninfo.empty())
        if (auto again = co_await openSession(conninfo))
            fresh = *again;
    warehouse::Connection &c = fresh ? *fresh : conn;
    auto r = co_await c.query("UPDATE reprint.backfills SET status = 'failed', error = $2, updated_at = now() "
                              "WHERE id = $1 AND status IN ('planned', 'staging')",
                              args(std::to_string(id), error));
    if (r)
        r = co_await c.query("UPDATE reprint.claims SET lease_expires = now() WHERE backfill_id = $1", args(std::to_string(id)));
    if (fresh)
        fresh->close();
    co_return r.ok();
}

} // namespace

namespace {

// One model of a backfill: the model asked for, or a downstream model of a cascade.
struct Member {
    const Model *model = nullptr;
    Window window;
    ModelSql sql;
    Recorded rec;
};

// The error of a backfill whose claim was taken over while it ran (its lease lapsed: the
// process was stopped, suspended or cut off longer than the lease), naming the taker.
Task<Error> claimLost(warehouse::Connection &c, long long id)
{
    const std::string ids = std::to_string(id);
    auto why = co_await c.query("SELECT coalesce(error, '') FROM reprint.backfills WHERE id = $1", args(ids));
    const std::string taken = why && !why->last().rows.empty() ? why->last().scalar() : std::string();
    co_return conflict("backfill " + ids + " lost its claim on the window: its lease lapsed while this process was not heard from"
                           + (taken.empty() ? std::string() : " (" + taken + ")") + "; it stopped, and nothing of it will be published",
                       "`reprint history` shows who holds the window now; review or abandon that backfill, or start a new one "
                       "once it is gone.");
}

// Stages the queued partitions of `member` over `parallel` connections, keeping its
// claim's lease alive meanwhile. On a cancel or a failure the backfill is marked failed
// (resumable) and the error says what to do.
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
    spawnJoined(hbGroup, heartbeat(conninfo, member.rec.id, opt, hb, cancel));
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
        co_await markFailed(c, member.rec.id, std::string(kCancelledError) + " after " + counts + " partitions were staged", conninfo);
        co_return Error::make(ErrorKind::Cancelled,
                              "backfill " + id + " was cancelled after " + counts + " partitions were staged; nothing was published",
                              "Its staged partitions are kept: finish it with `reprint backfill --resume " + id
                                  + "`, or free the window with `reprint abandon " + id + "`.");
    }
    if (run->firstFailure) {
        Error e = *run->firstFailure;
        const std::string where = run->firstFailurePartition.empty() ? "" : "partition " + run->firstFailurePartition + ": ";
        const bool recorded = co_await markFailed(c, member.rec.id, where + e.toSentence(), conninfo);
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

// Validates a staged member against its target and its checks, and stores the review
// (totals, check values, boundary row diffs, verdict) in one transaction. The claim then
// waits for review as long as it takes.
Task<Result<Validation>> validateMember(warehouse::Connection &c, Member &member, const EngineOptions &opt,
                                        const std::string &conninfo, const CancelTokenPtr &cancel, Laps &laps)
{
    const Window &w = member.window;
    const ModelSql &sql = member.sql;
    auto oldTotals = co_await readTotals(c, sql, sql.target, w.before, w.after);
    if (!oldTotals)
        co_return oldTotals.error();
    auto newTotals = co_await readTotals(c, sql, member.rec.stage, w.first(), w.last());
    if (!newTotals)
        co_return newTotals.error();
    laps.lap("validate: totals of target and stage");
    auto checks = co_await readChecksAtOnce(conninfo, sql, w.before, w.after, cancel);
    if (!checks)
        co_return checks.error();
    laps.lap("validate: source checks");
    Validation v = validate(w, *oldTotals, *newTotals, *checks);

    std::vector<Value> starts, names, inScope, boundary, measures, olds, news, sources, verdicts;
    for (const PartitionReview &p : v.partitions)
        for (const MeasureTotals &mt : p.measures) {
            starts.emplace_back(p.start);
            names.emplace_back(p.partition);
            inScope.emplace_back(p.inScope ? "t" : "f");
            boundary.emplace_back(p.boundary ? "t" : "f");
            measures.emplace_back(mt.measure);
            olds.push_back(mt.oldValue);
            news.push_back(mt.newValue);
            sources.push_back(mt.source);
            verdicts.emplace_back(toString(mt.verdict));
        }
    std::vector<Value> cvStarts, cvNames, cvValues;
    for (const auto &[check, values] : *checks)
        for (const auto &[p, value] : values) {
            cvStarts.emplace_back(QDateTime::fromSecsSinceEpoch(p, QTimeZone::utc()).toString(Qt::ISODate).toStdString());
            cvNames.emplace_back(check);
            cvValues.push_back(value);
        }
    const std::string id = std::to_string(member.rec.id);
    auto r = co_await c.execute("BEGIN");
    // Still ours? A lapsed lease may have been taken over while this process was stopped.
    if (r)
        r = co_await c.query("SELECT 1 FROM reprint.claims c JOIN reprint.backfills b ON b.id = c.backfill_id "
                             "WHERE c.backfill_id = $1 AND b.status = 'staging' FOR UPDATE",
                             args(id));
    if (r && r->last().rows.empty()) {
        co_await rollback(c);
        co_return co_await claimLost(c, member.rec.id);
    }
    if (r)
        r = co_await c.query("DELETE FROM reprint.partition_totals WHERE backfill_id = $1", args(id));
    if (r)
        r = co_await c.query("DELETE FROM reprint.check_values WHERE backfill_id = $1", args(id));
    if (r)
        r = co_await c.query("INSERT INTO reprint.partition_totals (backfill_id, partition_start, partition, in_scope, "
                             "boundary, measure, old, new, source, verdict) SELECT $1, * FROM unnest($2::timestamptz[], "
                             "$3::text[], $4::boolean[], $5::boolean[], $6::text[], $7::numeric[], $8::numeric[], "
                             "$9::numeric[], $10::text[])",
                             args(id, arrayLiteral(starts), arrayLiteral(names), arrayLiteral(inScope), arrayLiteral(boundary),
                                  arrayLiteral(measures), arrayLiteral(olds), arrayLiteral(news), arrayLiteral(sources),
                                  arrayLiteral(verdicts)));
    if (r)
        r = co_await c.query("INSERT INTO reprint.check_values (backfill_id, partition_start, check_name, value) "
                             "SELECT $1, * FROM unnest($2::timestamptz[], $3::text[], $4::numeric[])",
                             args(id, arrayLiteral(cvStarts), arrayLiteral(cvNames), arrayLiteral(cvValues)));
    if (!r) {
        co_await rollback(c);
        co_return r.error();
    }
    laps.lap("validate: store the review");
    // The boundary partitions: the first and the last, once when they are the same.
    std::vector<const Partition *> edges{&w.first()};
    if (w.partitions.size() > 1)
        edges.push_back(&w.last());
    for (const Partition *p : edges) {
        auto d = co_await computeRowDiff(c, sql, member.rec.id, *p, member.rec.stage, opt.sampleRows);
        if (!d) {
            co_await rollback(c);
            co_return d.error();
        }
    }
    laps.lap("validate: boundary row diffs");
    const std::string verdictText = v.passed ? "passed" : "failed";
    const Value messageValue = v.message.empty() ? Value() : Value(v.message);
    r = co_await c.query("UPDATE reprint.backfills SET status = 'staged', validation = $2, validation_message = $3, "
                         "staged_at = now(), validated_at = now(), updated_at = now() WHERE id = $1",
                         args(id, verdictText, messageValue));
    if (r)
        r = co_await c.query("UPDATE reprint.claims SET lease_expires = 'infinity', heartbeat_at = now() WHERE backfill_id = $1",
                             args(id));
    if (r)
        r = co_await c.execute("COMMIT");
    if (!r) {
        co_await rollback(c);
        co_return r.error();
    }
    laps.lap("validate: store the review");
    co_return v;
}

// The relation that stands for `member`'s model while its downstream models stage in a
// cascade: the staged rows inside the window, the target outside it. The window is read
// from the backfill row, so no value is written into SQL text.
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

} // namespace

Task<Result<BackfillOutcome>> Engine::backfillSteps(BackfillRequest req, ProgressFn progress, CancelTokenPtr cancel)
{
    Laps laps;  // --timings: from the start, connecting included
    if (!cancel)
        cancel = std::make_shared<CancelToken>();
    if (req.retryFailed && req.resumeId <= 0)
        co_return usage("--retry-failed needs --resume ID", "Name the backfill whose failed partitions to re-stage.");
    std::vector<long long> resumed;  // a resume: the backfill, then its cascade's members in the order they were recorded
    std::set<std::string> resumedModels;  // a resume: the models of its cascade's members
    if (req.resumeId > 0) {
        // A resume takes its model and window from the backfill itself, and resumes a
        // cascade as a whole: a downstream member alone would read the upstream's target
        // instead of its staged rows.
        auto conn = co_await openSession(m_conninfo, "reprint", cancel);
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
        const std::string parent = *family->last().rows.front()[0];
        if (!parent.empty())
            co_return usage("backfill " + id + " is part of the cascade of backfill " + parent,
                            "Resume the cascade as a whole: `reprint backfill --resume " + parent + "`.");
        resumed.push_back(req.resumeId);
        for (const QString &child : QString::fromStdString(*family->last().rows.front()[1]).split(QLatin1Char(','), Qt::SkipEmptyParts))
            resumed.push_back(child.toLongLong());
        req.cascade = resumed.size() > 1;
        // The members left out when it started stay out.
        resumedModels.clear();
        for (const QString &name : QString::fromStdString(*family->last().rows.front()[2]).split(QLatin1Char(','), Qt::SkipEmptyParts))
            resumedModels.insert(name.toStdString());
        req.model = b->model;
        req.from = b->from;
        req.to = b->to;
    }
    auto m = model(req.model);
    if (!m)
        co_return m.error();
    auto w = windowOf(**m, req.from, req.to);
    if (!w)
        co_return w.error();
    if (req.parallel < 1)
        co_return usage("--parallel must be at least 1");
    std::set<std::string> leaveOut(req.leaveOut.begin(), req.leaveOut.end());
    if (!leaveOut.empty() && !req.cascade)
        co_return usage("--leave-out needs --cascade", "Add --cascade, or drop --leave-out: without a cascade every downstream model is left stale.");
    const std::vector<DownstreamWindow> downstream = downstreamWindows(m_spec, *w, leaveOut);
    for (const std::string &name : leaveOut)
        if (std::none_of(downstream.begin(), downstream.end(), [&](const DownstreamWindow &d) { return d.model->name == name; })) {
            std::string names;
            for (const DownstreamWindow &d : downstream)
                names += (names.empty() ? "" : ", ") + d.model->name;
            co_return usage("--leave-out " + name + ": it is not downstream of " + (*m)->name,
                            downstream.empty() ? "Nothing is downstream of " + (*m)->name + "; drop --leave-out."
                                               : "The downstream models are " + names + ".");
        }
    if (req.resumeId > 0 && req.cascade)
        for (const DownstreamWindow &d : downstream)
            if (!resumedModels.count(d.model->name))
                leaveOut.insert(d.model->name);
    auto s = co_await open(*m, cancel);
    if (!s)
        co_return s.error();
    auto &c = *(*s)->conn;
    auto emit = [&](const std::string &phase, long long id, const std::string &message) {
        if (progress) {
            BackfillEvent e;
            e.backfillId = id;
            e.phase = phase;
            e.message = message;
            e.total = static_cast<int>(w->partitions.size());
            progress(e);
        }
    };

    std::vector<Member> members(1);
    members[0].model = *m;
    members[0].window = *w;
    members[0].sql = (*s)->sql;
    std::vector<std::string> stale;  // "model window" of each downstream model this backfill leaves stale
    for (const DownstreamWindow &dw : downstreamWindows(m_spec, *w, leaveOut)) {
        if (!req.cascade || !dw.staged) {
            stale.push_back(dw.model->name + " " + dw.window.text());
            continue;
        }
        Member d;
        d.model = dw.model;
        d.window = dw.window;
        auto dsql = co_await describeModel(c, m_spec, *dw.model);
        if (!dsql)
            co_return dsql.error();
        d.sql = std::move(*dsql);
        members.push_back(std::move(d));
    }

    laps.lap("connect and read the catalog");
    emit("claiming", req.resumeId, "claiming " + windowText(w->first(), w->last()) + " of " + (*m)->name
                                       + (members.size() > 1 ? " and " + counted(static_cast<long long>(members.size() - 1), "downstream model") : ""));
    if (req.resumeId > 0) {
        if (resumed.size() != members.size())
            co_return conflict("the downstream models of " + (*m)->name + " changed since cascade " + std::to_string(req.resumeId)
                                   + " started (" + std::to_string(resumed.size() - 1) + " then, "
                                   + std::to_string(members.size() - 1) + " now)",
                               "Abandon it (`reprint abandon " + std::to_string(req.resumeId) + "`) and start a new cascade.");
        std::map<std::string, std::string> views;
        for (std::size_t i = 0; i < members.size(); ++i) {
            if (i > 0) {
                auto dsql = co_await describeModel(c, m_spec, *members[i].model, views);
                if (!dsql)
                    co_return dsql.error();
                members[i].sql = std::move(*dsql);
            }
            auto rec = co_await resumeClaim(c, resumed[i], members[i].sql, members[i].window, m_options);
            if (!rec)
                co_return rec.error();
            members[i].rec = std::move(*rec);
            views[members[i].model->name] = quoteRelation("reprint_staging", stageTableName(resumed[i], *members[i].model) + "_cascade");
        }
    } else {
        // Every member is recorded and claimed in one transaction: all or none.
        auto r = co_await c.execute("BEGIN");
        if (!r)
            co_return r.error();
        for (Member &mem : members) {
            auto rec = co_await recordAndClaimIn(c, mem.sql, mem.window, "backfill", m_options, members[0].rec.id);
            if (!rec) {
                co_await rollback(c);
                co_return rec.error();
            }
            mem.rec = std::move(*rec);
        }
        // Downstream models read their upstreams through views of the staged rows.
        std::map<std::string, std::string> views;
        for (std::size_t i = 0; i + 1 < members.size() && r; ++i) {
            const std::string view = quoteRelation("reprint_staging", stageTableName(members[i].rec.id, *members[i].model) + "_cascade");
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
            auto dsql = co_await describeModel(c, m_spec, *members[i].model, views);
            if (!dsql)
                co_return dsql.error();
            members[i].sql = std::move(*dsql);
        }
    }
    laps.lap("claim the window");
    BackfillOutcome outcome;
    outcome.id = members[0].rec.id;
    outcome.takeover = members[0].rec.takeover;
    if (!outcome.takeover.empty())
        emit("claiming", outcome.id, outcome.takeover);

    for (Member &mem : members) {
        // Boundary partitions first: they are the likeliest to be wrong, so their review is
        // ready earliest. A resume re-stages what is not staged (or only what failed).
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
        int done = 0;
        for (const auto &item : order) {
            if (wanted(item.first))
                queue.push_back(item);
            else
                ++done;
        }
        const int parallel = std::min(req.parallel, mem.model->maxParallel);
        emit("staging", mem.rec.id, "staging " + counted(static_cast<long long>(queue.size()), "partition") + " of " + mem.model->name + " over "
                                        + counted(std::max(1, std::min<int>(parallel, static_cast<int>(queue.size()))), "connection"));
        auto staged = co_await stageMember(c, mem, m_conninfo, m_options, std::move(queue), done, parallel, progress, cancel);
        if (!staged) {
            for (Member &other : members)
                if (other.rec.id != mem.rec.id)
                    co_await markFailed(c, other.rec.id, "a model of its cascade failed to stage: " + mem.model->name, m_conninfo);
            co_return staged.error();
        }
    }

    bool passed = true;
    std::string message;
    for (Member &mem : members) {
        emit("validating", mem.rec.id, "validating " + windowText(mem.window.first(), mem.window.last()) + " of " + mem.model->name);
        laps.lap("stage");
        auto v = co_await validateMember(c, mem, m_options, m_conninfo, cancel, laps);
        if (!v) {
            // Never a zombie `staging`: the failure is stored and the claim let go at once.
            Error e = v.error();
            if (e.kind != ErrorKind::Conflict) {
                for (Member &other : members)
                    co_await markFailed(c, other.rec.id, "validation of " + mem.model->name + " failed: " + e.toSentence(), m_conninfo);
                e.message = "backfill " + std::to_string(outcome.id) + " (" + mem.model->name + ") could not be validated: " + e.message;
                e.hint += std::string(e.hint.empty() ? "" : " ") + "Its staged partitions are kept: once fixed, `reprint backfill --resume "
                          + std::to_string(outcome.id) + "` validates again; `reprint abandon " + std::to_string(outcome.id)
                          + "` frees the window.";
            }
            co_return e;
        }
        if (!v->passed) {
            passed = false;
            message += (message.empty() ? "" : " ") + (members.size() > 1 ? mem.model->name + ": " : std::string()) + v->message;
        }
    }
    outcome.validationPassed = passed;
    outcome.staleDownstream = stale;
    auto review = co_await this->review(outcome.id);
    if (!review)
        co_return review.error();
    outcome.review = std::move(*review);
    for (std::size_t i = 1; i < members.size(); ++i) {
        auto child = co_await this->review(members[i].rec.id);
        if (!child)
            co_return child.error();
        outcome.cascade.push_back(std::move(*child));
    }
    laps.lap("read the review back");
    outcome.timings = laps.timings();
    emit("done", outcome.id, passed ? "validation passed" : "validation failed: " + message);
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
    auto published = co_await replaceWindow(c, sql, plan);
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
    auto r = co_await c.query("SELECT partition, partition_start::text, in_scope::text, boundary::text, measure, "
                              "old::text, new::text, source::text, verdict FROM reprint.partition_totals "
                              "WHERE backfill_id = $1 ORDER BY partition_start, measure <> 'rows', measure",
                              args(std::to_string(id)));
    if (!r)
        co_return r.error();
    // Keep the spec's measure order when the model is known.
    const Model *m = m_spec.model(b->model);
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
    if (m && !m->measures.empty()) {
        std::vector<Value> names(m->measures.begin(), m->measures.end());
        auto floats = co_await c.query("SELECT a.attname::text FROM pg_attribute a WHERE a.attrelid = to_regclass($1) "
                                       "AND a.attname = ANY($2::text[]) AND a.atttypid IN ('float4'::regtype, 'float8'::regtype) "
                                       "ORDER BY a.attnum",
                                       args(quoteRelation(m->target.schema, m->target.table), arrayLiteral(names)));
        if (floats)
            for (const auto &row : floats->last().rows)
                rv.floatMeasures.push_back(*row[0]);
    }
    // The cascade: the root and its members, root first.
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
    if (m && (rv.cascade.empty() || rv.cascade.front().id == id)) {
        // Downstream models this window makes stale: those not staged with it.
        for (const DownstreamWindow &d : downstreamWindows(m_spec, b->window(*m)))
            if (std::none_of(rv.cascade.begin(), rv.cascade.end(), [&](const CascadeMember &c) { return c.model == d.model->name; }))
                rv.staleDownstream.push_back(d.model->name + " " + d.window.text());
    }
    if (m) {
        // The row diffs' changed columns that no measure covers: unexpected.
        auto diffs = co_await c.query("SELECT partition, column_changes::text FROM reprint.row_diffs WHERE backfill_id = $1 "
                                      "ORDER BY partition_start",
                                      args(std::to_string(id)));
        if (!diffs)
            co_return diffs.error();
        const auto measures = m->allMeasures();
        for (const auto &row : diffs->last().rows) {
            const QJsonObject counts = QJsonDocument::fromJson(QByteArray::fromStdString(row[1].value_or("{}"))).object();
            for (auto it = counts.begin(); it != counts.end(); ++it) {
                const std::string column = it.key().toStdString();
                if (it.value().toInteger() > 0 && std::find(measures.begin(), measures.end(), column) == measures.end())
                    rv.unexpectedColumns.push_back({*row[0], column, it.value().toInteger()});
            }
        }
        const auto order = m->allMeasures();
        for (auto &p : rv.partitions)
            std::stable_sort(p.measures.begin(), p.measures.end(), [&](const MeasureTotals &a, const MeasureTotals &b) {
                return std::find(order.begin(), order.end(), a.measure) < std::find(order.begin(), order.end(), b.measure);
            });
    }
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

namespace {

// COMMITs the transaction that makes backfill `id` `done` (published, undone). A COMMIT
// that does not answer (the connection dropped) has an unknown outcome: it is read back
// from the warehouse on a new connection, so that the message says what the warehouse
// holds. `again`: the hint when it rolled back.
Task<Status> commitOrReadBack(warehouse::Connection &c, const std::string &conninfo, long long id, const std::string &done,
                              const std::string &again)
{
    auto committed = co_await c.execute("COMMIT");
    if (committed)
        co_return warehouse::ok();
    const std::string ids = std::to_string(id);
    const std::string verb = done == "published" ? "publish" : "undo";
    auto conn = co_await openSession(conninfo);
    Result<BackfillRow> st = Error::make(ErrorKind::Connection, "not connected");
    if (conn)
        st = co_await readBackfill(**conn, id, false);
    if (st && st->status == done)
        co_return warehouse::ok();
    Error e = committed.error();
    if (st) {
        e.message = "the COMMIT of backfill " + ids + "'s " + verb + " did not answer (" + e.message + "); the warehouse shows it "
                    + st->status + ": it rolled back, nothing was " + (verb == "publish" ? "published" : "undone");
        e.hint = again;
    } else {
        e.message = "the COMMIT of backfill " + ids + "'s " + verb + " did not answer (" + e.message
                    + ") and its outcome could not be read back";
        e.hint = "Run `reprint history` once the warehouse is reachable: it says whether backfill " + ids + " was " + done + ".";
    }
    co_return e;
}

// Inside the publish transaction: waits (lock_timeout) until no other transaction writes
// the target and keeps it so until COMMIT: SHARE ROW EXCLUSIVE, which readers' ACCESS
// SHARE does not conflict with. On a partitioned target it covers every partition.
Task<Status> fenceWriters(warehouse::Connection &c, const ModelSql &sql, int timeoutMs, const std::string &nothingDone,
                          const std::string &again)
{
    auto r = co_await c.execute("LOCK TABLE " + sql.target + " IN SHARE ROW EXCLUSIVE MODE");
    if (r)
        co_return warehouse::ok();
    if (!isLockTimeout(r.error()))
        co_return r.error();
    co_return conflict("could not lock " + sql.target + " against writers within " + std::to_string(timeoutMs)
                           + " ms: another session kept writing it; " + nothingDone,
                       again + " once that write has committed.");
}

// Inside the publish transaction: checks that backfill `id` may be published exactly as
// validated (status, validation or override, four eyes, claim, transform hash, target
// and source drift), then replaces its window.
Task<Result<PublishOutcome>> publishMember(warehouse::Connection &c, const Spec &spec, const Model &m, const Window &w,
                                           const BackfillRow &b, const PublishRequest &req, const EngineOptions &options,
                                           const std::string &conninfo, CancelTokenPtr cancel, Laps &laps)
{
    const std::string id = std::to_string(b.id);
    if (b.status == "published")
        co_return conflict("backfill " + id + " is already published; nothing was changed", "`reprint history` shows when and by whom.");
    if (b.status == "undone" || b.status == "abandoned")
        co_return conflict("backfill " + id + " was " + b.status + " and cannot be published", "Run a new backfill of the window.");
    if (b.status != "staged") {
        const std::string next = b.status == "failed" ? "Resume it (`reprint backfill --resume " + id + "`) or abandon it."
                                                      : "Wait until it has staged and validated.";
        co_return conflict("backfill " + id + " is " + b.status + ", not staged: there is nothing validated to publish", next);
    }
    if (b.validation.empty())
        co_return Error::make(ErrorKind::Validation,
                              "backfill " + id + " (" + m.name + ") was never validated: no review of it was produced, so nobody "
                                  "approved it; nothing was published",
                              "Stage it again with `reprint backfill --resume " + std::to_string(req.id) + "`, then review it.");
    if (b.validation != "passed" && req.overrideReason.empty())
        co_return Error::make(ErrorKind::Validation, "backfill " + id + " (" + m.name + ") failed validation: " + b.validationMessage,
                              "Nothing was published. To publish anyway, give a reason with --override REASON.");
    if (m.approval == Approval::FourEyes) {
        auto who = co_await c.query("SELECT current_user::text");
        if (!who)
            co_return who.error();
        if (who->last().scalar() == b.operatorName)
            co_return Error::make(ErrorKind::Permission,
                                  "model " + m.name + " needs four eyes: the approver must not be the operator (" + b.operatorName + ")",
                                  "Ask another database user to publish backfill " + id + ".");
    }
    auto claim = co_await c.query("SELECT holder FROM reprint.claims WHERE backfill_id = $1", args(id));
    if (!claim)
        co_return claim.error();
    if (claim->last().rows.empty())
        co_return drift("backfill " + id + " no longer holds its claim on the window", "Its lease was taken over; run the backfill again.");
    auto described = co_await describeModel(c, spec, m);
    if (!described)
        co_return described.error();
    const ModelSql &sql = *described;
    laps.lap("check the request and read the catalog");
    // The drift guard: what is published must be exactly what was validated. Writers of the
    // target are fenced off first (readers are not), so that a write committing while
    // publish waits is read by the guard below, never overwritten by the replace.
    auto fenced = co_await fenceWriters(c, sql, options.lockTimeoutMs, "nothing of backfill " + id + " was published",
                                        "Publish again with `reprint publish " + std::to_string(req.id) + " --approve NOTE`");
    if (!fenced)
        co_return fenced.error();
    laps.lap("fence writers (wait for the lock)");
    if (sql.transformHash != b.transformHash)
        co_return drift("the transform of " + m.name + " changed since backfill " + id + " was validated",
                           "Run the backfill again so that the review matches the code that runs.");
    auto now = co_await readTotals(c, sql, sql.target, w.first(), w.last());
    if (!now)
        co_return now.error();
    auto stored = co_await c.query("SELECT extract(epoch FROM partition_start)::bigint, partition, measure, old::text "
                                   "FROM reprint.partition_totals WHERE backfill_id = $1 AND in_scope",
                                   args(id));
    if (!stored)
        co_return stored.error();
    for (const auto &row : stored->last().rows) {
        const Value current = totalOf(*now, std::stoll(*row[0]), measureIndex(m, *row[2]));
        if (!agrees(current, row[3], 0))
            co_return drift("the target changed since validation: " + m.name + " " + *row[1] + " " + *row[2] + " was "
                                   + row[3].value_or("NULL") + ", now " + current.value_or("NULL") + "; nothing was published",
                               "Something wrote the window after backfill " + id
                                   + " was validated. Abandon it and run the backfill again to re-validate.");
    }
    laps.lap("drift guard: target totals");
    auto checksNow = co_await readChecksAtOnce(conninfo, sql, w.before, w.after, cancel);
    if (!checksNow)
        co_return checksNow.error();
    auto storedChecks = co_await c.query("SELECT extract(epoch FROM partition_start)::bigint, check_name, value::text "
                                         "FROM reprint.check_values WHERE backfill_id = $1",
                                         args(id));
    if (!storedChecks)
        co_return storedChecks.error();
    for (const auto &row : storedChecks->last().rows) {
        const Value current = checkOf(*checksNow, *row[1], std::stoll(*row[0]));
        if (!agrees(current, row[2], 0))
            co_return drift("the source changed since validation: check '" + *row[1] + "' of " + m.name + " was "
                                   + row[2].value_or("NULL") + ", now " + current.value_or("NULL"),
                               "Abandon backfill " + id + " and run it again to re-validate against the new source.");
    }
    PublishPlan plan;
    plan.id = b.id;
    plan.window = &w;
    plan.stage = quoteRelation("reprint_staging", b.stageTable);
    plan.archiveName = ("b" + id + "_" + m.name).substr(0, 63);
    plan.note = req.note;
    plan.overrideReason = req.overrideReason;
    plan.auditAction = "publish";
    plan.strategy = m.publish;
    plan.options = &options;
    plan.cancel = std::move(cancel);
    plan.retry = "`reprint publish " + std::to_string(req.id) + " --approve NOTE`";
    laps.lap("drift guard: source checks");
    auto replaced = co_await replaceWindow(c, sql, plan);
    laps.lap(replaced ? "archive and " + replaced->strategy + " the window" : std::string("replace the window"));
    co_return replaced;
}

} // namespace

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

namespace {

// Why `undo` refuses a backfill that is not a published backfill: what it is, and what to do.
Error notUndoable(const BackfillRow &b)
{
    const std::string id = std::to_string(b.id);
    if (b.kind == "run")
        return conflict(id + " is a scheduled run of " + b.model + " " + b.from + " (" + b.status
                            + "), not a backfill: a run archives nothing, so there is nothing to restore",
                        "To rebuild that partition, backfill it: `reprint backfill --model " + b.model + " --from " + b.from
                            + " --to " + b.to + "`.");
    if (b.status == "staged")
        return conflict("backfill " + id + " is staged, not published: it has not changed the target, so there is nothing to undo",
                        "Publish it (`reprint publish " + id + " --approve NOTE`) or drop it with `reprint abandon " + id + "`.");
    if (b.status == "staging" || b.status == "planned")
        return conflict("backfill " + id + " is still " + b.status + ", not published: there is nothing to undo",
                        "Cancel it (`reprint cancel " + id + "`), or let it finish and review it.");
    if (b.status == "failed")
        return conflict("backfill " + id + " failed before it was published: the target is unchanged, so there is nothing to undo",
                        "Resume it (`reprint backfill --resume " + id + "`) or abandon it (`reprint abandon " + id + "`).");
    return conflict("backfill " + id + " is " + b.status + ", never published: there is nothing to undo", "");
}

} // namespace

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
    if (b->status == "undone")
        co_return co_await fail(conflict("backfill " + id + " is already undone; nothing was changed", ""));
    if (b->status != "published" || b->kind != "backfill")
        co_return co_await fail(notUndoable(*b));
    if (b->archiveTable.empty())
        co_return co_await fail(conflict("the archive of backfill " + id + " was pruned; it can no longer be undone",
                                         "Run a backfill of the window instead."));
    // Nobody may be writing the window now.
    auto claims = co_await c.query("SELECT b.id::text, b.operator FROM reprint.claims c JOIN reprint.backfills b ON b.id = c.backfill_id "
                                   "WHERE c.model = $1 AND c.span && tstzrange($2, $3) LIMIT 1",
                                   args((*m)->name, w->first().startText(), w->last().endText()),
                                   oids(0, kTimestamptzOid, kTimestamptzOid));
    if (!claims)
        co_return co_await fail(claims.error());
    if (!claims->last().rows.empty()) {
        const auto &row = claims->last().rows.front();
        co_return co_await fail(conflict("the window is claimed by backfill " + *row[0] + " (operator " + *row[1] + ")",
                                         "Publish or abandon it first."));
    }
    // Writers are fenced off first, so that a write committing while undo waits is read by
    // the guard below, never thrown away by the restore (as in publish).
    if (auto fenced = co_await fenceWriters(c, sql, m_options.lockTimeoutMs, "nothing of backfill " + id + " was undone",
                                            "Undo again with `reprint undo " + id + "`");
        !fenced)
        co_return co_await fail(fenced.error());
    // The drift guard: the window must still hold exactly what this backfill published.
    if (req.overrideReason.empty()) {
        auto now = co_await readTotals(c, sql, sql.target, w->first(), w->last());
        if (!now)
            co_return co_await fail(now.error());
        auto stored = co_await c.query("SELECT extract(epoch FROM partition_start)::bigint, partition, measure, new::text "
                                       "FROM reprint.partition_totals WHERE backfill_id = $1 AND in_scope",
                                       args(id));
        if (!stored)
            co_return co_await fail(stored.error());
        for (const auto &row : stored->last().rows) {
            const Value current = totalOf(*now, std::stoll(*row[0]), measureIndex(**m, *row[2]));
            if (!agrees(current, row[3], 0))
                co_return co_await fail(drift("the window was written after backfill " + id + " was published: " + *row[1] + " "
                                                     + *row[2] + " is " + current.value_or("NULL") + ", published "
                                                     + row[3].value_or("NULL") + "; nothing was undone",
                                                 "Undoing would throw that write away. Pass --override REASON to undo anyway."));
        }
    }
    const std::string archive = quoteRelation("reprint_archive", b->archiveTable);
    UndoOutcome out;
    out.id = req.id;
    r = co_await c.query("DELETE FROM " + sql.target + " AS t WHERE " + sql.inWindow("t"),
                         args(sql.lowerValue(w->first()), sql.upperValue(w->last())));
    if (r) {
        out.rowsRemoved = r->last().affectedRows;
        r = co_await c.query("INSERT INTO " + sql.target + " (" + sql.columnList + ") SELECT " + sql.columnList + " FROM " + archive);
    }
    if (r) {
        out.rowsRestored = r->last().affectedRows;
        r = co_await c.query("UPDATE reprint.backfills SET status = 'undone', undone_at = now(), updated_at = now(), "
                             "archive_table = NULL WHERE id = $1",
                             args(id));
    }
    const Value reason = req.overrideReason.empty() ? Value() : Value(req.overrideReason);
    if (r)
        r = co_await c.query("INSERT INTO reprint.audit (backfill_id, action, override_reason) VALUES ($1, 'undo', $2)",
                             args(id, reason));
    if (r)
        r = co_await c.query("UPDATE reprint.partition_loads SET loaded_at = now(), backfill_id = $2 "
                             "WHERE model = $1 AND partition_start >= $3 AND partition_start < $4",
                             args((*m)->name, id, w->first().startText(), w->last().endText()),
                             oids(0, 0, kTimestamptzOid, kTimestamptzOid));
    if (r)
        r = co_await c.query("DROP TABLE " + archive + " CASCADE");  // a swap's archive: the detached partitions inherit it
    if (!r)
        co_return co_await fail(r.error());
    auto committed = co_await commitOrReadBack(c, m_conninfo, req.id, "undone", "Undo it again: `reprint undo " + id + "`.");
    if (!committed)
        co_return committed.error();
    co_return out;
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
