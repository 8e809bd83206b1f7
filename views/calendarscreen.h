#pragma once
// The Calendar page of a model: the partition calendar with its colour metric and
// legend, a detail pane for the partition under the cursor, the window's From/To fields,
// "Select failing", the under-scope warning (with Widen), and the plan of the backfill
// with its command line and a Start button.
//
// Data: the calendar opens from the statistics cached by the last refresh (a JSON file
// under the user's cache directory, per spec and model: read and written on a pool
// thread, shown when read unless the model changed meanwhile), then refreshes them through
// EngineClient::status() in chunks, newest first, with a progress bar and a cancel. A
// failed refresh keeps the data shown, says why, and offers a retry. The screen runs no
// SQL of its own.
//
// Staying true: the screen follows the warehouse's announcements of changed partitions
// (EngineClient::watchPartitions: a backfill, run, publish, undo, abandon or claim made by
// any process) and re-reads the partitions of the model shown that they name, with the
// history, without the user pressing Refresh. An announcement that arrives during a
// refresh is read once that refresh ends.
//
// Start backfill… confirms the plan in a dialog (objectName "confirmBackfill": the
// window, partitions, rows, the estimate, boundary, downstream models with their
// windows, the under-scope warning) before backfillRequested() is emitted.
//
// Thread affinity: GUI thread. The EngineClient is not owned; the screen must not be
// used after it is destroyed (its destructor tolerates that). Answers to tokens the screen did not ask for are ignored. The screen never
// waits on the database.
//
// Settings (QSettings, "calendar/..."): the colour metric and measure, the splitter, and
// each model's last window.

#include "engineclient.h"
#include "plan.h"

#include <QDateTime>
#include <QPointer>
#include <QWidget>

class QComboBox;
class QLabel;
class QLayout;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSplitter;
class QToolButton;
class QFrame;

namespace reprint::model {
class PartitionCalendarModel;
}

namespace reprint::views {

class CalendarView;
class CalendarLegend;
class PartitionDetail;
class PlanBox;
class ScopeNotice;

class CalendarScreen : public QWidget {
    Q_OBJECT

public:
    explicit CalendarScreen(model::EngineClient *engine, QWidget *parent = nullptr);
    ~CalendarScreen() override;

    // Shows model `name` of the engine's spec: opens from the cache (read off the GUI
    // thread), and refreshes from the warehouse once the event loop runs again (after the
    // first paint). An empty name, or a name the spec lacks, shows an empty page.
    void showModel(const QString &name);
    QString modelName() const { return m_modelName; }

    // Starts a refresh of every past partition in the window (cancelling one running).
    void refresh();
    void cancelRefresh();
    bool isRefreshing() const { return m_refreshing; }

    // Selects the window from..to (partition names); false when either is not a
    // partition in the calendar.
    bool selectWindow(const QString &from, const QString &to);
    // Selects the smallest window covering every failing partition; false when none fails.
    bool selectFailing();
    // Widens the window over the failing partitions just outside it.
    void widen();

