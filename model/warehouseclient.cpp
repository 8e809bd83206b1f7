#include "warehouseclient.h"

#include "warehouse/connection.h"
#include "iobridge.h"

#include <QHash>
#include <QThreadPool>
#include <QUrl>

#include <deque>
#include <functional>
#include <future>
#include <mutex>
#include <unordered_map>

namespace reprint::model {

namespace {

using warehouse::asio::post;

QString fromUtf8(const std::string &s)
{
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

std::string toUtf8(const QString &s)
{
    return s.toStdString();
}

// The password in a conninfo string or URI, as written (and, for a URI, decoded), so
// that it can be scrubbed from every message. The warehouse layer scrubs too; this is
// the adapter's own guarantee that no signal carries it.
std::vector<std::string> passwordsIn(const std::string &conninfo)
{
    std::vector<std::string> found;
    const QString text = fromUtf8(conninfo);
    if (text.startsWith(QLatin1String("postgres://")) || text.startsWith(QLatin1String("postgresql://"))) {
        const QUrl url(text);
        if (!url.password().isEmpty())
            found.push_back(toUtf8(url.password()));
        const qsizetype query = text.indexOf(QLatin1Char('?'));
        if (query >= 0) {
            const QStringList pairs = text.mid(query + 1).split(QLatin1Char('&'));
            for (const QString &pair : pairs)
                if (pair.startsWith(QLatin1String("password=")))
                    found.push_back(toUtf8(QUrl::fromPercentEncoding(pair.mid(9).toUtf8())));
        }
        const qsizetype scheme = text.indexOf(QLatin1String("://")) + 3;
        const qsizetype at = text.indexOf(QLatin1Char('@'), scheme);
        const qsizetype colon = text.indexOf(QLatin1Char(':'), scheme);
        if (at > 0 && colon > 0 && colon < at)
            found.push_back(toUtf8(text.mid(colon + 1, at - colon - 1)));
        return found;
    }
    const std::size_t key = conninfo.find("password");
    if (key == std::string::npos)
        return found;
    std::size_t i = conninfo.find('=', key);
    if (i == std::string::npos)
        return found;
    ++i;
    while (i < conninfo.size() && conninfo[i] == ' ')
        ++i;
    std::string value;
    if (i < conninfo.size() && conninfo[i] == '\'') {
        for (++i; i < conninfo.size() && conninfo[i] != '\''; ++i) {
            if (conninfo[i] == '\\' && i + 1 < conninfo.size())
                ++i;
            value += conninfo[i];
        }
    } else {
        while (i < conninfo.size() && conninfo[i] != ' ')
            value += conninfo[i++];
    }
    if (!value.empty())
        found.push_back(value);
    return found;
}

// An answer on its way from the I/O thread (or the cancel worker) to the GUI thread.
struct Answer {
    enum class Kind { Opened, Finished, Failed, Notice, CancelFailed };
    Kind kind = Kind::Failed;
    quint64 token = 0;
    QString channel;
    QString text;   // description, notice message or cancel failure
    QString severity;
    QueryResult result;
    DatabaseError error;
    warehouse::CancelHandle cancelHandle;
};

// The way back to the GUI thread: the client's gate (iobridge.h) and what to do with an
// answer there.
class Mailbox {
public:
    Mailbox(QObject *client, std::function<void(Answer)> receive) : m_gate(client), m_receive(std::move(receive)) {}

    void send(Answer answer)
    {
        m_gate.post([receive = m_receive, a = std::move(answer)]() mutable { receive(std::move(a)); });
    }
    void detach() { m_gate.close(); }

private:
    ReplyGate m_gate;
    std::function<void(Answer)> m_receive;
};

struct Request {
    enum class Kind { Open, Query };
    Kind kind = Kind::Query;
    quint64 token = 0;
    std::string text;  // conninfo or SQL
    warehouse::Params params;
    std::string channel;
    QString channelText;
};

// Everything the I/O thread touches. Only ever used on the I/O thread.
struct IoState {
    std::shared_ptr<Mailbox> mailbox;
    warehouse::ConnectionPtr connection;
    std::deque<Request> queue;
    std::unordered_map<std::string, quint64> latestByChannel;
    std::vector<std::string> secrets;
    bool pumping = false;

    bool isStale(const Request &r) const
    {
        if (r.channel.empty())
            return false;
        const auto it = latestByChannel.find(r.channel);
        return it != latestByChannel.end() && it->second != r.token;
    }

    QString clean(const std::string &text) const
    {
        std::string s = text;
        for (const std::string &secret : secrets)
            s = warehouse::scrub(std::move(s), secret);
        return fromUtf8(s);
    }

    DatabaseError toError(const warehouse::Error &e) const
    {
        DatabaseError out;
        out.kind = e.kind;
        out.sqlstate = fromUtf8(e.sqlstate);
        out.message = clean(e.message);
        out.detail = clean(e.detail);
        out.hint = clean(e.hint);
        return out;
    }

    void fail(const Request &r, const warehouse::Error &e)
    {
        Answer a;
        a.kind = Answer::Kind::Failed;
        a.token = r.token;
        a.channel = r.channelText;
        a.error = toError(e);
        mailbox->send(std::move(a));
    }
};

QueryResult toQueryResult(const warehouse::ResultSet &set)
{
    QueryResult out;
    out.columns.reserve(static_cast<qsizetype>(set.columns.size()));
    for (const std::string &c : set.columns)
        out.columns.append(fromUtf8(c));
    out.rows.reserve(static_cast<qsizetype>(set.rows.size()));
    for (const auto &row : set.rows) {
        QStringList values;
        values.reserve(static_cast<qsizetype>(row.size()));
        for (const warehouse::Value &v : row)
            values.append(v ? fromUtf8(*v) : QString());
        out.rows.append(std::move(values));
    }
    out.commandTag = fromUtf8(set.commandTag);
    return out;
}

warehouse::Task<warehouse::Done> openConnection(std::shared_ptr<IoState> s, Request r)
{
    if (s->connection) {
        s->connection->close();
        s->connection.reset();
    }
    s->secrets = passwordsIn(r.text);
    auto connected = co_await warehouse::Connection::connect(r.text);
    if (!connected) {
        s->fail(r, connected.error());
        co_return warehouse::Done{};
    }
    s->connection = *connected;
    // The handler must not own the state (the state owns the connection).
    s->connection->setNoticeHandler([mailbox = s->mailbox](const warehouse::Notice &n) {
        Answer a;
        a.kind = Answer::Kind::Notice;
        a.severity = fromUtf8(n.severity);
        a.text = fromUtf8(n.message);
        mailbox->send(std::move(a));
    });
    Answer a;
    a.kind = Answer::Kind::Opened;
    a.token = r.token;
    a.text = fromUtf8(s->connection->describe());
    a.cancelHandle = s->connection->cancelHandle();
    s->mailbox->send(std::move(a));
    co_return warehouse::Done{};
}

warehouse::Task<warehouse::Done> runQuery(std::shared_ptr<IoState> s, Request r)
{
    if (!s->connection || !s->connection->isOpen()) {
        s->fail(r, warehouse::Error::make(warehouse::ErrorKind::Connection, "not connected to the warehouse",
                                          "Open a connection first; if it was lost, reconnect."));
        co_return warehouse::Done{};
    }
    auto conn = s->connection;
    auto reply = co_await conn->query(r.text, r.params);
    if (!reply) {
        s->fail(r, reply.error());
        co_return warehouse::Done{};
    }
    Answer a;
    a.kind = Answer::Kind::Finished;
    a.token = r.token;
    a.channel = r.channelText;
    a.result = toQueryResult(reply->last());
    s->mailbox->send(std::move(a));
    co_return warehouse::Done{};
}

// Runs the queued requests one at a time until the queue is empty.
warehouse::Task<warehouse::Done> pump(std::shared_ptr<IoState> s)
{
    while (!s->queue.empty()) {
        Request r = std::move(s->queue.front());
        s->queue.pop_front();
        if (s->isStale(r))
            continue;
        if (r.kind == Request::Kind::Open)
            co_await openConnection(s, std::move(r));
        else
            co_await runQuery(s, std::move(r));
    }
    s->pumping = false;
    co_return warehouse::Done{};
}

} // namespace

QString DatabaseError::sentence() const
{
    auto asSentence = [](QString s) {
        s = s.simplified();
        if (s.isEmpty())
            return s;
        s[0] = s[0].toUpper();
        if (!s.endsWith(QLatin1Char('.')) && !s.endsWith(QLatin1Char('?')) && !s.endsWith(QLatin1Char('!')))
            s += QLatin1Char('.');
        return s;
    };
    QString out = asSentence(message);
    const QString d = asSentence(detail);
    if (!d.isEmpty())
        out += QLatin1Char(' ') + d;
    const QString h = asSentence(hint);
    if (!h.isEmpty())
        out += QLatin1Char(' ') + h;
    if (out.isEmpty())
        out = asSentence(kindName() + QLatin1String(" error"));
    return out;
}

struct WarehouseClient::Private {
    quint64 nextToken = 1;
    QHash<QString, quint64> latestByChannel;
    QHash<quint64, bool> openTokens;  // pending open() tokens
    warehouse::CancelHandle cancelHandle;
    QString description;
    bool open = false;
    std::shared_ptr<Mailbox> mailbox;
    std::shared_ptr<IoState> io;
    std::shared_ptr<warehouse::IoThread> thread = sharedIoThread();  // the process's I/O thread

