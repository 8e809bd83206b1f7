#pragma once
// The five rules of a safe backfill, checked for one stored backfill, each with its
// evidence: scoped, same code path, idempotent, isolated, validated. The review screen
// and the review packet show the same sentences from here.
//
// Pure functions of values; no thread affinity.

#include "backfill/review.h"
#include "backfill/reviewfacts.h"

#include <QList>
#include <QString>

#include <array>

namespace reprint::model {

enum class RuleMark { Good, Warn, Bad, Pending };

struct RuleCheck {
    QString name;      // "Scoped", "Same code path", ...
    RuleMark mark = RuleMark::Pending;
    QString evidence;  // one sentence
};

// How many measures of the partitions in the window (inScope) or just outside it carry
// each verdict, indexed by backfill::Verdict.
std::array<int, 4> verdictCounts(const backfill::Review &review, bool inScope);
// True when every measure of the partitions just outside the window is unchanged or expected.
bool outsideClean(const backfill::Review &review);

// The five rules, in order. `facts` null: not read yet (those rules are Pending).
QList<RuleCheck> rulesOf(const backfill::Review &review, const backfill::ReviewFacts *facts);

// A window as its reader says it: "2026-03-10 … 2026-03-14", or one partition's name.
QString windowText(const std::string &from, const std::string &to);

// "✓", "!", "✗" or "…", so that a mark is never told by colour alone.
QString glyphOf(RuleMark mark);

} // namespace reprint::model
