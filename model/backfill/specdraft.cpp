#include "specdraft.h"

#include "resources.h"

#include <QDir>
#include <QFileInfo>
#include <QSaveFile>
#include <QTimeZone>

#include <algorithm>
#include <cctype>
#include <set>

namespace reprint::backfill {

using warehouse::args;

namespace {

Result<std::string> catalogSql(const char *file)
{
    return resourceText(QStringLiteral(":/sql/catalog/") + QLatin1String(file));
}

bool contains(const std::vector<std::string> &list, const std::string &s)
{
    return std::find(list.begin(), list.end(), s) != list.end();
}

std::string joined(const std::vector<std::string> &parts, const std::string &separator)
{
    std::string out;
    for (std::size_t i = 0; i < parts.size(); ++i)
        out += (i ? separator : std::string()) + parts[i];
    return out;
}

bool isPlainName(const std::string &name)
{
    if (name.empty() || !(std::islower(static_cast<unsigned char>(name[0])) || name[0] == '_'))
        return false;
    return std::all_of(name.begin(), name.end(), [](char c) {
        return std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '_'
            || c == '$';
    });
}

// PostgreSQL's reserved key words: a plain name among them must be quoted in SQL text.
bool isReservedWord(const std::string &name)
{
    static const std::set<std::string> words = {
        "all", "analyse", "analyze", "and", "any", "array", "as", "asc", "asymmetric", "both", "case", "cast",
        "check", "collate", "column", "constraint", "create", "current_catalog", "current_date", "current_role",
        "current_time", "current_timestamp", "current_user", "default", "deferrable", "desc", "distinct", "do",
        "else", "end", "except", "false", "fetch", "for", "foreign", "from", "grant", "group", "having", "in",
        "initially", "intersect", "into", "lateral", "leading", "limit", "localtime", "localtimestamp", "not",
        "null", "offset", "on", "only", "or", "order", "placing", "primary", "references", "returning", "select",
        "session_user", "some", "symmetric", "system_user", "table", "then", "to", "trailing", "true", "union",
        "unique", "user", "using", "variadic", "when", "where", "window", "with"};
    return words.count(name) > 0;
}

std::string quotedName(const std::string &name)
{
    std::string out = "\"";
    for (char c : name)
        out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

// A name in SQL text: quoted unless PostgreSQL reads it back as itself.
std::string sqlIdentifier(const std::string &name)
{
    return isPlainName(name) && !isReservedWord(name) ? name : quotedName(name);
}

std::string sqlRelation(const QualifiedName &name)
{
    return sqlIdentifier(name.schema) + "." + sqlIdentifier(name.table);
}

// A YAML scalar: plain when it is safe as one, else single-quoted.
std::string yamlScalar(const std::string &text)
{
    const bool plain = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '/' || c == '$';
    }) && !std::isdigit(static_cast<unsigned char>(text[0]));
    if (plain)
        return text;
    std::string out = "'";
    for (char c : text)
        out += c == '\'' ? std::string("''") : std::string(1, c);
    return out + "'";
}

std::string yamlDoubleQuoted(const std::string &text)
{
    std::string out = "\"";
    for (char c : text) {
        if (c == '"' || c == '\\')
            out += '\\';
        out += c;
    }
    return out + "\"";
}

std::string yamlList(const std::vector<std::string> &names)
{
    std::vector<std::string> items;
    for (const std::string &n : names)
        items.push_back(yamlScalar(specIdentifier(n)));
    return "[" + joined(items, ", ") + "]";
}

std::string modelNameOf(const std::string &table)
{
    std::string out;
    for (char c : table) {
        const unsigned char u = static_cast<unsigned char>(c);
        out += std::isalnum(u) && u < 0x80 ? static_cast<char>(std::tolower(u)) : '_';
    }
    // Runs of _ from odd characters read better as one.
    out.erase(std::unique(out.begin(), out.end(), [](char a, char b) { return a == '_' && b == '_'; }), out.end());
    while (out.size() > 1 && out.back() == '_')
        out.pop_back();
    if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0])))
        out = "m_" + out;
    return out;
}

bool isTimeCategory(const std::string &category)
{
    return category == "date" || category == "timestamp" || category == "timestamptz";
}

QDateTime instantOf(const std::string &iso, const std::string &category, const QTimeZone &zone)
{
    const QDateTime wall = QDateTime::fromString(QString::fromStdString(iso), Qt::ISODate);
    if (!wall.isValid())
        return {};
    if (category == "timestamptz")
        return QDateTime(wall.date(), wall.time(), QTimeZone::utc());
    return QDateTime(wall.date(), wall.time(), zone);
}

