#include "connection.h"
#include "schedgroup.h"

#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/redirect_error.hpp>

#include <libpq-fe.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>

namespace reprint::warehouse {

namespace {

struct ResultDeleter {
    void operator()(PGresult *r) const { PQclear(r); }
};
using ResultHandle = std::unique_ptr<PGresult, ResultDeleter>;

const Value kNull;

std::string field(const PGresult *r, int code)
{
    const char *v = PQresultErrorField(r, code);
    return v ? std::string(v) : std::string();
}

std::string trimmed(std::string s)
{
    while (!s.empty() && (s.back() == '\n' || s.back() == ' '))
        s.pop_back();
    return s;
}

Error errorFromResult(const PGresult *r)
{
    Error e;
    e.sqlstate = field(r, PG_DIAG_SQLSTATE);
    e.message = trimmed(field(r, PG_DIAG_MESSAGE_PRIMARY));
    if (e.message.empty())
        e.message = trimmed(PQresultErrorMessage(r));
    e.detail = field(r, PG_DIAG_MESSAGE_DETAIL);
    e.hint = field(r, PG_DIAG_MESSAGE_HINT);
    const std::string pos = field(r, PG_DIAG_STATEMENT_POSITION);
    e.position = pos.empty() ? 0 : std::atoi(pos.c_str());
    e.kind = Error::classify(e.sqlstate);
    return e;
}

// The password this connection was made with, if any, so that it can be scrubbed from
// libpq's messages (which may quote the conninfo back).
std::string passwordOf(PGconn *conn)
{
    std::string pw;
    if (PQconninfoOption *opts = PQconninfo(conn)) {
        for (PQconninfoOption *o = opts; o->keyword; ++o)
            if (std::strcmp(o->keyword, "password") == 0 && o->val)
                pw = o->val;
        PQconninfoFree(opts);
    }
    return pw;
}

Error connectionError(PGconn *conn, const std::string &what)
{
    std::string msg = conn ? trimmed(PQerrorMessage(conn)) : std::string();
    // libpq prefixes multi-attempt messages with "connection to server ... failed: ";
    // keep it, it names the socket or host, which is what the user needs to check.
    msg = scrub(msg, conn ? passwordOf(conn) : std::string());
    Error e = Error::make(ErrorKind::Connection, msg.empty() ? what : what + ": " + msg);
    if (msg.find("password authentication failed") != std::string::npos
        || msg.find("no password supplied") != std::string::npos) {
        e.kind = ErrorKind::Permission;
        e.sqlstate = "28P01";
        e.hint = "Check the user and password in the connection string, ~/.pgpass or PGPASSWORD.";
    } else if (msg.find("No such file or directory") != std::string::npos
               || msg.find("Connection refused") != std::string::npos) {
        e.hint = "Check that the server is running and that host/port (or the socket directory) are right.";
    } else {
        e.hint = "Check the connection string (--db, the spec's warehouse, or the PG* environment).";
    }
    return e;
}

void receiveNotice(void *arg, const PGresult *r);

} // namespace

struct Connection::Private {
    explicit Private(asio::any_io_executor ex) : socket(ex) {}

    PGconn *conn = nullptr;
    asio::posix::stream_descriptor socket;
    int socketFd = -1;
    NoticeHandler noticeHandler;
    std::shared_ptr<PGcancel> cancel;
    // The scheduling-group niceness this connection's backend still has to take (see
    // followServerGroup), and when the kernel will next take a change.
    std::optional<int> groupNiceness;
    std::chrono::steady_clock::time_point groupRetryAt;

    // A backend reached over a Unix socket runs on this host: it takes its server's
    // scheduling group niceness (schedgroup.h). Without CAP_SYS_ADMIN the kernel takes
    // one such change every 100 ms, for all processes: a refused change is tried again
    // before a later statement, never waited for.
    void followServerGroup()
    {
        if (!groupNiceness || std::chrono::steady_clock::now() < groupRetryAt)
            return;
        switch (setGroupNiceness(PQbackendPID(conn), *groupNiceness)) {
        case GroupChange::TryLater:
            groupRetryAt = std::chrono::steady_clock::now() + std::chrono::milliseconds(110);
            return;
        case GroupChange::Done:
        case GroupChange::Refused:
            groupNiceness.reset();
            return;
        }
    }

