#include "publish.h"

#include "session.h"
#include "sqltext.h"
#include "validate.h"
#include <algorithm>

namespace reprint::backfill {

namespace {

// A replace whose delete or insert waited past lock_timeout for rows that another session
// holds locked (an open UPDATE, SELECT ... FOR UPDATE) gives up: the caller rolls back.
Error rowsLocked(Error e, const ModelSql &sql, const PublishPlan &plan)
{
    if (e.kind != ErrorKind::LockNotAvailable)
        return e;
    const std::string what = plan.auditAction == "run" ? "the run" : "backfill " + std::to_string(plan.id);
    return conflict("could not replace " + windowText(plan.window->first(), plan.window->last()) + " of " + sql.target
                        + ": another session held rows of it locked for more than " + std::to_string(plan.options->lockTimeoutMs)
                        + " ms (lock timeout); nothing of " + what + " was published",
                    "Publish again once that session has committed or rolled back"
                        + (plan.retry.empty() ? std::string(".") : ": " + plan.retry + "."));
}

// Replaces the window's rows of the target with the stage's, inside the caller's open
// transaction: archive (optional) and delete in one pass, then insert. Row locks held by
// another session past lock_timeout give up (rowsLocked).
Task<Result<PublishOutcome>> replaceRows(warehouse::Connection &c, const ModelSql &sql, const PublishPlan &plan)
{
    PublishOutcome out;
    out.id = plan.id;
    out.strategy = "replace";
    out.lockedAt = std::chrono::steady_clock::now();
    const Window &w = *plan.window;
    const Params bounds = {sql.lowerValue(w.first()), sql.upperValue(w.last())};
    const std::string where = " AS t WHERE " + sql.inWindow("t");
    Result<Reply> r = Reply{};
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
    co_return out;
}

// After the window was replaced: the backfill is published (approver, note, archive), the
// audit and the partitions' loads say so, the claim is released and the stage dropped.
Task<Status> recordPublished(warehouse::Connection &c, const ModelSql &sql, const PublishPlan &plan, PublishOutcome &out)
{
    std::vector<Value> starts, ends;
    for (const Partition &p : plan.window->partitions) {
        starts.emplace_back(p.startText());
        ends.emplace_back(p.endText());
    }
    const Value reason = plan.overrideReason.empty() ? Value() : Value(plan.overrideReason);
    const Value archiveName = plan.archiveName.empty() ? Value() : Value(plan.archiveName);
    auto r = co_await c.query("UPDATE reprint.backfills SET status = 'published', approver = current_user, note = $2, "
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
    co_return warehouse::ok();
}

} // namespace

Task<Result<PublishOutcome>> publishWindow(warehouse::Connection &c, const ModelSql &sql, const PublishPlan &plan)
{
    SwapLayout layout;
    if (plan.strategy != PublishStrategy::Replace) {
        auto found = co_await swapLayoutOf(c, sql, *plan.window);
        if (!found)
            co_return found.error();
        layout = std::move(*found);
        if (!layout.fits() && plan.strategy == PublishStrategy::Swap)
            co_return Error::make(EngineKind::Spec,
                                  "model " + sql.model->name + " asks for `publish: swap`, but " + layout.misfit
                                      + "; nothing was published",
                                  "Scope the window to whole physical partitions, or set `publish: auto` (swap where it "
                                  "can, replace otherwise) or `publish: replace` in the spec.");
    }
    if (plan.strategy == PublishStrategy::Replace || !layout.fits()) {
        auto out = co_await replaceRows(c, sql, plan);
        if (!out)
            co_return out.error();
        if (auto recorded = co_await recordPublished(c, sql, plan, *out); !recorded)
            co_return recorded.error();
        co_return out;
    }
    // A swap records the publish before it takes its lock: the lock then covers only the
    // catalog change (and the commit).
    PublishOutcome out;
    out.id = plan.id;
    out.strategy = "swap";
    auto swaps = co_await prepareSwap(c, sql, plan, layout, out);
    if (!swaps)
        co_return swaps.error();
    if (auto recorded = co_await recordPublished(c, sql, plan, out); !recorded)
        co_return recorded.error();
    if (auto swapped = co_await swapPartitions(c, sql, plan, *swaps, out); !swapped)
        co_return swapped.error();
    co_return out;
}

Task<Status> commitOrReadBack(warehouse::Connection &c, const std::string &conninfo, long long id, BackfillStatus done,
                              const std::string &again)
{
    auto committed = co_await c.execute("COMMIT");
    if (committed)
        co_return warehouse::ok();
    const std::string ids = std::to_string(id);
    const std::string verb = done == BackfillStatus::Published ? "publish" : "undo";
    auto conn = co_await openSession(conninfo);
    Result<BackfillRow> st = Error::make(ErrorKind::Connection, "not connected");
    if (conn)
        st = co_await readBackfill(**conn, id, false);
    if (st && st->status == done)
        co_return warehouse::ok();
    Error e = committed.error();
    if (st) {
        e.message = "the COMMIT of backfill " + ids + "'s " + verb + " did not answer (" + e.message + "); the warehouse shows it "
                    + toString(st->status) + ": it rolled back, nothing was " + (verb == "publish" ? "published" : "undone");
        e.hint = again;
    } else {
        e.message = "the COMMIT of backfill " + ids + "'s " + verb + " did not answer (" + e.message
                    + ") and its outcome could not be read back";
        e.hint = "Run `reprint history` once the warehouse is reachable: it says whether backfill " + ids + " was " + toString(done) + ".";
    }
    co_return e;
}

Task<Status> fenceWriters(warehouse::Connection &c, const ModelSql &sql, int timeoutMs, const std::string &nothingDone,
                          const std::string &again)
{
    auto r = co_await c.execute("LOCK TABLE " + sql.target + " IN SHARE ROW EXCLUSIVE MODE");
    if (r)
        co_return warehouse::ok();
    if (r.error().kind != ErrorKind::LockNotAvailable)
        co_return r.error();
    co_return conflict("could not lock " + sql.target + " against writers within " + std::to_string(timeoutMs)
                           + " ms: another session kept writing it; " + nothingDone,
                       again + " once that write has committed.");
}

namespace {

// Whether backfill `b` may be published as asked: staged and validated (or overridden),
// four eyes where the model asks for them, and still holding its claim.
Task<Status> checkPublishable(warehouse::Connection &c, const Model &m, const BackfillRow &b, const PublishRequest &req)
{
    const std::string id = std::to_string(b.id);
    if (b.status == BackfillStatus::Published)
        co_return conflict("backfill " + id + " is already published; nothing was changed", "`reprint history` shows when and by whom.");
    if (b.status == BackfillStatus::Undone || b.status == BackfillStatus::Abandoned)
        co_return conflict("backfill " + id + " was " + toString(b.status) + " and cannot be published", "Run a new backfill of the window.");
    if (b.status != BackfillStatus::Staged) {
        const std::string next = b.status == BackfillStatus::Failed ? "Resume it (`reprint backfill --resume " + id + "`) or abandon it."
                                                      : "Wait until it has staged and validated.";
        co_return conflict("backfill " + id + " is " + toString(b.status) + ", not staged: there is nothing validated to publish", next);
    }
    if (b.validation.empty())
        co_return Error::make(EngineKind::Validation,
                              "backfill " + id + " (" + m.name + ") was never validated: no review of it was produced, so nobody "
                                  "approved it; nothing was published",
                              "Stage it again with `reprint backfill --resume " + std::to_string(req.id) + "`, then review it.");
    if (b.validation != "passed" && req.overrideReason.empty())
        co_return Error::make(EngineKind::Validation, "backfill " + id + " (" + m.name + ") failed validation: " + b.validationMessage,
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
    co_return warehouse::ok();
}

// The drift guard, under the writer fence: the target's window still holds the totals it
// was validated against, and the source still gives the check values the review stored.
Task<Status> guardDrift(warehouse::Connection &c, const ModelSql &sql, const Window &w, const BackfillRow &b,
                        const CheckSessions &sessions, Laps &laps)
{
    const Model &m = *sql.model;
    const std::string id = std::to_string(b.id);
    if (sql.transformHash != b.transformHash)
        co_return drift("the transform of " + m.name + " changed since backfill " + id + " was validated",
                        "Run the backfill again so that the review matches the code that runs.");
    // The source checks run on their sessions while this one reads the target's totals.
    // Only the window's own partitions: publish writes nothing else, so what the source now
    // says of the neighbours cannot make the validated rows wrong (and reading them would
    // triple a one-day guard).
    const auto executor = co_await asio::this_coro::executor;
    PendingChecks pending = startChecks(executor, sessions, sql, w.first(), w.last());
    auto moved = co_await totalsDrift(c, sql, w, b.id, StoredTotal::Old);
    laps.lap("drift guard: target totals");
    auto checksNow = co_await awaitChecks(std::move(pending));  // on every path: `sql` must outlive it
    if (!moved)
        co_return moved.error();
    if (*moved)
        co_return drift("the target changed since validation: " + m.name + " " + (*moved)->partition + " " + (*moved)->measure
                            + " was " + (*moved)->stored.value_or("NULL") + ", now " + (*moved)->current.value_or("NULL")
                            + "; nothing was published",
                        "Something wrote the window after backfill " + id
                            + " was validated. Abandon it and run the backfill again to re-validate.");
    if (!checksNow)
        co_return checksNow.error();
    auto storedChecks = co_await c.query("SELECT extract(epoch FROM partition_start)::bigint, check_name, value::text "
                                         "FROM reprint.check_values WHERE backfill_id = $1 AND partition_start >= $2 "
                                         "AND partition_start < $3",
                                         args(id, w.first().startText(), w.last().endText()),
                                         oids(0, kTimestamptzOid, kTimestamptzOid));
    if (!storedChecks)
        co_return storedChecks.error();
    for (const auto &row : storedChecks->last().rows) {
        const Value current = checkOf(*checksNow, *row[1], std::stoll(*row[0]));
        if (!agrees(current, row[2], 0))
            co_return drift("the source changed since validation: check '" + *row[1] + "' of " + m.name + " was "
                                + row[2].value_or("NULL") + ", now " + current.value_or("NULL"),
                            "Abandon backfill " + id + " and run it again to re-validate against the new source.");
    }
    laps.lap("drift guard: source checks");
    co_return warehouse::ok();
}

} // namespace

Task<Result<PublishOutcome>> publishMember(warehouse::Connection &c, const Spec &spec, const Model &m, const Window &w,
                                           const BackfillRow &b, const PublishRequest &req, const EngineOptions &options,
                                           const CheckSessions &checkSessions, CancelTokenPtr cancel, Laps &laps)
{
    const std::string id = std::to_string(b.id);
    if (auto publishable = co_await checkPublishable(c, m, b, req); !publishable)
        co_return publishable.error();
    auto described = co_await describeModel(c, spec, m);
    if (!described)
        co_return described.error();
    const ModelSql &sql = *described;
    laps.lap("check the request and read the catalog");
    // What is published must be exactly what was validated. Writers of the target are
    // fenced off first (readers are not), so that a write committing while publish waits
    // is read by the drift guard, never overwritten by the replace.
    auto fenced = co_await fenceWriters(c, sql, options.lockTimeoutMs, "nothing of backfill " + id + " was published",
                                        "Publish again with `reprint publish " + std::to_string(req.id) + " --approve NOTE`");
    if (!fenced)
        co_return fenced.error();
    laps.lap("fence writers (wait for the lock)");
    if (auto guarded = co_await guardDrift(c, sql, w, b, checkSessions, laps); !guarded)
        co_return guarded.error();
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
    auto replaced = co_await publishWindow(c, sql, plan);
    laps.lap(replaced ? "archive and " + replaced->strategy + " the window" : std::string("replace the window"));
    co_return replaced;
}

namespace {


Error notUndoable(const BackfillRow &b)
{
    const std::string id = std::to_string(b.id);
    if (b.kind == "run")
        return conflict(id + " is a scheduled run of " + b.model + " " + b.from + " (" + toString(b.status)
                            + "), not a backfill: a run archives nothing, so there is nothing to restore",
                        "To rebuild that partition, backfill it: `reprint backfill --model " + b.model + " --from " + b.from
                            + " --to " + b.to + "`.");
    if (b.status == BackfillStatus::Staged)
        return conflict("backfill " + id + " is staged, not published: it has not changed the target, so there is nothing to undo",
                        "Publish it (`reprint publish " + id + " --approve NOTE`) or drop it with `reprint abandon " + id + "`.");
    if (isUnderway(b.status))
        return conflict("backfill " + id + " is still " + toString(b.status) + ", not published: there is nothing to undo",
                        "Cancel it (`reprint cancel " + id + "`), or let it finish and review it.");
    if (b.status == BackfillStatus::Failed)
        return conflict("backfill " + id + " failed before it was published: the target is unchanged, so there is nothing to undo",
                        "Resume it (`reprint backfill --resume " + id + "`) or abandon it (`reprint abandon " + id + "`).");
    return conflict("backfill " + id + " is " + toString(b.status) + ", never published: there is nothing to undo", "");
}

} // namespace

Task<Status> checkUndoable(warehouse::Connection &c, const BackfillRow &b, const Window &w)
{
    const std::string id = std::to_string(b.id);
    if (b.status == BackfillStatus::Undone)
        co_return conflict("backfill " + id + " is already undone; nothing was changed", "");
    if (b.status != BackfillStatus::Published || b.kind != "backfill")
        co_return notUndoable(b);
    if (b.archiveTable.empty())
        co_return conflict("the archive of backfill " + id + " was pruned; it can no longer be undone",
                           "Run a backfill of the window instead.");
    // Nobody may be writing the window now.
    auto claims = co_await c.query("SELECT b.id::text, b.operator FROM reprint.claims c JOIN reprint.backfills b ON b.id = c.backfill_id "
                                   "WHERE c.model = $1 AND c.span && tstzrange($2, $3) LIMIT 1",
                                   args(b.model, w.first().startText(), w.last().endText()),
                                   oids(0, kTimestamptzOid, kTimestamptzOid));
    if (!claims)
        co_return claims.error();
    if (!claims->last().rows.empty()) {
        const auto &row = claims->last().rows.front();
        co_return conflict("the window is claimed by backfill " + *row[0] + " (operator " + *row[1] + ")",
                           "Publish or abandon it first.");
    }
    co_return warehouse::ok();
}

Task<Result<UndoOutcome>> restoreWindow(warehouse::Connection &c, const ModelSql &sql, const Window &w, const BackfillRow &b,
                                        const std::string &overrideReason)
{
    const std::string id = std::to_string(b.id);
    const std::string archive = quoteRelation("reprint_archive", b.archiveTable);
    UndoOutcome out;
    out.id = b.id;
    auto r = co_await c.query("DELETE FROM " + sql.target + " AS t WHERE " + sql.inWindow("t"),
                              args(sql.lowerValue(w.first()), sql.upperValue(w.last())));
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
    const Value reason = overrideReason.empty() ? Value() : Value(overrideReason);
    if (r)
        r = co_await c.query("INSERT INTO reprint.audit (backfill_id, action, override_reason) VALUES ($1, 'undo', $2)",
                             args(id, reason));
    if (r)
        r = co_await c.query("UPDATE reprint.partition_loads SET loaded_at = now(), backfill_id = $2 "
                             "WHERE model = $1 AND partition_start >= $3 AND partition_start < $4",
                             args(b.model, id, w.first().startText(), w.last().endText()),
                             oids(0, 0, kTimestamptzOid, kTimestamptzOid));
    if (r)
        r = co_await c.query("DROP TABLE " + archive + " CASCADE");  // a swap's archive: the detached partitions inherit it
    if (!r)
        co_return r.error();
    co_return out;
}

} // namespace reprint::backfill
