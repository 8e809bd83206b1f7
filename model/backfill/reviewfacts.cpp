#include "reviewfacts.h"

#include "ledger.h"
#include "migrations.h"
#include "modelsql.h"
#include "session.h"
#include "sqltext.h"
#include "stage.h"
#include "validate.h"
#include "window.h"

#include <QDateTime>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTime>
#include <QTimeZone>

#include <algorithm>
#include <cstdlib>

namespace reprint::backfill {

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

// The two relations a diff compares: before and after the backfill.
struct DiffSources {
    std::string oldRelation, newRelation, basis;
};

DiffSources diffSources(const BackfillRow &b, const ModelSql &sql)
{
    if (b.status == BackfillStatus::Staged && !b.stageTable.empty())
        return {sql.target, quoteRelation("reprint_staging", b.stageTable), "stage"};
    if (b.status == BackfillStatus::Published && b.archiveKept)
        return {quoteRelation("reprint_archive", b.archiveTable), sql.target, "archive"};
    return {{}, {}, "sample"};
}

struct Located {
    const Model *model = nullptr;
    Partition partition;
};

Result<Located> locate(const Engine &engine, const BackfillRow &b, const std::string &partition, bool outsideToo)
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

// What a look at one partition of a backfill works from: the review's session, the stored
// backfill, the partition (in the window, or just outside it too) and its model's SQL.
struct PartitionOfBackfill {
    ConnectionPtr conn;
    BackfillRow backfill;
    Located where;
    ModelSql sql;
};

Task<Result<PartitionOfBackfill>> openPartition(const Engine &engine, long long id, const std::string &partition, bool outsideToo)
{
    auto conn = co_await connectFor(engine);
    if (!conn)
        co_return conn.error();
    auto b = co_await readBackfill(**conn, id, false);
    if (!b)
        co_return b.error();
    auto where = locate(engine, *b, partition, outsideToo);
    if (!where)
        co_return where.error();
    auto sql = co_await describeModel(**conn, engine.spec(), *where->model);
    if (!sql)
        co_return sql.error();
    co_return PartitionOfBackfill{*conn, std::move(*b), *where, std::move(*sql)};
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
    // The backfill's row as the ledger reads it, then what only the review shows of it:
    // who approved it and when, and its claim now.
    auto b = co_await readBackfill(c, id, false);
    if (!b)
        co_return b.error();
    auto r = co_await c.query(
        "SELECT coalesce(b.approver, ''), coalesce(b.note, ''), coalesce(b.override_reason, ''), "
        "to_char(b.created_at, 'YYYY-MM-DD HH24:MI:SS TZH:TZM'), "
        "coalesce(to_char(b.validated_at, 'YYYY-MM-DD HH24:MI:SS TZH:TZM'), ''), "
        "coalesce(to_char(b.published_at, 'YYYY-MM-DD HH24:MI:SS TZH:TZM'), ''), "
        "coalesce(to_char(b.undone_at, 'YYYY-MM-DD HH24:MI:SS TZH:TZM'), ''), "
        "current_user::text, (cl.backfill_id IS NOT NULL)::text, coalesce(cl.holder, ''), "
        "coalesce(CASE WHEN isfinite(cl.lease_expires) THEN to_char(cl.lease_expires, 'YYYY-MM-DD HH24:MI:SS TZH:TZM') "
        "ELSE cl.lease_expires::text END, ''), coalesce(cl.lease_expires < now(), false)::text "
        "FROM reprint.backfills AS b LEFT JOIN reprint.claims AS cl ON cl.backfill_id = b.id WHERE b.id = $1",
        args(std::to_string(id)));
    if (!r)
        co_return r.error();
    if (r->last().rows.empty())
        co_return usage("there is no backfill " + std::to_string(id), "`reprint history --spec S` lists them.");
    const auto &row = r->last().rows.front();
    ReviewFacts f;
    f.backfillId = id;
    f.model = b->model;
    f.status = b->status;
    f.validation = b->validation;
    f.operatorName = b->operatorName;
    f.from = b->from;
    f.to = b->to;
    f.storedTransformHash = b->transformHash;
    f.archiveKept = b->archiveKept;
    f.approver = *row[0];
    f.note = *row[1];
    f.overrideReason = *row[2];
    f.createdAt = *row[3];
    f.validatedAt = *row[4];
    f.publishedAt = *row[5];
    f.undoneAt = *row[6];
    f.currentUser = *row[7];
    f.claimHeld = *row[8] == "true";
    f.claimHolder = *row[9];
    f.leaseExpires = *row[10];
    f.leaseExpired = *row[11] == "true";

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
    f.windowPartitions = static_cast<long long>(b->window(model).partitions.size());

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
    auto opened = co_await openPartition(engine, id, partition, false);
    if (!opened)
        co_return opened.error();
    auto &c = *opened->conn;
    const BackfillRow &b = opened->backfill;
    const ModelSql &sql = opened->sql;
    const Model &model = *opened->where.model;

    RowDiffPage page;
    page.columns = sql.columns;
    page.key = model.key;
    const DiffSources src = diffSources(b, sql);
    page.basis = src.basis;
    const Partition &p = opened->where.partition;

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
    for (const std::string &col : sql.columns) {
        if (std::find(model.key.begin(), model.key.end(), col) != model.key.end())
            continue;
        diffs.push_back("(reprint_o." + quoteIdentifier(col) + " IS DISTINCT FROM reprint_n." + quoteIdentifier(col) + ")");
    }
    const std::string anyDiff = diffs.empty() ? "false" : join(diffs, " OR ");
    const std::string text =
        "WITH reprint_o AS (SELECT t.*, true AS reprint_present FROM " + src.oldRelation + " AS t WHERE " + sql.inWindow("t") + "),\n"
        " reprint_n AS (SELECT t.*, true AS reprint_present FROM " + src.newRelation + " AS t WHERE " + sql.inWindow("t") + "),\n"
        " reprint_j AS (SELECT reprint_o.reprint_present AS in_old, reprint_n.reprint_present AS in_new, (" + anyDiff + ") AS differs, "
        + keyJson(model, "reprint_o", "reprint_n") + " AS key, to_jsonb(reprint_o) - 'reprint_present' AS old_row, "
        "to_jsonb(reprint_n) - 'reprint_present' AS new_row FROM reprint_o FULL JOIN reprint_n ON " + join(keyMatch, " AND ") + ")\n"
        "SELECT CASE WHEN in_old IS NULL THEN 'added' WHEN in_new IS NULL THEN 'removed' ELSE 'changed' END, "
        "key::text, old_row::text, new_row::text FROM reprint_j WHERE in_old IS NULL OR in_new IS NULL OR differs "
        "ORDER BY (in_old AND in_new) DESC NULLS LAST, key::text OFFSET $3 LIMIT $4";
    auto r = co_await c.query(text, args(sql.lowerValue(p), sql.upperValue(p), std::to_string(offset), std::to_string(limit)));
    if (!r)
        co_return r.error();
    for (const auto &row : r->last().rows)
        page.rows.push_back({*row[0], row[1].value_or("{}"), row[2].value_or("null"), row[3].value_or("null")});
    co_return page;
}

namespace {

// The instant a row is placed by: the partition column when it is a timestamp, else the
// target's first timestamptz column; empty when it has none. `columns` holds each
// column's name and type, in order.
std::string instantColumnOf(const warehouse::ResultSet &columns, const std::string &partitionColumn)
{
    std::string instant;
    for (const auto &row : columns.rows) {
        const bool isTime = *row[1] == "timestamp with time zone" || *row[1] == "timestamp without time zone";
        if (*row[0] == partitionColumn && isTime)
            return *row[0];
        if (instant.empty() && *row[1] == "timestamp with time zone")
            instant = *row[0];
    }
    return instant;
}

// The rows near the partition's edges, old beside new, joined by key.
std::string edgeRowsSql(const Model &model, const ModelSql &sql, const DiffSources &src, const std::string &instantColumn)
{
    const std::string at = quoteIdentifier(instantColumn);
    // $1 start, $2 end, $3 minutes, $4/$5 the partition-column range searched (pruning),
    // $6 limit, $7/$8 the window (both ranges in the partition column's type, for pruning).
    // `scope` limits a relation to the window, or to outside it.
    auto side = [&](const std::string &relation, const std::string &scope) {
        return "SELECT " + keyJson(model, "t") + " AS key, t." + at + "::timestamptz AS at, t." + sql.column
               + "::text AS part FROM " + relation + " AS t WHERE " + sql.inWindow("t", 4) + " AND ((t." + at + "::timestamptz >= $1 - $3 * interval '1 minute' AND t." + at
               + "::timestamptz < $1 + $3 * interval '1 minute') OR (t." + at + "::timestamptz >= $2 - $3 * interval '1 minute' AND t."
               + at + "::timestamptz < $2 + $3 * interval '1 minute'))" + scope;
    };
    const std::string inWindow = " AND " + sql.inWindow("t", 7);
    const std::string outside = " AND NOT (" + sql.inWindow("t", 7) + ")";
    // Rows outside the window are the target's before and after: the backfill does not
    // write them.
    std::string oldSide, newSide;
    if (src.basis == "stage") {
        oldSide = side(sql.target, "");
        newSide = side(src.newRelation, inWindow) + " UNION ALL " + side(sql.target, outside);
    } else if (src.basis == "archive") {
        oldSide = side(src.oldRelation, inWindow) + " UNION ALL " + side(sql.target, outside);
        newSide = side(sql.target, "");
    } else {
        oldSide = newSide = side(sql.target, "");
    }
    const std::string text =
        "WITH o AS (" + oldSide + "), n AS (" + newSide + ")\n"
        "SELECT coalesce(o.key, n.key)::text, to_char(coalesce(o.at, n.at) AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS'), "
        "to_char(coalesce(o.at, n.at), 'YYYY-MM-DD HH24:MI:SS TZH:TZM'), coalesce(o.part, ''), coalesce(n.part, ''), "
        "CASE WHEN abs(extract(epoch FROM coalesce(o.at, n.at) - $1::timestamptz)) <= $3::int * 60 THEN 'start' ELSE 'end' END "
        "FROM o FULL JOIN n ON o.key = n.key "
        "ORDER BY (o.part IS DISTINCT FROM n.part) DESC, coalesce(o.at, n.at), 1 LIMIT $6";
    return text;
}

// One row as read, its instant also shown in the model's zone with its offset (worked
// out here: the session runs in UTC).
EdgeRow edgeRowOf(const std::vector<Value> &row, const QTimeZone &zone)
{
    QDateTime utc = QDateTime::fromString(QString::fromStdString(*row[1]), QStringLiteral("yyyy-MM-dd HH:mm:ss"));
    utc.setTimeZone(QTimeZone::utc());
    const QDateTime local = utc.toTimeZone(zone);
    const int offset = local.offsetFromUtc();
    const std::string localText = local.toString(QStringLiteral("yyyy-MM-dd HH:mm:ss")).toStdString() + (offset < 0 ? " -" : " +")
                                  + QTime(0, 0).addSecs(std::abs(offset)).toString(QStringLiteral("HH:mm")).toStdString();
    return {*row[0], *row[1], utc.isValid() ? localText : *row[2], *row[3], *row[4], *row[5]};
}

} // namespace

Task<Result<EdgeRows>> edgeRows(const Engine &engine, long long id, std::string partition, int minutes, int limit)
{
    auto opened = co_await openPartition(engine, id, partition, true);
    if (!opened)
        co_return opened.error();
    auto &c = *opened->conn;
    const BackfillRow &b = opened->backfill;
    const ModelSql &sql = opened->sql;
    const Model &model = *opened->where.model;

    EdgeRows out;
    out.timezone = model.timezone;
    out.partitionStart = opened->where.partition.startText();
    out.partitionEnd = opened->where.partition.endText();
    auto cols = co_await c.query("SELECT a.attname::text, a.atttypid::regtype::text FROM pg_attribute AS a "
                                 "WHERE a.attrelid = to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum",
                                 args(sql.target));
    if (!cols)
        co_return cols.error();
    out.instantColumn = instantColumnOf(cols->last(), model.partitionColumn);
    if (out.instantColumn.empty())
        co_return out;

    const PartitionScheme scheme = model.scheme();
    const Partition &p = opened->where.partition;
    const Partition before = scheme.previous(p);
    const Partition after = scheme.next(p);
    const Window w = b.window(model);
    const std::string text = edgeRowsSql(model, sql, diffSources(b, sql), out.instantColumn);
    auto r = co_await c.query(text,
                              args(p.startText(), p.endText(), std::to_string(minutes), sql.lowerValue(before), sql.upperValue(after),
                                   std::to_string(limit), sql.lowerValue(w.first()), sql.upperValue(w.last())),
                              oids(kTimestamptzOid, kTimestamptzOid));
    if (!r)
        co_return r.error();
    const QTimeZone zone = scheme.timezone();
    for (const auto &row : r->last().rows)
        out.rows.push_back(edgeRowOf(row, zone));
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
            rv.cascade.push_back({std::stoll(*row[0]), *row[1], *row[2], *row[3], backfillStatusFrom(*row[4]), *row[5]});
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
    co_return co_await readReview(*(*s)->conn, m_spec, id);
}

Task<Result<std::vector<Review>>> Engine::reviewCascade(long long id)
{
    auto s = co_await open(nullptr, {});
    if (!s)
        co_return s.error();
    co_return co_await readReviewCascade(*(*s)->conn, m_spec, id);
}

Task<Result<Review>> readReview(warehouse::Connection &c, const Spec &spec, long long id)
{
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
    const Model *m = spec.model(b->model);
    if (!m)
        co_return rv;
    co_await readFloatMeasures(c, *m, rv);
    if (rv.cascade.empty() || rv.cascade.front().id == id) {
        // Downstream models this window makes stale: those not staged with it.
        for (const DownstreamWindow &d : downstreamWindows(spec, b->window(*m)))
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

Task<Result<std::vector<Review>>> readReviewCascade(warehouse::Connection &c, const Spec &spec, long long id)
{
    auto root = co_await readReview(c, spec, id);
    if (!root)
        co_return root.error();
    std::vector<Review> out;
    if (!root->cascade.empty() && root->cascade.front().id != id)
        co_return usage("backfill " + std::to_string(id) + " is part of the cascade of backfill " + std::to_string(root->cascade.front().id),
                        "Review the cascade as a whole: `reprint diff " + std::to_string(root->cascade.front().id) + "`.");
    const std::vector<CascadeMember> members = root->cascade;
    out.push_back(std::move(*root));
    for (std::size_t i = 1; i < members.size(); ++i) {
        auto r = co_await readReview(c, spec, members[i].id);
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
    if (b->status != BackfillStatus::Staged || b->stageTable.empty())
        co_return usage("backfill " + std::to_string(id) + " is " + toString(b->status) + " and its staged rows are gone",
                        "Row diffs are computed from the stage; only the boundary partitions' diffs are kept after publish.");
    co_return co_await computeRowDiff(c, (*s)->sql, id, *p, quoteRelation("reprint_staging", b->stageTable),
                                      m_options.sampleRows);
}

} // namespace reprint::backfill
