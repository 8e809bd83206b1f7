#pragma once
// The backfill engine: status, the scheduled run, backfill (claim, stage, validate),
// review, row diff, publish, abandon and history. The CLI and the GUI call these same
// functions; the scheduled run and the backfill share one stage and one publish path.
//
// Every operation is a coroutine on a warehouse io_context and opens the connections it
// needs from Engine's conninfo. Thread affinity: an Engine and the coroutines it returns
// run on one io_context thread. Progress callbacks are invoked on that thread; adapters
// re-post them to the GUI thread as values.
//
// Cancel: pass a CancelToken; cancel() may be called from any thread. It cancels the
// running statements through libpq's cancel API; the operation then returns an Error of
// kind Cancelled after reading the backfill's state back from the database.

#include "review.h"
#include "spec.h"
#include "window.h"
#include "warehouse/connection.h"

#include <atomic>
#include <chrono>
#include <optional>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace reprint::backfill {

using warehouse::Status;
using warehouse::Task;

// Shared between the operation and whoever may cancel it (a signal handler thread, the
// GUI). Thread-safe.
class CancelToken {
public:
    void cancel();
    bool isCancelled() const { return m_cancelled.load(); }
    // Registers a connection whose statements cancel() must interrupt.
    void attach(const warehouse::CancelHandle &handle);

private:
    std::atomic<bool> m_cancelled{false};
    std::mutex m_mutex;
    std::vector<warehouse::CancelHandle> m_handles;
};
using CancelTokenPtr = std::shared_ptr<CancelToken>;

struct EngineOptions {
    int leaseSeconds = 120;       // a staging process's claim expires this long after its last heartbeat
    int heartbeatSeconds = 20;
    int lockTimeoutMs = 5000;     // publish never queues readers behind it longer than this
    int swapLockTimeoutMs = 200;  // a swap asks for its exclusive lock this long (readers queue behind the ask) ...
    int swapLockTries = 5;        // ... this many times, backing off 100 ms, 200 ms, ... in between
    int sampleRows = 20;          // changed rows kept per boundary partition diff
    std::string holder;           // host:pid; filled in by Engine when empty
};

// One partition's state while a backfill stages, as reported to progress callbacks and
// stored in reprint.backfill_partitions.
struct PartitionProgress {
    enum class State { Queued, Staging, Staged, Failed };
    std::string partition;
    State state = State::Queued;
    long long rows = 0;
    double seconds = 0;
    std::string error;
    bool boundary = false;
};
using PartitionStage = PartitionProgress::State;
const char *toString(PartitionStage state);
// The stored word (reprint.backfill_partitions.state) read back; a word this version does
// not write (the schema's 'validating') reads as queued: such a partition is staged again.
PartitionStage partitionStageFrom(std::string_view word);

struct BackfillEvent {
    long long backfillId = 0;
    std::string phase;              // "claiming", "staging", "validating", "done"
    PartitionProgress partition;    // set when phase == "staging"
    int done = 0;                   // partitions staged or failed so far
    int total = 0;
    std::string message;            // a log line (engine events, server notices)
};
using ProgressFn = std::function<void(const BackfillEvent &)>;

// Where an operation's time went, phase by phase, in the order the phases first ran
// (`reprint backfill|publish --timings`, the bench's JSON). Wall time on this side.
struct PhaseTime {
    std::string phase;
    double ms = 0;
};
using Timings = std::vector<PhaseTime>;

// Adds up phases: lap(phase) books the time since the last lap (or since it was made) to
// `phase`; the same phase twice adds up.
class Laps {
public:
    Laps() : m_last(std::chrono::steady_clock::now()) {}
    void lap(const std::string &phase)
    {
        const auto now = std::chrono::steady_clock::now();
        add(phase, std::chrono::duration<double, std::milli>(now - m_last).count());
        m_last = now;
    }
    void add(const std::string &phase, double ms)
    {
        for (PhaseTime &t : m_timings)
            if (t.phase == phase) {
                t.ms += ms;
                return;
            }
        m_timings.push_back({phase, ms});
    }
    const Timings &timings() const { return m_timings; }

private:
    std::chrono::steady_clock::time_point m_last;
    Timings m_timings;
};

struct BackfillRequest {
    std::string model;
    std::string from;   // partition names, inclusive
    std::string to;
    int parallel = 1;
    bool cascade = false;      // also stage every downstream model over the mapped window
    // With cascade: downstream models not to stage (nor any model downstream of them);
    // they are stale once the window is published, and the review says so.
    std::vector<std::string> leaveOut;
    long long resumeId = 0;    // re-stage only what is not staged of this backfill, keep its id
    bool retryFailed = false;  // with resumeId: re-stage only failed partitions
};

