#include "privileges.h"

#include "modelsql.h"
#include "sqltext.h"

#include <algorithm>
#include <cctype>

namespace reprint::backfill {

using warehouse::Error;
using warehouse::Task;
using warehouse::Value;
using warehouse::args;

const char *toString(Step step)
{
    switch (step) {
    case Step::Open: return "open";
    case Step::Claim: return "claim";
    case Step::Stage: return "stage";
    case Step::Validate: return "validate";
    case Step::Publish: return "publish";
    case Step::Undo: return "undo";
    case Step::Abandon: return "abandon";
    }
    return "open";
}

namespace {

// A name as a GRANT statement takes it: bare when it is a plain lower-case identifier.
std::string sqlName(const std::string &name)
{
    const bool plain = !name.empty() && (std::islower(static_cast<unsigned char>(name[0])) || name[0] == '_')
                       && std::all_of(name.begin(), name.end(), [](char ch) {
                              const auto c = static_cast<unsigned char>(ch);
                              return std::islower(c) || std::isdigit(c) || c == '_';
                          });
    return plain ? name : quoteIdentifier(name);
}

std::string objectName(const PrivilegeNeed &n)
{
    return n.name.empty() ? sqlName(n.schema) : sqlName(n.schema) + "." + sqlName(n.name);
}

class Needs {
public:
    explicit Needs(const std::vector<Step> &steps) : m_steps(steps) {}

