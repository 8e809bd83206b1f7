#include "ledger.h"

#include "claim.h"
#include "session.h"
#include "sqltext.h"
#include <QTimeZone>

namespace reprint::backfill {

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
        "(b.status IN ('planned', 'staging') AND coalesce(c.lease_expires < now(), true))::text, coalesce(c.holder, ''), "
        "extract(epoch FROM b.window_start)::bigint::text, extract(epoch FROM b.window_end)::bigint::text, "
        "coalesce(b.failure, '') "
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
        h.status = backfillStatusFrom(*row[3]);
        h.validation = *row[4];
        h.from = *row[5];
        h.to = *row[6];
        h.windowStart = QDateTime::fromSecsSinceEpoch(std::stoll(*row[16]), QTimeZone::utc());
        h.windowEnd = QDateTime::fromSecsSinceEpoch(std::stoll(*row[17]), QTimeZone::utc());
        h.operatorName = *row[7];
        h.approver = *row[8];
        h.note = *row[9];
        h.overrideReason = *row[10];
        h.createdAt = *row[11];
        h.publishedAt = *row[12];
        h.error = *row[13];
        // Interrupted: its lease lapsed, or its holder is a process of this host that is gone
        // (a resume or an abandon may take the claim at once).
        h.leaseExpired = *row[14] == "true" || (isUnderway(h.status) && holderGone(*row[15]));
        if (h.status == BackfillStatus::Failed)
            h.failure = *row[18] == toString(Failure::Cancelled) ? Failure::Cancelled : Failure::Error;
        out.push_back(std::move(h));
    }
    co_return out;
}

Task<Result<BackfillRow>> readBackfill(warehouse::Connection &c, long long id, bool forUpdate)
{
    const std::string lock = forUpdate ? " FOR UPDATE" : "";
    auto r = co_await c.query(std::string("SELECT id::text, model, kind, status, coalesce(validation, ''), "
                                          "coalesce(validation_message, ''), transform_hash, coalesce(stage_table, ''), "
                                          "operator, from_partition, to_partition, coalesce(archive_table, ''), "
                                          "extract(epoch FROM window_start)::bigint::text, extract(epoch FROM window_end)::bigint::text, "
                                          "(archive_table IS NOT NULL AND to_regclass(quote_ident('reprint_archive') || '.' "
                                          "|| quote_ident(archive_table)) IS NOT NULL)::text "
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
    b.status = backfillStatusFrom(*row[3]);
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
    b.archiveKept = *row[14] == "true";
    co_return b;
}

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

Task<bool> markFailed(warehouse::Connection &conn, long long id, Failure why, const std::string &error,
                      const std::string &conninfo)
{
    // After a lost connection (a server restart), on a new one: the stored state must agree
    // with the message the user reads.
    ConnectionPtr fresh;
    if (!conn.isOpen() && !conninfo.empty())
        if (auto again = co_await openSession(conninfo))
            fresh = *again;
    warehouse::Connection &c = fresh ? *fresh : conn;
    auto r = co_await c.query("UPDATE reprint.backfills SET status = 'failed', error = $2, failure = $3, updated_at = now() "
                              "WHERE id = $1 AND status IN ('planned', 'staging')",
                              args(std::to_string(id), error, toString(why)));
    if (r)
        r = co_await c.query("UPDATE reprint.claims SET lease_expires = now() WHERE backfill_id = $1", args(std::to_string(id)));
    if (fresh)
        fresh->close();
    co_return r.ok();
}

} // namespace reprint::backfill
