#include "modelsql.h"

#include "sqltext.h"

#include <QCryptographicHash>

#include <algorithm>
#include <cctype>

namespace reprint::backfill {

using warehouse::Error;
using warehouse::ErrorKind;
using warehouse::Task;
using warehouse::args;

namespace {

std::string stripTrailingSemicolons(std::string sql)
{
    while (!sql.empty() && (std::isspace(static_cast<unsigned char>(sql.back())) || sql.back() == ';'))
        sql.pop_back();
    return sql;
}

std::string join(const std::vector<std::string> &parts, const std::string &sep)
{
    std::string out;
    for (std::size_t i = 0; i < parts.size(); ++i)
        out += (i ? sep : std::string()) + parts[i];
    return out;
}

Error specError(const Spec &spec, const Model &model, const std::string &what, const std::string &hint)
{
    std::string where = spec.path;
    if (auto slash = where.rfind('/'); slash != std::string::npos)
        where = where.substr(slash + 1);
    return Error::make(EngineKind::Spec, where + ":" + std::to_string(model.line) + ": model " + model.name + ": " + what,
                       hint);
}

// Binds :start/:end of a transform or check to $1/$2 and resolves {{ model }} references.
Result<std::string> bindBounds(const std::string &sql, const std::map<std::string, std::string> &relations,
                               const std::string &file)
{
    auto resolved = resolveModelReferences(sql, relations);
    if (!resolved) {
        Error e = resolved.error();
        e.message = file + ": " + e.message;
        return e;
    }
    auto bound = bindNamedParameters(*resolved, {"start", "end"});
    if (!bound) {
        Error e = bound.error();
        e.message = file + ": " + e.message;
        return e;
    }
    // Keep $1 = start and $2 = end whatever order the text used them in.
    std::string out = bound->sql;
    if (!bound->names.empty() && bound->names[0] == "end") {
        std::string swapped;
        for (std::size_t i = 0; i < out.size(); ++i) {
            if (out[i] == '$' && i + 1 < out.size() && (out[i + 1] == '1' || out[i + 1] == '2')
                && (i + 2 >= out.size() || !std::isdigit(static_cast<unsigned char>(out[i + 2])))) {
                swapped += out[i + 1] == '1' ? "$2" : "$1";
                ++i;
            } else {
                swapped += out[i];
            }
        }
        out = swapped;
    }
    return stripTrailingSemicolons(out);
}

} // namespace

std::map<std::string, std::string> scheduledRelations(const Spec &spec)
{
    std::map<std::string, std::string> out;
    for (const Model &m : spec.models)
        out[m.name] = quoteRelation(m.target.schema, m.target.table);
    return out;
}

std::string ModelSql::grainText() const
{
    switch (model->grain) {
    case Grain::Hour: return "hour";
    case Grain::Day: return "day";
    case Grain::Week: return "week";
    case Grain::Month: return "month";
    }
    return "day";
}

std::string ModelSql::instantOf(const std::string &expr, const std::string &zone) const
{
    if (columnType.rfind("timestamp with time zone", 0) == 0)
        return expr;
    return "((" + expr + ")::timestamp AT TIME ZONE " + zone + ")";
}

std::string ModelSql::totals(const std::string &relation) const
{
    // A float sum depends on the order rows are read in (1e16 + 1 - 1e16): floats are
    // summed as numeric, exactly, so that old and new totals never differ by row order.
    std::vector<std::string> sums;
    for (const std::string &m : model->measures) {
        const bool isFloat = std::find(floatMeasures.begin(), floatMeasures.end(), m) != floatMeasures.end();
        sums.push_back("sum(t." + quoteIdentifier(m) + (isFloat ? "::numeric" : "") + ")");
    }
    const std::string where = " FROM " + relation + " AS t WHERE " + inWindow("t") + " GROUP BY 1";
    if (columnType != "date") {
        std::string sql = "SELECT extract(epoch FROM date_trunc($3, " + instantOf("t." + column, "$4") + ", $4))::bigint AS p, "
                          "count(*)::text AS rows";
        for (const std::string &sum : sums)
            sql += ", " + sum + "::text";
        return sql + where;
    }
    // A date column: every partition is a set of whole dates, so rows are summed per date
    // first (no zone arithmetic per row: 2.5x faster over a year of days), then the dates'
    // sums per partition. A sum of sums is exact (integers and numeric alike).
    std::string inner = "SELECT t." + column + " AS d, count(*) AS n";
    std::string outer = "SELECT extract(epoch FROM date_trunc($3, " + instantOf("g.d", "$4") + ", $4))::bigint AS p, "
                        "sum(g.n)::text AS rows";
    for (std::size_t i = 0; i < sums.size(); ++i) {
        inner += ", " + sums[i] + " AS s" + std::to_string(i);
        outer += ", sum(g.s" + std::to_string(i) + ")::text";
    }
    return outer + " FROM (" + inner + where + ") AS g GROUP BY 1";
}

std::string ModelSql::inWindow(const std::string &alias, int first) const
{
    const std::string col = alias + "." + column;
    const std::string cast = "::" + columnType;
    return col + " >= $" + std::to_string(first) + cast + " AND " + col + " < $" + std::to_string(first + 1) + cast;
}

namespace {
std::string inColumnType(const std::string &type, const QDateTime &instant, const QTimeZone &zone)
{
    const QDateTime local = instant.toTimeZone(zone);
    if (type == "date")
        return local.date().toString(Qt::ISODate).toStdString();
    if (type.rfind("timestamp without time zone", 0) == 0)
        return local.toString(QStringLiteral("yyyy-MM-dd HH:mm:ss")).toStdString();
    return local.toString(Qt::ISODate).toStdString();
}
} // namespace

std::string ModelSql::lowerValue(const Partition &p) const
{
    return inColumnType(columnType, p.start, model->scheme().timezone());
}

std::string ModelSql::upperValue(const Partition &p) const
{
    return inColumnType(columnType, p.end, model->scheme().timezone());
}

std::string ModelSql::stageInsert(const std::string &stage) const
{
    // The key of every inserted row comes back too, so that a key the new rows repeat is
    // found in the same statement (no second pass over the stage).
    std::vector<std::string> keys;
    for (const std::string &k : model->key)
        keys.push_back(quoteIdentifier(k));
    const std::string keyRow = keys.empty() ? std::string("NULL") : "row(" + join(keys, ", ") + ")::text";
    return "WITH reprint_ins AS (INSERT INTO " + stage + " (" + columnList + ") SELECT " + columnList + " FROM (\n"
           + transform + "\n) AS t RETURNING " + column + " AS reprint_c, " + keyRow + " AS reprint_key),\n"
           "reprint_dup AS (SELECT i.reprint_key, count(*) AS n FROM reprint_ins AS i WHERE i.reprint_key IS NOT NULL "
           "GROUP BY i.reprint_key HAVING count(*) > 1)\n"
           "SELECT count(*) AS rows, "
           "count(*) FILTER (WHERE i.reprint_c IS NULL OR NOT (i.reprint_c >= $1 AND i.reprint_c < $2)) AS leaked, "
           "min(coalesce(i.reprint_c::text, 'NULL')) FILTER (WHERE i.reprint_c IS NULL OR NOT (i.reprint_c >= $1 AND i.reprint_c < $2)) "
           "AS example, (SELECT count(*) FROM reprint_dup) AS repeated_keys, "
           "(SELECT d.reprint_key || ' (' || d.n || ' times)' FROM reprint_dup AS d ORDER BY d.n DESC, d.reprint_key LIMIT 1) "
           "AS repeated_example FROM reprint_ins AS i";
}

std::string ModelSql::rowDiff(const std::string &stage) const
{
    // Every alias is reprint_-prefixed and every column qualified, so that no column of the
    // user's (`n`, `o`, `key`, ...) can shadow them. Rows that repeat a key on one side are
    // paired in order (reprint_dup), never fanned out, and counted on each side.
    std::vector<std::string> keyMatch, keyColumns, keyJson, keyList, diffs;
    for (std::size_t i = 0; i < model->key.size(); ++i) {
        const std::string &k = model->key[i];
        const std::string q = quoteIdentifier(k);
        const std::string alias = "reprint_k" + std::to_string(i);
        keyMatch.push_back("reprint_o." + q + " = reprint_n." + q);
        keyColumns.push_back("coalesce(reprint_o." + q + ", reprint_n." + q + ") AS " + alias);
        keyJson.push_back(quoteLiteral(k) + ", j2." + alias);
        keyList.push_back("t." + q);
    }
    for (const std::string &c : columns) {
        if (std::find(model->key.begin(), model->key.end(), c) != model->key.end())
            continue;
        const std::string q = quoteIdentifier(c);
        diffs.push_back("(reprint_o." + q + " IS DISTINCT FROM reprint_n." + q + ")");
    }
    const std::string anyDiff = diffs.empty() ? "false" : join(diffs, " OR ");
    // One side's rows, each numbered among the rows of its key (reprint_dup). The rows of a
    // key are counted first (a sort on the key alone); only the rows of a repeated key are
    // ordered by their JSON text, so that the usual case, every key once, builds no JSON.
    const std::string byKey = "PARTITION BY " + join(keyList, ", ");
    auto side = [&](const std::string &name, const std::string &relation) {
        const std::string counted = name + "_k";
        return counted + " AS (SELECT t.*, count(*) OVER (" + byKey + ") AS reprint_keyed FROM " + relation + " AS t WHERE "
               + inWindow("t") + "),\n " + name + " AS (SELECT t.*, true AS reprint_present, 1::bigint AS reprint_dup FROM "
               + counted + " AS t WHERE t.reprint_keyed = 1 UNION ALL SELECT t.*, true AS reprint_present, row_number() OVER ("
               + byKey + " ORDER BY (to_jsonb(t) - 'reprint_keyed')::text) FROM " + counted + " AS t WHERE t.reprint_keyed > 1)";
    };
    std::string sql = "WITH " + side("reprint_o", target) + ",\n " + side("reprint_n", stage) + ",\n"
                      " reprint_j AS (SELECT reprint_o.reprint_present AS in_old, reprint_n.reprint_present AS in_new, (" + anyDiff
                      + ") AS differs, reprint_o.reprint_dup AS old_dup, reprint_n.reprint_dup AS new_dup";
    for (std::size_t i = 0; i < diffs.size(); ++i)
        sql += ", " + diffs[i] + " AS d" + std::to_string(i);
    // The rows as records, and the key as its columns: turned into JSON only where needed,
    // the key (as text, once) for the rows that differ, to order them, and the records for
    // the sample's few, after it is ordered and cut.
    sql += ", " + join(keyColumns, ", ") + ", reprint_o AS old_rec, reprint_n AS new_rec "
           "FROM reprint_o FULL JOIN reprint_n ON " + join(keyMatch, " AND ") + " AND reprint_o.reprint_dup = reprint_n.reprint_dup)\n"
           "SELECT count(*) FILTER (WHERE j.in_new AND j.in_old IS NULL) AS added, "
           "count(*) FILTER (WHERE j.in_old AND j.in_new IS NULL) AS removed, "
           "count(*) FILTER (WHERE j.in_old AND j.in_new AND j.differs) AS changed, "
           "(SELECT coalesce(jsonb_agg(jsonb_build_object('change', "
           "CASE WHEN x.in_old IS NULL THEN 'added' WHEN x.in_new IS NULL THEN 'removed' ELSE 'changed' END, "
           "'key', x.reprint_key::jsonb, 'old', to_jsonb(x.old_rec) - 'reprint_keyed' - 'reprint_present' - 'reprint_dup', "
           "'new', to_jsonb(x.new_rec) - 'reprint_keyed' - 'reprint_present' - 'reprint_dup') "
           "ORDER BY x.reprint_both DESC NULLS LAST, x.reprint_key), '[]'::jsonb)::text "
           "FROM (SELECT j2.in_old, j2.in_new, j2.old_rec, j2.new_rec, (j2.in_old AND j2.in_new) AS reprint_both, "
           "jsonb_build_object(" + join(keyJson, ", ") + ")::text AS reprint_key FROM reprint_j AS j2 "
           "WHERE j2.in_old IS NULL OR j2.in_new IS NULL OR j2.differs "
           "ORDER BY reprint_both DESC NULLS LAST, reprint_key LIMIT $3) AS x) AS sample, "
           "count(*) FILTER (WHERE j.old_dup > 1) AS old_repeats, count(*) FILTER (WHERE j.new_dup > 1) AS new_repeats";
    for (std::size_t i = 0; i < diffs.size(); ++i)
        sql += ", count(*) FILTER (WHERE j.in_old AND j.in_new AND j.d" + std::to_string(i) + ")";
    sql += " FROM reprint_j AS j";
    return sql;
}

Task<Result<ModelSql>> describeModel(warehouse::Connection &conn, const Spec &spec, const Model &model,
                                     std::map<std::string, std::string> overrides)
{
    ModelSql out;
    out.model = &model;
    out.target = quoteRelation(model.target.schema, model.target.table);
    out.column = quoteIdentifier(model.partitionColumn);

    auto cols = co_await conn.query(
        "SELECT a.attname, format_type(a.atttypid, a.atttypmod) FROM pg_attribute a "
        "WHERE a.attrelid = to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = '' "
        "ORDER BY a.attnum",
        args(out.target));
    if (!cols)
        co_return cols.error();
    if (cols->last().rows.empty())
        co_return specError(spec, model, "target " + model.target.display() + " does not exist",
                            "Create the table first, or fix `target:` in the spec.");
    std::vector<std::string> quoted;
    for (const auto &row : cols->last().rows) {
        out.columns.push_back(*row[0]);
        quoted.push_back(quoteIdentifier(*row[0]));
        if (*row[0] == model.partitionColumn)
            out.columnType = row[1].value_or("");
        if ((row[1] == "real" || row[1] == "double precision")
            && std::find(model.measures.begin(), model.measures.end(), *row[0]) != model.measures.end())
            out.floatMeasures.push_back(*row[0]);
    }
    out.columnList = join(quoted, ", ");
    auto has = [&](const std::string &c) {
        return std::find(out.columns.begin(), out.columns.end(), c) != out.columns.end();
    };
    if (!has(model.partitionColumn))
        co_return specError(spec, model, "partition column '" + model.partitionColumn + "' is not a column of " + model.target.display(),
                            "Columns are: " + join(out.columns, ", ") + ".");
    if (out.columnType != "date" && out.columnType.rfind("timestamp", 0) != 0)
        co_return specError(spec, model, "partition column '" + model.partitionColumn + "' is " + out.columnType
                                             + ", not a date or a timestamp",
                            "Partition on a date, timestamp or timestamptz column.");
    if (out.columnType == "date" && model.grain == Grain::Hour)
        co_return specError(spec, model, "hour partitions need a timestamp column, but '" + model.partitionColumn + "' is a date",
                            "Use grain day, week or month, or partition on a timestamp column.");
    for (const std::string &k : model.key)
        if (!has(k))
            co_return specError(spec, model, "key column '" + k + "' is not a column of " + model.target.display(),
                                "Columns are: " + join(out.columns, ", ") + ".");
    for (const std::string &m : model.measures)
        if (!has(m))
            co_return specError(spec, model, "measure '" + m + "' is not a column of " + model.target.display(),
                                "Columns are: " + join(out.columns, ", ") + ".");

    const auto relations = scheduledRelations(spec);
    auto scheduled = bindBounds(model.transformSql, relations, model.transformFile);
    if (!scheduled)
        co_return scheduled.error();
    out.transformHash = *transformHashOf(spec, model);
    out.transform = *scheduled;
    if (!overrides.empty()) {
        auto staging = relations;
        for (const auto &[name, relation] : overrides)
            staging[name] = relation;
        auto transform = bindBounds(model.transformSql, staging, model.transformFile);
        if (!transform)
            co_return transform.error();
        out.transform = *transform;
    }

    // A check's partition value may be a date, a timestamp or a timestamptz: a wall time
    // (date, timestamp) is read in the model's zone, as the partition column is.
    const std::string checkInstant = "CASE WHEN pg_typeof(c.partition) = 'timestamptz'::regtype THEN c.partition::timestamptz "
                                     "ELSE c.partition::timestamp AT TIME ZONE $4 END";
    for (const Check &c : model.checks) {
        auto sql = bindBounds(c.sql, relations, c.sourceFile);
        if (!sql)
            co_return sql.error();
        out.checks.push_back({&c, "SELECT extract(epoch FROM date_trunc($3, " + checkInstant + ", $4))::bigint AS p, "
                                  "sum(c.value::numeric)::text AS v FROM (\n" + *sql + "\n) AS c GROUP BY 1"});
    }
    co_return out;
}

Result<std::string> transformHashOf(const Spec &spec, const Model &model)
{
    auto scheduled = bindBounds(model.transformSql, scheduledRelations(spec), model.transformFile);
    if (!scheduled)
        return scheduled.error();
    return QCryptographicHash::hash(QByteArray::fromStdString(*scheduled), QCryptographicHash::Sha256).toHex().toStdString();
}

std::string arrayLiteral(const std::vector<warehouse::Value> &values)
{
    std::string out = "{";
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (i)
            out += ',';
        if (!values[i]) {
            out += "NULL";
            continue;
        }
        out += '"';
        for (char ch : *values[i]) {
            if (ch == '"' || ch == '\\')
                out += '\\';
            out += ch;
        }
        out += '"';
    }
    return out + "}";
}

} // namespace reprint::backfill
