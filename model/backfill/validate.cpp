#include "validate.h"

#include "claim.h"
#include "session.h"
#include "sqltext.h"
#include <QDateTime>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTimeZone>
#include <algorithm>

namespace reprint::backfill {

namespace {

// The checks being read by readChecks(): each worker takes the next one.
struct CheckRun {
    const ModelSql *sql = nullptr;
    Params params;
    std::size_t next = 0;
    std::vector<Result<Reply>> replies;
};

// One session for the checks. The checks are already spread over up to three sessions,
// and they run beside the staging (or beside each other and the target's totals in the
// drift guard): each plans without parallel workers of its own, so that Reprint's sessions
// do not take more processes than the server has cores. On two cores that cut a 30-day
// drift guard by about a third and the staging beside the checks by a sixth
// (docs/architecture.md, "Parallel sessions").
Task<void> openCheckSession(std::string conninfo, CancelTokenPtr cancel, std::shared_ptr<Result<ConnectionPtr>> out)
{
    auto conn = co_await openSession(conninfo, "reprint", cancel);
    if (conn) {
        auto serial = co_await (*conn)->query("SELECT set_config('max_parallel_workers_per_gather', '0', false)");
        if (!serial)
            conn = serial.error();
    }
    *out = std::move(conn);
}

Task<void> checkWorker(std::shared_ptr<CheckRun> run, std::shared_ptr<Result<ConnectionPtr>> conn)
{
    while (run->next < run->replies.size()) {
        const std::size_t i = run->next++;
        if (!*conn)
            run->replies[i] = conn->error();
        else
            run->replies[i] = co_await (**conn)->query(run->sql->checks[i].sql, run->params, kBounds);
    }
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

} // namespace

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

CheckSessions openCheckSessions(asio::any_io_executor executor, const std::string &conninfo, std::size_t count,
                                CancelTokenPtr cancel)
{
    CheckSessions out{std::make_shared<JoinGroup>(executor), {}};
    for (std::size_t i = 0; i < std::min<std::size_t>(count, 3); ++i) {
        out.sessions.push_back(std::make_shared<Result<ConnectionPtr>>(Error::make(ErrorKind::Internal, "not connected yet")));
        spawnJoined(out.opening, openCheckSession(conninfo, cancel, out.sessions.back()));
    }
    return out;
}

Task<Result<CheckValues>> readChecks(CheckSessions sessions, const ModelSql &sql, const Partition &from, const Partition &to)
{
    if (sql.checks.empty())
        co_return CheckValues{};
    if (!sessions.opening || sessions.sessions.empty())
        co_return Error::make(ErrorKind::Internal, "no session was opened for the source checks");
    co_await joinAll(sessions.opening);
    auto run = std::make_shared<CheckRun>();
    run->sql = &sql;
    run->params = args(from.startText(), to.endText(), sql.grainText(), sql.model->timezone);
    run->replies.resize(sql.checks.size());
    auto group = std::make_shared<JoinGroup>(co_await asio::this_coro::executor);
    const std::size_t workers = std::min(sql.checks.size(), sessions.sessions.size());
    for (std::size_t i = 0; i < workers; ++i)
        spawnJoined(group, checkWorker(run, sessions.sessions[i]));
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

PendingChecks startChecks(asio::any_io_executor executor, const std::string &conninfo, const ModelSql &sql,
                          const Partition &from, const Partition &to, CancelTokenPtr cancel)
{
    return startChecks(executor, openCheckSessions(executor, conninfo, sql.checks.size(), std::move(cancel)), sql, from, to);
}

PendingChecks startChecks(asio::any_io_executor executor, CheckSessions sessions, const ModelSql &sql, const Partition &from,
                          const Partition &to)
{
    PendingChecks pending{std::make_shared<JoinGroup>(executor), std::make_shared<std::optional<Result<CheckValues>>>()};
    auto read = [](std::shared_ptr<std::optional<Result<CheckValues>>> out, CheckSessions sessions, const ModelSql *sql,
                   Partition from, Partition to) -> Task<void> {
        out->emplace(co_await readChecks(sessions, *sql, from, to));
    };
    spawnJoined(pending.group, read(pending.values, std::move(sessions), &sql, from, to));
    return pending;
}

Task<Result<CheckValues>> awaitChecks(PendingChecks pending)
{
    if (!pending.group)
        co_return Error::make(ErrorKind::Internal, "the source checks were never started");
    co_await joinAll(pending.group);
    co_return std::move(**pending.values);
}

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

namespace {

// Inside the review transaction: replaces backfill `id`'s stored totals (each partition and
// measure, old, new, source, verdict) and check values with `v`'s and `checks`.
Task<Status> storeTotals(warehouse::Connection &c, const std::string &id, const Validation &v, const CheckValues &checks)
{
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
    for (const auto &[check, values] : checks)
        for (const auto &[p, value] : values) {
            cvStarts.emplace_back(QDateTime::fromSecsSinceEpoch(p, QTimeZone::utc()).toString(Qt::ISODate).toStdString());
            cvNames.emplace_back(check);
            cvValues.push_back(value);
        }
    auto r = co_await c.query("DELETE FROM reprint.partition_totals WHERE backfill_id = $1", args(id));
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
    if (!r)
        co_return r.error();
    co_return warehouse::ok();
}

// Inside the review transaction: the row diffs of the boundary partitions, the first and
// the last (once when they are the same).
Task<Status> storeBoundaryDiffs(warehouse::Connection &c, const Member &member, int sampleRows)
{
    const Window &w = member.window;
    std::vector<const Partition *> edges{&w.first()};
    if (w.partitions.size() > 1)
        edges.push_back(&w.last());
    for (const Partition *p : edges)
        if (auto d = co_await computeRowDiff(c, member.sql, member.rec.id, *p, member.rec.stage, sampleRows); !d)
            co_return d.error();
    co_return warehouse::ok();
}

} // namespace

Task<Result<Validation>> validateMember(warehouse::Connection &c, Member &member, const EngineOptions &opt, PendingChecks pending,
                                        Laps &laps)
{
    const Window &w = member.window;
    const ModelSql &sql = member.sql;
    const std::string id = std::to_string(member.rec.id);
    // The source checks, started with the staging, are still reading on their sessions:
    // meanwhile this one reads the totals, opens the review's transaction and computes the
    // boundary row diffs (none of which needs the checks), and only then waits for them.
    // They are waited for on every path out.
    Status prepared = warehouse::ok();
    auto oldTotals = co_await readTotals(c, sql, sql.target, w.before, w.after);
    Result<Totals> newTotals = Totals{};
    if (oldTotals)
        newTotals = co_await readTotals(c, sql, member.rec.stage, w.first(), w.last());
    if (!oldTotals || !newTotals)
        prepared = !oldTotals ? oldTotals.error() : newTotals.error();
    else
        laps.lap("validate: totals of target and stage");
    bool claimed = true;
    if (prepared) {
        auto r = co_await c.execute("BEGIN");
        // Still ours? A lapsed lease may have been taken over while this process was stopped.
        if (r)
            r = co_await c.query("SELECT 1 FROM reprint.claims c JOIN reprint.backfills b ON b.id = c.backfill_id "
                                 "WHERE c.backfill_id = $1 AND b.status = 'staging' FOR UPDATE",
                                 args(id));
        claimed = !r || !r->last().rows.empty();
        if (r && claimed)
            prepared = co_await storeBoundaryDiffs(c, member, opt.sampleRows);
        else if (!r)
            prepared = r.error();
        if (prepared && claimed)
            laps.lap("validate: boundary row diffs");
    }
    auto checks = co_await awaitChecks(std::move(pending));
    laps.lap("validate: source checks");
    if (!claimed) {
        co_await rollback(c);
        co_return co_await claimLost(c, member.rec.id);
    }
    if (prepared && !checks)
        prepared = checks.error();
    if (!prepared) {
        co_await rollback(c);
        co_return prepared.error();
    }
    Validation v = validate(w, *oldTotals, *newTotals, *checks);
    Status stored = co_await storeTotals(c, id, v, *checks);
    Result<warehouse::Reply> r = warehouse::Reply{};
    const Value messageValue = v.message.empty() ? Value() : Value(v.message);
    if (stored)
        r = co_await c.query("UPDATE reprint.backfills SET status = 'staged', validation = $2, validation_message = $3, "
                             "staged_at = now(), validated_at = now(), updated_at = now() WHERE id = $1",
                             args(id, v.passed ? "passed" : "failed", messageValue));
    if (stored && r)
        r = co_await c.query("UPDATE reprint.claims SET lease_expires = 'infinity', heartbeat_at = now() WHERE backfill_id = $1",
                             args(id));
    if (stored && r)
        r = co_await c.execute("COMMIT");
    if (!stored || !r) {
        co_await rollback(c);
        co_return !stored ? stored.error() : r.error();
    }
    laps.lap("validate: store the review");
    co_return v;
}

Task<Result<std::optional<TotalDrift>>> totalsDrift(warehouse::Connection &c, const ModelSql &sql, const Window &w, long long id,
                                                    StoredTotal which)
{
    auto now = co_await readTotals(c, sql, sql.target, w.first(), w.last());
    if (!now)
        co_return now.error();
    const std::string column = which == StoredTotal::Old ? "old" : "new";
    auto stored = co_await c.query("SELECT extract(epoch FROM partition_start)::bigint, partition, measure, " + column + "::text "
                                   "FROM reprint.partition_totals WHERE backfill_id = $1 AND in_scope",
                                   args(std::to_string(id)));
    if (!stored)
        co_return stored.error();
    for (const auto &row : stored->last().rows) {
        const Value current = totalOf(*now, std::stoll(*row[0]), measureIndex(*sql.model, *row[2]));
        if (!agrees(current, row[3], 0))
            co_return std::optional<TotalDrift>(TotalDrift{*row[1], *row[2], row[3], current});
    }
    co_return std::optional<TotalDrift>();
}

} // namespace reprint::backfill
