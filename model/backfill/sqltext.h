#pragma once
// SQL text handling for transforms and checks. Values never enter SQL text: they are
// parameters. Identifiers always go through quoteIdentifier().

#include "errors.h"

#include <cstddef>
#include <map>
#include <optional>
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

// A 1-based line and column (in characters) of a transform's or a check's file.
struct SourcePosition {
    int line = 0;
    int column = 0;
};

// Where the server's error `position` (PG_DIAG_STATEMENT_POSITION: 1-based, in characters
// of `statement`) lies in `written`, the SQL as its file holds it, when `statement` holds
// at byte `begin` what bindNamedParameters and resolveModelReferences made of `written`.
// nullopt when the position falls outside that part (in the engine's own SQL around it).
// The two texts are walked side by side: they differ only where :name became $n and
// {{ model }} a quoted relation; a position inside either maps to where it starts.
std::optional<SourcePosition> sourcePositionOf(const std::string &written, const std::string &statement, std::size_t begin,
                                               int position);

// `e` with its message led by "FILE line L, column C: " when its position lies in
// `written` (see sourcePositionOf; `begin` npos: unknown), else `e` as it is. `file` is
// the path as the spec names it.
warehouse::Error inSourceFile(warehouse::Error e, const std::string &file, const std::string &written,
                              const std::string &statement, std::size_t begin);

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
