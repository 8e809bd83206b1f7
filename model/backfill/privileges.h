#pragma once
// What a role needs for each step of Reprint's work (docs/privileges.md is the same list,
// for people), and the one place that turns an insufficient-privilege error (SQLSTATE
// 42501) into a sentence naming the role, the step and the GRANT that gives what is
// missing.
//
// Internal to the engine. Runs on the engine's io_context thread.

#include "spec.h"
#include "warehouse/connection.h"

#include <string>
#include <vector>

namespace reprint::backfill {

// The steps of Reprint's work, as messages name them.
enum class Step { Open, Claim, Stage, Validate, Publish, Undo, Abandon };
const char *toString(Step step);

// One privilege a step needs on one object.
struct PrivilegeNeed {
    Step step = Step::Open;
    std::string kind;       // "schema", "table" or "sequence"
    std::string schema;     // unquoted
    std::string name;       // unquoted; empty for a schema
    std::string privilege;  // one of SELECT, INSERT, UPDATE, DELETE, USAGE, CREATE
    std::string why;        // what the step does with it, e.g. "creates the backfill's stage there"
};

// Everything `steps` need for `models` (their targets, the relations their depends_on
// names, the upstream targets of a cascade), in step order: Reprint's schemas and tables,
// the targets' and the sources' schemas and tables. A publish swap needs the target's
// ownership on top (PublishStrategy::Swap; `auto` replaces without it).
std::vector<PrivilegeNeed> privilegeNeeds(const Spec &spec, const std::vector<const Model *> &models,
                                          const std::vector<Step> &steps);

// Returns `e` unchanged unless its SQLSTATE is 42501. Then it reads, on a connection of its
// own (the failed one may be in an aborted transaction), which of privilegeNeeds() the
// session's role lacks, and says so: the message gains "role R lacks PRIVILEGE on OBJECT,
// which the STEP step needs (WHY)", the hint the GRANT statements for everything missing
// (and keeps what it said). `models` empty: the models of backfill `id` (and its cascade)
// as stored, else every model of the spec. When nothing listed is missing (a column
// privilege, a relation the transform reads that depends_on does not name), the message
// still names the role and the steps, and points to docs/privileges.md.
warehouse::Task<warehouse::Error> explainPrivilege(std::string conninfo, const Spec &spec, std::vector<std::string> models,
                                                   long long id, std::vector<Step> steps, warehouse::Error e);

} // namespace reprint::backfill
