#pragma once
// SQL text handling for transforms and checks. Values never enter SQL text: they are
// parameters. Identifiers always go through quoteIdentifier().

#include "warehouse/error.h"

#include <map>
#include <string>
#include <vector>

namespace reprint::backfill {

// A statement with :name placeholders rewritten to $1..$n.
struct BoundSql {
    std::string sql;                 // with $n placeholders
    std::vector<std::string> names;  // names[i] is bound as $(i+1)
};

// Rewrites :name to $n (the same name gets the same number; numbering starts after
// `firstParam - 1`, so a statement can already use $1..$k). Skips string literals
// ('...', E'...' with backslash escapes), quoted identifiers ("..."), -- and /* */
// comments (nested), dollar-quoted bodies ($tag$...$tag$) and :: casts. Only names in
// `allowed` are placeholders; any other :name is an error (kind Spec) naming it and its
// 1-based line:column in the text (Error::position is the 1-based character offset).
// A placeholder is ':' then [A-Za-z_][A-Za-z0-9_]*, wherever it stands: `:start::date`
// binds :start and keeps the cast, and `arr[1:2]` and `a := 1` are left alone, but an
// array slice whose bound is a name must be spaced (`arr[lo : hi]`), or `:hi` is read as
// a placeholder. An unclosed literal, identifier, comment or dollar quote is an error.
warehouse::Result<BoundSql> bindNamedParameters(const std::string &sql, const std::vector<std::string> &allowed,
                                                int firstParam = 1);

// Replaces {{ name }} (spaces optional) with the given SQL text (an already quoted
// relation). An unknown name is an error (kind Spec) naming it and its line:column, as is
// a {{ that does not open {{ name }}. Literals, quoted identifiers, comments and
// dollar-quoted bodies are left as they are, the same runs that bindNamedParameters skips.
warehouse::Result<std::string> resolveModelReferences(const std::string &sql,
                                                      const std::map<std::string, std::string> &relations);

// "name" with embedded double quotes doubled: the same result as PQescapeIdentifier for
// valid UTF-8. Always quotes, so case and odd characters survive and nothing executes.
std::string quoteIdentifier(const std::string &name);
// schema.table, both quoted.
std::string quoteRelation(const std::string &schema, const std::string &table);
// 'text' with embedded single quotes doubled (standard_conforming_strings): for the few
// places SQL takes no parameter, e.g. partition bounds in ALTER TABLE … ATTACH PARTITION.
std::string quoteLiteral(const std::string &text);

// SQL that shows the timestamptz `expression` as messages print an instant, whatever the
// session's TimeZone (the engine sets the model's): UTC, ISO 8601 with a Z, e.g.
// 2026-03-10T14:02:03Z, as `reprint history` prints. infinity stays 'infinity'.
inline std::string utcTimeText(const std::string &expression)
{
    std::string sql = "CASE WHEN isfinite(";
    sql += expression;
    sql += ") THEN to_char(";
    sql += expression;
    sql += " AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"') ELSE ";
    sql += expression;
    sql += "::text END";
    return sql;
}

} // namespace reprint::backfill
