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
    return Error::make(ErrorKind::Spec, where + ":" + std::to_string(model.line) + ": model " + model.name + ": " + what,
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

std::string ModelSql::totals(const std::string &relation) const
{
    std::string sql = "SELECT extract(epoch FROM date_trunc($3, t." + column + "::timestamptz, $4))::bigint AS p, "
                      "count(*)::text AS rows";
    for (const std::string &m : model->measures)
        sql += ", sum(t." + quoteIdentifier(m) + ")::text";
    sql += " FROM " + relation + " AS t WHERE " + inWindow("t") + " GROUP BY 1";
    return sql;
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
    return "WITH ins AS (INSERT INTO " + stage + " (" + columnList + ") SELECT " + columnList + " FROM (\n"
           + transform + "\n) AS t RETURNING " + column + " AS c)\n"
           "SELECT count(*) AS rows, "
           "count(*) FILTER (WHERE c IS NULL OR NOT (c >= $1 AND c < $2)) AS leaked, "
           "min(coalesce(c::text, 'NULL')) FILTER (WHERE c IS NULL OR NOT (c >= $1 AND c < $2)) AS example FROM ins";
}

std::string ModelSql::rowDiff(const std::string &stage) const
{
    std::vector<std::string> keyMatch, keyJson, diffs, diffCounts;
    for (const std::string &k : model->key) {
        const std::string q = quoteIdentifier(k);
        keyMatch.push_back("o." + q + " = n." + q);
        keyJson.push_back("'" + k + "', coalesce(o." + q + ", n." + q + ")");
    }
    for (const std::string &c : columns) {
        if (std::find(model->key.begin(), model->key.end(), c) != model->key.end())
            continue;
        const std::string q = quoteIdentifier(c);
        diffs.push_back("(o." + q + " IS DISTINCT FROM n." + q + ")");
    }
    const std::string anyDiff = diffs.empty() ? "false" : join(diffs, " OR ");
    std::string sql = "WITH o AS (SELECT t.*, true AS reprint_present FROM " + target + " AS t WHERE " + inWindow("t") + "),\n"
                      " n AS (SELECT s.*, true AS reprint_present FROM " + stage + " AS s WHERE " + inWindow("s") + "),\n"
                      " j AS (SELECT o.reprint_present AS in_old, n.reprint_present AS in_new, (" + anyDiff
                      + ") AS differs";
    for (std::size_t i = 0; i < diffs.size(); ++i)
        sql += ", " + diffs[i] + " AS d" + std::to_string(i);
    sql += ", jsonb_build_object(" + join(keyJson, ", ") + ") AS key, "
           "to_jsonb(o) - 'reprint_present' AS old_row, to_jsonb(n) - 'reprint_present' AS new_row "
           "FROM o FULL JOIN n ON " + join(keyMatch, " AND ") + ")\n"
           "SELECT count(*) FILTER (WHERE in_new AND in_old IS NULL) AS added, "
           "count(*) FILTER (WHERE in_old AND in_new IS NULL) AS removed, "
           "count(*) FILTER (WHERE in_old AND in_new AND differs) AS changed, "
           "(SELECT coalesce(jsonb_agg(x.r), '[]'::jsonb)::text FROM (SELECT jsonb_build_object('change', "
           "CASE WHEN in_old IS NULL THEN 'added' WHEN in_new IS NULL THEN 'removed' ELSE 'changed' END, "
           "'key', key, 'old', old_row, 'new', new_row) AS r FROM j "
           "WHERE in_old IS NULL OR in_new IS NULL OR differs "
           "ORDER BY (in_old AND in_new) DESC NULLS LAST, key::text LIMIT $3) AS x) AS sample";
    for (std::size_t i = 0; i < diffs.size(); ++i)
        sql += ", count(*) FILTER (WHERE in_old AND in_new AND d" + std::to_string(i) + ")";
    sql += " FROM j";
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

    for (const Check &c : model.checks) {
        auto sql = bindBounds(c.sql, relations, c.sourceFile);
        if (!sql)
            co_return sql.error();
        out.checks.push_back({&c, "SELECT extract(epoch FROM date_trunc($3, c.partition::timestamptz, $4))::bigint AS p, "
                                  "sum(c.value)::text AS v FROM (\n" + *sql + "\n) AS c GROUP BY 1"});
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
