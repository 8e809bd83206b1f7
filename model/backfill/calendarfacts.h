#pragma once
// What the calendar and the About box read from the warehouse beside the engine's status:
// announcements of changed partitions, the throughput of a model's past backfills, and
// the version of Reprint's schema.
//
// None of these functions writes. Each opens its own connection from the engine's
// conninfo. Thread affinity: as Engine (coroutines on the io_context thread); no cancel,
// every query is bounded (one model, the latest backfills).

#include "engine.h"

#include <QDateTime>

#include <chrono>
#include <optional>
#include <string>

namespace reprint::backfill {

// A change to the partitions [start, end) of `model`, as announced on the channel
// reprint_partitions (migration 006): a backfill or run recorded or changing status, a
// claim taken, released, cut short or held for publish.
struct PartitionsChanged {
    std::string model;
    QDateTime start;  // UTC
    QDateTime end;    // UTC, exclusive
};

// LISTENs on reprint_partitions on its own connection. Thread affinity: the io_context
// it was opened on. A payload that does not parse is skipped.
class PartitionListener {
public:
    explicit PartitionListener(std::string conninfo) : m_conninfo(std::move(conninfo)) {}
    Task<Status> open();
    // The next change announced, or nullopt after `timeout`. A Connection error when the
    // connection is lost (open() again to go on).
    Task<Result<std::optional<PartitionsChanged>>> next(std::chrono::milliseconds timeout);
    void close();
    bool isOpen() const { return static_cast<bool>(m_conn); }

    // The announcement's payload as a change; nullopt when it is not one.
    static std::optional<PartitionsChanged> parse(const std::string &payload);

private:
    std::string m_conninfo;
    warehouse::ConnectionPtr m_conn;
};

// How fast a model's partitions staged in its latest backfills and runs: the sums of
// reprint.backfill_partitions' rows and seconds over the partitions that staged with a
// time (at most the latest kThroughputBackfills backfills or runs that have such).
struct Throughput {
    int backfills = 0;   // kind backfill
    int runs = 0;        // kind run
    int partitions = 0;
    long long rows = 0;
    double seconds = 0;  // summed per partition: the time of one partition after another

    double rowsPerSecond() const { return seconds > 0 ? double(rows) / seconds : 0; }
    bool isKnown() const { return partitions > 0 && rows > 0 && seconds > 0; }
};
constexpr int kThroughputBackfills = 20;

Task<Result<Throughput>> pastThroughput(const Engine &engine, std::string model);

// The version of Reprint's schema in the engine's warehouse (0: none) and the newest this
// build knows, for the About box.
struct SchemaVersions {
    int warehouse = 0;
    int build = 0;
};
Task<Result<SchemaVersions>> schemaVersions(const Engine &engine);

} // namespace reprint::backfill
