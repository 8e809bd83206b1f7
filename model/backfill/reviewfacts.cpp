#include "reviewfacts.h"

#include "migrations.h"
#include "modelsql.h"
#include "sqltext.h"
#include "window.h"

#include <QDateTime>
#include <QTime>
#include <QTimeZone>

#include <algorithm>
#include <cstdlib>

namespace reprint::backfill {

using warehouse::ConnectionPtr;
using warehouse::kTimestamptzOid;
using warehouse::args;
using warehouse::oids;

namespace {

std::string join(const std::vector<std::string> &parts, const std::string &separator)
{
    std::string out;
    for (std::size_t i = 0; i < parts.size(); ++i)
        out += (i ? separator : std::string()) + parts[i];
    return out;
}

// A session of the review, in UTC like every session of the engine.
Task<Result<ConnectionPtr>> connectFor(const Engine &engine)
{
    auto conn = co_await openSession(engine.conninfo(), "reprint-review");
    if (!conn)
        co_return conn.error();
    auto schema = co_await requireSchema(**conn);
    if (!schema)
        co_return schema.error();
    co_return *conn;
}

struct Stored {
    std::string model, status, from, to, stageTable, archiveTable;
    bool archiveExists = false;
    QDateTime windowStart, windowEnd;  // the instants the window was claimed over, [start, end)
    // The window as it was claimed (its stored instants, not its names read again).
    Window window(const Model &m) const { return windowSpanning(m, windowStart, windowEnd); }
};

Task<Result<Stored>> readStored(warehouse::Connection &c, long long id)
{
    auto r = co_await c.query("SELECT model, status, from_partition, to_partition, coalesce(stage_table, ''), "
                              "coalesce(archive_table, ''), (archive_table IS NOT NULL AND "
                              "to_regclass(quote_ident('reprint_archive') || '.' || quote_ident(archive_table)) IS NOT NULL)::text, "
                              "extract(epoch FROM window_start)::bigint::text, extract(epoch FROM window_end)::bigint::text "
                              "FROM reprint.backfills WHERE id = $1",
                              args(std::to_string(id)));
    if (!r)
        co_return r.error();
    if (r->last().rows.empty())
        co_return Error::make(ErrorKind::Usage, "there is no backfill " + std::to_string(id),
                              "`reprint history --spec S` lists them.");
    const auto &row = r->last().rows.front();
    co_return Stored{*row[0], *row[1], *row[2], *row[3], *row[4], *row[5], *row[6] == "true",
                     QDateTime::fromSecsSinceEpoch(std::stoll(*row[7]), QTimeZone::utc()),
                     QDateTime::fromSecsSinceEpoch(std::stoll(*row[8]), QTimeZone::utc())};
}

// The two relations a diff compares: before and after the backfill.
struct DiffSources {
    std::string oldRelation, newRelation, basis;
};

DiffSources diffSources(const Stored &b, const ModelSql &sql)
{
    if (b.status == "staged" && !b.stageTable.empty())
        return {sql.target, quoteRelation("reprint_staging", b.stageTable), "stage"};
    if (b.status == "published" && b.archiveExists)
        return {quoteRelation("reprint_archive", b.archiveTable), sql.target, "archive"};
    return {{}, {}, "sample"};
}

struct Located {
    const Model *model = nullptr;
    Partition partition;
};

Result<Located> locate(const Engine &engine, const Stored &b, const std::string &partition, bool outsideToo)
{
    auto m = engine.model(b.model);
    if (!m)
        return m.error();
    const PartitionScheme scheme = (*m)->scheme();
    auto p = scheme.parse(partition);
    if (!p)
        return p.error();
    const Window w = b.window(**m);
    const Partition first = outsideToo ? w.before : w.first();
    const Partition last = outsideToo ? w.after : w.last();
    if (p->start < first.start || !(p->start < last.end))
        return Error::make(ErrorKind::Usage, "partition " + partition + " is not in the window " + b.from + ".." + b.to
                                                 + (outsideToo ? " or just outside it" : ""),
                           outsideToo ? "" : "Rows outside the window are not staged: see the edge view.");
    return Located{*m, *p};
}

// jsonb of the key columns of `alias`, keyed by column name (coalesced over two aliases
// when `other` is given).
std::string keyJson(const Model &m, const std::string &alias, const std::string &other = {})
{
    std::vector<std::string> cols;
    for (const std::string &k : m.key) {
        const std::string q = quoteIdentifier(k);
        cols.push_back((other.empty() ? alias + "." + q : "coalesce(" + alias + "." + q + ", " + other + "." + q + ")")
                       + " AS " + q);
    }
    return "(SELECT to_jsonb(reprint_k) FROM (SELECT " + join(cols, ", ") + ") AS reprint_k)";
}

} // namespace

Task<Result<ReviewFacts>> reviewFacts(const Engine &engine, long long id)
{
    auto conn = co_await connectFor(engine);
    if (!conn)
        co_return conn.error();
    auto &c = **conn;
    auto r = co_await c.query(
        "SELECT b.model, b.status, coalesce(b.validation, ''), b.operator, coalesce(b.approver, ''), "
        "coalesce(b.note, ''), coalesce(b.override_reason, ''), b.from_partition, b.to_partition, "
        "to_char(b.created_at, 'YYYY-MM-DD HH24:MI:SS TZH:TZM'), "
        "coalesce(to_char(b.validated_at, 'YYYY-MM-DD HH24:MI:SS TZH:TZM'), ''), "
        "coalesce(to_char(b.published_at, 'YYYY-MM-DD HH24:MI:SS TZH:TZM'), ''), "
        "coalesce(to_char(b.undone_at, 'YYYY-MM-DD HH24:MI:SS TZH:TZM'), ''), "
        "b.transform_hash, current_user::text, (cl.backfill_id IS NOT NULL)::text, coalesce(cl.holder, ''), "
        "coalesce(CASE WHEN isfinite(cl.lease_expires) THEN to_char(cl.lease_expires, 'YYYY-MM-DD HH24:MI:SS TZH:TZM') "
        "ELSE cl.lease_expires::text END, ''), coalesce(cl.lease_expires < now(), false)::text, "
        "(b.archive_table IS NOT NULL AND to_regclass(quote_ident('reprint_archive') || '.' || quote_ident(b.archive_table)) "
        "IS NOT NULL)::text "
        "FROM reprint.backfills AS b LEFT JOIN reprint.claims AS cl ON cl.backfill_id = b.id WHERE b.id = $1",
        args(std::to_string(id)));
    if (!r)
        co_return r.error();
    if (r->last().rows.empty())
        co_return Error::make(ErrorKind::Usage, "there is no backfill " + std::to_string(id),
                              "`reprint history --spec S` lists them.");
    const auto &row = r->last().rows.front();
    ReviewFacts f;
    f.backfillId = id;
    f.model = *row[0];
    f.status = *row[1];
    f.validation = *row[2];
    f.operatorName = *row[3];
    f.approver = *row[4];
    f.note = *row[5];
    f.overrideReason = *row[6];
    f.from = *row[7];
    f.to = *row[8];
    f.createdAt = *row[9];
    f.validatedAt = *row[10];
    f.publishedAt = *row[11];
    f.undoneAt = *row[12];
    f.storedTransformHash = *row[13];
    f.currentUser = *row[14];
    f.claimHeld = *row[15] == "true";
    f.claimHolder = *row[16];
    f.leaseExpires = *row[17];
    f.leaseExpired = *row[18] == "true";
    f.archiveKept = *row[19] == "true";

    auto diffs = co_await c.query("SELECT partition FROM reprint.row_diffs WHERE backfill_id = $1 ORDER BY partition_start",
                                  args(std::to_string(id)));
    if (!diffs)
        co_return diffs.error();
    for (const auto &d : diffs->last().rows)
        f.rowDiffPartitions.push_back(*d[0]);

    auto m = engine.model(f.model);
    if (!m)
        co_return f;  // the spec no longer has the model: the stored facts are all there is
    const Model &model = **m;
    f.fourEyes = model.approval == Approval::FourEyes;
    const PartitionScheme scheme = model.scheme();
    auto from = scheme.parse(f.from);
    auto to = scheme.parse(f.to);
    if (from && to)
        f.windowPartitions = static_cast<long long>(scheme.range(*from, *to).size());

    auto sql = co_await describeModel(c, engine.spec(), model);
    if (!sql)
        co_return sql.error();
    f.currentTransformHash = sql->transformHash;
    auto count = co_await c.query("SELECT count(DISTINCT date_trunc($1, " + sql->instantOf(sql->column, "$2") + ", $2)) FROM "
                                      + sql->target,
                                  args(sql->grainText(), model.timezone));
    if (!count)
        co_return count.error();
    f.tablePartitions = std::stoll(count->last().scalar("0"));
    co_return f;
}

Task<Result<RowDiffPage>> rowDiffPage(const Engine &engine, long long id, std::string partition, long long offset, int limit)
{
    auto conn = co_await connectFor(engine);
    if (!conn)
        co_return conn.error();
    auto &c = **conn;
    auto b = co_await readStored(c, id);
    if (!b)
        co_return b.error();
    auto where = locate(engine, *b, partition, false);
    if (!where)
        co_return where.error();
    const Model &model = *where->model;
    auto sql = co_await describeModel(c, engine.spec(), model);
    if (!sql)
        co_return sql.error();

    RowDiffPage page;
    page.columns = sql->columns;
    page.key = model.key;
    const DiffSources src = diffSources(*b, *sql);
    page.basis = src.basis;
    const Partition &p = where->partition;

    if (src.basis == "sample") {
        auto r = co_await c.query("SELECT x->>'change', (x->'key')::text, (x->'old')::text, (x->'new')::text "
                                  "FROM reprint.row_diffs AS d, jsonb_array_elements(d.sample) WITH ORDINALITY AS s(x, n) "
                                  "WHERE d.backfill_id = $1 AND d.partition_start = $2 ORDER BY s.n OFFSET $3 LIMIT $4",
                                  args(std::to_string(id), p.startText(), std::to_string(offset), std::to_string(limit)),
                                  oids(0, kTimestamptzOid));
        if (!r)
            co_return r.error();
        for (const auto &row : r->last().rows)
            page.rows.push_back({row[0].value_or("changed"), row[1].value_or("{}"), row[2].value_or("null"),
                                 row[3].value_or("null")});
        co_return page;
    }

    // Aliases a user's column cannot shadow (a column named o, n or j would).
    std::vector<std::string> keyMatch, diffs;
    for (const std::string &k : model.key)
        keyMatch.push_back("reprint_o." + quoteIdentifier(k) + " = reprint_n." + quoteIdentifier(k));
    for (const std::string &col : sql->columns) {
        if (std::find(model.key.begin(), model.key.end(), col) != model.key.end())
            continue;
        diffs.push_back("(reprint_o." + quoteIdentifier(col) + " IS DISTINCT FROM reprint_n." + quoteIdentifier(col) + ")");
    }
    const std::string anyDiff = diffs.empty() ? "false" : join(diffs, " OR ");
    const std::string text =
        "WITH reprint_o AS (SELECT t.*, true AS reprint_present FROM " + src.oldRelation + " AS t WHERE " + sql->inWindow("t") + "),\n"
        " reprint_n AS (SELECT t.*, true AS reprint_present FROM " + src.newRelation + " AS t WHERE " + sql->inWindow("t") + "),\n"
        " reprint_j AS (SELECT reprint_o.reprint_present AS in_old, reprint_n.reprint_present AS in_new, (" + anyDiff + ") AS differs, "
        + keyJson(model, "reprint_o", "reprint_n") + " AS key, to_jsonb(reprint_o) - 'reprint_present' AS old_row, "
        "to_jsonb(reprint_n) - 'reprint_present' AS new_row FROM reprint_o FULL JOIN reprint_n ON " + join(keyMatch, " AND ") + ")\n"
        "SELECT CASE WHEN in_old IS NULL THEN 'added' WHEN in_new IS NULL THEN 'removed' ELSE 'changed' END, "
        "key::text, old_row::text, new_row::text FROM reprint_j WHERE in_old IS NULL OR in_new IS NULL OR differs "
        "ORDER BY (in_old AND in_new) DESC NULLS LAST, key::text OFFSET $3 LIMIT $4";
    auto r = co_await c.query(text, args(sql->lowerValue(p), sql->upperValue(p), std::to_string(offset), std::to_string(limit)));
    if (!r)
        co_return r.error();
    for (const auto &row : r->last().rows)
        page.rows.push_back({*row[0], row[1].value_or("{}"), row[2].value_or("null"), row[3].value_or("null")});
    co_return page;
}

Task<Result<EdgeRows>> edgeRows(const Engine &engine, long long id, std::string partition, int minutes, int limit)
{
    auto conn = co_await connectFor(engine);
    if (!conn)
        co_return conn.error();
    auto &c = **conn;
    auto b = co_await readStored(c, id);
    if (!b)
        co_return b.error();
    auto where = locate(engine, *b, partition, true);
    if (!where)
        co_return where.error();
    const Model &model = *where->model;
    auto sql = co_await describeModel(c, engine.spec(), model);
    if (!sql)
        co_return sql.error();

    EdgeRows out;
    out.timezone = model.timezone;
    out.partitionStart = where->partition.startText();
    out.partitionEnd = where->partition.endText();
    auto cols = co_await c.query("SELECT a.attname::text, a.atttypid::regtype::text FROM pg_attribute AS a "
                                 "WHERE a.attrelid = to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum",
                                 args(sql->target));
    if (!cols)
        co_return cols.error();
    for (const auto &row : cols->last().rows) {
        const bool isTime = *row[1] == "timestamp with time zone" || *row[1] == "timestamp without time zone";
        if (*row[0] == model.partitionColumn && isTime) {
            out.instantColumn = *row[0];
            break;
        }
        if (out.instantColumn.empty() && *row[1] == "timestamp with time zone")
            out.instantColumn = *row[0];
    }
    if (out.instantColumn.empty())
        co_return out;

    const DiffSources src = diffSources(*b, *sql);
    const std::string at = quoteIdentifier(out.instantColumn);
    const PartitionScheme scheme = model.scheme();
    const Partition &p = where->partition;
    const Partition before = scheme.previous(p);
    const Partition after = scheme.next(p);
    const Window w = b->window(model);
    // $1 start, $2 end, $3 minutes, $4/$5 the partition-column range searched (pruning),
    // $6 limit, $7/$8 the window (both ranges in the partition column's type, for pruning).
    // `scope` limits a relation to the window, or to outside it.
    auto side = [&](const std::string &relation, const std::string &scope) {
        return "SELECT " + keyJson(model, "t") + " AS key, t." + at + "::timestamptz AS at, t." + sql->column
               + "::text AS part FROM " + relation + " AS t WHERE " + sql->inWindow("t", 4) + " AND ((t." + at + "::timestamptz >= $1 - $3 * interval '1 minute' AND t." + at
               + "::timestamptz < $1 + $3 * interval '1 minute') OR (t." + at + "::timestamptz >= $2 - $3 * interval '1 minute' AND t."
               + at + "::timestamptz < $2 + $3 * interval '1 minute'))" + scope;
    };
    const std::string inWindow = " AND " + sql->inWindow("t", 7);
    const std::string outside = " AND NOT (" + sql->inWindow("t", 7) + ")";
    // Rows outside the window are the target's before and after: the backfill does not
    // write them.
    std::string oldSide, newSide;
    if (src.basis == "stage") {
        oldSide = side(sql->target, "");
        newSide = side(src.newRelation, inWindow) + " UNION ALL " + side(sql->target, outside);
    } else if (src.basis == "archive") {
        oldSide = side(src.oldRelation, inWindow) + " UNION ALL " + side(sql->target, outside);
        newSide = side(sql->target, "");
    } else {
        oldSide = newSide = side(sql->target, "");
    }
    const std::string text =
        "WITH o AS (" + oldSide + "), n AS (" + newSide + ")\n"
        "SELECT coalesce(o.key, n.key)::text, to_char(coalesce(o.at, n.at) AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS'), "
        "to_char(coalesce(o.at, n.at), 'YYYY-MM-DD HH24:MI:SS TZH:TZM'), coalesce(o.part, ''), coalesce(n.part, ''), "
        "CASE WHEN abs(extract(epoch FROM coalesce(o.at, n.at) - $1::timestamptz)) <= $3::int * 60 THEN 'start' ELSE 'end' END "
        "FROM o FULL JOIN n ON o.key = n.key "
        "ORDER BY (o.part IS DISTINCT FROM n.part) DESC, coalesce(o.at, n.at), 1 LIMIT $6";
    auto r = co_await c.query(text,
                              args(p.startText(), p.endText(), std::to_string(minutes), sql->lowerValue(before), sql->upperValue(after),
                                   std::to_string(limit), sql->lowerValue(w.first()), sql->upperValue(w.last())),
                              oids(kTimestamptzOid, kTimestamptzOid));
    if (!r)
        co_return r.error();
    // The instant in the model's zone, with its offset, worked out here: the session runs in UTC.
    const QTimeZone zone = scheme.timezone();
    for (const auto &row : r->last().rows) {
        QDateTime utc = QDateTime::fromString(QString::fromStdString(*row[1]), QStringLiteral("yyyy-MM-dd HH:mm:ss"));
        utc.setTimeZone(QTimeZone::utc());
        const QDateTime local = utc.toTimeZone(zone);
        const int offset = local.offsetFromUtc();
        const std::string localText = local.toString(QStringLiteral("yyyy-MM-dd HH:mm:ss")).toStdString() + (offset < 0 ? " -" : " +")
                                      + QTime(0, 0).addSecs(std::abs(offset)).toString(QStringLiteral("HH:mm")).toStdString();
        out.rows.push_back({*row[0], *row[1], utc.isValid() ? localText : *row[2], *row[3], *row[4], *row[5]});
    }
    co_return out;
}

Task<Result<ReviewPacketData>> reviewPacketData(Engine &engine, long long id)
{
    ReviewPacketData out;
    auto review = co_await engine.review(id);
    if (!review)
        co_return review.error();
    out.review = std::move(*review);
    auto facts = co_await reviewFacts(engine, id);
    if (!facts)
        co_return facts.error();
    out.facts = std::move(*facts);
    for (const std::string &p : out.facts.rowDiffPartitions) {
        auto diff = co_await engine.rowDiff(id, p);
        if (!diff)
            co_return diff.error();
        out.boundaryDiffs.push_back(std::move(*diff));
    }
    // A cascade is one approval: its root's packet holds every member.
    if (!out.review.cascade.empty() && out.review.cascade.front().id == id)
        for (std::size_t i = 1; i < out.review.cascade.size(); ++i) {
            auto member = co_await reviewPacketData(engine, out.review.cascade[i].id);
            if (!member)
                co_return member.error();
            out.cascade.push_back(std::move(*member));
        }
    co_return out;
}

} // namespace reprint::backfill
