#pragma once
// A backfill's status, as reprint.backfills.status stores it (the schema's CHECK lists the
// same seven words). Read and compared as this enum everywhere above the ledger; the words
// exist only here, in SQL text, and in what the CLI and the GUI print.

#include <string>
#include <string_view>

namespace reprint::backfill {

enum class BackfillStatus {
    Planned,    // recorded, its window claimed, nothing staged yet
    Staging,    // its partitions are being staged and validated
    Staged,     // staged and validated (passed or failed): waiting for approve & publish
    Failed,     // staging stopped (an error, a cancel, a lost claim): resume or abandon
    Published,  // its stage replaced the window; undo restores the replaced rows
    Undone,     // published, then the replaced rows were restored
    Abandoned,  // given up: its stage dropped and its claim released
};

constexpr const char *toString(BackfillStatus s)
{
    switch (s) {
    case BackfillStatus::Planned: return "planned";
    case BackfillStatus::Staging: return "staging";
    case BackfillStatus::Staged: return "staged";
    case BackfillStatus::Failed: return "failed";
    case BackfillStatus::Published: return "published";
    case BackfillStatus::Undone: return "undone";
    case BackfillStatus::Abandoned: return "abandoned";
    }
    return "failed";
}

// The stored word read back. The schema's CHECK admits only the seven words above; anything
// else (a hand-edited row the CHECK was dropped for) reads as failed, the status whose ways
// out (resume, abandon) are safe.
constexpr BackfillStatus backfillStatusFrom(std::string_view word)
{
    for (BackfillStatus s : {BackfillStatus::Planned, BackfillStatus::Staging, BackfillStatus::Staged, BackfillStatus::Failed,
                             BackfillStatus::Published, BackfillStatus::Undone, BackfillStatus::Abandoned})
        if (word == toString(s))
            return s;
    return BackfillStatus::Failed;
}

// Why a failed backfill failed, as reprint.backfills.failure stores it (migration 007):
// its staging was cancelled (its operator, Ctrl-C, `reprint cancel`; what was staged is
// kept), or anything else went wrong (a partition, a validation, a member of its cascade).
enum class Failure {
    Error,
    Cancelled,
};

constexpr const char *toString(Failure f)
{
    return f == Failure::Cancelled ? "cancelled" : "error";
}

// Planned or staging: it holds its claim and is (or was, if its lease lapsed) at work.
constexpr bool isUnderway(BackfillStatus s)
{
    return s == BackfillStatus::Planned || s == BackfillStatus::Staging;
}

// Published, undone or abandoned: nothing more can be staged under this backfill.
constexpr bool isClosed(BackfillStatus s)
{
    return s == BackfillStatus::Published || s == BackfillStatus::Undone || s == BackfillStatus::Abandoned;
}

} // namespace reprint::backfill