// True when every bound is exactly one partition of `grain` in `zone`.
bool boundsFit(const std::vector<PartitionBound> &bounds, const std::string &category, Grain grain,
               const std::string &zone)
{
    const PartitionScheme scheme(grain, zone);
    if (!scheme.isValid())
        return false;
    for (const PartitionBound &b : bounds) {
        const QDateTime lower = instantOf(b.lower, category, scheme.timezone());
        const QDateTime upper = instantOf(b.upper, category, scheme.timezone());
        if (!lower.isValid() || !upper.isValid())
            return false;
        const Partition p = scheme.containing(lower);
        if (p.start != lower || p.end != upper)
            return false;
    }
    return true;
}

} // namespace

const CatalogColumn *TableCatalog::column(const std::string &name) const
{
    for (const CatalogColumn &c : columns)
        if (c.name == name)
            return &c;
    return nullptr;
}

Task<Result<std::vector<CatalogTable>>> listCatalogTables(std::string conninfo)
{
    auto sql = catalogSql("tables.sql");
    if (!sql)
        co_return sql.error();
    auto conn = co_await warehouse::Connection::connect(conninfo);
    if (!conn)
        co_return conn.error();
    auto r = co_await (*conn)->query(*sql);
    (*conn)->close();
    if (!r)
        co_return r.error();
    std::vector<CatalogTable> tables;
    const auto &set = r->last();
    for (std::size_t i = 0; i < set.rows.size(); ++i) {
        CatalogTable t;
        t.name = {set.at(i, "schema").value_or(""), set.at(i, "table").value_or("")};
        t.kind = set.at(i, "kind").value_or("table");
        t.estimatedRows = std::stoll(set.at(i, "estimated_rows").value_or("0"));
        tables.push_back(std::move(t));
    }
    co_return tables;
}

Task<Result<TableCatalog>> readTableCatalog(std::string conninfo, QualifiedName table)
{
    auto columnsSql = catalogSql("columns.sql");
    auto keysSql = catalogSql("keys.sql");
    auto partitionSql = catalogSql("partition_key.sql");
    auto boundsSql = catalogSql("partition_bounds.sql");
    for (const auto *s : {&columnsSql, &keysSql, &partitionSql, &boundsSql})
        if (!*s)
            co_return s->error();
    auto conn = co_await warehouse::Connection::connect(conninfo);
    if (!conn)
        co_return conn.error();
    auto &c = **conn;
    TableCatalog catalog;
    catalog.name = table;

    auto zone = co_await c.query("SELECT current_setting('TimeZone')");
    if (!zone)
        co_return zone.error();
    catalog.sessionTimezone = zone->last().scalar("UTC");

    auto columns = co_await c.query(*columnsSql, args(table.schema, table.table));
    if (!columns)
        co_return columns.error();
    const auto &cs = columns->last();
    if (cs.rows.empty())
        co_return Error::make(ErrorKind::Usage, "there is no table " + table.display() + " that this role can see",
                              "Pick a table from the list, or check the schema's USAGE and the table's SELECT privilege.");
    for (std::size_t i = 0; i < cs.rows.size(); ++i)
        catalog.columns.push_back({cs.at(i, "name").value_or(""), cs.at(i, "type").value_or(""),
                                   cs.at(i, "category").value_or("other"), cs.at(i, "not_null").value_or("false") == "true",
                                   cs.at(i, "generated").value_or("false") == "true"});

    auto keys = co_await c.query(*keysSql, args(table.schema, table.table));
    if (!keys)
        co_return keys.error();
    const auto &ks = keys->last();
    for (std::size_t i = 0; i < ks.rows.size(); ++i) {
        const std::string index = ks.at(i, "index").value_or("");
        if (catalog.uniqueKeys.empty() || catalog.uniqueKeys.back().name != index)
            catalog.uniqueKeys.push_back({index, ks.at(i, "primary").value_or("false") == "true", {}});
        catalog.uniqueKeys.back().columns.push_back(ks.at(i, "column").value_or(""));
    }

    auto partition = co_await c.query(*partitionSql, args(table.schema, table.table));
    if (!partition)
        co_return partition.error();
    const auto &ps = partition->last();
    std::string keyCategory;
    for (std::size_t i = 0; i < ps.rows.size(); ++i) {
        const std::string strategy = ps.at(i, "strategy").value_or("");
        catalog.partitionStrategy = strategy == "r" ? "range" : strategy == "l" ? "list" : "hash";
        catalog.partitionKey.push_back(ps.at(i, "column").value_or(""));
        keyCategory = ps.at(i, "category").value_or("other");
    }
    if (catalog.partitionStrategy == "range" && catalog.partitionKey.size() == 1 && !catalog.partitionKey[0].empty()
        && isTimeCategory(keyCategory)) {
        auto bounds = co_await c.query(*boundsSql, args(table.schema, table.table, keyCategory));
        if (!bounds)
            co_return bounds.error();
        const auto &bs = bounds->last();
        for (std::size_t i = 0; i < bs.rows.size(); ++i)
            catalog.bounds.push_back({bs.at(i, "lower").value_or(""), bs.at(i, "upper").value_or("")});
    }
    c.close();
    co_return catalog;
}

