#pragma once
// The Run screen: one backfill as it claims its window, stages and validates, read back
// from the warehouse, so that a backfill started here, by another reprint-review, or by
// `reprint backfill` in a terminal shows alike.
//
// Sources: start() runs a backfill through the EngineClient; its events feed the log and
// the phase until the warehouse has its id. From then on (and for follow()) the screen
// watches the backfill (EngineClient::watch: LISTEN/NOTIFY on its own connection, with a
// slow poll); every snapshot feeds the partition table (BackfillProgressModel, coalesced),
// the totals, the claim panel and the log. The chart reads ThroughputSeriesModel through
// QVXYModelMapper and never queries.
//
// Controls: Cancel only for a backfill this screen started: it asks first, then shows
// "cancelling…" until the warehouse reports the backfill stopped (or finished first).
// Resume and Retry failed start a backfill with resumeId (and retryFailed). Review emits
// reviewRequested(); when nothing is connected to it, the stored review opens read-only
// in a dialog.
//
// Thread affinity: GUI thread. The screen never waits on the database. The EngineClient
// is not owned; when it goes first (a window's children die in creation order), the
// screen stops using it.

#include "backfill/engine.h"

#include <QDateTime>
#include <QPointer>
#include <QTimer>
#include <QWidget>

class QChart;
class QChartView;
class QComboBox;
class QGroupBox;
class QLabel;
class QLayout;
class QLineSeries;
class QProgressBar;
class QPushButton;
class QSortFilterProxyModel;
class QStackedWidget;
class QTableView;
class QValueAxis;

namespace reprint::model {
class BackfillProgressModel;
class EngineClient;
class RunLogModel;
class ThroughputSeriesModel;
struct DatabaseError;
} // namespace reprint::model

namespace reprint::views {

class RunScreen : public QWidget {
    Q_OBJECT

public:
    enum class Phase {
        Idle,              // nothing shown
        Claiming,          // started; the window is not claimed yet
        Staging,
        Validating,        // every partition staged; totals being compared
        Cancelling,        // cancel asked; the warehouse has not confirmed yet
        Staged,            // validated and passed: ready for review
        ValidationFailed,  // staged, but validation failed: review, override or abandon
        Cancelled,
        Failed,
        Stalled,           // interrupted: still "staging", but its process is gone (lease lapsed, or
                           // a process of this host that no longer runs): resume or abandon
        Published,
        Undone,
        Abandoned,
    };
    Q_ENUM(Phase)

    explicit RunScreen(model::EngineClient *engine, QWidget *parent = nullptr);
    ~RunScreen() override;

    // Asked by the main window when it is about to close. Returns true when it may close:
    // no backfill started here is running, or the user chose to leave it (it stops with
    // this process; its claim lapses with its lease and `reprint backfill --resume` finishes
    // it). When the user chooses to cancel it, the cancel is sent, false is returned, and
    // the window closes itself once the warehouse confirms.
    bool confirmClose(QWidget *parent);

    qint64 backfillId() const { return m_id; }
    Phase phase() const { return m_phase; }
    // A backfill started by this screen is running in this process.
    bool isRunning() const { return m_runToken != 0; }
    bool isTerminal() const { return isTerminal(m_phase); }
    static bool isTerminal(Phase phase);
    static QString phaseLabel(Phase phase);
    // The last snapshot read back from the warehouse.
    const backfill::BackfillProgress &progress() const { return m_last; }

