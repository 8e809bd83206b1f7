#pragma once
// The GUI's door to a warehouse before any spec is open: "Test connection", the tables to
// draft a spec from, and one table's catalog with the proposed spec
// (backfill/connectioncheck.h, backfill/specdraft.h).
//
// Thread affinity: lives on the thread that created it (the GUI thread); call every member
// there; every signal is emitted there. The work runs on the client's own I/O thread, each
// request on a connection of its own; the GUI thread never waits on the database.
//
// Tokens: every request returns a token at once and is answered exactly once, by its
// *Finished signal or by failed(), unless a newer request of the same kind made it stale
// (only the latest check, list and table read are answered). Destroying the client
// abandons what is still running, unanswered.
//
// Secrets: no signal carries a password: the facts describe the connection as
// "user@database via host", and error texts are scrubbed of the password the conninfo
// holds (on top of the warehouse layer's own scrubbing).

#include "warehouseclient.h"

#include "backfill/connectioncheck.h"
#include "backfill/specdraft.h"

#include <QObject>

#include <memory>
#include <vector>

namespace reprint::model {

using CatalogTables = std::vector<backfill::CatalogTable>;

class WarehouseCatalogClient : public QObject {
    Q_OBJECT

public:
    explicit WarehouseCatalogClient(QObject *parent = nullptr);
    // Stops and joins the I/O thread first.
    ~WarehouseCatalogClient() override;

    quint64 checkConnection(const QString &conninfo);
    quint64 listTables(const QString &conninfo);
    // Reads `schema.table` and proposes a draft for it (warehouse: line = conninfo, redacted).
    quint64 readTable(const QString &conninfo, const QString &schema, const QString &table);

Q_SIGNALS:
    void connectionChecked(quint64 token, const reprint::backfill::ConnectionFacts &facts);
    void tablesListed(quint64 token, const reprint::model::CatalogTables &tables);
    void tableRead(quint64 token, const reprint::backfill::TableCatalog &catalog,
                   const reprint::backfill::SpecDraft &proposal);
    void failed(quint64 token, const reprint::model::DatabaseError &error);

private:
    struct Private;
    std::unique_ptr<Private> d;
};

} // namespace reprint::model

Q_DECLARE_METATYPE(reprint::backfill::ConnectionFacts)
Q_DECLARE_METATYPE(reprint::model::CatalogTables)
Q_DECLARE_METATYPE(reprint::backfill::TableCatalog)
Q_DECLARE_METATYPE(reprint::backfill::SpecDraft)
