#include "engineclient.h"

#include "iobridge.h"

#include <boost/asio/redirect_error.hpp>

#include <QMetaObject>
#include <QPointer>
#include <QThreadPool>

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>

namespace reprint::model {

using backfill::CancelTokenPtr;
using warehouse::Result;
using warehouse::Task;

DatabaseError toDatabaseError(const warehouse::Error &e, const std::string &specPath)
{
    DatabaseError out;
    out.kind = e.kind;
    out.sqlstate = QString::fromStdString(e.sqlstate);
    out.message = QString::fromStdString(backfill::completeCommands(e.message, specPath));
    out.detail = QString::fromStdString(e.detail);
    out.hint = QString::fromStdString(backfill::completeCommands(e.hint, specPath));
    return out;
}

struct EngineClient::Private {
    explicit Private(EngineClient *self) : io(self) {}

    IoLane io;  // the process's I/O thread, and this client's way back from it
    std::shared_ptr<backfill::Engine> engine;
    backfill::Spec emptySpec;
    quint64 nextToken = 0;
    quint64 generation = 0;
    std::map<quint64, CancelTokenPtr> cancels;  // GUI thread only
    std::map<quint64, std::shared_ptr<std::atomic<bool>>> watches;  // GUI thread only
};

namespace {
int registerTypes()
{
    qRegisterMetaType<StatusRows>();
    qRegisterMetaType<HistoryRows>();
    qRegisterMetaType<backfill::BackfillEvent>();
    qRegisterMetaType<backfill::BackfillOutcome>();
    qRegisterMetaType<backfill::Review>();
    qRegisterMetaType<backfill::RowDiff>();
    qRegisterMetaType<backfill::PublishOutcome>();
    qRegisterMetaType<backfill::UndoOutcome>();
    qRegisterMetaType<backfill::BackfillProgress>();
    qRegisterMetaType<backfill::Throughput>();
    qRegisterMetaType<backfill::SchemaVersions>();
    qRegisterMetaType<backfill::ReviewFacts>();
    qRegisterMetaType<backfill::RowDiffPage>();
    qRegisterMetaType<backfill::EdgeRows>();
    qRegisterMetaType<backfill::ReviewPacketData>();
    qRegisterMetaType<DatabaseError>();
    return 0;
}
} // namespace

EngineClient::EngineClient(QObject *parent)
    : QObject(parent)
    , d(std::make_unique<Private>(this))
{
    static const int registered = registerTypes();
    Q_UNUSED(registered);
}

EngineClient::~EngineClient()
{
    // Close the way back before anything else, so that no answer reaches this object
    // while it is being destroyed; the watches stop at their next wake.
    d->io.gate->close();
    for (auto &[token, stopped] : d->watches)
        *stopped = true;
}

void EngineClient::setSpec(const backfill::Spec &spec, const QString &conninfo)
{
    ++d->generation;
    for (auto &[token, stopped] : d->watches)
        *stopped = true;
    d->watches.clear();
    d->engine = std::make_shared<backfill::Engine>(spec, conninfo.toStdString());
}

bool EngineClient::hasSpec() const
{
    return static_cast<bool>(d->engine);
}

const backfill::Spec &EngineClient::spec() const
{
    return d->engine ? d->engine->spec() : d->emptySpec;
}

namespace {

// Starts `make(engine, cancel)` on the I/O thread; its value comes back to `self` on the
// GUI thread through `deliver`, unless the spec changed meanwhile. `cancels` (GUI thread
// only) forgets the operation's cancel token once it ended, however it ended.
template <typename T, typename Make, typename Deliver>
quint64 start(EngineClient *self, const IoLane &io, std::shared_ptr<backfill::Engine> engine, quint64 token,
              quint64 generation, const quint64 *currentGeneration, std::map<quint64, CancelTokenPtr> *cancels,
              CancelTokenPtr cancel, Make make, Deliver deliver)
{
    if (!engine) {
        cancels->erase(token);
        warehouse::Error e = warehouse::Error::make(warehouse::ErrorKind::Usage, "no spec is open", "Open a spec first.");
        QMetaObject::invokeMethod(self, [self, token, e] { Q_EMIT self->failed(token, toDatabaseError(e)); }, Qt::QueuedConnection);
        return token;
    }
    auto task = [](std::shared_ptr<backfill::Engine> eng, CancelTokenPtr c, Make m) -> Task<Result<T>> {
        co_return co_await m(*eng, c);
    }(engine, cancel, std::move(make));
    io.thread->spawn(std::move(task), [gate = io.gate, self, token, generation, currentGeneration, cancels, deliver](Result<T> r) mutable {
        gate->post(
            [self, token, generation, currentGeneration, cancels, deliver, r = std::move(r)]() mutable {
                cancels->erase(token);
                if (generation != *currentGeneration)
                    return;
                if (r.ok())
                    deliver(token, std::move(r.value()));
                else
                    Q_EMIT self->failed(token, toDatabaseError(r.error(), self->spec().path));
            });
    });
    return token;
}

} // namespace

template <typename T, typename Make, typename Deliver>
quint64 EngineClient::run(Cancellable cancellable, Make make, Deliver deliver)
{
    const quint64 token = ++d->nextToken;
    CancelTokenPtr cancel;
    if (cancellable == Cancellable::Yes)
        cancel = d->cancels[token] = std::make_shared<backfill::CancelToken>();
    return start<T>(this, d->io, d->engine, token, d->generation, &d->generation, &d->cancels, cancel, std::move(make),
                    std::move(deliver));
}

quint64 EngineClient::status(const QString &model, const QString &from, const QString &to, backfill::StatusReads reads)
{
    return run<StatusRows>(Cancellable::Yes,
                           [m = model.toStdString(), f = from.toStdString(), t = to.toStdString(), reads](backfill::Engine &e, CancelTokenPtr c) {
                               return e.status(m, f, t, c, reads);
                           },
                           [this](quint64 tk, StatusRows rows) {
                               Q_EMIT statusFinished(tk, rows);
                           });
}

quint64 EngineClient::backfill(const backfill::BackfillRequest &request)
{
    const quint64 token = ++d->nextToken;
    auto cancel = d->cancels[token] = std::make_shared<backfill::CancelToken>();
    const quint64 generation = d->generation;
    const quint64 *current = &d->generation;
    // Progress events hop to the GUI thread one by one; the views coalesce them.
    backfill::ProgressFn progress = [this, gate = d->io.gate, token, generation, current](const backfill::BackfillEvent &event) {
        gate->post(
            [this, token, generation, current, event] {
                if (generation == *current)
                    Q_EMIT backfillProgressed(token, event);
            });
    };
    return start<backfill::BackfillOutcome>(
        this, d->io, d->engine, token, generation, current, &d->cancels, cancel,
        [request, progress](backfill::Engine &e, CancelTokenPtr c) { return e.backfill(request, progress, c); },
        [this](quint64 tk, backfill::BackfillOutcome out) {
            Q_EMIT backfillFinished(tk, out);
        });
}

quint64 EngineClient::review(qint64 backfillId)
{
    return run<backfill::Review>(Cancellable::No,
                                 [backfillId](backfill::Engine &e, CancelTokenPtr) { return e.review(backfillId); },
                                 [this](quint64 tk, backfill::Review r) { Q_EMIT reviewFinished(tk, r); });
}

quint64 EngineClient::rowDiff(qint64 backfillId, const QString &partition)
{
    return run<backfill::RowDiff>(Cancellable::No,
                                  [backfillId, p = partition.toStdString()](backfill::Engine &e, CancelTokenPtr) {
                                      return e.rowDiff(backfillId, p);
                                  },
                                  [this](quint64 tk, backfill::RowDiff r) { Q_EMIT rowDiffFinished(tk, r); });
}

quint64 EngineClient::publish(const backfill::PublishRequest &request)
{
    return run<backfill::PublishOutcome>(Cancellable::Yes,
                                         [request](backfill::Engine &e, CancelTokenPtr c) { return e.publish(request, c); },
                                         [this](quint64 tk, backfill::PublishOutcome out) {
                                             Q_EMIT publishFinished(tk, out);
                                         });
}

quint64 EngineClient::undo(const backfill::UndoRequest &request)
{
    return run<backfill::UndoOutcome>(Cancellable::Yes,
                                      [request](backfill::Engine &e, CancelTokenPtr c) { return e.undo(request, c); },
                                      [this](quint64 tk, backfill::UndoOutcome out) {
                                          Q_EMIT undoFinished(tk, out);
                                      });
}

quint64 EngineClient::abandon(qint64 backfillId)
{
    return run<warehouse::Done>(Cancellable::No,
                                [backfillId](backfill::Engine &e, CancelTokenPtr) { return e.abandon(backfillId); },
                                [this](quint64 tk, warehouse::Done) { Q_EMIT abandonFinished(tk); });
}

quint64 EngineClient::requestCancel(qint64 backfillId)
{
    return run<std::string>(Cancellable::No,
                            [backfillId](backfill::Engine &e, CancelTokenPtr) { return e.requestCancel(backfillId); },
                            [this](quint64 tk, std::string holder) { Q_EMIT cancelRequested(tk, QString::fromStdString(holder)); });
}

quint64 EngineClient::history(const QString &model)
{
    return run<HistoryRows>(Cancellable::No,
                            [m = model.toStdString()](backfill::Engine &e, CancelTokenPtr) { return e.history(m); },
                            [this](quint64 tk, HistoryRows rows) { Q_EMIT historyFinished(tk, rows); });
}

quint64 EngineClient::throughput(const QString &model)
{
    return run<backfill::Throughput>(Cancellable::No,
                                     [m = model.toStdString()](backfill::Engine &e, CancelTokenPtr) {
                                         return backfill::pastThroughput(e, m);
                                     },
                                     [this](quint64 tk, backfill::Throughput t) { Q_EMIT throughputFinished(tk, t); });
}

quint64 EngineClient::schemaVersions()
{
    return run<backfill::SchemaVersions>(Cancellable::No,
                                         [](backfill::Engine &e, CancelTokenPtr) { return backfill::schemaVersions(e); },
                                         [this](quint64 tk, backfill::SchemaVersions v) {
                                             Q_EMIT schemaVersionsFinished(tk, v);
                                         });
}

quint64 EngineClient::facts(qint64 backfillId)
{
    return run<backfill::ReviewFacts>(Cancellable::No,
                                      [backfillId](backfill::Engine &e, CancelTokenPtr) {
                                          return backfill::reviewFacts(e, backfillId);
                                      },
                                      [this](quint64 tk, backfill::ReviewFacts f) { Q_EMIT factsFinished(tk, f); });
}

quint64 EngineClient::rowDiffPage(qint64 backfillId, const QString &partition, qint64 offset, int limit)
{
    return run<backfill::RowDiffPage>(Cancellable::No,
                                      [backfillId, p = partition.toStdString(), offset, limit](backfill::Engine &e, CancelTokenPtr) {
                                          return backfill::rowDiffPage(e, backfillId, p, offset, limit);
                                      },
                                      [this](quint64 tk, backfill::RowDiffPage page) { Q_EMIT rowDiffPageFinished(tk, page); });
}

quint64 EngineClient::edgeRows(qint64 backfillId, const QString &partition, int minutes)
{
    return run<backfill::EdgeRows>(Cancellable::No,
                                   [backfillId, p = partition.toStdString(), minutes](backfill::Engine &e, CancelTokenPtr) {
                                       return backfill::edgeRows(e, backfillId, p, minutes);
                                   },
                                   [this](quint64 tk, backfill::EdgeRows rows) { Q_EMIT edgeRowsFinished(tk, rows); });
}

quint64 EngineClient::packetData(qint64 backfillId)
{
    return run<backfill::ReviewPacketData>(Cancellable::No,
                                           [backfillId](backfill::Engine &e, CancelTokenPtr) {
                                               return backfill::reviewPacketData(e, backfillId);
                                           },
                                           [this](quint64 tk, backfill::ReviewPacketData data) {
                                               Q_EMIT packetDataFinished(tk, data);
                                           });
}

void EngineClient::cancel(quint64 token)
{
    auto it = d->cancels.find(token);
    if (it == d->cancels.end())
        return;
    CancelTokenPtr c = it->second;
    // PQcancel blocks for a round trip: never on the GUI thread.
    QThreadPool::globalInstance()->start([c] { c->cancel(); });
}

namespace {

// The watch loop, on the I/O thread. `stopped` is set by the GUI thread.
Task<void> follow(std::shared_ptr<backfill::Engine> engine, std::string conninfo, long long id, int pollMs, int minIntervalMs,
                  std::shared_ptr<std::atomic<bool>> stopped,
                  std::function<void(Result<backfill::BackfillProgress>)> deliver)
{
    backfill::ProgressListener listener(conninfo);
    const bool listening = (co_await listener.open()).ok();  // without it: poll only
    auto executor = co_await warehouse::asio::this_coro::executor;
    warehouse::asio::steady_timer pause(executor);
    while (!*stopped) {
        auto p = co_await engine->progress(id);
        if (*stopped)
            break;
        deliver(std::move(p));
        pause.expires_after(std::chrono::milliseconds(minIntervalMs));
        boost::system::error_code ec;
        co_await pause.async_wait(warehouse::asio::redirect_error(warehouse::asio::use_awaitable, ec));
        if (!listening) {
            pause.expires_after(std::chrono::milliseconds(pollMs));
            co_await pause.async_wait(warehouse::asio::redirect_error(warehouse::asio::use_awaitable, ec));
            continue;
        }
        // Wait for an announcement about this backfill, then drain the burst behind it.
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(pollMs);
        while (!*stopped) {
            const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
            if (left.count() <= 0)
                break;
            auto n = co_await listener.next(std::min(left, std::chrono::milliseconds(500)));
            if (!n)
                break;
            if (*n && **n == id) {
                while (true) {
                    auto more = co_await listener.next(std::chrono::milliseconds(0));
                    if (!more || !*more)
                        break;
                }
                break;
            }
        }
    }
    listener.close();
}

// The partition announcements loop, on the I/O thread. `stopped` is set by the GUI thread.
Task<void> followPartitions(std::string conninfo, int minIntervalMs, std::shared_ptr<std::atomic<bool>> stopped,
                            std::function<void(std::vector<backfill::PartitionsChanged>)> deliver)
{
    backfill::PartitionListener listener(conninfo);
    auto executor = co_await warehouse::asio::this_coro::executor;
    warehouse::asio::steady_timer pause(executor);
    boost::system::error_code ec;
    while (!*stopped) {
        if (!listener.isOpen() && !(co_await listener.open()).ok()) {
            pause.expires_after(std::chrono::seconds(5));
            co_await pause.async_wait(warehouse::asio::redirect_error(warehouse::asio::use_awaitable, ec));
            continue;
        }
        auto n = co_await listener.next(std::chrono::milliseconds(500));
        if (!n || !*n)
            continue;
        // A burst: wait a little for the rest of it, then merge it per model.
        std::vector<backfill::PartitionsChanged> changes{**n};
        pause.expires_after(std::chrono::milliseconds(minIntervalMs));
        co_await pause.async_wait(warehouse::asio::redirect_error(warehouse::asio::use_awaitable, ec));
        while (!*stopped) {
            auto more = co_await listener.next(std::chrono::milliseconds(0));
            if (!more || !*more)
                break;
            auto same = std::find_if(changes.begin(), changes.end(),
                                     [&](const backfill::PartitionsChanged &c) { return c.model == (*more)->model; });
            if (same == changes.end()) {
                changes.push_back(**more);
            } else {
                same->start = std::min(same->start, (*more)->start);
                same->end = std::max(same->end, (*more)->end);
            }
        }
        if (!*stopped)
            deliver(std::move(changes));
    }
    listener.close();
}

} // namespace

quint64 EngineClient::watchPartitions(int minIntervalMs)
{
    const quint64 token = ++d->nextToken;
    if (!d->engine) {
        const warehouse::Error e = warehouse::Error::make(warehouse::ErrorKind::Usage, "no spec is open", "Open a spec first.");
        QMetaObject::invokeMethod(this, [this, token, e] { Q_EMIT failed(token, toDatabaseError(e)); }, Qt::QueuedConnection);
        return token;
    }
    auto stopped = std::make_shared<std::atomic<bool>>(false);
    d->watches[token] = stopped;
    const quint64 generation = d->generation;
    const quint64 *current = &d->generation;
    auto deliver = [this, gate = d->io.gate, token, generation, current, stopped](std::vector<backfill::PartitionsChanged> changes) {
        gate->post(
            [this, token, generation, current, stopped, changes = std::move(changes)] {
                if (*stopped || generation != *current)
                    return;
                for (const backfill::PartitionsChanged &c : changes)
                    Q_EMIT partitionsChanged(token, QString::fromStdString(c.model), c.start, c.end);
            });
    };
    warehouse::asio::co_spawn(d->io.thread->context(), followPartitions(d->engine->conninfo(), minIntervalMs, stopped, deliver),
                              warehouse::asio::detached);
    return token;
}

quint64 EngineClient::watch(qint64 backfillId, int pollMs, int minIntervalMs)
{
    const quint64 token = ++d->nextToken;
    if (!d->engine) {
        const warehouse::Error e = warehouse::Error::make(warehouse::ErrorKind::Usage, "no spec is open", "Open a spec first.");
        QMetaObject::invokeMethod(this, [this, token, e] { Q_EMIT failed(token, toDatabaseError(e)); }, Qt::QueuedConnection);
        return token;
    }
    auto stopped = std::make_shared<std::atomic<bool>>(false);
    d->watches[token] = stopped;
    const quint64 generation = d->generation;
    const quint64 *current = &d->generation;
    auto deliver = [this, gate = d->io.gate, token, generation, current, stopped](Result<backfill::BackfillProgress> r) {
        gate->post(
            [this, token, generation, current, stopped, r = std::move(r)] {
                if (*stopped || generation != *current)
                    return;
                if (r.ok())
                    Q_EMIT progressChanged(token, r.value());
                else
                    Q_EMIT failed(token, toDatabaseError(r.error(), spec().path));
            });
    };
    warehouse::asio::co_spawn(d->io.thread->context(),
                              follow(d->engine, d->engine->conninfo(), backfillId, pollMs, minIntervalMs, stopped, deliver),
                              warehouse::asio::detached);
    return token;
}

void EngineClient::unwatch(quint64 token)
{
    auto it = d->watches.find(token);
    if (it == d->watches.end())
        return;
    *it->second = true;
    d->watches.erase(it);
}

} // namespace reprint::model