    // Re-wraps PQsocket when libpq changed it (it can, between connection attempts).
    void adoptSocket()
    {
        const int fd = conn ? PQsocket(conn) : -1;
        if (fd == socketFd)
            return;
        releaseSocket();
        if (fd >= 0) {
            boost::system::error_code ec;
            socket.assign(fd, ec);
            socketFd = ec ? -1 : fd;
        }
    }

    void releaseSocket()
    {
        if (socketFd >= 0) {
            boost::system::error_code ec;
            socket.cancel(ec);
            socket.release();
            socketFd = -1;
        }
    }

    Task<boost::system::error_code> wait(asio::posix::descriptor_base::wait_type type)
    {
        boost::system::error_code ec;
        co_await socket.async_wait(type, asio::redirect_error(asio::use_awaitable, ec));
        co_return ec;
    }

    void finish()
    {
        releaseSocket();
        if (conn) {
            PQfinish(conn);
            conn = nullptr;
        }
    }
};

namespace {
void receiveNotice(void *arg, const PGresult *r)
{
    auto *d = static_cast<Connection::NoticeHandler *>(arg);
    if (!d || !*d)
        return;
    Notice n;
    n.severity = field(r, PG_DIAG_SEVERITY_NONLOCALIZED);
    if (n.severity.empty())
        n.severity = field(r, PG_DIAG_SEVERITY);
    n.sqlstate = field(r, PG_DIAG_SQLSTATE);
    n.message = trimmed(field(r, PG_DIAG_MESSAGE_PRIMARY));
    (*d)(n);
}
} // namespace

int ResultSet::column(std::string_view name) const
{
    for (std::size_t i = 0; i < columns.size(); ++i)
        if (columns[i] == name)
            return static_cast<int>(i);
    return -1;
}

const Value &ResultSet::at(std::size_t row, std::string_view name) const
{
    const int c = column(name);
    if (c < 0 || row >= rows.size())
        return kNull;
    return rows[row][static_cast<std::size_t>(c)];
}

std::string ResultSet::scalar(std::string fallback) const
{
    if (rows.empty() || rows.front().empty() || !rows.front().front())
        return fallback;
    return *rows.front().front();
}

const ResultSet &Reply::last() const
{
    static const ResultSet empty;
    return sets.empty() ? empty : sets.back();
}

bool CancelHandle::cancel(std::string *why) const
{
    if (!m_cancel)
        return false;
    char buf[256] = {0};
    if (PQcancel(m_cancel.get(), buf, sizeof buf) == 1)
        return true;
    if (why)
        *why = trimmed(buf);
    return false;
}

Connection::Connection(asio::any_io_executor executor)
    : d(std::make_unique<Private>(std::move(executor)))
{
}

Connection::~Connection()
{
    d->finish();
}

Task<Result<std::shared_ptr<Connection>>> Connection::connect(std::string conninfo)
{
    auto executor = co_await asio::this_coro::executor;
    std::shared_ptr<Connection> self(new Connection(executor));
    Private &p = *self->d;

    p.conn = PQconnectStart(conninfo.c_str());
    if (!p.conn)
        co_return Error::make(ErrorKind::Connection, "out of memory starting a connection");
    if (PQstatus(p.conn) == CONNECTION_BAD) {
        Error e = connectionError(p.conn, "could not connect");
        // A malformed conninfo fails here, and libpq may quote it back: scrub its password.
        if (PQconninfoOption *opts = PQconninfoParse(conninfo.c_str(), nullptr)) {
            for (PQconninfoOption *o = opts; o->keyword; ++o)
                if (std::strcmp(o->keyword, "password") == 0 && o->val)
                    e.message = scrub(e.message, o->val);
            PQconninfoFree(opts);
        }
        co_return e;
    }

    PostgresPollingStatusType poll = PGRES_POLLING_WRITING;
    while (poll != PGRES_POLLING_OK) {
        if (poll == PGRES_POLLING_FAILED)
            co_return connectionError(p.conn, "could not connect");
        p.adoptSocket();
        if (p.socketFd < 0)
            co_return connectionError(p.conn, "could not connect");
        const auto ec = co_await p.wait(poll == PGRES_POLLING_READING ? asio::posix::descriptor_base::wait_read
                                                                      : asio::posix::descriptor_base::wait_write);
        if (ec)
            co_return Error::make(ErrorKind::Cancelled, "connecting was abandoned");
        poll = PQconnectPoll(p.conn);
    }
    p.adoptSocket();
    if (PQsetnonblocking(p.conn, 1) != 0)
        co_return connectionError(p.conn, "could not switch the connection to non-blocking mode");

    PQsetNoticeReceiver(p.conn, receiveNotice, &p.noticeHandler);
    if (const char *host = PQhost(p.conn); host && host[0] == '/') {
        p.groupNiceness = serverGroupNiceness(PQbackendPID(p.conn));
        p.followServerGroup();
    }
    p.cancel = std::shared_ptr<PGcancel>(PQgetCancel(p.conn), [](PGcancel *c) {
        if (c)
            PQfreeCancel(c);
    });
    co_return self;
}

Task<Result<Reply>> Connection::query(std::string sql, Params params, std::vector<TypeOid> types)
{
    return run(true, std::move(sql), std::move(params), std::move(types));
}

Task<Result<Reply>> Connection::execute(std::string sql)
{
    return run(false, std::move(sql), {}, {});
}

namespace {

// Hands the statement to libpq (PQsendQueryParams when it has parameters, text in and
// out; else PQsendQuery); nonzero when it was queued.
int sendStatement(PGconn *conn, bool hasParams, const std::string &sql, const Params &params,
                  const std::vector<TypeOid> &types)
{
    if (!hasParams)
        return PQsendQuery(conn, sql.c_str());
    std::vector<const char *> values;
    values.reserve(params.size());
    for (const Value &v : params)
        values.push_back(v ? v->c_str() : nullptr);
    std::vector<Oid> oids(values.size(), 0);
    for (std::size_t i = 0; i < types.size() && i < oids.size(); ++i)
        oids[i] = types[i];
    return PQsendQueryParams(conn, sql.c_str(), static_cast<int>(values.size()), oids.data(), values.data(), nullptr,
                             nullptr, 0);
}

// The columns, rows and command tag of one successful result.
ResultSet resultSetOf(PGresult *r)
{
    ResultSet rs;
    const int nf = PQnfields(r);
    const int nt = PQntuples(r);
    rs.columns.reserve(static_cast<std::size_t>(nf));
    for (int c = 0; c < nf; ++c)
        rs.columns.emplace_back(PQfname(r, c));
    rs.rows.resize(static_cast<std::size_t>(nt));
    for (int t = 0; t < nt; ++t) {
        auto &row = rs.rows[static_cast<std::size_t>(t)];
        row.reserve(static_cast<std::size_t>(nf));
        for (int c = 0; c < nf; ++c) {
            if (PQgetisnull(r, t, c))
                row.emplace_back(std::nullopt);
            else
                row.emplace_back(std::string(PQgetvalue(r, t, c), static_cast<std::size_t>(PQgetlength(r, t, c))));
        }
    }
    rs.commandTag = PQcmdStatus(r);
    const char *n = PQcmdTuples(r);
    rs.affectedRows = (n && *n) ? std::atoll(n) : 0;
    return rs;
}

// Takes every result libpq has ready into `reply`, keeping the first failure. The
// statement's outcome once libpq has no more results; nullopt while more input is due.
std::optional<Result<Reply>> takeReadyResults(PGconn *conn, Reply &reply, std::optional<Error> &failure)
{
    while (!PQisBusy(conn)) {
        ResultHandle r(PQgetResult(conn));
        if (!r) {
            if (failure)
                return *failure;
            if (PQstatus(conn) == CONNECTION_BAD)
                return connectionError(conn, "the connection was lost");
            return std::move(reply);
        }
        switch (PQresultStatus(r.get())) {
        case PGRES_TUPLES_OK:
        case PGRES_COMMAND_OK:
        case PGRES_EMPTY_QUERY:
            reply.sets.push_back(resultSetOf(r.get()));
            break;
        case PGRES_FATAL_ERROR:
            if (!failure)
                failure = errorFromResult(r.get());
            break;
        default:
            // COPY and pipeline states are not used by Reprint.
            if (!failure)
                failure = Error::make(ErrorKind::Internal,
                                      std::string("unexpected result status ") + PQresStatus(PQresultStatus(r.get())));
            break;
        }
    }
    return std::nullopt;
}

} // namespace

Task<Result<Reply>> Connection::run(bool hasParams, std::string sql, Params params, std::vector<TypeOid> types)
{
    // Keep this object alive for the whole exchange even if the caller drops it.
    auto self = shared_from_this();
    Private &p = *d;
    if (!p.conn || PQstatus(p.conn) != CONNECTION_OK)
        co_return Error::make(ErrorKind::Connection, "the connection is closed",
                              "Reconnect; the server may have restarted or the network dropped.");
    if (m_busy)
        co_return Error::make(ErrorKind::Internal, "the connection is already running a statement");
    m_busy = true;
    struct BusyGuard {
        bool &busy;
        ~BusyGuard() { busy = false; }
    } guard{m_busy};

    p.followServerGroup();
    if (!sendStatement(p.conn, hasParams, sql, params, types))
        co_return connectionError(p.conn, "could not send the statement");

    // Flush: wait until libpq has written everything, reading whatever arrives meanwhile
    // so the server is never blocked on a full socket.
    for (;;) {
        const int f = PQflush(p.conn);
        if (f == 0)
            break;
        if (f < 0)
            co_return connectionError(p.conn, "could not send the statement");
        if (co_await p.wait(asio::posix::descriptor_base::wait_write))
            co_return connectionError(p.conn, "the connection closed while sending");
        if (!PQconsumeInput(p.conn))
            co_return connectionError(p.conn, "the connection was lost while sending");
    }

    Reply reply;
    std::optional<Error> failure;
    for (;;) {
        if (!PQconsumeInput(p.conn)) {
            Error e = connectionError(p.conn, "the connection was lost");
            p.finish();
            co_return e;
        }
        if (auto outcome = takeReadyResults(p.conn, reply, failure))
            co_return std::move(*outcome);
        if (co_await p.wait(asio::posix::descriptor_base::wait_read)) {
            Error e = Error::make(ErrorKind::Connection, "the connection was closed while a statement ran");
            co_return e;
        }
    }
}

Task<Result<std::optional<Notification>>> Connection::waitForNotification(std::chrono::milliseconds timeout)
{
    auto self = shared_from_this();
    Private &p = *d;
    if (!p.conn || PQstatus(p.conn) != CONNECTION_OK)
        co_return Error::make(ErrorKind::Connection, "the connection is closed", "Reconnect and LISTEN again.");
    if (m_busy)
        co_return Error::make(ErrorKind::Internal, "the connection is already running a statement");
    auto take = [&p]() -> std::optional<Notification> {
        PGnotify *n = PQnotifies(p.conn);
        if (!n)
            return std::nullopt;
        Notification out{n->relname ? n->relname : "", n->extra ? n->extra : "", n->be_pid};
        PQfreemem(n);
        return out;
    };
    if (!PQconsumeInput(p.conn))
        co_return connectionError(p.conn, "the connection was lost");
    if (auto n = take())
        co_return std::optional<Notification>(*n);
    m_busy = true;
    m_waiting = true;
    m_woken = false;
    struct BusyGuard {
        bool &busy, &waiting;
        ~BusyGuard() { busy = waiting = false; }
    } guard{m_busy, m_waiting};
    // The time running out is a wake(). The timer may fire after this coroutine is gone:
    // its handler owns what it touches, and wake() does nothing once the wait is over.
    auto timer = std::make_shared<asio::steady_timer>(co_await asio::this_coro::executor);
    timer->expires_after(timeout);
    std::weak_ptr<Connection> weak = self;
    timer->async_wait([weak](const boost::system::error_code &ec) {
        if (ec)
            return;
        if (auto c = weak.lock())
            c->wake();
    });
    for (;;) {
        const auto ec = co_await p.wait(asio::posix::descriptor_base::wait_read);
        if (ec) {
            timer->cancel();
            if (m_woken)
                co_return std::optional<Notification>();
            co_return Error::make(ErrorKind::Connection, "the connection was closed while waiting for notifications");
        }
        if (!PQconsumeInput(p.conn)) {
            timer->cancel();
            co_return connectionError(p.conn, "the connection was lost");
        }
        if (auto n = take()) {
            timer->cancel();
            co_return std::optional<Notification>(*n);
        }
    }
}

void Connection::wake()
{
    if (!m_waiting || !d->conn)
        return;
    m_woken = true;
    boost::system::error_code ignored;
    d->socket.cancel(ignored);
}

CancelHandle Connection::cancelHandle() const
{
    CancelHandle h;
    h.m_cancel = d->cancel;
    return h;
}

void Connection::setNoticeHandler(NoticeHandler handler)
{
    d->noticeHandler = std::move(handler);
}

bool Connection::isOpen() const
{
    return d->conn && PQstatus(d->conn) == CONNECTION_OK;
}

std::string Connection::describe() const
{
    if (!d->conn)
        return "(closed)";
    std::string host = PQhost(d->conn) ? PQhost(d->conn) : "";
    std::string s = std::string(PQuser(d->conn) ? PQuser(d->conn) : "") + "@" + (PQdb(d->conn) ? PQdb(d->conn) : "");
    if (!host.empty())
        s += " via " + host;
    const char *port = PQport(d->conn);
    if (port && *port)
        s += ":" + std::string(port);
    return s;
}

int Connection::backendPid() const
{
    return d->conn ? PQbackendPID(d->conn) : 0;
}

void Connection::close()
{
    d->finish();
}

std::string redactConninfo(std::string_view conninfo)
{
    std::string s(conninfo);
    if (s.rfind("postgres://", 0) == 0 || s.rfind("postgresql://", 0) == 0) {
        const std::size_t schemeEnd = s.find("://") + 3;
        const std::size_t at = s.find('@', schemeEnd);
        const std::size_t slash = s.find('/', schemeEnd);
        if (at != std::string::npos && (slash == std::string::npos || at < slash)) {
            const std::size_t colon = s.find(':', schemeEnd);
            if (colon != std::string::npos && colon < at)
                s.erase(colon, at - colon);
        }
        for (std::size_t q = s.find("password="); q != std::string::npos; q = s.find("password=")) {
            std::size_t end = s.find('&', q);
            s.erase(q, end == std::string::npos ? std::string::npos : end - q + 1);
        }
        while (!s.empty() && (s.back() == '?' || s.back() == '&'))
            s.pop_back();
        return s;
    }
    // keyword = value pairs; values may be single-quoted with backslash escapes.
    std::string out;
    std::size_t i = 0;
    while (i < s.size()) {
        while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i])))
            ++i;
        const std::size_t keyStart = i;
        while (i < s.size() && s[i] != '=' && !std::isspace(static_cast<unsigned char>(s[i])))
            ++i;
        std::string key = s.substr(keyStart, i - keyStart);
        while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i])))
            ++i;
        std::string valueText;
        if (i < s.size() && s[i] == '=') {
            ++i;
            while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i])))
                ++i;
            const std::size_t vStart = i;
            if (i < s.size() && s[i] == '\'') {
                ++i;
                while (i < s.size() && s[i] != '\'') {
                    if (s[i] == '\\' && i + 1 < s.size())
                        ++i;
                    ++i;
                }
                if (i < s.size())
                    ++i;
            } else {
                while (i < s.size() && !std::isspace(static_cast<unsigned char>(s[i])))
                    ++i;
            }
            valueText = s.substr(vStart, i - vStart);
        }
        if (key.empty())
            continue;
        if (key == "password")
            continue;
        if (!out.empty())
            out += ' ';
        out += key;
        if (!valueText.empty())
            out += "=" + valueText;
    }
    return out;
}

std::string scrub(std::string text, std::string_view secret)
{
    if (secret.empty())
        return text;
    for (std::size_t pos = text.find(secret); pos != std::string::npos; pos = text.find(secret, pos))
        text.replace(pos, secret.size(), "********");
    return text;
}

} // namespace reprint::warehouse
