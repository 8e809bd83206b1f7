#pragma once
// A starter spec drafted from a table of the warehouse (reprint-review's File › New Spec…).
//
// Three steps, each its own function:
//   1. readTableCatalog() reads what the catalog says of one table (columns, unique
//      indexes, the declarative partition key and its range bounds); listCatalogTables()
//      lists the tables to choose from. These are the only ones that touch the database.
//   2. proposeDraft() turns that into a proposal the user edits (pure): the partition
//      column, grain, timezone, key and measures, with a note saying why each was chosen
//      or what the user must decide.
//   3. writeDraft() writes the spec YAML and a transform stub to a folder (pure but for
//      the files). The spec loads with loadSpec() and runs `reprint status`.
//
// Thread affinity: the Tasks run on the io_context of the calling coroutine and open a
// connection of their own, closed before they return. They only read the catalog.
// Secrets: errors come from warehouse::Connection, which never quotes the password; the
// spec's warehouse: line is always written without it (redactConninfo).

#include "spec.h"
#include "warehouse/connection.h"

#include <string>
#include <vector>

namespace reprint::backfill {

using warehouse::Task;

struct CatalogTable {
    QualifiedName name;           // as the catalog spells it (unquoted)
    std::string kind;             // "table" or "partitioned"
    long long estimatedRows = 0;  // the planner's estimate (0 before ANALYZE)
};

struct CatalogColumn {
    std::string name;
    std::string type;             // as format_type() names it
    std::string category;         // date, timestamp, timestamptz, numeric or other
    bool notNull = false;
    bool generated = false;       // GENERATED ALWAYS AS (...): never inserted
};

struct CatalogIndex {
    std::string name;
    bool primary = false;
    std::vector<std::string> columns;
};

struct PartitionBound {
    // ISO 8601 without offset: the instant in UTC for a timestamptz key, the wall time for
    // a date or timestamp key.
    std::string lower;
    std::string upper;
};

struct TableCatalog {
    QualifiedName name;
    std::vector<CatalogColumn> columns;     // in table order
    std::vector<CatalogIndex> uniqueKeys;   // the primary key first, then the narrowest
    std::string partitionStrategy;          // "range", "list", "hash"; empty when not partitioned
    std::vector<std::string> partitionKey;  // one entry per key part; empty for an expression
    std::vector<PartitionBound> bounds;     // range partitions (newest first, at most 400)
    std::string sessionTimezone;            // the database's (or role's) TimeZone setting

    const CatalogColumn *column(const std::string &name) const;
};

struct SpecDraft {
    std::string name;                    // the model's name: [A-Za-z_][A-Za-z0-9_]*
    QualifiedName target;
    std::string partitionColumn;
    Grain grain = Grain::Day;
    std::string timezone = "UTC";
    std::vector<std::string> key;
    std::vector<std::string> measures;
    std::vector<std::string> columns;    // the transform stub's select list: the insertable columns
    std::string warehouse;               // the spec's warehouse: line; the password is never written
    // What the dialog offers to choose from.
    std::vector<std::string> partitionColumns;  // date, timestamp and timestamptz columns
    std::vector<std::string> wallTimeColumns;   // the date and timestamp ones (wall times in the zone)
    std::vector<std::string> measureColumns;    // numeric columns
    std::vector<std::vector<std::string>> keys; // the unique keys, primary first
    // One sentence per decision: why it was proposed, or what the user must decide.
    std::vector<std::string> notes;
};

// Every table listCatalogTables() offers (see resources/sql/catalog/tables.sql).
Task<Result<std::vector<CatalogTable>>> listCatalogTables(std::string conninfo);
// What the catalog says of `table`; a Usage error when there is no such table.
Task<Result<TableCatalog>> readTableCatalog(std::string conninfo, QualifiedName table);

// The proposal for `catalog`:
// - partition column: the declarative partition key when it is one date, timestamp or
//   timestamptz column; else the first such column that is NOT NULL, else the first.
// - grain and timezone: when range partitions have bounds, the grain and zone (UTC, then
//   the session's TimeZone) in which every partition is exactly one partition of Reprint's;
//   else from the column's type (date: day; timestamp, timestamptz: day) in UTC.
// - key: the primary key, else the narrowest unique index; none (the user must choose)
//   when the table has neither.
// - measures: the numeric columns that are not in the key and not the partition column,
//   except integer columns named id or ..._id (identifiers, not amounts).
// `conninfo` becomes the warehouse: line, without its password.
SpecDraft proposeDraft(const TableCatalog &catalog, const std::string &conninfo);

// What keeps `draft` from loading as a spec, one sentence each (no name, no partition
// column, no key, an unknown timezone, ...). Empty when it is fine.
std::vector<std::string> draftProblems(const SpecDraft &draft);

// A name in the spec's syntax: as is when PostgreSQL would fold it to itself
// ([a-z_][a-z0-9_$]*), else in double quotes ("Order Time", with " doubled).
std::string specIdentifier(const std::string &name);

// The spec's text (YAML) and the transform stub's (SQL: the table's insertable columns for
// [:start, :end), commented "replace with your model's own transform").
std::string draftSpecYaml(const SpecDraft &draft, const std::string &transformPath);
std::string draftTransformSql(const SpecDraft &draft);

struct DraftFiles {
    std::string specPath;       // absolute
    std::string transformPath;  // absolute
};
// Writes `<dir>/<name>.yaml` and `<dir>/transforms/<name>.sql`. Refuses (Usage) a draft
// with problems, or files that exist unless `overwrite`.
Result<DraftFiles> writeDraft(const SpecDraft &draft, const std::string &dir, bool overwrite = false);

} // namespace reprint::backfill