    void add(Step step, const std::string &kind, const std::string &schema, const std::string &name,
             const std::vector<std::string> &privileges, const std::string &why)
    {
        if (std::find(m_steps.begin(), m_steps.end(), step) == m_steps.end())
            return;
        for (const std::string &p : privileges) {
            const bool known = std::any_of(m_out.begin(), m_out.end(), [&](const PrivilegeNeed &n) {
                return n.kind == kind && n.schema == schema && n.name == name && n.privilege == p;
            });
            if (!known)
                m_out.push_back({step, kind, schema, name, p, why});
        }
    }
    void schema(Step step, const std::string &schema, const std::vector<std::string> &privileges, const std::string &why)
    {
        add(step, "schema", schema, {}, privileges, why);
    }
    void table(Step step, const QualifiedName &t, const std::vector<std::string> &privileges, const std::string &why)
    {
        schema(step, t.schema, {"USAGE"}, why);
        add(step, "table", t.schema, t.table, privileges, why);
    }
    void own(Step step, const std::string &table, const std::vector<std::string> &privileges, const std::string &why)
    {
        add(step, "table", "reprint", table, privileges, why);
    }
    void sequence(Step step, const std::string &name, const std::string &why)
    {
        add(step, "sequence", "reprint", name, {"USAGE"}, why);
    }
    std::vector<PrivilegeNeed> take() { return std::move(m_out); }

private:
    std::vector<Step> m_steps;
    std::vector<PrivilegeNeed> m_out;
};

} // namespace

std::vector<PrivilegeNeed> privilegeNeeds(const Spec &spec, const std::vector<const Model *> &models,
                                          const std::vector<Step> &stepList)
{
    // Steps in the order the work runs them, so that the first need missing names the
    // step that failed.
    std::vector<Step> steps = stepList;
    std::sort(steps.begin(), steps.end());
    Needs n(steps);
    for (Step step : steps) {
        switch (step) {
        case Step::Open:
            n.schema(step, "reprint", {"USAGE"}, "it holds Reprint's state");
            n.own(step, "schema_version", {"SELECT"}, "it checks the schema's version");
            break;
        case Step::Claim:
            n.own(step, "backfills", {"SELECT", "INSERT", "UPDATE"}, "it records the backfill");
            n.sequence(step, "backfills_id_seq", "it numbers the backfill");
            n.own(step, "claims", {"SELECT", "INSERT", "UPDATE", "DELETE"}, "it claims the window");
            n.own(step, "backfill_partitions", {"SELECT", "INSERT", "UPDATE"}, "it records the window's partitions");
            n.schema(step, "reprint_staging", {"USAGE", "CREATE"}, "it creates the backfill's stage there");
            for (const Model *m : models)
                n.table(step, m->target, {"SELECT"}, "the stage copies the target's columns");
            break;
        case Step::Stage:
            for (const Model *m : models)
                for (const std::string &d : m->dependsOn) {
                    const auto dot = d.find('.');
                    if (dot != std::string::npos) {
                        n.table(step, {d.substr(0, dot), d.substr(dot + 1)}, {"SELECT"}, "the transform reads it");
                        continue;
                    }
                    for (const Model &up : spec.models)
                        if (up.name == d)
                            n.table(step, up.target, {"SELECT"}, "the transform reads it");
                }
            break;
        case Step::Validate:
            n.own(step, "partition_totals", {"SELECT", "INSERT", "DELETE"}, "it stores the review's totals");
            n.own(step, "check_values", {"SELECT", "INSERT", "DELETE"}, "it stores the checks' values");
            n.own(step, "row_diffs", {"SELECT", "INSERT", "UPDATE"}, "it stores the boundary partitions' row diffs");
            break;
        case Step::Publish:
        case Step::Undo: {
            const std::string what = step == Step::Publish ? "it replaces the window's rows" : "it restores the archived rows";
            for (const Model *m : models)
                n.table(step, m->target, {"SELECT", "INSERT", "DELETE"}, what);
            n.schema(step, "reprint_archive", {"USAGE"}, "it keeps the replaced rows there, for undo");
            if (step == Step::Publish)
                n.schema(step, "reprint_archive", {"CREATE"}, "it keeps the replaced rows there, for undo");
            n.own(step, "partition_loads", {"SELECT", "INSERT", "UPDATE"}, "it records when each partition was loaded");
            n.own(step, "audit", {"INSERT"}, "it writes the audit row in the same transaction");
            n.sequence(step, "audit_id_seq", "it numbers the audit row");
            n.own(step, "backfills", {"SELECT", "UPDATE"}, "it records the outcome");
            n.own(step, "claims", {"SELECT", "DELETE"}, "it releases the claim");
            break;
        }
        case Step::Abandon:
            n.schema(step, "reprint_staging", {"USAGE"}, "it drops the stage");
            n.own(step, "backfills", {"SELECT", "UPDATE"}, "it records the outcome");
            n.own(step, "claims", {"SELECT", "DELETE"}, "it releases the claim");
            n.own(step, "audit", {"INSERT"}, "it writes the audit row");
            n.sequence(step, "audit_id_seq", "it numbers the audit row");
            break;
        }
    }
    return n.take();
}

namespace {

// The spec's models named (every model when none is).
std::vector<const Model *> modelsNamed(const Spec &spec, const std::vector<std::string> &modelNames)
{
    std::vector<const Model *> models;
    for (const Model &m : spec.models)
        if (modelNames.empty() || std::find(modelNames.begin(), modelNames.end(), m.name) != modelNames.end())
            models.push_back(&m);
    return models;
}

// $1..$4: the needs' kinds, schemas, names and privileges, as arrays.
warehouse::Params needArguments(const std::vector<PrivilegeNeed> &needs)
{
    std::vector<Value> kinds, schemas, names, privileges;
    for (const PrivilegeNeed &n : needs) {
        kinds.emplace_back(n.kind);
        schemas.emplace_back(n.schema);
        names.emplace_back(n.name);
        privileges.emplace_back(n.privilege);
    }
    return args(arrayLiteral(kinds), arrayLiteral(schemas), arrayLiteral(names), arrayLiteral(privileges));
}

// What the failed step left as it was, unless the message says so already.
void sayWhatIsUntouched(Error &e, Step step)
{
    if (e.message.find("nothing") != std::string::npos)
        return;
    switch (step) {
    case Step::Publish: e.message += "; nothing was published"; break;
    case Step::Undo: e.message += "; nothing was undone"; break;
    case Step::Stage:
    case Step::Validate: e.message += "; the target is untouched"; break;
    default: e.message += "; nothing was changed"; break;
    }
}

// One GRANT per object, its privileges in the order the steps need them.
std::string grantStatements(const std::vector<const PrivilegeNeed *> &missing, const std::string &role)
{
    std::vector<std::pair<const PrivilegeNeed *, std::string>> grants;
    for (const PrivilegeNeed *m : missing) {
        auto it = std::find_if(grants.begin(), grants.end(), [&](const auto &g) {
            return g.first->kind == m->kind && g.first->schema == m->schema && g.first->name == m->name;
        });
        if (it == grants.end())
            grants.emplace_back(m, m->privilege);
        else
            it->second += ", " + m->privilege;
    }
    std::string statements;
    for (const auto &[need, privs] : grants) {
        std::string kind = need->kind;
        std::transform(kind.begin(), kind.end(), kind.begin(), [](unsigned char c) { return std::toupper(c); });
        statements += (statements.empty() ? "" : " ") + std::string("GRANT ") + privs + " ON " + kind + " "
                      + objectName(*need) + " TO " + sqlName(role) + ";";
    }
    return statements;
}

// `e` with the first privilege `role` lacks and the GRANTs that give it all of them; or,
// when it lacks none Reprint knows of, saying so.
Error explainedBy(Error e, const std::string &role, const std::vector<const PrivilegeNeed *> &missing,
                  const std::vector<Step> &steps)
{
    std::string stepList;
    for (Step s : steps)
        stepList += (stepList.empty() ? "" : ", ") + std::string(toString(s));
    const std::string docs = "docs/privileges.md lists what an operator role needs.";
    if (missing.empty()) {
        e.message += "; role " + role + " may not do this, though it holds every privilege Reprint's " + stepList
                     + " steps are known to need";
        e.hint = "Grant role " + role + " what the statement needs (a relation the transform or a check reads that "
                 "depends_on does not name?); " + docs + (e.hint.empty() ? "" : " " + e.hint);
        return e;
    }
    const PrivilegeNeed &first = *missing.front();
    e.message += ": role " + role + " lacks " + first.privilege + " on " + first.kind + " " + objectName(first) + ", which the "
                 + toString(first.step) + " step needs (" + first.why + ")";
    sayWhatIsUntouched(e, first.step);
    e.hint = "As the owner (of Reprint's schemas: the role that ran reprint init), run: " + grantStatements(missing, role)
             + " " + docs + (e.hint.empty() ? "" : " " + e.hint);
    return e;
}

} // namespace

Task<Error> explainPrivilege(std::string conninfo, const Spec &spec, std::vector<std::string> modelNames, long long id,
                             std::vector<Step> steps, Error e)
{
    if (e.sqlstate != "42501")
        co_return e;
    auto conn = co_await warehouse::Connection::connect(conninfo);
    if (!conn)
        co_return e;
    if (modelNames.empty() && id > 0) {
        auto stored = co_await (*conn)->query("SELECT DISTINCT model FROM reprint.backfills WHERE id = $1 OR parent_id = $1",
                                              args(std::to_string(id)));
        if (stored)
            for (const auto &row : stored->last().rows)
                modelNames.push_back(row[0].value_or(""));
    }
    const std::vector<PrivilegeNeed> needs = privilegeNeeds(spec, modelsNamed(spec, modelNames), steps);
    // By oid, never by name: a name lookup in a schema the role may not use fails itself.
    // An object that does not exist is not a privilege missing.
    auto held = co_await (*conn)->query(
        "SELECT v.i::text, coalesce(CASE v.kind "
        "WHEN 'schema' THEN (SELECT has_schema_privilege(n.oid, v.priv) FROM pg_namespace n WHERE n.nspname = v.sch) "
        "WHEN 'table' THEN (SELECT has_table_privilege(c.oid, v.priv) FROM pg_class c JOIN pg_namespace n "
        "  ON n.oid = c.relnamespace WHERE n.nspname = v.sch AND c.relname = v.nm) "
        "ELSE (SELECT has_sequence_privilege(c.oid, v.priv) FROM pg_class c JOIN pg_namespace n "
        "  ON n.oid = c.relnamespace WHERE n.nspname = v.sch AND c.relname = v.nm) END, true)::text, current_user::text "
        "FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) WITH ORDINALITY AS v(kind, sch, nm, priv, i) ORDER BY v.i",
        needArguments(needs));
    (*conn)->close();
    if (!held || held->last().rows.empty())
        co_return e;
    const std::string role = held->last().rows.front()[2].value_or("?");
    std::vector<const PrivilegeNeed *> missing;
    for (const auto &row : held->last().rows)
        if (row[1] != "true")
            missing.push_back(&needs[std::stoul(row[0].value_or("1")) - 1]);
    co_return explainedBy(std::move(e), role, missing, steps);
}

} // namespace reprint::backfill