struct BackfillOutcome {
    long long id = 0;
    Review review;              // validated review (empty partitions when staging failed)
    bool validationPassed = false;
    std::string takeover;       // non-empty when an expired claim was taken over: says whose
    std::vector<std::string> staleDownstream; // "model partition" made stale by this backfill
    std::vector<Review> cascade;              // one per downstream model, in dependency order
    Timings timings;
};

struct RunOutcome {
    long long id = 0;
    std::string partition;
    long long rows = 0;
    double seconds = 0;
};

struct PublishRequest {
    long long id = 0;
    std::string note;            // required
    std::string overrideReason;  // required when validation failed
};

struct UndoRequest {
    long long id = 0;
    std::string overrideReason;  // required when the window was written after the publish
};

struct UndoOutcome {
    long long id = 0;
    long long rowsRestored = 0;
    long long rowsRemoved = 0;
};

struct PublishOutcome {
    long long id = 0;
    long long rowsReplaced = 0;  // rows archived and deleted from the target
    long long rowsInserted = 0;
    std::string approver;
    std::string strategy;        // "replace" or "swap": how the window was replaced (per model in a cascade: the last)
    double lockHeldMs = 0;       // from taking the target's lock (replace: the delete; swap: the exclusive lock) to COMMIT
    std::chrono::steady_clock::time_point lockedAt;  // internal: when the first member took its lock
    Timings timings;
};

// What Engine::status reads: the target's totals alone, or the source checks too.
enum class StatusReads { Totals, TotalsAndChecks };

struct StatusRow {
    Partition partition;
    long long rows = 0;
    std::vector<std::pair<std::string, std::string>> measures;   // name -> sum (text)
    // False when the checks were not read (StatusReads::Totals): then checks and
    // checkValues are empty although the model may have checks.
    bool checksRead = true;
    std::vector<std::pair<std::string, std::string>> checks;     // check name -> ok|mismatch|unknown
    std::vector<std::pair<std::string, std::string>> checkValues; // check name -> source value
    std::string loadedAt;        // ISO text, empty when unknown
    std::string claimedBy;       // "backfill 7 (alice, staged)" when claimed
};

struct HistoryRow {
    long long id = 0;
    std::string model, kind;
    BackfillStatus status = BackfillStatus::Planned;
    std::string validation, from, to, operatorName, approver, note, overrideReason;
    std::string createdAt, publishedAt, error;
    // The instants the window was claimed over, [windowStart, windowEnd): what `from`..`to`
    // named when it was recorded (use these, not the names read again).
    QDateTime windowStart, windowEnd;
    // Interrupted: status planned or staging, but its lease lapsed or its holder is a
    // process of this host that no longer runs; resume or abandon take the claim at once.
    bool leaseExpired = false;
    // Why it failed, set only when status is Failed (reprint.backfills.failure): Cancelled
    // (its operator, Ctrl-C or `reprint cancel`; what was staged is kept and it can be
    // resumed) or Error.
    std::optional<Failure> failure;
};

// What a backfill is doing now, read back from the warehouse (so it shows a backfill
// started anywhere: this process, another reprint-review, or the CLI).
struct PartitionState {
    std::string partition;
    PartitionStage state = PartitionStage::Queued;
    long long rows = 0;
    double seconds = 0;
    std::string error;     // a sentence, when failed
    bool boundary = false; // first or last of the window
    std::string updatedAt; // ISO, UTC
};

// A statement of the backfill waiting on a lock, and who holds it.
struct LockWait {
    int pid = 0;
    double seconds = 0;
    std::string blockers;  // "application (pid N, user): query", joined with "; "
};

struct BackfillProgress {
    HistoryRow backfill;
    std::vector<PartitionState> partitions;  // boundary partitions first, then in order
    std::string claimHolder;                 // empty when the backfill holds no claim
    std::string leaseExpires;
    std::string heartbeatAt;
    std::vector<LockWait> waits;
};

// LISTENs for the engine's progress announcements (channel reprint_progress) on its own
// connection. Thread affinity: the io_context it was opened on.
class ProgressListener {
public:
    explicit ProgressListener(std::string conninfo) : m_conninfo(std::move(conninfo)) {}
    Task<Status> open();
    // The id of the next backfill announced as changed, or nullopt after `timeout`.
    Task<Result<std::optional<long long>>> next(std::chrono::milliseconds timeout);
    void close();

private:
    std::string m_conninfo;
    warehouse::ConnectionPtr m_conn;
};

class Engine {
public:
    Engine(const Spec &spec, std::string conninfo, EngineOptions options = {});

    const Spec &spec() const { return m_spec; }
    const std::string &conninfo() const { return m_conninfo; }
    // The model by name, or a Usage error listing the spec's models.
    Result<const Model *> model(const std::string &name) const;

