#pragma once
// Read-only facts about a stored backfill that the review screen shows next to its
// totals: who holds the claim and until when, how much of the table the window scopes,
// whether the transform is still the scheduled run's, which boundary diffs exist; the
// row-level diff of a partition page by page; and the rows near a partition's edges.
//
// None of these functions writes. Each opens its own connection from the engine's
// conninfo and closes it before returning (readReview and readReviewCascade use the
// caller's). Thread affinity and cancel: as Engine (run on
// the io_context thread; no cancel, every query is bounded by a partition or a page).

#include "engine.h"
#include "review.h"

#include <string>
#include <vector>

namespace reprint::backfill {

struct ReviewFacts {
    long long backfillId = 0;
    std::string model;
    BackfillStatus status = BackfillStatus::Planned;
    std::string validation, operatorName, approver, note, overrideReason;
    std::string from, to;
    std::string createdAt, validatedAt, publishedAt, undoneAt;  // ISO text, empty when not yet
    std::string currentUser;          // the database user the GUI connects as
    // Scope: partitions of the window, and partitions of the target that hold rows.
    long long windowPartitions = 0;
    long long tablePartitions = 0;
    // Same code path: the hash stored at validation and the scheduled run's hash now.
    std::string storedTransformHash, currentTransformHash;
    // Isolation: the claim row, when there is one.
    bool claimHeld = false;
    bool leaseExpired = false;
    std::string claimHolder, leaseExpires;  // leaseExpires: ISO text, or "infinity" once validated
    // Validation evidence: partitions whose row diff is stored.
    std::vector<std::string> rowDiffPartitions;
    bool fourEyes = false;
    bool archiveKept = false;         // a published backfill's archive exists: undo is possible
};

Task<Result<ReviewFacts>> reviewFacts(const Engine &engine, long long id);

// The stored review of backfill `id` (Engine::review), and of each member of its cascade
// (Engine::reviewCascade), read on the caller's session: a backfill reads back the review it
// has just stored on its own.
Task<Result<Review>> readReview(warehouse::Connection &c, const Spec &spec, long long id);
Task<Result<std::vector<Review>>> readReviewCascade(warehouse::Connection &c, const Spec &spec, long long id);

// Everything a review packet shows (model/reviewpacket.h): the stored review, its facts,
// and the stored row diffs of its boundary partitions.
struct ReviewPacketData {
    Review review;
    ReviewFacts facts;
    std::vector<RowDiff> boundaryDiffs;
    // A cascade's root: each member's packet data, in the cascade's order (published with it).
    std::vector<ReviewPacketData> cascade;
};

Task<Result<ReviewPacketData>> reviewPacketData(Engine &engine, long long id);

// One changed, added or removed row of a partition's diff by key. Values are JSON objects
// as text ({"column": value, ...}); `oldRow` is "null" for an added row, `newRow` for a
// removed one.
struct RowDiffEntry {
    std::string change;   // added | removed | changed
    std::string key;      // JSON object of the key columns
    std::string oldRow;
    std::string newRow;
};

struct RowDiffPage {
    std::vector<std::string> columns;  // the target's columns, in order
    std::vector<std::string> key;      // the model's key columns
    std::vector<RowDiffEntry> rows;
    // "stage" (target vs staged rows), "archive" (archived vs published rows) or "sample"
    // (only the stored sample is left; offset beyond it gives no rows).
    std::string basis;
};

// Rows [offset, offset + limit) of the row diff of `partition` (changed rows first, then
// by key), from the stage while the backfill is staged, from the archive once it is
// published, else from the stored sample. The partition must be in the window (rows
// outside it are not staged).
Task<Result<RowDiffPage>> rowDiffPage(const Engine &engine, long long id, std::string partition, long long offset,
                                      int limit);

// A row near a partition edge: its key, the instant it happened (UTC and the model's
// timezone), and the partition it is filed in before and after the backfill.
struct EdgeRow {
    std::string key;          // JSON object of the key columns
    std::string instantUtc;   // "2026-03-09 18:04:12"
    std::string instantLocal; // the same instant in the model's timezone, with its offset
    std::string oldPartition; // partition-column value in the target; empty: not there
    std::string newPartition; // in the stage (or, once published, the target); empty: not there
    std::string edge;         // "start" or "end" of the partition
};

struct EdgeRows {
    std::string instantColumn;  // the timestamp column used; empty when the target has none
    std::string timezone;
    // The partition's edges, ISO 8601 in the model's timezone with the offset
    // (2026-03-09T00:00:00+01:00): what "start" and "end" of a row refer to.
    std::string partitionStart, partitionEnd;
    std::vector<EdgeRow> rows;
};

// Rows whose instant lies within `minutes` of the start or the end of `partition`, read
// from the target and from the stage (or archive), at most `limit` of them, rows that
// move to another partition first. The partition may be in the window or just outside it;
// rows outside the window are filed the same before and after. The instant
// is the partition column when it is a timestamp, else the target's first timestamptz
// column.
Task<Result<EdgeRows>> edgeRows(const Engine &engine, long long id, std::string partition, int minutes, int limit = 500);

} // namespace reprint::backfill