namespace {

// The columns a spec may copy, partition by, read as wall time, and measure.
void sortColumns(const TableCatalog &catalog, SpecDraft &d)
{
    for (const CatalogColumn &c : catalog.columns) {
        if (!c.generated)
            d.columns.push_back(c.name);
        if (isTimeCategory(c.category))
            d.partitionColumns.push_back(c.name);
        if (c.category == "date" || c.category == "timestamp")
            d.wallTimeColumns.push_back(c.name);
        if (c.category == "numeric")
            d.measureColumns.push_back(c.name);
    }
}

// The partition column: the table's partition key when it is one date or time column,
// else the first such column (NOT NULL first). Whether the key was taken.
bool choosePartitionColumn(const TableCatalog &catalog, SpecDraft &d)
{
    const bool keyIsTimeColumn = catalog.partitionKey.size() == 1 && !catalog.partitionKey[0].empty()
        && contains(d.partitionColumns, catalog.partitionKey[0]);
    if (keyIsTimeColumn) {
        d.partitionColumn = catalog.partitionKey[0];
        d.notes.push_back("Partition column " + d.partitionColumn + ": the table's partition key ("
                          + catalog.partitionStrategy + ").");
    } else if (!d.partitionColumns.empty()) {
        d.partitionColumn = d.partitionColumns.front();
        for (const std::string &name : d.partitionColumns)
            if (catalog.column(name)->notNull) {
                d.partitionColumn = name;
                break;
            }
        d.notes.push_back("Partition column " + d.partitionColumn + ": "
                          + (catalog.partitionKey.empty() ? std::string("the table is not partitioned; ")
                                                          : std::string("the table's partition key is not one date or time column; "))
                          + "the first " + (catalog.column(d.partitionColumn)->notNull ? "NOT NULL " : "")
                          + "date or time column" + (d.partitionColumns.size() > 1 ? " of " + std::to_string(d.partitionColumns.size()) : std::string())
                          + ". Choose the column each row is filed by.");
    } else {
        d.notes.push_back("The table has no date, timestamp or timestamptz column: a spec needs one to partition by.");
    }
    return keyIsTimeColumn;
}

// The grain and the timezone: read from the range partitions' bounds when the partition
// column is the key, else a day in UTC.
void chooseGrain(const TableCatalog &catalog, SpecDraft &d, bool keyIsTimeColumn)
{
    const CatalogColumn *column = d.partitionColumn.empty() ? nullptr : catalog.column(d.partitionColumn);
    if (column && keyIsTimeColumn && !catalog.bounds.empty()) {
        std::vector<std::string> zones = {"UTC"};
        if (!catalog.sessionTimezone.empty() && catalog.sessionTimezone != "UTC"
            && QTimeZone(QByteArray::fromStdString(catalog.sessionTimezone)).isValid())
            zones.push_back(catalog.sessionTimezone);
        bool found = false;
        for (const std::string &zone : zones) {
            for (Grain g : {Grain::Hour, Grain::Day, Grain::Week, Grain::Month}) {
                if (boundsFit(catalog.bounds, column->category, g, zone)) {
                    d.grain = g;
                    d.timezone = zone;
                    found = true;
                    break;
                }
            }
            if (found)
                break;
        }
        if (found)
            d.notes.push_back("Grain " + std::string(toString(d.grain)) + " in " + d.timezone + ": each of the "
                              + std::to_string(catalog.bounds.size()) + " range partitions read holds exactly one "
                              + toString(d.grain) + (d.timezone == "UTC" ? std::string() : " in the database's timezone")
                              + ".");
        else
            d.notes.push_back("The partition bounds are not whole hours, days, weeks or months in "
                              + joined(zones, " or ") + ": set the grain and the timezone the partitions follow.");
    } else if (column) {
        d.grain = Grain::Day;
        d.notes.push_back(std::string("Grain day in UTC: ") + column->type
                          + " column and no range partitions to read it from; change it if the table is loaded by hour, week or month, or in another zone.");
    }
}

void chooseKey(const TableCatalog &catalog, SpecDraft &d)
{
    if (!catalog.uniqueKeys.empty()) {
        for (const CatalogIndex &index : catalog.uniqueKeys)
            d.keys.push_back(index.columns);
        const CatalogIndex &best = catalog.uniqueKeys.front();
        d.key = best.columns;
        d.notes.push_back("Key " + joined(best.columns, ", ") + ": "
                          + (best.primary ? std::string("the primary key.") : "the unique index " + best.name + " (no primary key)."));
    } else {
        d.notes.push_back("The table has no primary key or unique index: choose the columns that identify a row.");
    }
}

// The measures: summing an identifier means nothing, so integer columns named like one
// (id, ..._id) are left out.
void chooseMeasures(const TableCatalog &catalog, SpecDraft &d)
{
    std::vector<std::string> identifiers;
    for (const std::string &name : d.measureColumns) {
        if (contains(d.key, name) || name == d.partitionColumn)
            continue;
        const CatalogColumn *c = catalog.column(name);
        const bool integer = c->type == "integer" || c->type == "bigint" || c->type == "smallint";
        const bool named = name == "id" || (name.size() > 3 && name.compare(name.size() - 3, 3, "_id") == 0);
        (integer && named ? identifiers : d.measures).push_back(name);
    }
    std::string measuresNote = d.measures.empty()
        ? std::string("No measures: no numeric column outside the key")
        : "Measures: the " + std::to_string(d.measures.size()) + " numeric columns outside the key";
    if (!identifiers.empty())
        measuresNote += ", leaving out the identifiers " + joined(identifiers, ", ");
    d.notes.push_back(measuresNote + " (the row count is always measured).");
}

} // namespace

