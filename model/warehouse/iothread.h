#pragma once
// The I/O thread: one io_context running on its own std::thread, for the GUI.
// The CLI and the tests may instead run an io_context on the calling thread with
// runBlocking().
//
// Thread affinity: construct and destroy on one thread (the GUI thread). spawn() may be
// called from any thread; the task and its completion handler run on the I/O thread.
// The destructor stops the context and joins the thread; coroutines still suspended
// then are destroyed without resuming.

#include "asio.h"

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/use_future.hpp>

#include <exception>
#include <future>
#include <optional>
#include <thread>
#include <utility>

namespace reprint::warehouse {

class IoThread {
public:
    IoThread();
    ~IoThread();
    IoThread(const IoThread &) = delete;
    IoThread &operator=(const IoThread &) = delete;

    asio::io_context &context() { return m_context; }
    asio::any_io_executor executor() { return m_context.get_executor(); }

    // Starts `task` on the I/O thread; `done(T)` runs on the I/O thread when it finishes.
    template <typename T, typename Done>
    void spawn(Task<T> task, Done done)
    {
        asio::co_spawn(m_context, std::move(task), [done = std::move(done)](std::exception_ptr e, T value) mutable {
            if (e)
                std::rethrow_exception(e); // a bug, not an error: errors are values
            done(std::move(value));
        });
    }

    // Starts `task` on the I/O thread and returns a future of its value (for tests).
    template <typename T>
    std::future<T> spawn(Task<T> task)
    {
        return asio::co_spawn(m_context, std::move(task), asio::use_future);
    }

private:
    asio::io_context m_context;
    asio::executor_work_guard<asio::io_context::executor_type> m_work;
    std::thread m_thread;
};

namespace detail {
// Boost 1.74's co_spawn hands a default-constructed T to the completion handler when the
// task throws, so it needs T() to exist; Result<T> has none. The value leaves through `out`.
template <typename T>
Task<void> storeValue(Task<T> task, std::optional<T> *out)
{
    out->emplace(co_await std::move(task));
}
} // namespace detail

// Runs `task` to completion on `io` on the calling thread and returns its value.
template <typename T>
T runBlocking(asio::io_context &io, Task<T> task)
{
    std::optional<T> out;
    std::exception_ptr failure;
    asio::co_spawn(io, detail::storeValue(std::move(task), &out), [&](std::exception_ptr e) { failure = e; });
    io.restart();
    io.run();
    if (failure)
        std::rethrow_exception(failure);
    return std::move(*out);
}

} // namespace reprint::warehouse
