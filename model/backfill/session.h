#pragma once
// What every room of the engine does with a warehouse session: open one (engine.h's
// openSession), roll back, run several coroutines at once and wait for all of them, and
// the errors the rooms refuse with. Internal to the engine. Thread affinity: the io_context
// of the calling coroutine.

#include "engine.h"
#include "modelsql.h"
#include "window.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace reprint::backfill {

// The warehouse's words the rooms write SQL with.
using warehouse::ConnectionPtr;
using warehouse::kTimestamptzOid;
using warehouse::Params;
using warehouse::Reply;
using warehouse::Value;
using warehouse::args;
using warehouse::oids;

namespace asio = warehouse::asio;

// The types of a statement's two bound parameters $1, $2: a partition's [start, end).
inline const std::vector<warehouse::TypeOid> kBounds = {warehouse::kTimestamptzOid, warehouse::kTimestamptzOid};

// A partition's key in the engine's per-partition maps: its start, in epoch seconds.
inline long long epoch(const Partition &p)
{
    return p.start.toSecsSinceEpoch();
}

Error conflict(std::string message, std::string hint);
Error drift(std::string message, std::string hint);
Error usage(std::string message, std::string hint = {});

// ROLLBACK when the connection is still open; a failure to roll back is ignored (the
// server rolls back when the connection goes).
Task<void> rollback(warehouse::Connection &c);

// Waits until `pending` coroutines spawned with spawnJoined() have finished.
struct JoinGroup {
    explicit JoinGroup(asio::any_io_executor ex) : timer(ex) {}
    int pending = 0;
    asio::steady_timer timer;
};

// Runs `task` on the group's executor; an exception it throws is rethrown there.
void spawnJoined(const std::shared_ptr<JoinGroup> &group, Task<void> task);
Task<void> joinAll(std::shared_ptr<JoinGroup> group);

// A warehouse session of one Engine operation (Engine::open): its connection, and for
// openWindow() its model, that model's SQL and the window.
struct Engine::Session {
    warehouse::ConnectionPtr conn;
    ModelSql sql;
    const Model *model = nullptr;     // openWindow(): the model
    std::optional<Window> window;     // openWindow(): its window
};

} // namespace reprint::backfill