    void enqueue(Request r)
    {
        // The raw thread, not a share of it: the I/O thread must never hold the last one.
        // It outlives this handler, which runs before the destructor's close (FIFO).
        post(thread->executor(), [t = thread.get(), s = io, r = std::move(r)]() mutable {
            if (!r.channel.empty())
                s->latestByChannel[r.channel] = r.token;
            s->queue.push_back(std::move(r));
            if (s->pumping)
                return;
            s->pumping = true;
            t->spawn(pump(s), [](warehouse::Done) {});
        });
    }
};

WarehouseClient::WarehouseClient(QObject *parent)
    : QObject(parent)
    , d(std::make_unique<Private>())
{
    qRegisterMetaType<DatabaseError>();
    qRegisterMetaType<QueryResult>();

    d->mailbox = std::make_shared<Mailbox>(this, [this](Answer a) {
        switch (a.kind) {
        case Answer::Kind::Notice:
            Q_EMIT noticeReceived(a.severity, a.text);
            return;
        case Answer::Kind::CancelFailed:
            Q_EMIT cancelFailed(a.text);
            return;
        default:
            break;
        }
        const bool wasOpen = d->openTokens.remove(a.token);
        if (!a.channel.isEmpty() && d->latestByChannel.value(a.channel) != a.token)
            return;
        switch (a.kind) {
        case Answer::Kind::Opened:
            d->open = true;
            d->description = a.text;
            d->cancelHandle = a.cancelHandle;
            Q_EMIT opened(a.token, a.text);
            break;
        case Answer::Kind::Finished:
            Q_EMIT queryFinished(a.token, a.result);
            break;
        case Answer::Kind::Failed:
            if (wasOpen || a.error.kind == warehouse::ErrorKind::Connection) {
                d->open = false;
                d->description.clear();
                d->cancelHandle = {};
            }
            Q_EMIT failed(a.token, a.error);
            break;
        default:
            break;
        }
    });
    d->io = std::make_shared<IoState>();
    d->io->mailbox = d->mailbox;
}

WarehouseClient::~WarehouseClient()
{
    d->mailbox->detach();
    std::promise<void> closed;
    std::future<void> done = closed.get_future();
    post(d->thread->executor(), [s = d->io, &closed] {
        s->queue.clear();
        if (s->connection)
            s->connection->close();
        s->connection.reset();
        closed.set_value();
    });
    // PQfinish only sends a Terminate message and closes the socket; it does not wait.
    done.wait();
}

quint64 WarehouseClient::open(const QString &conninfo)
{
    const quint64 token = d->nextToken++;
    d->openTokens.insert(token, true);
    Request r;
    r.kind = Request::Kind::Open;
    r.token = token;
    r.text = toUtf8(conninfo);
    d->enqueue(std::move(r));
    return token;
}

quint64 WarehouseClient::query(const QString &sql, const QStringList &params, const QString &channel)
{
    const quint64 token = d->nextToken++;
    Request r;
    r.kind = Request::Kind::Query;
    r.token = token;
    r.text = toUtf8(sql);
    r.params.reserve(static_cast<std::size_t>(params.size()));
    for (const QString &p : params)
        r.params.push_back(p.isNull() ? warehouse::Value() : warehouse::Value(toUtf8(p)));
    if (!channel.isEmpty()) {
        d->latestByChannel.insert(channel, token);
        r.channel = toUtf8(channel);
        r.channelText = channel;
    }
    d->enqueue(std::move(r));
    return token;
}

void WarehouseClient::cancel()
{
    post(d->thread->executor(), [s = d->io] {
        std::deque<Request> waiting;
        waiting.swap(s->queue);
        for (const Request &r : waiting)
            if (!s->isStale(r))
                s->fail(r, warehouse::Error::make(warehouse::ErrorKind::Cancelled,
                                                  "cancelled before it started"));
    });
    if (!d->cancelHandle.valid())
        return;
    // PQcancel blocks for a round trip: neither the GUI thread nor the I/O thread may.
    QThreadPool::globalInstance()->start([handle = d->cancelHandle, mailbox = d->mailbox] {
        std::string why;
        if (handle.cancel(&why))
            return;
        Answer a;
        a.kind = Answer::Kind::CancelFailed;
        a.text = why.empty() ? QStringLiteral("the cancel request could not be sent") : fromUtf8(why);
        mailbox->send(std::move(a));
    });
}

bool WarehouseClient::isOpen() const
{
    return d->open;
}

QString WarehouseClient::description() const
{
    return d->description;
}

QString WarehouseClient::displayConninfo(const QString &conninfo)
{
    return fromUtf8(warehouse::redactConninfo(toUtf8(conninfo)));
}

QStringList WarehouseClient::passwordsIn(const QString &conninfo)
{
    QStringList out;
    for (const std::string &p : reprint::model::passwordsIn(toUtf8(conninfo)))
        out << fromUtf8(p);
    return out;
}

} // namespace reprint::model
