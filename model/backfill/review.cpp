#include "review.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace reprint::backfill {

const char *toString(Verdict verdict)
{
    switch (verdict) {
    case Verdict::Unchanged: return "unchanged";
    case Verdict::Expected: return "expected";
    case Verdict::Unexpected: return "unexpected";
    case Verdict::MismatchSource: return "mismatch_source";
    }
    return "unchanged";
}

bool parseVerdict(const std::string &text, Verdict *out)
{
    for (Verdict v : {Verdict::Unchanged, Verdict::Expected, Verdict::Unexpected, Verdict::MismatchSource})
        if (text == toString(v)) {
            *out = v;
            return true;
        }
    return false;
}

namespace {
long double numberOf(const std::optional<std::string> &v)
{
    return v ? std::strtold(v->c_str(), nullptr) : 0.0L;
}
} // namespace

bool agrees(const std::optional<std::string> &a, const std::optional<std::string> &b, double tolerance)
{
    if (!a && !b)
        return true;
    const long double x = numberOf(a);
    const long double y = numberOf(b);
    if (tolerance <= 0)
        return x == y;
    return std::fabs(x - y) <= static_cast<long double>(tolerance) * std::max(std::fabs(x), std::fabs(y));
}

} // namespace reprint::backfill
