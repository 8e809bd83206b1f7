#pragma once
// Errors as values. Nothing below the Qt layer throws across an Asio handler or a thread:
// every fallible operation returns Result<T>, which holds either a value or an Error.

#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace reprint::warehouse {

// What kind of failure it was, in the terms a caller acts on. Classified from the
// SQLSTATE where the server sent one (the class tells most: 08 connection, 42 syntax or
// access, 40 rollback, 55P03 lock, 22/23 data), else from where it happened. The
// concurrency kinds are named as libpqxx names its exception classes.
enum class ErrorKind {
    Connection,  // could not connect, or the connection was lost (class 08, 57P0x)
    Cancelled,   // the query was cancelled (57014) or the caller gave up
    Syntax,      // bad SQL or a bad spec: 42xxx except 42501, 0A000
    Permission,  // insufficient privilege (42501) or authentication refused (28xxx)
    SerializationFailure,  // 40001: a concurrent transaction made this one's reads stale
    DeadlockDetected,      // 40P01: the server chose this transaction to break a lock cycle
    TransactionRollback,   // any other 40xxx: the server rolled the transaction back
    LockNotAvailable,      // 55P03: lock_timeout ran out (or NOWAIT) before the lock came
    UniqueViolation,       // 23505: a row repeats a unique key (libpqxx: unique_violation)
    Data,        // bad values or other constraint violations (22xxx, 23xxx)
    Usage,       // the caller asked for something impossible: a bad directory, flag or name
    Internal,    // anything else the server or libpq reported
    // The kinds from here on belong to the layers that use this one (the engine's are in
    // backfill/errors.h); this layer never makes one and names them "other".
    LayerAbove = 64,
};

const char *toString(ErrorKind kind);

// Another transaction was in the way: a rolled-back transaction (class 40) or a lock that
// did not come (55P03). Trying again later can work.
bool isConcurrencyConflict(ErrorKind kind);

struct Error {
    ErrorKind kind = ErrorKind::Internal;
    std::string sqlstate;  // five characters, or empty when the server sent none
    std::string message;   // primary message: one line, no trailing newline
    std::string detail;
    std::string hint;
    int position = 0;      // 1-based character position in the statement, 0 if none

    // "message (detail) hint" as one readable sentence, for logs and the CLI.
    std::string toSentence() const;

    static Error make(ErrorKind kind, std::string message, std::string hint = {});
    static ErrorKind classify(const std::string &sqlstate);
};

template <typename T>
class [[nodiscard]] Result {
public:
    // Empty results (needed by asio::co_spawn's completion signature) hold an Internal error.
    Result() : m_v(std::in_place_index<1>, Error::make(ErrorKind::Internal, "no result")) {}
    Result(T value) : m_v(std::in_place_index<0>, std::move(value)) {}
    Result(Error error) : m_v(std::in_place_index<1>, std::move(error)) {}

    bool ok() const { return m_v.index() == 0; }
    explicit operator bool() const { return ok(); }
    T &value() { return std::get<0>(m_v); }
    const T &value() const { return std::get<0>(m_v); }
    T *operator->() { return &value(); }
    const T *operator->() const { return &value(); }
    T &operator*() { return value(); }
    const T &operator*() const { return value(); }
    const Error &error() const { return std::get<1>(m_v); }

private:
    std::variant<T, Error> m_v;
};

struct Done {};  // the value of an operation that returns nothing but may fail
using Status = Result<Done>;
inline Status ok() { return Done{}; }

} // namespace reprint::warehouse
