#pragma once
// The GUI's door to the engine: a QObject that runs backfill::Engine operations on an
// I/O thread and delivers their results as values through queued calls.
//
// Thread affinity: lives on the thread that created it (the GUI thread); call every
// member there; every signal is emitted there. Engine coroutines run on the client's own
// I/O thread; the GUI thread never waits on the database.
//
// Tokens: every operation returns a token at once and is answered exactly once, by its
// *Finished signal or by failed(), unless it went stale: setSpec() makes every answer of
// the previous engine stale, and stale answers are dropped, never emitted.
//
// Cancel: cancel(token) asks the operation to stop (libpq's cancel API, from a worker
// thread). The operation then answers failed() with kind "cancelled", or its normal
// result if it finished first; the engine reads state back from the database either way.

#include "warehouseclient.h"

#include "backfill/calendarfacts.h"
#include "backfill/engine.h"
#include "backfill/reviewfacts.h"
#include "backfill/spec.h"

#include <QObject>

#include <memory>
#include <vector>

namespace reprint::model {

using StatusRows = std::vector<backfill::StatusRow>;
using HistoryRows = std::vector<backfill::HistoryRow>;

class EngineClient : public QObject {
    Q_OBJECT

public:
    explicit EngineClient(QObject *parent = nullptr);
    // Stops the I/O thread first (running operations are abandoned unanswered).
    ~EngineClient() override;

    // The spec and connection the engine works with. Answers still pending from the
    // previous spec become stale.
    void setSpec(const backfill::Spec &spec, const QString &conninfo);
    bool hasSpec() const;
    const backfill::Spec &spec() const;

    quint64 status(const QString &model, const QString &from, const QString &to,
                   backfill::StatusReads reads = backfill::StatusReads::TotalsAndChecks);
    quint64 backfill(const backfill::BackfillRequest &request);
    quint64 review(qint64 backfillId);
    quint64 rowDiff(qint64 backfillId, const QString &partition);
    quint64 publish(const backfill::PublishRequest &request);
    quint64 undo(const backfill::UndoRequest &request);
    quint64 abandon(qint64 backfillId);
    // Asks the process staging `backfillId` (this one or another: the CLI, another
    // window) to cancel it; answered by cancelRequested(token, holder) once asked. The
    // backfill's own answer shows in watch()'s progress.
    quint64 requestCancel(qint64 backfillId);
    quint64 history(const QString &model = {});
    void cancel(quint64 token);

    // Follows a backfill wherever it runs: progressChanged() now, then whenever the
    // warehouse announces a change (LISTEN on its own connection), at most every
    // `minIntervalMs` (bursts are coalesced into one read), and at least every `pollMs`
    // as a fallback. Until unwatch(token) or setSpec().
    quint64 watch(qint64 backfillId, int pollMs = 5000, int minIntervalMs = 100);
    void unwatch(quint64 token);

    // Follows the warehouse's announcements of changed partitions (channel
    // reprint_partitions: a backfill or run recorded or changing status, a claim taken or
    // released), made by any process: partitionsChanged() for each, the announcements of
    // one burst merged per model (at most one signal per model every `minIntervalMs`).
    // A lost connection is opened again every few seconds; meanwhile nothing is announced.
    // Until unwatch(token) or setSpec().
    quint64 watchPartitions(int minIntervalMs = 200);
    // How fast the model's partitions staged in its latest backfills and runs.
    quint64 throughput(const QString &model);
    // The warehouse's Reprint schema version and this build's.
    quint64 schemaVersions();

    // The review's read-only facts (backfill/reviewfacts.h): claim and lease, scope,
    // transform hash, stored diffs; a page of a partition's row diff; the rows either side
    // of a boundary; what a review packet shows.
    quint64 facts(qint64 backfillId);
    quint64 rowDiffPage(qint64 backfillId, const QString &partition, qint64 offset, int limit);
    quint64 edgeRows(qint64 backfillId, const QString &partition, int minutes);
    quint64 packetData(qint64 backfillId);

Q_SIGNALS:
    void progressChanged(quint64 token, const reprint::backfill::BackfillProgress &progress);
    void statusFinished(quint64 token, const reprint::model::StatusRows &rows);
    // Per-partition progress of a backfill, as it happens (not coalesced here).
    void backfillProgressed(quint64 token, const reprint::backfill::BackfillEvent &event);
    void backfillFinished(quint64 token, const reprint::backfill::BackfillOutcome &outcome);
    void reviewFinished(quint64 token, const reprint::backfill::Review &review);
    void rowDiffFinished(quint64 token, const reprint::backfill::RowDiff &diff);
    void publishFinished(quint64 token, const reprint::backfill::PublishOutcome &outcome);
    void undoFinished(quint64 token, const reprint::backfill::UndoOutcome &outcome);
    void abandonFinished(quint64 token);
    void cancelRequested(quint64 token, const QString &holder);
    void historyFinished(quint64 token, const reprint::model::HistoryRows &rows);
    // [start, end) in UTC, end exclusive.
    void partitionsChanged(quint64 token, const QString &model, const QDateTime &start, const QDateTime &end);
    void throughputFinished(quint64 token, const reprint::backfill::Throughput &throughput);
    void schemaVersionsFinished(quint64 token, const reprint::backfill::SchemaVersions &versions);
    void factsFinished(quint64 token, const reprint::backfill::ReviewFacts &facts);
    void rowDiffPageFinished(quint64 token, const reprint::backfill::RowDiffPage &page);
    void edgeRowsFinished(quint64 token, const reprint::backfill::EdgeRows &rows);
    void packetDataFinished(quint64 token, const reprint::backfill::ReviewPacketData &data);
    void failed(quint64 token, const reprint::model::DatabaseError &error);

private:
    // Starts `make(engine, cancel)` as a new operation and returns its token; a cancellable
    // one gets a cancel token that cancel(token) reaches. `deliver(token, value)` runs on
    // the GUI thread unless the spec changed meanwhile; a failure comes as failed().
    enum class Cancellable { No, Yes };
    template <typename T, typename Make, typename Deliver>
    quint64 run(Cancellable cancellable, Make make, Deliver deliver);

    struct Private;
    std::unique_ptr<Private> d;
};

// The UI's form of an engine error.
// `specPath`: the spec the commands in the message and hint are completed with
// (backfill::completeCommands), so that a hint the GUI shows runs as printed.
DatabaseError toDatabaseError(const warehouse::Error &error, const std::string &specPath = {});

} // namespace reprint::model

Q_DECLARE_METATYPE(reprint::model::StatusRows)
Q_DECLARE_METATYPE(reprint::model::HistoryRows)
Q_DECLARE_METATYPE(reprint::backfill::BackfillEvent)
Q_DECLARE_METATYPE(reprint::backfill::BackfillOutcome)
Q_DECLARE_METATYPE(reprint::backfill::Review)
Q_DECLARE_METATYPE(reprint::backfill::RowDiff)
Q_DECLARE_METATYPE(reprint::backfill::PublishOutcome)
Q_DECLARE_METATYPE(reprint::backfill::UndoOutcome)
Q_DECLARE_METATYPE(reprint::backfill::BackfillProgress)
Q_DECLARE_METATYPE(reprint::backfill::Throughput)
Q_DECLARE_METATYPE(reprint::backfill::SchemaVersions)
Q_DECLARE_METATYPE(reprint::backfill::ReviewFacts)
Q_DECLARE_METATYPE(reprint::backfill::RowDiffPage)
Q_DECLARE_METATYPE(reprint::backfill::EdgeRows)
Q_DECLARE_METATYPE(reprint::backfill::ReviewPacketData)
