#include "error.h"

namespace reprint::warehouse {

const char *toString(ErrorKind kind)
{
    switch (kind) {
    case ErrorKind::Connection: return "connection";
    case ErrorKind::Cancelled: return "cancelled";
    case ErrorKind::Syntax: return "syntax";
    case ErrorKind::Permission: return "permission";
    case ErrorKind::SerializationFailure: return "serialization failure";
    case ErrorKind::DeadlockDetected: return "deadlock detected";
    case ErrorKind::TransactionRollback: return "transaction rollback";
    case ErrorKind::LockNotAvailable: return "lock not available";
    case ErrorKind::UniqueViolation: return "unique violation";
    case ErrorKind::Data: return "data";
    case ErrorKind::Usage: return "usage";
    case ErrorKind::Internal: return "internal";
    case ErrorKind::LayerAbove: break;
    }
    return "other";
}

ErrorKind Error::classify(const std::string &s)
{
    if (s.size() != 5)
        return ErrorKind::Internal;
    const std::string cls = s.substr(0, 2);
    if (s == "57014")
        return ErrorKind::Cancelled;
    if (s == "42501" || cls == "28")
        return ErrorKind::Permission;
    if (s == "40001")
        return ErrorKind::SerializationFailure;
    if (s == "40P01")
        return ErrorKind::DeadlockDetected;
    if (cls == "40")
        return ErrorKind::TransactionRollback;
    if (s == "55P03")
        return ErrorKind::LockNotAvailable;
    if (cls == "08" || s == "57P01" || s == "57P02" || s == "57P03")
        return ErrorKind::Connection;
    if (cls == "42" || s == "0A000")
        return ErrorKind::Syntax;
    if (s == "23505")
        return ErrorKind::UniqueViolation;
    if (cls == "22" || cls == "23")
        return ErrorKind::Data;
    return ErrorKind::Internal;
}

bool isConcurrencyConflict(ErrorKind kind)
{
    switch (kind) {
    case ErrorKind::SerializationFailure:
    case ErrorKind::DeadlockDetected:
    case ErrorKind::TransactionRollback:
    case ErrorKind::LockNotAvailable:
        return true;
    case ErrorKind::Connection:
    case ErrorKind::Cancelled:
    case ErrorKind::Syntax:
    case ErrorKind::Permission:
    case ErrorKind::UniqueViolation:
    case ErrorKind::Data:
    case ErrorKind::Usage:
    case ErrorKind::Internal:
    case ErrorKind::LayerAbove:
        return false;
    }
    return false;
}

Error Error::make(ErrorKind kind, std::string message, std::string hint)
{
    Error e;
    e.kind = kind;
    e.message = std::move(message);
    e.hint = std::move(hint);
    return e;
}

std::string Error::toSentence() const
{
    std::string s = message;
    if (!detail.empty())
        s += " (" + detail + ")";
    if (!hint.empty())
        s += ". " + hint;
    return s;
}

} // namespace reprint::warehouse