    model::BackfillProgressModel *progressModel() const { return m_progress; }
    model::ThroughputSeriesModel *throughputModel() const { return m_series; }
    model::RunLogModel *logModel() const { return m_log; }
    QSortFilterProxyModel *logFilterModel() const { return m_logFilter; }
    QTableView *partitionTable() const { return m_table; }
    QPushButton *cancelButton() const { return m_cancel; }
    QPushButton *resumeButton() const { return m_resume; }
    QPushButton *retryButton() const { return m_retry; }
    QPushButton *reviewButton() const { return m_review; }
    QPushButton *abandonButton() const { return m_abandon; }
    // The ETA as shown ("about 0:42", "estimating…", ...).
    QString etaText() const;

public Q_SLOTS:
    // Runs `request` (a new backfill, or a resume) and shows it. Ignored, with a log line,
    // while a backfill started here is still running.
    void start(const reprint::backfill::BackfillRequest &request);
    // Shows backfill `backfillId`, wherever it runs.
    void follow(qint64 backfillId);
    // Looks up `model`'s history; when a backfill of it is in flight (staging or planned,
    // its lease alive), follows it and emits inFlightFound(). Does nothing while a
    // backfill started here is running.
    void followLatestInFlight(const QString &model);

Q_SIGNALS:
    void reviewRequested(qint64 backfillId);
    // The screen now shows backfill `backfillId`.
    void followed(qint64 backfillId);
    // followLatestInFlight() found backfill `backfillId` in flight.
    void inFlightFound(qint64 backfillId);
    void phaseChanged(reprint::views::RunScreen::Phase phase);
    // A snapshot from the warehouse was applied (tests and the stall probe count these).
    void snapshotApplied(qint64 backfillId);

protected:
    void changeEvent(QEvent *event) override;

private:
    void buildUi();
    QWidget *buildRunPage();
    QLayout *buildRunHeader(QWidget *page);
    QTableView *buildPartitionTable(QWidget *parent);
    QChartView *buildThroughputChart(QWidget *parent);
    QGroupBox *buildClaimPanel(QWidget *parent);
    QWidget *buildLogPane(QWidget *parent);
    void applyChartTheme();
    void reset();
    void showPlannedPartitions(const backfill::BackfillRequest &request);
    void attach(qint64 id);
    void refollow();
    void applySnapshot(const backfill::BackfillProgress &snapshot);
    void logChanges(const backfill::BackfillProgress &before, const backfill::BackfillProgress &after, bool first);
    Phase phaseOf(const backfill::BackfillProgress &snapshot) const;
    void setPhase(Phase phase);
    void setBanner(const QString &text, bool error);
    void refreshStats();
    void refreshClaim();
    void refreshControls();
    void refreshHeader();
    void updateAxes();
    void tick();
    void askCancel();
    void sendCancel();
    void askAbandon();
    void resume(bool retryFailed);
    void openReview();
    void copyLog();
    void onProgressed(quint64 token, const backfill::BackfillEvent &event);
    void onFinished(quint64 token, const backfill::BackfillOutcome &outcome);
    void onFailed(quint64 token, const model::DatabaseError &error);
    void onHistory(quint64 token, const std::vector<backfill::HistoryRow> &rows);
    void onReview(quint64 token, const backfill::Review &review);
    void applyVerdicts(const backfill::Review &review);
    void runEnded();
    double elapsedSeconds() const;

    QPointer<model::EngineClient> m_engine;
    model::BackfillProgressModel *m_progress;
    model::ThroughputSeriesModel *m_series;
    model::RunLogModel *m_log;
    QSortFilterProxyModel *m_logFilter;

    qint64 m_id = 0;
    quint64 m_runToken = 0;
    quint64 m_watchToken = 0;
    quint64 m_historyToken = 0;
    quint64 m_verdictToken = 0;
    quint64 m_dialogToken = 0;
    quint64 m_remoteCancelToken = 0;  // a cancel asked of the process staging elsewhere
    quint64 m_abandonToken = 0;
    backfill::BackfillRequest m_request;
    backfill::BackfillProgress m_last;
    bool m_haveSnapshot = false;
    bool m_startedHere = false;
    bool m_cancelRequested = false;
    bool m_closeWhenStopped = false;
    bool m_verdictsLoaded = false;
    bool m_watchFailing = false;
    Phase m_phase = Phase::Idle;
    int m_eventTotal = 0;
    QStringList m_heldLog;          // engine lines said before the snapshot that leads to them
    bool m_segmentPending = false;  // followed, it stopped and runs again: a new throughput segment
    QString m_runError;        // why a run started here failed before the warehouse knew it
    QString m_validationMessage;
    QDateTime m_startedAt;
    QDateTime m_finishedAt;
    // ETA: progress observed since m_observedFrom, and a smoothed finish time.
    QDateTime m_observedFrom;
    int m_observedDone = -1;
    double m_etaFinish = 0;    // seconds since epoch; 0 = none yet
    QTimer m_tick;

    QStackedWidget *m_pages = nullptr;
    QLabel *m_title = nullptr;
    QLabel *m_subtitle = nullptr;
    QLabel *m_phaseChip = nullptr;
    QLabel *m_banner = nullptr;
    QProgressBar *m_bar = nullptr;
    QLabel *m_doneValue = nullptr;
    QLabel *m_rowsValue = nullptr;
    QLabel *m_rateValue = nullptr;
    QLabel *m_elapsedValue = nullptr;
    QLabel *m_etaValue = nullptr;
    QLabel *m_claimHolder = nullptr;
    QLabel *m_claimLease = nullptr;
    QLabel *m_claimHeartbeat = nullptr;
    QLabel *m_claimWaits = nullptr;
    QTableView *m_table = nullptr;
    QTableView *m_logView = nullptr;
    QComboBox *m_logLevel = nullptr;
    QPushButton *m_cancel = nullptr;
    QPushButton *m_resume = nullptr;
    QPushButton *m_retry = nullptr;
    QPushButton *m_review = nullptr;
    QPushButton *m_abandon = nullptr;
    QChartView *m_chartView = nullptr;
    QChart *m_chart = nullptr;
    QLineSeries *m_rateSeries = nullptr;
    QLineSeries *m_doneSeries = nullptr;
    QValueAxis *m_axisX = nullptr;
    QValueAxis *m_axisRate = nullptr;
    QValueAxis *m_axisDone = nullptr;
    QPointer<QWidget> m_closeTarget;
};

} // namespace reprint::views
