#include "session.h"

#include <boost/asio/redirect_error.hpp>

namespace reprint::backfill {

Error conflict(std::string message, std::string hint)
{
    return Error::make(EngineKind::Conflict, std::move(message), std::move(hint));
}

Error drift(std::string message, std::string hint)
{
    return Error::make(EngineKind::Drift, std::move(message), std::move(hint));
}

Error usage(std::string message, std::string hint)
{
    return Error::make(ErrorKind::Usage, std::move(message), std::move(hint));
}

Task<void> rollback(warehouse::Connection &c)
{
    if (c.isOpen()) {
        auto r = co_await c.execute("ROLLBACK");
        (void)r;
    }
}

void spawnJoined(const std::shared_ptr<JoinGroup> &group, Task<void> task)
{
    ++group->pending;
    asio::co_spawn(group->timer.get_executor(), std::move(task), [group](std::exception_ptr e) {
        if (e)
            std::rethrow_exception(e);
        if (--group->pending == 0)
            group->timer.cancel();
    });
}

Task<void> joinAll(std::shared_ptr<JoinGroup> group)
{
    while (group->pending > 0) {
        group->timer.expires_at(asio::steady_timer::time_point::max());
        boost::system::error_code ec;
        co_await group->timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    }
}

Task<Result<ConnectionPtr>> openSession(std::string conninfo, std::string application, CancelTokenPtr cancel)
{
    auto conn = co_await warehouse::Connection::connect(conninfo);
    if (!conn)
        co_return conn.error();
    // Every session runs in UTC, whatever the model's zone: the model's timezone decides
    // where partitions begin and end (the engine passes those as explicit values), never
    // what a transform's or a check's value means (docs/contract-notes.md, "Session time
    // zone"). The scheduled run and the backfill share this, so both compute alike.
    auto set = co_await (*conn)->query("SELECT set_config('application_name', $1, false), set_config('TimeZone', 'UTC', false)",
                                       args(application));
    if (!set)
        co_return set.error();
    if (cancel)
        cancel->attach((*conn)->cancelHandle());
    co_return *conn;
}

void CancelToken::cancel()
{
    m_cancelled = true;
    std::vector<warehouse::CancelHandle> handles;
    {
        std::lock_guard lock(m_mutex);
        handles = m_handles;
    }
    for (const auto &h : handles)
        h.cancel();
}

void CancelToken::attach(const warehouse::CancelHandle &handle)
{
    std::lock_guard lock(m_mutex);
    m_handles.push_back(handle);
}

} // namespace reprint::backfill