    model::PartitionCalendarModel *calendarModel() const { return m_calendar; }
    CalendarView *view() const { return m_view; }
    const model::Plan &plan() const { return m_plan; }
    // The under-scope warning's text; empty when hidden.
    QString warningText() const;
    // The failure message shown after a failed refresh; empty when none.
    QString errorText() const;
    // Why the typed window is refused ("2026-13-01: …"); empty when it is not.
    QString windowErrorText() const;
    // The past throughput the plan's estimate uses (read when a model is shown and after
    // each announced change).
    const backfill::Throughput &throughput() const { return m_throughput; }

Q_SIGNALS:
    // The user pressed Start backfill: the Run screen takes over with `request`.
    void backfillRequested(const reprint::backfill::BackfillRequest &request);
    // A refresh ended: every chunk answered (ok), or it failed or was cancelled.
    void refreshFinished(bool ok);
    // The cached statistics of the model shown were read and are shown.
    void cacheShown();
    // A refresh's first read, the totals of every partition, is shown; the checks follow
    // (their cells show "checking" until then, or the verdicts of totals that did not change).
    void totalsShown();
    // The warehouse announced a change to partitions first..last (names) of the model
    // shown; their re-read starts now or after the refresh running.
    void changeAnnounced(const QString &from, const QString &to);
    // The confirmation dialog of Start backfill… is open.
    void confirmationShown();
    // The selected window changed (partition names; empty when cleared).
    void windowSelected(const QString &from, const QString &to);

private:
    void buildUi();
    QLayout *buildTopBar();
    QWidget *buildErrorBanner();
    QWidget *buildCalendarPane();
    QLayout *buildWindowFields();
    void connectUi();
    void setYears(int firstYear, int lastYear);
    void startChunks(int firstOrdinal, int lastOrdinal);
    void requestNextChunk();
    void onStatus(quint64 token, const model::StatusRows &rows);
    void onHistory(quint64 token, const model::HistoryRows &rows);
    void onFailed(quint64 token, const model::DatabaseError &error);
    void onPartitionsChanged(quint64 token, const QString &model, const QDateTime &start, const QDateTime &end);
    void startAnnounced();
    void confirmStart();
    void finishRefresh(bool ok, const QString &message);
    void onRangeSelected(int first, int last);
    void applyFields();
    void updateWarning();
    void updatePlan();
    void updateDetail(int ordinal);
    void updateYears();
    void updateStatusLine();
    void metricChosen();
    void saveCache() const;
    void loadCache();
    QString settingsKey() const;

    // The engine may be destroyed first (a sibling child of the main window): guarded.
    QPointer<model::EngineClient> m_engine;
    model::PartitionCalendarModel *m_calendar = nullptr;
    QString m_modelName;
    QString m_specPath;
    model::HistoryRows m_history;
    model::Plan m_plan;

    // Refresh: chunks of ordinals, asked newest first, one at a time.
    // The requests of a refresh: the totals of the whole range first, then the checks.
    struct Chunk {
        int first = 0;
        int last = 0;
        backfill::StatusReads reads = backfill::StatusReads::TotalsAndChecks;
    };
    std::vector<Chunk> m_chunks;
    std::size_t m_chunksDone = 0;
    quint64 m_statusToken = 0;
    quint64 m_shown = 0;  // counts showModel(): the one a cache read or a refresh to start belongs to
    quint64 m_historyToken = 0;
    bool m_refreshing = false;
    bool m_historyPending = false;
    quint64 m_partitionWatch = 0;
    quint64 m_throughputToken = 0;
    backfill::Throughput m_throughput;
    int m_announcedFirst = -1;  // partitions announced as changed, not yet re-read
    int m_announcedLast = -1;
    QString m_announcedText;    // what the running refresh re-reads after an announcement
    QString m_error;
    QDateTime m_refreshStarted;

    CalendarView *m_view = nullptr;
    CalendarLegend *m_legend = nullptr;
    QLabel *m_title = nullptr;
    QComboBox *m_metric = nullptr;
    QComboBox *m_measure = nullptr;
    QComboBox *m_year = nullptr;
    QToolButton *m_earlier = nullptr;
    QToolButton *m_refreshButton = nullptr;
    QProgressBar *m_progress = nullptr;
    QToolButton *m_cancel = nullptr;
    QLabel *m_statusLine = nullptr;
    QFrame *m_errorBanner = nullptr;
    QLabel *m_errorLabel = nullptr;
    QPushButton *m_retry = nullptr;
    QSplitter *m_splitter = nullptr;
    PartitionDetail *m_detail = nullptr;
    QLineEdit *m_from = nullptr;
    QLineEdit *m_to = nullptr;
    QPushButton *m_selectFailing = nullptr;
    QLabel *m_windowError = nullptr;
    ScopeNotice *m_notice = nullptr;
    PlanBox *m_planBox = nullptr;
};

} // namespace reprint::views
