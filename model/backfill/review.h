#pragma once
// The stored review of a backfill: old, new and source totals per partition and
// measure, with verdicts; and the row-level diff of a partition by key.

#include "backfillstatus.h"

#include <optional>
#include <string>
#include <vector>

namespace reprint::backfill {

// A measure's verdict in one partition, from best to worst (the order compares: the worse
// verdict is the greater).
enum class Verdict { Unchanged, Expected, Unexpected, MismatchSource };
const char *toString(Verdict verdict);
// The one "is a problem" rule: a change no check explains, or a new total that disagrees
// with the source. A problem blocks a plain publish (it needs --override) and is shown first.
inline bool isProblem(Verdict verdict)
{
    return verdict == Verdict::Unexpected || verdict == Verdict::MismatchSource;
}
bool parseVerdict(const std::string &text, Verdict *out);

struct MeasureTotals {
    std::string measure;
    std::optional<std::string> oldValue;  // numeric text; nullopt: none (e.g. SUM of no rows)
    std::optional<std::string> newValue;
    std::optional<std::string> source;    // the first check's value; nullopt: no check
    Verdict verdict = Verdict::Unchanged;
};

struct PartitionReview {
    std::string partition;  // name
    std::string start;      // ISO instant
    bool inScope = false;
    bool boundary = false;  // first or last in the window, or just outside it
    std::vector<MeasureTotals> measures;  // "rows" first
};

// A column that no measure covers, changed by key in a boundary partition's row diff: the
// totals cannot see such a change, so the review reports it as unexpected.
struct UnexpectedColumn {
    std::string partition;
    std::string column;
    long long rows = 0;  // rows whose value of `column` changed
};

// One backfill of a cascade: the root (the model asked for) or a downstream model's,
// staged together and published together in one transaction.
struct CascadeMember {
    long long id = 0;
    std::string model, from, to;
    BackfillStatus status = BackfillStatus::Planned;
    std::string validation;
};

struct Review {
    long long backfillId = 0;
    std::string model;
    BackfillStatus status = BackfillStatus::Planned;
    std::string validation;          // passed | failed | empty (not validated yet)
    std::string validationMessage;   // why it failed, and what to do
    std::string from, to;
    std::vector<PartitionReview> partitions;
    // Measures whose column is floating point (real, double precision): their totals are
    // summed exactly, as numeric, so that the order rows are read in cannot change them.
    std::vector<std::string> floatMeasures;
    // Non-measure columns that changed in the boundary partitions' row diffs (verdict
    // unexpected), in partition order.
    std::vector<UnexpectedColumn> unexpectedColumns;
    // The cascade this backfill belongs to, root first; empty when it is not part of one.
    // Publishing the root publishes every member: each member's review is part of the
    // root's approval.
    std::vector<CascadeMember> cascade;
    // Downstream models ("model from..to") that read this window but are not in the
    // backfill (no --cascade, or left out): stale once it is published.
    std::vector<std::string> staleDownstream;
};

struct ColumnChange {
    std::string column;
    long long count = 0;
};

struct RowDiff {
    long long backfillId = 0;
    std::string partition;
    long long added = 0;
    long long removed = 0;
    long long changed = 0;
    long long oldRepeats = 0;  // rows beyond the first of a key, on the target's side
    long long newRepeats = 0;  // the same on the stage's side (staging refuses those)
    std::vector<ColumnChange> columnChanges;
    std::string sampleJson;  // [{"change": "changed|added|removed", "key": {...}, "old": {...}, "new": {...}}]
};

// Relative comparison: |a - b| <= tolerance * max(|a|, |b|); exact when tolerance is 0.
// Missing values compare equal only to missing or zero.
bool agrees(const std::optional<std::string> &a, const std::optional<std::string> &b, double tolerance);

} // namespace reprint::backfill
