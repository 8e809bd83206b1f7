#include "sqltext.h"

#include <algorithm>

namespace reprint::backfill {

using warehouse::Error;
using warehouse::ErrorKind;
using warehouse::Result;

namespace {

// A run of the statement: either code, or text that is never rewritten (a literal, a
// quoted identifier, a comment or a dollar-quoted body).
struct Segment {
    size_t begin = 0;
    size_t end = 0;
    bool code = true;
};

bool isAsciiLetter(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

bool isDigit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

// Characters that continue an unquoted SQL identifier or keyword.
bool isIdentifierChar(unsigned char c)
{
    return isAsciiLetter(c) || isDigit(c) || c == '_' || c == '$' || c >= 0x80;
}

bool isNameStart(unsigned char c)
{
    return isAsciiLetter(c) || c == '_';
}

bool isNameChar(unsigned char c)
{
    return isAsciiLetter(c) || isDigit(c) || c == '_';
}

// 1-based line and column (in UTF-8 characters) of byte `offset`.
struct Position {
    int line = 1;
    int column = 1;
    int character = 1;
    std::string text() const { return std::to_string(line) + ":" + std::to_string(column); }
};

Position positionOf(const std::string &sql, size_t offset)
{
    Position p;
    for (size_t i = 0; i < offset && i < sql.size(); ++i) {
        const auto c = static_cast<unsigned char>(sql[i]);
        if ((c & 0xC0) == 0x80)
            continue;
        ++p.character;
        if (c == '\n') {
            ++p.line;
            p.column = 1;
        } else {
            ++p.column;
        }
    }
    return p;
}

Error textError(const std::string &sql, size_t offset, const std::string &what)
{
    const Position p = positionOf(sql, offset);
    Error e = Error::make(EngineKind::Spec, p.text() + ": " + what);
    e.position = p.character;
    return e;
}

unsigned char byteAt(const std::string &sql, size_t i)
{
    return i < sql.size() ? static_cast<unsigned char>(sql[i]) : 0;
}

// One past the closing `quote` of the run opened at `i`, where a doubled quote stands for
// itself (and a backslash escapes the next byte when `backslashEscapes`, as in E'...');
// 0 when it is not closed.
size_t quotedEnd(const std::string &sql, size_t i, unsigned char quote, bool backslashEscapes)
{
    const size_t n = sql.size();
    size_t j = i + 1;
    while (j < n) {
        if (backslashEscapes && byteAt(sql, j) == '\\') {
            j += 2;
        } else if (byteAt(sql, j) == quote) {
            if (byteAt(sql, j + 1) == quote)
                j += 2;
            else
                return j + 1;
        } else {
            ++j;
        }
    }
    return 0;
}

// One past the */ that closes the block comment opened at `i` (they nest); 0 when it is
// not closed.
size_t blockCommentEnd(const std::string &sql, size_t i)
{
    const size_t n = sql.size();
    int depth = 1;
    size_t j = i + 2;
    while (j < n && depth > 0) {
        if (byteAt(sql, j) == '/' && byteAt(sql, j + 1) == '*') {
            ++depth;
            j += 2;
        } else if (byteAt(sql, j) == '*' && byteAt(sql, j + 1) == '/') {
            --depth;
            j += 2;
        } else {
            ++j;
        }
    }
    return depth > 0 ? 0 : j;
}

// One past the closing delimiter of the dollar quote opened at `i`; 0 when `i` opens none.
Result<size_t> dollarQuoteEnd(const std::string &sql, size_t i)
{
    const size_t n = sql.size();
    // $tag$ with tag empty or an identifier not starting with a digit; $1 is a
    // positional parameter, not a quote.
    size_t j = i + 1;
    if (byteAt(sql, j) != '$' && (isNameStart(byteAt(sql, j)) || byteAt(sql, j) >= 0x80)) {
        while (j < n && (isNameChar(byteAt(sql, j)) || byteAt(sql, j) >= 0x80))
            ++j;
    }
    if (byteAt(sql, j) != '$')
        return size_t(0);
    const std::string delimiter = sql.substr(i, j + 1 - i);
    const size_t close = sql.find(delimiter, j + 1);
    if (close == std::string::npos)
        return textError(sql, i, "dollar-quoted text is not closed (expected " + delimiter + ")");
    return close + delimiter.size();
}

// One past the literal, quoted identifier, comment or dollar-quoted body that starts at
// `i`; 0 when none starts there.
Result<size_t> skippedRunEnd(const std::string &sql, size_t i)
{
    const auto at = [&](size_t k) { return byteAt(sql, k); };
    const unsigned char c = at(i);
    if (c == '\'') {
        const bool escapes = i > 0 && (at(i - 1) == 'E' || at(i - 1) == 'e')
            && !(i > 1 && isIdentifierChar(at(i - 2)));
        if (const size_t end = quotedEnd(sql, i, '\'', escapes))
            return end;
        return textError(sql, i, "string literal is not closed (expected ')");
    }
    if (c == '"') {
        if (const size_t end = quotedEnd(sql, i, '"', false))
            return end;
        return textError(sql, i, "quoted identifier is not closed (expected \")");
    }
    if (c == '-' && at(i + 1) == '-') {
        const size_t eol = sql.find('\n', i);
        return eol == std::string::npos ? sql.size() : eol;
    }
    if (c == '/' && at(i + 1) == '*') {
        if (const size_t end = blockCommentEnd(sql, i))
            return end;
        return textError(sql, i, "block comment is not closed (expected */)");
    }
    if (c == '$' && !(i > 0 && isIdentifierChar(at(i - 1))))
        return dollarQuoteEnd(sql, i);
    return size_t(0);
}

// Splits `sql` into code and the runs that are never rewritten. Errors on a literal,
// identifier, comment or dollar quote that is not closed.
Result<std::vector<Segment>> segment(const std::string &sql)
{
    std::vector<Segment> out;
    const size_t n = sql.size();
    size_t codeStart = 0;
    size_t i = 0;
    const auto closeCode = [&](size_t upTo) {
        if (upTo > codeStart)
            out.push_back({codeStart, upTo, true});
    };
    while (i < n) {
        const Result<size_t> end = skippedRunEnd(sql, i);
        if (!end)
            return end.error();
        if (*end) {
            closeCode(i);
            out.push_back({i, *end, false});
            i = *end;
            codeStart = *end;
        } else {
            ++i;
        }
    }
    closeCode(n);
    return out;
}

std::string joinNames(const std::vector<std::string> &names, const std::string &prefix)
{
    std::string s;
    for (const std::string &name : names) {
        if (!s.empty())
            s += ", ";
        s += prefix + name;
    }
    return s;
}

} // namespace

Result<BoundSql> bindNamedParameters(const std::string &sql, const std::vector<std::string> &allowed, int firstParam)
{
    auto segments = segment(sql);
    if (!segments)
        return segments.error();
    BoundSql bound;
    for (const Segment &seg : *segments) {
        if (!seg.code) {
            bound.sql.append(sql, seg.begin, seg.end - seg.begin);
            continue;
        }
        size_t i = seg.begin;
        while (i < seg.end) {
            const char c = sql[i];
            if (c == ':' && i + 1 < seg.end && sql[i + 1] == ':') {
                bound.sql += "::";
                i += 2;
                continue;
            }
            if (c != ':' || i + 1 >= seg.end || !isNameStart(static_cast<unsigned char>(sql[i + 1]))) {
                bound.sql += c;
                ++i;
                continue;
            }
            size_t j = i + 1;
            while (j < seg.end && isNameChar(static_cast<unsigned char>(sql[j])))
                ++j;
            const std::string name = sql.substr(i + 1, j - i - 1);
            if (std::find(allowed.begin(), allowed.end(), name) == allowed.end()) {
                return textError(sql, i,
                                 "unknown parameter :" + name + " (expected "
                                     + (allowed.empty() ? std::string("no parameters") : joinNames(allowed, ":"))
                                     + "; write a :: cast or a spaced slice a[lo : hi] if no parameter was meant)");
            }
            auto it = std::find(bound.names.begin(), bound.names.end(), name);
            if (it == bound.names.end()) {
                bound.names.push_back(name);
                it = bound.names.end() - 1;
            }
            // Appended in two steps: GCC 12 at -O3 reports a false -Wrestrict on "$" + string.
            bound.sql += '$';
            bound.sql += std::to_string(firstParam + (it - bound.names.begin()));
            i = j;
        }
    }
    return bound;
}

Result<std::string> resolveModelReferences(const std::string &sql, const std::map<std::string, std::string> &relations)
{
    auto segments = segment(sql);
    if (!segments)
        return segments.error();
    std::string out;
    for (const Segment &seg : *segments) {
        if (!seg.code) {
            out.append(sql, seg.begin, seg.end - seg.begin);
            continue;
        }
        size_t i = seg.begin;
        while (i < seg.end) {
            const size_t open = sql.find("{{", i);
            if (open == std::string::npos || open + 1 >= seg.end) {
                out.append(sql, i, seg.end - i);
                break;
            }
            out.append(sql, i, open - i);
            const auto at = [&](size_t k) -> unsigned char {
                return k < seg.end ? static_cast<unsigned char>(sql[k]) : 0;
            };
            size_t j = open + 2;
            while (at(j) == ' ' || at(j) == '\t')
                ++j;
            const size_t nameBegin = j;
            if (isNameStart(at(j))) {
                while (isNameChar(at(j)))
                    ++j;
            }
            const std::string name = sql.substr(nameBegin, j - nameBegin);
            while (at(j) == ' ' || at(j) == '\t')
                ++j;
            if (name.empty() || at(j) != '}' || at(j + 1) != '}')
                return textError(sql, open, "malformed model reference (expected {{ model_name }})");
            const auto found = relations.find(name);
            if (found == relations.end()) {
                std::vector<std::string> known;
                for (const auto &[key, value] : relations)
                    known.push_back(key);
                return textError(sql, open,
                                 "unknown model reference {{ " + name + " }} (known models: "
                                     + (known.empty() ? std::string("none") : joinNames(known, "")) + ")");
            }
            out += found->second;
            i = j + 2;
        }
    }
    return out;
}

std::optional<SourcePosition> sourcePositionOf(const std::string &written, const std::string &statement, std::size_t begin,
                                               int position)
{
    if (position < 1 || begin >= statement.size())
        return std::nullopt;
    std::size_t target = 0;  // the byte where character `position` starts
    for (int chars = 0; target < statement.size(); ++target)
        if ((static_cast<unsigned char>(statement[target]) & 0xC0) != 0x80 && ++chars == position)
            break;
    if (target >= statement.size() || target < begin)
        return std::nullopt;
    const std::size_t n = written.size();
    const std::size_t m = statement.size();
    const auto w = [&](std::size_t k) -> unsigned char { return k < n ? static_cast<unsigned char>(written[k]) : 0; };
    const auto s = [&](std::size_t k) -> unsigned char { return k < m ? static_cast<unsigned char>(statement[k]) : 0; };
    std::size_t i = 0;
    std::size_t j = begin;
    while (j < target) {
        if (i >= n)
            return std::nullopt;
        const std::size_t from = i;
        if (w(i) == '$' && s(j) == '$' && isDigit(w(i + 1)) && isDigit(s(j + 1))) {
            // $1 and $2 may have traded places (bindBounds keeps $1 the start).
            for (++i; isDigit(w(i)); ++i) {}
            for (++j; isDigit(s(j)); ++j) {}
        } else if (w(i) == s(j)) {
            ++i;
            ++j;
            continue;
        } else if (w(i) == ':' && s(j) == '$') {
            for (++i; isNameChar(w(i)); ++i) {}
            for (++j; isDigit(s(j)); ++j) {}
        } else if (w(i) == '{' && w(i + 1) == '{' && s(j) == '"') {
            const std::size_t close = written.find("}}", i);
            if (close == std::string::npos)
                return std::nullopt;
            i = close + 2;
            // A quoted relation: "schema"."table", quotes inside doubled.
            while (s(j) == '"') {
                for (++j; j < m; ++j) {
                    if (s(j) == '"' && s(j + 1) == '"')
                        ++j;
                    else if (s(j) == '"')
                        break;
                }
                ++j;
                if (s(j) != '.' || s(j + 1) != '"')
                    break;
                ++j;
            }
        } else {
            return std::nullopt;
        }
        if (j > target) {
            i = from;
            break;
        }
    }
    const Position p = positionOf(written, i);
    return SourcePosition{p.line, p.column};
}

Error inSourceFile(Error e, const std::string &file, const std::string &written, const std::string &statement,
                   std::size_t begin)
{
    if (begin == std::string::npos)
        return e;
    const auto at = sourcePositionOf(written, statement, begin, e.position);
    if (!at)
        return e;
    e.message = file + " line " + std::to_string(at->line) + ", column " + std::to_string(at->column) + ": " + e.message;
    return e;
}

std::string quoteIdentifier(const std::string &name)
{
    std::string out;
    out.reserve(name.size() + 2);
    out += '"';
    for (char c : name) {
        if (c == '"')
            out += '"';
        out += c;
    }
    out += '"';
    return out;
}

std::string quoteRelation(const std::string &schema, const std::string &table)
{
    return quoteIdentifier(schema) + "." + quoteIdentifier(table);
}

std::string quoteLiteral(const std::string &text)
{
    std::string out = "'";
    for (char ch : text) {
        if (ch == '\'')
            out += '\'';
        out += ch;
    }
    return out + "'";
}

} // namespace reprint::backfill
