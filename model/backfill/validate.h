#pragma once
// Validation: old vs new totals per partition and measure, the source checks, the verdict
// of each (the one "is it a problem" rule: verdictOf), the boundary row diffs, and the
// review stored in one transaction. Publish's and undo's drift guards read totals and
// checks through the same functions. Internal to the engine. Thread affinity: the
// io_context of the calling coroutine.

#include "engine.h"
#include "modelsql.h"
#include "session.h"
#include "stage.h"
#include <map>

namespace reprint::backfill {

// Per partition start (epoch seconds): rows, then each declared measure.
using Totals = std::map<long long, std::vector<warehouse::Value>>;
// Per check name: per partition start: value.
using CheckValues = std::map<std::string, std::map<long long, warehouse::Value>>;

struct Validation {
    std::vector<PartitionReview> partitions;
    bool passed = true;
    std::string message;
};

Task<Result<Totals>> readTotals(warehouse::Connection &c, const ModelSql &sql, const std::string &relation,
                                const Partition &from, const Partition &to);

// Sessions of their own for the source checks (one per check, at most three), each
// planning without parallel workers (docs/architecture.md, "Parallel sessions"). They are
// opened ahead of the reads and serve all of them: publish opens them as it starts, so that
// connecting overlaps its own connect, the request's checks and the writer fence, and the
// members of a cascade share them. Each session closes when the last copy of its
// CheckSessions goes (and, if it was still connecting then, once it has connected).
struct CheckSessions {
    std::shared_ptr<JoinGroup> opening;                                      // the connects
    std::vector<std::shared_ptr<Result<warehouse::ConnectionPtr>>> sessions;  // set once `opening` is done
};
CheckSessions openCheckSessions(asio::any_io_executor executor, const std::string &conninfo, std::size_t count,
                                CancelTokenPtr cancel);

// The model's checks over [from, to] on `sessions` (waiting for them to connect), all at the
// same time: each check is one independent query, usually a scan of the source, and they
// dominate validation and the publish's drift guard. A check that fails names its file.
Task<Result<CheckValues>> readChecks(CheckSessions sessions, const ModelSql &sql, const Partition &from, const Partition &to);

// The model's checks over [from, to], started now and read while the caller goes on: a
// backfill starts them when it starts staging a member (the checks read the source, never
// the stage; a cascade's downstream member reads its upstream's stage, staged before it), so
// the source scans use the cores that staging leaves idle; publish's drift guard reads the
// target's totals meanwhile. `sql` must outlive the read: awaitChecks() it on every path,
// failures included.
struct PendingChecks {
    std::shared_ptr<JoinGroup> group;
    std::shared_ptr<std::optional<Result<CheckValues>>> values;
};
// On sessions of its own, closed once read.
PendingChecks startChecks(asio::any_io_executor executor, const std::string &conninfo, const ModelSql &sql,
                          const Partition &from, const Partition &to, CancelTokenPtr cancel);
// On `sessions`, which the caller keeps for its next read.
PendingChecks startChecks(asio::any_io_executor executor, CheckSessions sessions, const ModelSql &sql, const Partition &from,
                          const Partition &to);
// The checks' values once read (waits for them); an empty PendingChecks gives an error.
Task<Result<CheckValues>> awaitChecks(PendingChecks pending);

// Index of a measure in Totals' value vectors ("rows" is 0).
std::size_t measureIndex(const Model &m, const std::string &measure);

warehouse::Value totalOf(const Totals &t, long long p, std::size_t index);

warehouse::Value checkOf(const CheckValues &cv, const std::string &check, long long p);

// The verdict of one measure of one partition. `current` is what the partition holds now
// (new inside the window, old outside it).
Verdict verdictOf(const Model &model, const std::string &measure, const warehouse::Value &oldValue, const warehouse::Value &current,
                  const CheckValues &cv, long long p, bool inScope);

Validation validate(const Window &w, const Totals &oldTotals, const Totals &newTotals, const CheckValues &checks);

Task<Result<RowDiff>> computeRowDiff(warehouse::Connection &c, const ModelSql &sql, long long id, const Partition &p,
                                     const std::string &stage, int sampleRows);

// Validates a staged member against its target and its checks (`checks`, started with
// startChecks() over the window and its neighbours), and stores the review (totals, check
// values, boundary row diffs, verdict) in one transaction. The claim then waits for review
// as long as it takes.
Task<Result<Validation>> validateMember(warehouse::Connection &c, Member &member, const EngineOptions &opt, PendingChecks checks,
                                        Laps &laps);

// Which of a review's stored totals a drift guard compares the target with: what the window
// held when it was validated (Old: publish), or what the publish wrote (New: undo).
enum class StoredTotal { Old, New };

struct TotalDrift {
    std::string partition, measure;
    warehouse::Value stored, current;
};

// The first measure of a partition of `w` whose total in the target differs from the one
// stored in backfill `id`'s review, or nothing when none does.
Task<Result<std::optional<TotalDrift>>> totalsDrift(warehouse::Connection &c, const ModelSql &sql, const Window &w, long long id,
                                                    StoredTotal which);

} // namespace reprint::backfill
