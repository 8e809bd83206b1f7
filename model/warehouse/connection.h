#pragma once
// An asynchronous PostgreSQL connection on Boost.Asio (libpq, non-blocking, text results).
//
// Thread affinity: a Connection belongs to the io_context it was connected on. Every
// member function except cancelHandle() and the CancelHandle itself must be called from
// a coroutine or handler running on that io_context's thread. One statement at a time:
// a second query while one is running fails at once with an Internal error (use another
// connection for parallel work).
//
// Lifetime: a Connection must not outlive the io_context it was connected on (close it,
// or drop the last reference, before the context is destroyed).
//
// Ownership: Connection owns its PGconn. The socket is wrapped in an Asio
// stream_descriptor that is released (never closed) before PQfinish, so libpq stays the
// only owner of the file descriptor.

#include "asio.h"
#include "error.h"

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

struct pg_conn;
struct pg_cancel;

namespace reprint::warehouse {

using Value = std::optional<std::string>;  // text format; nullopt is SQL NULL
using Params = std::vector<Value>;
using TypeOid = unsigned int;
// Type OIDs for parameters whose type the server cannot infer, or must not guess.
inline constexpr TypeOid kTimestamptzOid = 1184;
inline constexpr TypeOid kTextOid = 25;

// Builds parameters from strings, optionals or std::nullopt. Use it, not a braced list,
// for arguments inside a co_await expression: GCC 12 rejects initializer lists there
// ("array used as initializer").
template <typename... T>
Params args(T &&...values)
{
    Params p;
    p.reserve(sizeof...(T));
    (p.emplace_back(std::forward<T>(values)), ...);
    return p;
}
template <typename... T>
std::vector<TypeOid> oids(T... types)
{
    return {static_cast<TypeOid>(types)...};
}

struct ResultSet {
    std::vector<std::string> columns;
    std::vector<std::vector<Value>> rows;
    std::string commandTag;     // e.g. "INSERT 0 42"
    long long affectedRows = 0; // from PQcmdTuples, 0 when not applicable

    // Index of a column by name, or -1.
    int column(std::string_view name) const;
    // The value at (row, column name); nullopt for NULL or an unknown column.
    const Value &at(std::size_t row, std::string_view name) const;
    // Convenience for a one-row, one-column answer: its text, or fallback.
    std::string scalar(std::string fallback = {}) const;
};

// Every result set a request produced, in order. A query has one; a multi-statement
// execute() has one per statement.
struct Reply {
    std::vector<ResultSet> sets;
    const ResultSet &last() const;
};

// A message the server sent while a statement ran (NOTICE, WARNING, INFO, ...).
struct Notice {
    std::string severity;  // as the server sent it, untranslated: NOTICE, WARNING, ...
    std::string sqlstate;
    std::string message;
};

// A NOTIFY received on a channel this connection LISTENs on.
struct Notification {
    std::string channel;
    std::string payload;
    int senderPid = 0;
};

// Cancels whatever the connection is running. Thread-safe: may be called from any
// thread, any number of times, also after the connection closed (then it does nothing).
// It blocks the calling thread for the round trip of the cancel request, so do not call
// it from the io_context's thread. A cancel only asks; the query's own result (an Error of
// kind Cancelled, or its normal result if it had already finished) is the answer.
class CancelHandle {
public:
    CancelHandle() = default;
    // Returns false, with the reason in *why, when the request could not be sent.
    bool cancel(std::string *why = nullptr) const;
    bool valid() const { return static_cast<bool>(m_cancel); }

private:
    friend class Connection;
    std::shared_ptr<pg_cancel> m_cancel;
};

class Connection : public std::enable_shared_from_this<Connection> {
public:
    using NoticeHandler = std::function<void(const Notice &)>;

    // Connects asynchronously (PQconnectStart/PQconnectPoll) on the calling coroutine's
    // executor. `conninfo` is a keyword/value string, a postgres:// URI, "service=NAME",
    // or empty to use libpq's PG* environment. Errors never contain the password.
    static Task<Result<std::shared_ptr<Connection>>> connect(std::string conninfo);

    ~Connection();
    Connection(const Connection &) = delete;
    Connection &operator=(const Connection &) = delete;

    // One statement with parameters $1..$n (PQsendQueryParams), text in and out.
    // `types` optionally fixes the type of the first types.size() parameters (0 = infer).
    Task<Result<Reply>> query(std::string sql, Params params = {}, std::vector<TypeOid> types = {});
    // Any number of statements separated by semicolons (PQsendQuery), no parameters;
    // one ResultSet per statement. Stops at the first failing statement and returns its
    // error (outside an explicit transaction, earlier statements stay committed).
    Task<Result<Reply>> execute(std::string sql);

    // Waits for the next notification on a channel this connection has LISTENed on
    // (run "LISTEN channel" first), for at most `timeout`. nullopt when the time ran out.
    // Counts as a running statement: no query may run on the connection meanwhile.
    Task<Result<std::optional<Notification>>> waitForNotification(std::chrono::milliseconds timeout);
    // Ends a waitForNotification() in progress at once, as if its time had run out; the
    // connection stays open and LISTENing. Does nothing when no wait is in progress.
    void wake();

    CancelHandle cancelHandle() const;
    void setNoticeHandler(NoticeHandler handler);

    bool isOpen() const;
    bool isBusy() const { return m_busy; }
    // "user@database via host" for logs and titles; never includes a password.
    std::string describe() const;
    // The server's backend process id (for pg_blocking_pids and pg_cancel_backend).
    int backendPid() const;
    // Closes the connection. A running query is abandoned (its coroutine gets a
    // Connection error). Safe to call more than once.
    void close();

private:
    struct Private;
    explicit Connection(asio::any_io_executor executor);
    Task<Result<Reply>> run(bool hasParams, std::string sql, Params params, std::vector<TypeOid> types);
    std::unique_ptr<Private> d;
    bool m_busy = false;
    bool m_waiting = false;  // a waitForNotification() is in progress
    bool m_woken = false;    // wake() (or its time running out) ended it
};

using ConnectionPtr = std::shared_ptr<Connection>;

// Removes any password from a conninfo string or URI, for display. Keyword/value
// strings lose their password=... pair; URIs lose the ":password" of user:password@ and
// any password= query parameter.
std::string redactConninfo(std::string_view conninfo);

// Removes `secret` wherever it appears in `text` (for libpq messages that may echo it).
std::string scrub(std::string text, std::string_view secret);

} // namespace reprint::warehouse