    Task<Result<int>> init();   // returns the schema version now in place
    // Arguments are taken by value: the coroutines are lazy and may start after the
    // caller's temporaries are gone.
    // `from` and `to` both empty: the kLatestPartitions partitions that end with the newest
    // one holding rows (the rows say which window that was). A Data error if the target
    // holds no rows.
    // `reads`: Totals leaves the checks unread (StatusRow::checksRead false): the source
    // scans cost many times the totals, so a calendar paints the totals first.
    static constexpr int kLatestPartitions = 31;
    Task<Result<std::vector<StatusRow>>> status(std::string model, std::string from, std::string to,
                                                CancelTokenPtr cancel = {}, StatusReads reads = StatusReads::TotalsAndChecks);
    Task<Result<RunOutcome>> run(std::string model, std::string partition, CancelTokenPtr cancel = {});
    Task<Result<BackfillOutcome>> backfill(BackfillRequest request, ProgressFn progress = {},
                                           CancelTokenPtr cancel = {});
    Task<Result<Review>> review(long long id);
    Task<Result<RowDiff>> rowDiff(long long id, std::string partition);
    Task<Result<PublishOutcome>> publish(PublishRequest request, CancelTokenPtr cancel = {});
    Task<Status> abandon(long long id);
    // Asks the process staging backfill `id`, here or anywhere, to cancel it as Ctrl-C
    // would there (NOTIFY reprint_cancel; its heartbeat connection listens), and records
    // the request in the audit. Returns that process (host:pid). Conflict when the backfill
    // is not staging, or its process stopped answering (lease lapsed: resume or abandon it).
    // The backfill then turns failed ("cancelled …") with its staged partitions kept:
    // progress() or ProgressListener show when.
    Task<Result<std::string>> requestCancel(long long id);
    // Restores the archived rows of a published backfill in one transaction (drift-guarded).
    Task<Result<UndoOutcome>> undo(UndoRequest request, CancelTokenPtr cancel = {});
    // Drops archives older than `retentionDays`, never the latest publish of a window.
    // Returns how many archives were dropped.
    Task<Result<int>> pruneArchives(int retentionDays);
    Task<Result<std::vector<HistoryRow>>> history(std::string model = {});
    // The backfill's per-partition state, claim and lock waits as stored now.
    Task<Result<BackfillProgress>> progress(long long id);
    // The stored reviews of a backfill and, for a cascade's root, of every member, root
    // first (a member's id is refused: its cascade is reviewed as a whole).
    Task<Result<std::vector<Review>>> reviewCascade(long long id);

    // The transform's identity: sha256 of its SQL text with references resolved.
    Result<std::string> transformHash(const Model &model) const;

private:
    struct Session;
    // The work of backfill(), run(), publish(), undo() and abandon(). Those add, in one
    // place, what a privilege error (SQLSTATE 42501) lacks: the role, the step and the
    // GRANT that gives it (explainPrivilege(), privileges.h; docs/privileges.md).
    Task<Result<BackfillOutcome>> backfillSteps(BackfillRequest request, ProgressFn progress, CancelTokenPtr cancel);
    Task<Result<RunOutcome>> runSteps(std::string model, std::string partition, CancelTokenPtr cancel);
    Task<Result<PublishOutcome>> publishSteps(PublishRequest request, CancelTokenPtr cancel);
    Task<Result<UndoOutcome>> undoSteps(UndoRequest request, CancelTokenPtr cancel);
    Task<Status> abandonSteps(long long id);
    // A connection (schema checked; the model's SQL described when `model` is given).
    Task<Result<std::shared_ptr<Session>>> open(const Model *model, CancelTokenPtr cancel);
    // open() for the window [from, to] of model `modelName`; the session holds both.
    Task<Result<std::shared_ptr<Session>>> openWindow(std::string modelName, std::string from, std::string to,
                                                      CancelTokenPtr cancel);
    // The same over the kLatestPartitions partitions ending with the newest that holds rows.
    Task<Result<std::shared_ptr<Session>>> openLatestWindow(std::string modelName, CancelTokenPtr cancel);

    Spec m_spec;
    std::string m_conninfo;
    EngineOptions m_options;
};

// Makes every `reprint VERB ...` command quoted in `text` (between backticks) runnable as
// printed: inserts `--spec PATH` after the verb when the command lacks one (the engine's
// hints name the backfill, the edge that knows how the spec was named completes them).
// The path is shell-quoted when it needs to be; commands that take no spec (demo) are
// left alone.
std::string completeCommands(const std::string &text, const std::string &specPath);

// A session of the engine on `conninfo`: named `application` in pg_stat_activity and in
// UTC, as every session of the engine is (the model's zone only bounds partitions). With
// `cancel`, cancelling it cancels the session's running statement.
// (A coroutine: its arguments are taken by value, so that none dangles.)
Task<Result<warehouse::ConnectionPtr>> openSession(std::string conninfo, std::string application = "reprint",
                                                   CancelTokenPtr cancel = {});

// "1 row", "2 rows": `n` and the noun in the number that agrees with it (`plural` when the
// noun does not just take an s).
std::string counted(long long n, const std::string &noun, const std::string &plural = {});

} // namespace reprint::backfill
