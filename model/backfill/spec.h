#pragma once
// The spec file (YAML): which models exist, how each is partitioned, its transform and
// its checks. Format: ../shared/design.md, "Spec file". Paths in the spec are relative
// to the spec file; loadSpec() reads every transform and check file it names.

#include "partition.h"
#include "errors.h"

#include <string>
#include <vector>

namespace reprint::backfill {

// schema.table, each part unquoted (the spec may write either part in double quotes to
// keep case or odd characters; they are quoted again, always, when SQL is built).
struct QualifiedName {
    std::string schema;
    std::string table;
    std::string display() const { return schema + "." + table; }
    bool operator==(const QualifiedName &) const = default;
};

struct Check {
    std::string name;
    std::string measure;      // a measure of the model, or "rows"
    std::string sourceFile;   // absolute path
    std::string sourceName;   // as the spec names it (relative to the spec's directory), for messages
    std::string sql;          // its text: SELECT partition, value ... for [:start, :end)
    double tolerance = 0.0;   // relative; 0 means exact
};

enum class Approval { Single, FourEyes };
// How publish replaces a window. Replace: delete the window's rows and insert the stage's
// (works on any table; readers are never blocked). Swap: the target is range-partitioned
// on the partition column and every partition of the window is one physical partition;
// publish attaches a table built from the stage in place of each and detaches the old
// one into the archive (a short exclusive lock, no row-by-row delete). Auto: swap when
// the window is aligned with physical partitions, replace otherwise.
enum class PublishStrategy { Replace, Swap, Auto };
const char *toString(PublishStrategy strategy);

struct Model {
    std::string name;
    QualifiedName target;
    std::string partitionColumn;
    Grain grain = Grain::Day;
    std::string timezone = "UTC";       // IANA name, validated
    std::vector<std::string> key;       // at least one column
    std::vector<std::string> measures;  // summed per partition; "rows" is implicit
    std::string transformFile;          // absolute path
    std::string transformName;          // as the spec names it (relative to the spec's directory), for messages
    std::string transformSql;           // its text
    std::vector<std::string> dependsOn; // other models' names, or relations (schema.table)
    std::vector<Check> checks;
    int maxParallel = 4;
    Approval approval = Approval::Single;
    PublishStrategy publish = PublishStrategy::Replace;
    int line = 0;                       // where the model starts in the spec, for messages

    PartitionScheme scheme() const { return PartitionScheme(grain, timezone); }
    std::vector<const Check *> checksFor(const std::string &measure) const;
    // "rows" followed by the declared measures.
    std::vector<std::string> allMeasures() const;
};

struct Spec {
    std::string path;       // absolute path of the spec file
    std::string warehouse;  // conninfo, URI or service=; empty when not given
    std::vector<Model> models;

    const Model *model(const std::string &name) const;
    // Models that list `name` in depends_on, directly.
    std::vector<const Model *> dependants(const std::string &name) const;
};

// Loads and validates a spec. Errors have kind Spec and a message of the form
// "demo.yaml:7:14: models[0].partition.grain: 'dayly' is not one of hour, day, week, month"
// (the path as given, 1-based line and column, then the key path).
// Rejected: YAML syntax errors, unknown or repeated keys, missing required keys, wrong
// types, duplicate model names, unknown grains or timezones, missing or empty transform
// or check files, checks on undeclared measures, "rows" listed as a measure, and
// dependency cycles between models.
// Names: a model name is [A-Za-z_][A-Za-z0-9_]*. Column names (partition.column, key,
// measures, a check's measure) and each part of target follow SQL: unquoted they fold to
// lower case, in double quotes they are kept as written. key and depends_on may be a
// single scalar instead of a list.
Result<Spec> loadSpec(const std::string &path);

} // namespace reprint::backfill
