#include "reviewrules.h"

#include <QCoreApplication>

#include <algorithm>
#include <tuple>
#include <utility>

namespace reprint::model {

namespace {

QString q(const std::string &s)
{
    return QString::fromStdString(s);
}

QString tr(const char *text, int n = -1)
{
    return QCoreApplication::translate("reprint::model::ReviewRules", text, nullptr, n);
}

} // namespace

QString windowText(const std::string &from, const std::string &to)
{
    return from == to ? q(from) : q(from) + QStringLiteral(" … ") + q(to);
}

namespace {

// Idempotent: staged apart and replaced in one transaction, or why nothing can be.
std::pair<RuleMark, QString> idempotentRule(const backfill::ReviewFacts &f)
{
    switch (f.status) {
    case backfill::BackfillStatus::Staged:
        return {RuleMark::Good, f.windowPartitions == 1
                                    ? tr("Staged apart from the target; publish replaces the partition in one transaction.")
                                    : tr("Staged apart from the target; publish replaces the %n partitions in one transaction.",
                                         int(f.windowPartitions))};
    case backfill::BackfillStatus::Published:
        return {RuleMark::Good, tr("Replaced in one transaction at %1; replaced rows archived.").arg(q(f.publishedAt))};
    case backfill::BackfillStatus::Undone:
        return {RuleMark::Good, tr("Published, then undone at %1 in one transaction.").arg(q(f.undoneAt))};
    case backfill::BackfillStatus::Planned:
    case backfill::BackfillStatus::Staging:
    case backfill::BackfillStatus::Failed:
    case backfill::BackfillStatus::Abandoned:
        break;
    }
    return {RuleMark::Warn, tr("Status %1: nothing staged to publish.").arg(QLatin1String(toString(f.status)))};
}

// Isolated: who holds the claim on the window, and until when.
std::pair<RuleMark, QString> isolatedRule(const backfill::ReviewFacts &f)
{
    if (f.claimHeld && f.leaseExpires == "infinity")
        return {RuleMark::Good, tr("Claim held by %1 until publish or abandon: a validated claim does not expire.").arg(q(f.claimHolder))};
    if (f.claimHeld && !f.leaseExpired)
        return {RuleMark::Good, tr("Claim held by %1; lease until %2.").arg(q(f.claimHolder), q(f.leaseExpires))};
    if (f.claimHeld)
        return {RuleMark::Warn,
                tr("Claim held (lease of %1 expired %2): a new backfill may take it over.").arg(q(f.claimHolder), q(f.leaseExpires))};
    if (backfill::isClosed(f.status))
        return {RuleMark::Good, tr("Claim released when the backfill was %1.").arg(QLatin1String(toString(f.status)))};
    return {RuleMark::Bad, tr("No claim on the window: another backfill may write it. Run the backfill again.")};
}

} // namespace

std::array<int, 4> verdictCounts(const backfill::Review &review, bool inScope)
{
    std::array<int, 4> counts{0, 0, 0, 0};
    for (const auto &p : review.partitions)
        if (p.inScope == inScope)
            for (const auto &m : p.measures)
                ++counts[std::size_t(m.verdict)];
    return counts;
}

bool outsideClean(const backfill::Review &review)
{
    for (const auto &p : review.partitions)
        if (!p.inScope)
            for (const auto &m : p.measures)
                if (m.verdict != backfill::Verdict::Unchanged && m.verdict != backfill::Verdict::Expected)
                    return false;
    return true;
}

QString glyphOf(RuleMark mark)
{
    switch (mark) {
    case RuleMark::Good:
        return QStringLiteral("✓");
    case RuleMark::Warn:
        return QStringLiteral("!");
    case RuleMark::Bad:
        return QStringLiteral("✗");
    case RuleMark::Pending:
        return QStringLiteral("…");
    }
    return {};
}

QList<RuleCheck> rulesOf(const backfill::Review &review, const backfill::ReviewFacts *facts)
{
    QList<RuleCheck> rules = {{tr("Scoped"), RuleMark::Pending, {}},
                              {tr("Same code path"), RuleMark::Pending, {}},
                              {tr("Idempotent"), RuleMark::Pending, {}},
                              {tr("Isolated"), RuleMark::Pending, {}},
                              {tr("Validated"), RuleMark::Pending, {}}};
    auto set = [&rules](int i, RuleMark mark, const QString &text) {
        rules[i].mark = mark;
        rules[i].evidence = text;
    };
    const int windowCount = int(std::count_if(review.partitions.begin(), review.partitions.end(),
                                              [](const backfill::PartitionReview &p) { return p.inScope; }));
    if (!facts) {
        set(0, RuleMark::Pending, windowCount == 1 ? tr("One partition in the window.") : tr("%n partitions in the window.", windowCount));
        for (int i = 1; i < 4; ++i)
            set(i, RuleMark::Pending, tr("Reading…"));
    } else {
        const backfill::ReviewFacts &f = *facts;
        const bool scoped = f.tablePartitions == 0 || f.windowPartitions < f.tablePartitions;
        set(0, scoped ? RuleMark::Good : RuleMark::Warn,
            tr("%L1 of the table's %L2 partitions (%3).").arg(f.windowPartitions).arg(f.tablePartitions).arg(windowText(f.from, f.to)));
        if (f.currentTransformHash.empty())
            set(1, RuleMark::Warn, tr("The spec no longer has this model; hash %1 at validation.").arg(q(f.storedTransformHash).left(12)));
        else if (f.currentTransformHash == f.storedTransformHash)
            set(1, RuleMark::Good, tr("Transform hash %1 equals the scheduled run's.").arg(q(f.storedTransformHash).left(12)));
        else
            set(1, RuleMark::Bad, tr("Transform changed since validation: %1 then, %2 now. Re-run the backfill.")
                                      .arg(q(f.storedTransformHash).left(12), q(f.currentTransformHash).left(12)));
        std::tie(rules[2].mark, rules[2].evidence) = idempotentRule(f);
        std::tie(rules[3].mark, rules[3].evidence) = isolatedRule(f);
    }
    const auto counts = verdictCounts(review, true);
    QStringList diffs;
    if (facts)
        for (const auto &p : facts->rowDiffPartitions)
            diffs << q(p);
    const QString evidence = tr("In window: %L1 unchanged, %L2 expected, %L3 unexpected, %L4 mismatch. Outside: %5. Row diffs: %6.")
                                 .arg(counts[0])
                                 .arg(counts[1])
                                 .arg(counts[2])
                                 .arg(counts[3])
                                 .arg(outsideClean(review) ? tr("clean") : tr("failing"))
                                 .arg(!facts ? tr("…") : diffs.isEmpty() ? tr("none") : diffs.join(QStringLiteral(", ")));
    QString columns;
    for (const auto &u : review.unexpectedColumns)
        columns += (u.rows == 1 ? tr(" Unexpected: one row of %2 changed %3, which no measure covers.").arg(q(u.partition), q(u.column))
                                : tr(" Unexpected: %L1 rows of %2 changed %3, which no measure covers.").arg(u.rows).arg(q(u.partition), q(u.column)));
    const bool unexpected = counts[2] > 0 || !review.unexpectedColumns.empty();
    const RuleMark validated = review.validation == "passed"   ? (unexpected ? RuleMark::Warn : RuleMark::Good)
                               : review.validation == "failed" ? RuleMark::Bad
                                                               : RuleMark::Pending;
    set(4, validated, evidence + columns);
    return rules;
}

} // namespace reprint::model
