#pragma once
// The one include for Boost.Asio in Reprint. Boost 1.74's awaitable.hpp uses std::exchange
// without including <utility>, so it comes first here.
#include <utility>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace reprint::warehouse {
namespace asio = boost::asio;
template <typename T>
using Task = asio::awaitable<T>;
} // namespace reprint::warehouse
