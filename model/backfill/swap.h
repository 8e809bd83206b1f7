#pragma once
// Swap: publishes a window that is whole physical partitions of the target by exchanging
// them for their successors under a short lock, instead of rewriting rows. How the window
// lies on the target's partitions (swapLayoutOf), the successors' shape (shared with the
// stage that becomes them, stage.h), and the swap itself in the caller's transaction.
// Internal to the engine; publish.cpp chooses it. Thread affinity: the io_context of the
// calling coroutine.

#include "engine.h"
#include "modelsql.h"
#include "window.h"

namespace reprint::backfill {

struct PublishPlan;

// A physical partition of the target that is exactly one partition of the window.
struct PhysicalPartition {
    std::string schema, name;   // unquoted
    std::string lower, upper;   // its bounds as the catalog prints them (literals of the column's type)
};

// How the window lies on the target's physical partitions: one per window partition, in
// order, or `misfit` saying why a swap cannot replace the window (the target is not
// range-partitioned on the column alone, this role may not swap its partitions, or a
// partition of the window is not one whole physical partition).
struct SwapLayout {
    std::vector<PhysicalPartition> partitions;
    std::string misfit;
    bool fits() const { return misfit.empty(); }
};

Task<Result<SwapLayout>> swapLayoutOf(warehouse::Connection &c, const ModelSql &sql, const Window &w);

// The shape of a successor partition: ` (LIKE target INCLUDING ...)` with the target's
// defaults, constraints and indexes, so that ATTACH adopts its indexes instead of building
// them under the lock.
std::string successorShape(const ModelSql &sql);

// `FOR VALUES FROM (lower) TO (upper)`: the bounds that attach a table as `part`.
std::string partitionBounds(const PhysicalPartition &part);

// The CHECK that proves a successor holds only rows of `part` (so that ATTACH need not
// scan it), named kSwapBounds; dropped once it is attached.
inline constexpr const char *kSwapBounds = "reprint_swap_bounds";
std::string swapBoundsCheck(const ModelSql &sql, const PhysicalPartition &part);

// A physical partition's indexes that are part of an index of the partitioned table, by
// name: (that index's oid, the partition's index name).
using PartitionIndexes = std::vector<std::pair<std::string, std::string>>;

// The swap of physical partition `i`, written before the lock: the statements that detach
// it (into the archive, or dropped when there is none) and attach its successor under its
// name, and the names of its indexes, which the successor's take over after the attach, so
// that names stay what the warehouse's owners chose.
struct PartitionSwap {
    std::string old;      // the physical partition, quoted (after the swap: its successor)
    std::string schema;   // unquoted
    std::string statements;
    PartitionIndexes indexes;
};

// Inside the caller's open transaction, before any lock on the target beyond the writer
// fence: the successors of the window's partitions (the staged partitions themselves where
// the stage is partitioned as they are, else copies of the stage), the rows they replace
// and the archive the old partitions will join (counted in `out`), and each partition's swap.
Task<Result<std::vector<PartitionSwap>>> prepareSwap(warehouse::Connection &c, const ModelSql &sql, const PublishPlan &plan,
                                                     const SwapLayout &layout, PublishOutcome &out);

// Then, in one round trip under a short ACCESS EXCLUSIVE lock on the partitioned table
// alone, retried with backoff: every partition's swap and its indexes' names. Readers see
// all old or all new. `out.lockedAt` is when the lock came.
Task<Status> swapPartitions(warehouse::Connection &c, const ModelSql &sql, const PublishPlan &plan,
                            const std::vector<PartitionSwap> &swaps, PublishOutcome &out);

} // namespace reprint::backfill
