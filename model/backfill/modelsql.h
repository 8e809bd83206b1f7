#pragma once
// The SQL the engine runs for one model, built once from the spec and the target's
// catalog. Identifiers are always quoted; values are always parameters: every statement
// here takes the partition bounds as $1 (start) and $2 (end), typed timestamptz.
//
// Internal to the engine.

#include "spec.h"
#include "warehouse/connection.h"

#include <map>
#include <string>
#include <vector>

namespace reprint::backfill {

struct BoundCheck {
    const Check *check = nullptr;
    std::string sql;  // SELECT p (epoch of the partition start), v (value text) for [$1, $2)
};

struct ModelSql {
    const Model *model = nullptr;
    std::string target;               // quoted schema.table
    std::string column;               // quoted partition column
    std::string columnType;           // its type, as format_type() names it
    std::vector<std::string> columns; // the target's insertable columns, unquoted, in order
    std::string columnList;           // quoted and comma-separated
    std::vector<std::string> floatMeasures; // measures of type real or double precision: summed as numeric
    std::string transform;            // the transform with $1/$2, references resolved
    std::string transformHash;
    std::vector<BoundCheck> checks;

    // Per partition of the window [$1, $2) (inWindow() values) of `relation`: p (epoch of the partition start), rows,
    // then one sum per declared measure, all as text. $3 grain, $4 timezone.
    std::string totals(const std::string &relation) const;
    // Builds [$1, $2) into `stage`: returns rows, leaked, example (a partition-column value
    // outside the bounds). $1/$2 as everywhere.
    std::string stageInsert(const std::string &stage) const;
    // Row-level diff by key of [$1, $2) (inWindow() values) between the target and
    // `stage`. $3 sample size.
    std::string rowDiff(const std::string &stage) const;
    // Parameters $3 and $4 of totals().
    std::string grainText() const;
    // The instant a value of the partition column stands for, as a timestamptz SQL
    // expression: a timestamptz is one already; a date or timestamp is a wall time in the
    // model's zone (`zone`: the SQL expression naming it, e.g. "$4"). Never the session's
    // zone: every session of the engine runs in UTC (see connectTo), so that no value's
    // meaning depends on where a session was opened.
    std::string instantOf(const std::string &expr, const std::string &zone) const;

    // `alias.column >= $first AND alias.column < $(first+1)`, the bounds cast to the
    // column's own type: with the values known when the statement is planned, the
    // planner prunes the target's partitions then (a timestamptz bound on a date column
    // would leave every partition in the plan).
    std::string inWindow(const std::string &alias, int first = 1) const;
    // The values for inWindow(): the partition's start (lower) or end (upper) instant in
    // the column's type (a local date, a local timestamp, or an instant with offset).
    std::string lowerValue(const Partition &p) const;
    std::string upperValue(const Partition &p) const;
};

// Reads the target's columns and checks that the partition column, key and measures
// exist (a Spec error naming the spec's line otherwise); binds the transform and checks.
// `relations` replaces what {{ model }} references stand for while staging (a cascade
// points them at the upstream's staged rows); the transform hash is always that of the
// scheduled run's resolution, so that it compares with what the scheduled run executes.
warehouse::Task<Result<ModelSql>> describeModel(warehouse::Connection &conn, const Spec &spec, const Model &model,
                                                std::map<std::string, std::string> relations = {});

// The relation each model name stands for in {{ name }} references during a scheduled
// run: the upstream model's target.
std::map<std::string, std::string> scheduledRelations(const Spec &spec);

// The transform's identity: sha256 of the scheduled run's SQL (references resolved to
// the upstream targets, :start/:end bound). Backfills store it; publish compares it.
Result<std::string> transformHashOf(const Spec &spec, const Model &model);

// A PostgreSQL array literal of text values ({"a","b",NULL}), for unnest($n::type[]).
std::string arrayLiteral(const std::vector<warehouse::Value> &values);

} // namespace reprint::backfill