SpecDraft proposeDraft(const TableCatalog &catalog, const std::string &conninfo)
{
    SpecDraft d;
    d.name = modelNameOf(catalog.name.table);
    d.target = catalog.name;
    d.warehouse = warehouse::redactConninfo(conninfo);
    sortColumns(catalog, d);
    const bool keyIsTimeColumn = choosePartitionColumn(catalog, d);
    chooseGrain(catalog, d, keyIsTimeColumn);
    chooseKey(catalog, d);
    chooseMeasures(catalog, d);
    return d;
}

std::vector<std::string> draftProblems(const SpecDraft &d)
{
    std::vector<std::string> problems;
    const bool nameOk = !d.name.empty() && (std::isalpha(static_cast<unsigned char>(d.name[0])) || d.name[0] == '_')
        && std::all_of(d.name.begin(), d.name.end(),
                       [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
    if (!nameOk)
        problems.push_back("The model name '" + d.name + "' must start with a letter or _ and hold only letters, digits and _.");
    if (d.target.schema.empty() || d.target.table.empty())
        problems.push_back("Choose the table.");
    if (d.partitionColumn.empty())
        problems.push_back("Choose the partition column.");
    if (!QTimeZone(QByteArray::fromStdString(d.timezone)).isValid())
        problems.push_back("'" + d.timezone + "' is not a timezone (write an IANA name such as UTC or Europe/Berlin).");
    if (d.key.empty())
        problems.push_back("Choose the key: the columns that identify a row.");
    for (const std::string &m : d.measures) {
        if (m == "rows")
            problems.push_back("A column named rows cannot be a measure (the row count is the measure rows).");
        if (contains(d.key, m))
            problems.push_back("'" + m + "' is in the key and cannot also be a measure.");
    }
    if (d.columns.empty())
        problems.push_back("The table has no insertable columns.");
    return problems;
}

std::string specIdentifier(const std::string &name)
{
    return isPlainName(name) ? name : quotedName(name);
}

std::string draftSpecYaml(const SpecDraft &d, const std::string &transformPath)
{
    std::string y;
    y += "# Starter spec for " + d.target.display() + ", written by reprint-review (File > New Spec...).\n";
    y += "# Check every line against what you know of the table, and replace the transform with\n";
    y += "# your model's own. Format: the spec file section of Reprint's design notes.\n";
    if (d.warehouse.empty())
        y += "# warehouse: not set: libpq's PG* environment, or reprint --db, says where the warehouse is.\n";
    else
        y += "# No password is written here: libpq reads it from ~/.pgpass or PGPASSWORD.\nwarehouse: "
            + yamlDoubleQuoted(d.warehouse) + "\n";
    y += "models:\n";
    y += "  - name: " + d.name + "\n";
    y += "    target: " + yamlScalar(specIdentifier(d.target.schema) + "." + specIdentifier(d.target.table)) + "\n";
    y += "    partition: { column: " + yamlScalar(specIdentifier(d.partitionColumn)) + ", grain: " + toString(d.grain)
        + ", timezone: " + yamlScalar(d.timezone) + " }\n";
    y += "    key: " + yamlList(d.key) + "\n";
    y += "    measures: " + yamlList(d.measures) + "     # summed per partition; the row count is always measured\n";
    y += "    transform: " + yamlScalar(transformPath) + "\n";
    y += "    # depends_on: [raw.source_table]     # what the transform reads, or another model's name\n";
    y += "    # checks:                            # a measure against its source, per partition\n";
    y += "    #   - name: rows match source\n";
    y += "    #     measure: rows\n";
    y += "    #     source: checks/rows.sql        # SELECT partition, value ... for [:start, :end)\n";
    return y;
}

std::string draftTransformSql(const SpecDraft &d)
{
    std::string s;
    s += "-- Starter transform of " + d.name + " (" + d.target.display() + "), written by reprint-review.\n";
    s += "-- Replace with your model's own transform: the SELECT that builds the target's rows for\n";
    s += "-- the window [:start, :end). Reprint binds :start and :end as parameters (timestamptz):\n";
    s += "-- the first instant of the window's first partition and of the partition after it.\n";
    s += "-- As written it selects the table's own rows, so a backfill with it changes nothing.\n";
    s += "SELECT ";
    for (std::size_t i = 0; i < d.columns.size(); ++i)
        s += (i ? ",\n       " : "") + sqlIdentifier(d.columns[i]);
    s += "\nFROM " + sqlRelation(d.target) + "\n";
    const std::string col = sqlIdentifier(d.partitionColumn);
    if (contains(d.wallTimeColumns, d.partitionColumn) && d.timezone != "UTC") {
        // A date or timestamp holds wall times: compare them with the bounds' wall time in
        // the model's zone (the session's zone is UTC).
        std::string zone;
        for (char c : d.timezone)
            zone += c == '\'' ? std::string("''") : std::string(1, c);
        s += "-- " + d.partitionColumn + " holds wall times in " + d.timezone
            + ": change the zone here too if you change the spec's timezone.\n";
        s += "WHERE " + col + " >= (:start AT TIME ZONE '" + zone + "') AND " + col + " < (:end AT TIME ZONE '" + zone + "')\n";
    } else {
        s += "WHERE " + col + " >= :start AND " + col + " < :end\n";
    }
    return s;
}

Result<DraftFiles> writeDraft(const SpecDraft &draft, const std::string &dir, bool overwrite)
{
    if (auto problems = draftProblems(draft); !problems.empty())
        return Error::make(ErrorKind::Usage, "the spec is not complete: " + joined(problems, " "),
                           "Fix it in the dialog and write it again.");
    const QDir folder(QString::fromStdString(dir));
    if (!folder.mkpath(QStringLiteral("transforms")))
        return Error::make(ErrorKind::Usage, "could not create " + folder.filePath(QStringLiteral("transforms")).toStdString(),
                           "Pick a folder you can write to.");
    const std::string transformName = "transforms/" + draft.name + ".sql";
    DraftFiles files;
    files.specPath = QFileInfo(folder.filePath(QString::fromStdString(draft.name + ".yaml"))).absoluteFilePath().toStdString();
    files.transformPath = QFileInfo(folder.filePath(QString::fromStdString(transformName))).absoluteFilePath().toStdString();
    if (!overwrite)
        for (const std::string &path : {files.specPath, files.transformPath})
            if (QFileInfo::exists(QString::fromStdString(path)))
                return Error::make(ErrorKind::Usage, path + " exists already",
                                   "Pick another folder or model name, or let Reprint replace the files.");
    auto write = [](const std::string &path, const std::string &text) -> warehouse::Status {
        QSaveFile f(QString::fromStdString(path));
        if (!f.open(QIODevice::WriteOnly) || f.write(text.data(), static_cast<qint64>(text.size())) < 0 || !f.commit())
            return Error::make(ErrorKind::Usage, "could not write " + path + ": " + f.errorString().toStdString(),
                               "Pick a folder you can write to.");
        return warehouse::ok();
    };
    if (auto s = write(files.transformPath, draftTransformSql(draft)); !s)
        return s.error();
    if (auto s = write(files.specPath, draftSpecYaml(draft, transformName)); !s)
        return s.error();
    return files;
}

} // namespace reprint::backfill
