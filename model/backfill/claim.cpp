#include "claim.h"

#include "ledger.h"
#include "session.h"
#include "sqltext.h"
#include "stage.h"
#include "warehouse/localcluster.h"
#include <thread>
#include <unistd.h>
#include <cstdlib>

namespace reprint::backfill {

std::string holderName()
{
    char host[256] = {0};
    if (::gethostname(host, sizeof host - 1) != 0)
        host[0] = '\0';
    return std::string(host[0] ? host : "localhost") + ":" + std::to_string(::getpid());
}

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

Task<Status> lockClaims(warehouse::Connection &c, const Model &model)
{
    auto r = co_await c.query("SELECT pg_advisory_xact_lock(hashtext('reprint.claim'), hashtext($1))", args(model.name));
    if (!r)
        co_return r.error();
    co_return warehouse::ok();
}

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

Task<Result<std::string>> claimWindow(warehouse::Connection &c, long long id, const Model &model,
                                      const Partition &from, const Partition &to, const EngineOptions &opt)
{
    if (auto locked = co_await lockClaims(c, model); !locked)
        co_return locked.error();
    auto expired = co_await c.query(
        "WITH gone AS (DELETE FROM reprint.claims WHERE model = $1 AND span && tstzrange($2, $3) "
        "AND lease_expires < now() RETURNING backfill_id, holder, operator, lease_expires) "
        "UPDATE reprint.backfills b SET status = 'failed', failure = 'error', updated_at = now(), "
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
        if (auto created = co_await createStage(c, sql, w, rec.id); !created)
            co_return created.error();
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

namespace {

// Inside the resume's transaction: renews backfill `id`'s claim for this process when its
// lease lapsed or its holder is gone, or claims the window again when its claim was taken
// over and the window is free. Returns the takeover message, or a conflict when the claim
// is live elsewhere.
Task<Result<std::string>> takeClaimBack(warehouse::Connection &c, long long id, const Window &w, const EngineOptions &opt)
{
    const std::string ids = std::to_string(id);
    // A claim whose holder is gone (this host, its pid no longer runs) is free at once.
    auto held = co_await c.query("SELECT holder FROM reprint.claims WHERE backfill_id = $1", args(ids));
    if (!held)
        co_return held.error();
    const std::string gone = !held->last().rows.empty() && holderGone(*held->last().rows[0][0]) ? *held->last().rows[0][0] : "";
    auto renewed = co_await c.query("UPDATE reprint.claims SET holder = $2, heartbeat_at = now(), "
                                    "lease_expires = now() + make_interval(secs => $3) "
                                    "WHERE backfill_id = $1 AND (lease_expires < now() OR holder = $2 OR holder = $4) RETURNING 1",
                                    args(ids, opt.holder, std::to_string(opt.leaseSeconds), gone));
    if (!renewed)
        co_return renewed.error();
    if (!renewed->last().rows.empty())
        co_return std::string();
    auto live = co_await c.query("SELECT holder, " + utcTimeText("lease_expires") + " FROM reprint.claims WHERE backfill_id = $1", args(ids));
    if (!live)
        co_return live.error();
    if (!live->last().rows.empty()) {
        const auto &row = live->last().rows.front();
        co_return conflict("backfill " + ids + " is still staging in " + *row[0] + " (lease until " + *row[1] + ")",
                           "Cancel it there, or resume once its lease has expired.");
    }
    co_return co_await claimWindow(c, id, *w.model, w.first(), w.last(), opt);
}

} // namespace

Task<Result<Recorded>> resumeClaim(warehouse::Connection &c, long long id, const ModelSql &sql, const Window &w,
                                   const EngineOptions &opt)
{
    const std::string ids = std::to_string(id);
    auto b = co_await beginWithBackfill(c, id);
    if (!b)
        co_return b.error();
    if (isClosed(b->status) || b->kind != "backfill") {
        co_await rollback(c);
        co_return conflict("backfill " + ids + " is " + toString(b->status) + " and cannot be resumed", "Start a new backfill of the window.");
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
    if (b->status != BackfillStatus::Staged) {
        auto takeover = co_await takeClaimBack(c, id, w, opt);
        if (!takeover) {
            co_await rollback(c);
            co_return takeover.error();
        }
        rec.takeover = *takeover;
    }
    auto states = co_await c.query("SELECT extract(epoch FROM partition_start)::bigint, state FROM reprint.backfill_partitions "
                                   "WHERE backfill_id = $1",
                                   args(ids));
    if (states)
        for (const auto &row : states->last().rows)
            rec.states[std::stoll(*row[0])] = partitionStageFrom(*row[1]);
    if (states)
        states = co_await c.query("UPDATE reprint.backfills SET status = 'staging', error = NULL, failure = NULL, updated_at = now() WHERE id = $1",
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

Task<void> heartbeat(warehouse::ConnectionPtr conn, long long id, EngineOptions opt, std::shared_ptr<Heartbeat> hb,
                     CancelTokenPtr cancel)
{
    if (hb->stopped)
        co_return;
    hb->conn = conn;
    // Without the LISTEN (it never fails on a live connection) the wait below is just the
    // beat's timer: no request is heard, the lease is still kept.
    (void)co_await conn->execute("LISTEN reprint_cancel");
    const std::string self = std::to_string(id);
    using Clock = std::chrono::steady_clock;
    auto next = Clock::now() + std::chrono::seconds(opt.heartbeatSeconds);
    while (!hb->stopped) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(next - Clock::now());
        auto heard = co_await conn->waitForNotification(std::max(left, std::chrono::milliseconds(1)));
        if (hb->stopped || !heard)
            break;
        if (*heard && (*heard)->payload == self) {
            // PQcancel blocks: from a thread of its own, as the CLI's Ctrl-C does.
            std::thread([cancel] { cancel->cancel(); }).detach();
            continue;
        }
        if (Clock::now() < next)
            continue;
        auto r = co_await conn->query("UPDATE reprint.claims SET heartbeat_at = now(), "
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
    hb->conn.reset();
    // The session goes on (validation): requests heard from here on are not for it.
    if (conn->isOpen())
        (void)co_await conn->execute("UNLISTEN reprint_cancel");
}

} // namespace reprint::backfill
