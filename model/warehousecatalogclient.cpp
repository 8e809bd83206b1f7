#include "warehousecatalogclient.h"

#include "engineclient.h"
#include "iobridge.h"

#include <QMetaObject>

namespace reprint::model {

using warehouse::Result;
using warehouse::Task;

namespace {

int registerTypes()
{
    qRegisterMetaType<backfill::ConnectionFacts>();
    qRegisterMetaType<CatalogTables>();
    qRegisterMetaType<backfill::TableCatalog>();
    qRegisterMetaType<backfill::SpecDraft>();
    qRegisterMetaType<DatabaseError>();
    return 0;
}

QString scrubbed(QString text, const QStringList &secrets)
{
    for (const QString &secret : secrets)
        if (!secret.isEmpty())
            text.replace(secret, QStringLiteral("********"));
    return text;
}

} // namespace

struct WarehouseCatalogClient::Private {
    quint64 nextToken = 0;
    quint64 latestCheck = 0;
    quint64 latestList = 0;
    quint64 latestRead = 0;
    IoLane io;  // the process's I/O thread, and this client's way back from it

    explicit Private(WarehouseCatalogClient *self) : io(self) {}

    // Runs `task` on the I/O thread; its value comes back to `self` on the GUI thread and
    // goes to `deliver` while `token` is still the latest of its kind (`latest`).
    template <typename T, typename Deliver>
    void start(WarehouseCatalogClient *self, quint64 token, const quint64 *latest, const QString &conninfo,
               Task<Result<T>> task, Deliver deliver)
    {
        const QStringList secrets = WarehouseClient::passwordsIn(conninfo);
        io.thread->spawn(std::move(task), [gate = io.gate, self, token, latest, secrets, deliver](Result<T> r) mutable {
            gate->post(
                [self, token, latest, secrets, deliver, r = std::move(r)]() mutable {
                    if (*latest != token)
                        return;
                    if (r.ok()) {
                        deliver(std::move(r.value()));
                        return;
                    }
                    DatabaseError e = toDatabaseError(r.error());
                    e.message = scrubbed(e.message, secrets);
                    e.detail = scrubbed(e.detail, secrets);
                    e.hint = scrubbed(e.hint, secrets);
                    Q_EMIT self->failed(token, e);
                });
        });
    }
};

WarehouseCatalogClient::WarehouseCatalogClient(QObject *parent)
    : QObject(parent)
    , d(std::make_unique<Private>(this))
{
    static const int registered = registerTypes();
    Q_UNUSED(registered);
}

WarehouseCatalogClient::~WarehouseCatalogClient()
{
    // Close the way back first, so that no answer reaches a dying object.
    d->io.gate->close();
}

quint64 WarehouseCatalogClient::checkConnection(const QString &conninfo)
{
    const quint64 token = d->latestCheck = ++d->nextToken;
    d->start<backfill::ConnectionFacts>(this, token, &d->latestCheck, conninfo,
                                        backfill::checkConnection(conninfo.toStdString()),
                                        [this, token](backfill::ConnectionFacts f) { Q_EMIT connectionChecked(token, f); });
    return token;
}

quint64 WarehouseCatalogClient::listTables(const QString &conninfo)
{
    const quint64 token = d->latestList = ++d->nextToken;
    d->start<CatalogTables>(this, token, &d->latestList, conninfo, backfill::listCatalogTables(conninfo.toStdString()),
                            [this, token](CatalogTables t) { Q_EMIT tablesListed(token, t); });
    return token;
}

quint64 WarehouseCatalogClient::readTable(const QString &conninfo, const QString &schema, const QString &table)
{
    const quint64 token = d->latestRead = ++d->nextToken;
    const std::string info = conninfo.toStdString();
    d->start<backfill::TableCatalog>(
        this, token, &d->latestRead, conninfo,
        backfill::readTableCatalog(info, backfill::QualifiedName{schema.toStdString(), table.toStdString()}),
        [this, token, info](backfill::TableCatalog c) {
            const backfill::SpecDraft proposal = backfill::proposeDraft(c, info);
            Q_EMIT tableRead(token, c, proposal);
        });
    return token;
}

} // namespace reprint::model
