#include "reviewfactsclient.h"

#include "engineclient.h"

#include "iobridge.h"

#include <QMetaObject>

namespace reprint::model {

using warehouse::Result;
using warehouse::Task;

struct ReviewFactsClient::Private {
    explicit Private(ReviewFactsClient *self) : io(self) {}

    IoLane io;  // the process's I/O thread, and this client's way back from it
    std::shared_ptr<backfill::Engine> engine;
    quint64 nextToken = 0;
    quint64 generation = 0;

    // Runs `make(engine)` on the I/O thread and hands its value to `deliver` on the GUI
    // thread, unless the spec changed meanwhile.
    template <typename T, typename Make, typename Deliver>
    quint64 start(ReviewFactsClient *self, Make make, Deliver deliver)
    {
        const quint64 token = ++nextToken;
        if (!engine) {
            const auto e = warehouse::Error::make(warehouse::ErrorKind::Usage, "no spec is open", "Open a spec first.");
            QMetaObject::invokeMethod(self, [self, token, e] { Q_EMIT self->failed(token, toDatabaseError(e)); },
                                      Qt::QueuedConnection);
            return token;
        }
        auto task = [](std::shared_ptr<backfill::Engine> eng, Make m) -> Task<Result<T>> {
            co_return co_await m(*eng);
        }(engine, std::move(make));
        const quint64 gen = generation;
        const quint64 *current = &generation;
        io.thread->spawn(std::move(task), [gate = io.gate, self, token, gen, current, deliver](Result<T> r) mutable {
            gate->post(
                [self, token, gen, current, deliver, r = std::move(r)]() mutable {
                    if (gen != *current)
                        return;
                    if (r.ok())
                        deliver(token, std::move(r.value()));
                    else
                        Q_EMIT self->failed(token, toDatabaseError(r.error()));
                });
        });
        return token;
    }
};

ReviewFactsClient::ReviewFactsClient(QObject *parent)
    : QObject(parent)
    , d(std::make_unique<Private>(this))
{
    static const int registered = [] {
        qRegisterMetaType<backfill::ReviewFacts>();
        qRegisterMetaType<backfill::RowDiffPage>();
        qRegisterMetaType<backfill::EdgeRows>();
        qRegisterMetaType<backfill::ReviewPacketData>();
        qRegisterMetaType<DatabaseError>();
        return 0;
    }();
    Q_UNUSED(registered);
}

ReviewFactsClient::~ReviewFactsClient()
{
    d->io.gate->close();  // first: no answer reaches a dying object
}

void ReviewFactsClient::setSpec(const backfill::Spec &spec, const QString &conninfo)
{
    ++d->generation;
    d->engine = std::make_shared<backfill::Engine>(spec, conninfo.toStdString());
}

bool ReviewFactsClient::hasSpec() const
{
    return static_cast<bool>(d->engine);
}

quint64 ReviewFactsClient::facts(qint64 backfillId)
{
    return d->start<backfill::ReviewFacts>(
        this, [backfillId](backfill::Engine &e) { return backfill::reviewFacts(e, backfillId); },
        [this](quint64 token, backfill::ReviewFacts f) { Q_EMIT factsFinished(token, f); });
}

quint64 ReviewFactsClient::rowDiffPage(qint64 backfillId, const QString &partition, qint64 offset, int limit)
{
    return d->start<backfill::RowDiffPage>(
        this,
        [backfillId, p = partition.toStdString(), offset, limit](backfill::Engine &e) {
            return backfill::rowDiffPage(e, backfillId, p, offset, limit);
        },
        [this](quint64 token, backfill::RowDiffPage page) { Q_EMIT rowDiffPageFinished(token, page); });
}

quint64 ReviewFactsClient::edgeRows(qint64 backfillId, const QString &partition, int minutes)
{
    return d->start<backfill::EdgeRows>(
        this,
        [backfillId, p = partition.toStdString(), minutes](backfill::Engine &e) {
            return backfill::edgeRows(e, backfillId, p, minutes);
        },
        [this](quint64 token, backfill::EdgeRows rows) { Q_EMIT edgeRowsFinished(token, rows); });
}

quint64 ReviewFactsClient::packetData(qint64 backfillId)
{
    return d->start<backfill::ReviewPacketData>(
        this, [backfillId](backfill::Engine &e) { return backfill::reviewPacketData(e, backfillId); },
        [this](quint64 token, backfill::ReviewPacketData data) { Q_EMIT packetDataFinished(token, data); });
}

} // namespace reprint::model
