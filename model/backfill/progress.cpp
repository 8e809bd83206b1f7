// What a running backfill is doing, read back from the warehouse: the LISTEN connection
// (ProgressListener) and Engine::progress, which reads the claim, the partitions and the
// lock waits of one backfill.
#include "engine.h"

#include "ledger.h"
#include "modelsql.h"
#include "session.h"
#include "sqltext.h"
#include "window.h"

#include <QDateTime>


#include <algorithm>
#include <chrono>
#include <optional>
#include <set>
#include <cstdlib>

namespace reprint::backfill {

Task<Status> ProgressListener::open()
{
    auto conn = co_await openSession(m_conninfo);
    if (!conn)
        co_return conn.error();
    auto r = co_await (*conn)->execute("LISTEN reprint_progress");
    if (!r)
        co_return r.error();
    m_conn = *conn;
    co_return warehouse::ok();
}

Task<Result<std::optional<long long>>> ProgressListener::next(std::chrono::milliseconds timeout)
{
    if (!m_conn)
        co_return Error::make(ErrorKind::Connection, "the progress listener is not open");
    auto conn = m_conn;
    auto n = co_await conn->waitForNotification(timeout);
    if (!n)
        co_return n.error();
    if (!*n)
        co_return std::optional<long long>();
    co_return std::optional<long long>(std::atoll((*n)->payload.c_str()));
}

void ProgressListener::close()
{
    if (m_conn)
        m_conn->close();
    m_conn.reset();
}

Task<Result<BackfillProgress>> Engine::progress(long long id)
{
    auto s = co_await open(nullptr, {});
    if (!s)
        co_return s.error();
    auto &c = *(*s)->conn;
    const std::string ids = std::to_string(id);
    auto b = co_await readBackfill(c, id, false);
    if (!b)
        co_return b.error();
    BackfillProgress out;
    const std::vector<std::string> models(1, b->model);
    auto hist = co_await readHistory(c, models, id);
    if (!hist)
        co_return hist.error();
    if (!hist->empty())
        out.backfill = hist->front();
    auto parts = co_await c.query(
        "SELECT p.partition, p.state, coalesce(p.rows, 0)::text, coalesce(p.seconds, 0)::text, coalesce(p.error, ''), "
        "(p.partition_start = b.window_start OR p.partition_end = b.window_end)::text, "
        "to_char(p.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"') "
        "FROM reprint.backfill_partitions p JOIN reprint.backfills b ON b.id = p.backfill_id WHERE p.backfill_id = $1 "
        "ORDER BY (p.partition_start = b.window_start OR p.partition_end = b.window_end) DESC, p.partition_start",
        args(ids));
    if (!parts)
        co_return parts.error();
    for (const auto &row : parts->last().rows) {
        PartitionState p;
        p.partition = *row[0];
        p.state = partitionStageFrom(*row[1]);
        p.rows = std::stoll(*row[2]);
        p.seconds = std::stod(*row[3]);
        p.error = *row[4];
        p.boundary = *row[5] == "true";
        p.updatedAt = row[6].value_or("");
        out.partitions.push_back(std::move(p));
    }
    auto claim = co_await c.query("SELECT holder, lease_expires::text, heartbeat_at::text FROM reprint.claims WHERE backfill_id = $1",
                                  args(ids));
    if (!claim)
        co_return claim.error();
    if (!claim->last().rows.empty()) {
        const auto &row = claim->last().rows.front();
        out.claimHolder = *row[0];
        out.leaseExpires = *row[1];
        out.heartbeatAt = *row[2];
    }
    auto waits = co_await c.query(
        "SELECT a.pid::text, extract(epoch FROM now() - a.query_start)::text, "
        "(SELECT string_agg(coalesce(nullif(x.application_name, ''), 'a session') || ' (pid ' || x.pid || ', ' || "
        "coalesce(x.usename::text, '?') || '): ' || left(x.query, 120), '; ') "
        " FROM pg_stat_activity x WHERE x.pid = ANY (pg_blocking_pids(a.pid))) "
        "FROM pg_stat_activity a WHERE a.application_name = $1 AND cardinality(pg_blocking_pids(a.pid)) > 0",
        args("reprint backfill " + ids));
    if (!waits)
        co_return waits.error();
    for (const auto &row : waits->last().rows)
        out.waits.push_back({std::stoi(*row[0]), std::stod(row[1].value_or("0")), row[2].value_or("")});
    co_return out;
}

// Every privilege error of the operations below is explained here, and only here.
// (Named vectors: GCC 12 rejects braced lists as arguments of a co_await.)

} // namespace reprint::backfill
