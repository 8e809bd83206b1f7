#pragma once
// The review screen's door to the engine's read-only review facts (backfill/reviewfacts.h):
// claim and lease, scope, transform hash, stored diffs; row-diff pages; edge rows.
//
// Thread affinity: lives on the thread that created it (the GUI thread); call every member
// there; every signal is emitted there. The reads run on the client's own I/O thread; the
// GUI thread never waits on the database.
//
// Tokens: every request returns a token at once and is answered exactly once, by its
// *Finished signal or by failed(), unless setSpec() made it stale (then it is dropped).

#include "warehouseclient.h"

#include "backfill/reviewfacts.h"
#include "backfill/spec.h"

#include <QObject>

#include <memory>

namespace reprint::model {

class ReviewFactsClient : public QObject {
    Q_OBJECT

public:
    explicit ReviewFactsClient(QObject *parent = nullptr);
    // Joins the I/O thread first; pending requests are abandoned unanswered.
    ~ReviewFactsClient() override;

    void setSpec(const backfill::Spec &spec, const QString &conninfo);
    bool hasSpec() const;

    quint64 facts(qint64 backfillId);
    quint64 rowDiffPage(qint64 backfillId, const QString &partition, qint64 offset, int limit);
    quint64 edgeRows(qint64 backfillId, const QString &partition, int minutes);
    // What a review packet shows (backfill::reviewPacketData): answered by packetDataFinished.
    quint64 packetData(qint64 backfillId);

Q_SIGNALS:
    void factsFinished(quint64 token, const reprint::backfill::ReviewFacts &facts);
    void rowDiffPageFinished(quint64 token, const reprint::backfill::RowDiffPage &page);
    void edgeRowsFinished(quint64 token, const reprint::backfill::EdgeRows &rows);
    void packetDataFinished(quint64 token, const reprint::backfill::ReviewPacketData &data);
    void failed(quint64 token, const reprint::model::DatabaseError &error);

private:
    struct Private;
    std::unique_ptr<Private> d;
};

} // namespace reprint::model

Q_DECLARE_METATYPE(reprint::backfill::ReviewFacts)
Q_DECLARE_METATYPE(reprint::backfill::RowDiffPage)
Q_DECLARE_METATYPE(reprint::backfill::EdgeRows)
Q_DECLARE_METATYPE(reprint::backfill::ReviewPacketData)
