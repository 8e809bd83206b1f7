#pragma once
// The review screen of one backfill: the old/new totals table (filters, sorting, copy as
// TSV; the partition and where columns stay put while the measures scroll sideways; the
// measures shown side by side are the user's choice, all of them by default when they fit
// the width, else those that changed most), a chart per chosen measure fed by the same
// model, the five
// rules with their evidence, and the actions: Approve & publish (validation passed, claim
// held, a note), Override (validation failed: a typed reason and a second confirmation),
// Undo (published, archive kept: with confirmation). Beside it, in tabs, the boundary
// inspector and the model's history.
//
// Everything shown is read from the review the engine stored and the engine's review
// facts; publish, undo and re-validation call the engine. Nothing waits on the database:
// the clients answer through queued signals, and publish shows a busy bar meanwhile.
// Drift reported by publish opens a dialog that says what changed and offers to
// re-validate (abandon, then back-fill the same window again).
//
// Thread affinity: GUI thread. The EngineClient is the window's, shared with the other
// screens; the screen answers only the tokens it asked for.

#include "backfill/reviewfacts.h"
#include "backfill/spec.h"

#include <QSet>
#include <QWidget>

class QTabBar;
class QChartView;
class QLabel;
class QLayout;
class QProgressBar;
class QPushButton;
class QTabWidget;
class QTableView;
class QToolButton;
class QVBoxLayout;

namespace reprint::model {
class EngineClient;
class ReviewModel;
class ReviewProxyModel;
struct DatabaseError;
}

namespace reprint::views {

class BoundaryInspector;
class HistoryView;
class RulesPanel;
class TotalsPage;

class ReviewScreen : public QWidget {
    Q_OBJECT

public:
    // Every read and publish goes through `engine` (not owned; the window's one client),
    // with the spec and connection it was given.
    explicit ReviewScreen(model::EngineClient *engine, QWidget *parent = nullptr);
    ~ReviewScreen() override;

    // Loads the stored review of backfill `id` and its facts; reviewLoaded() follows.
    void openBackfill(qint64 id);
    qint64 backfillId() const { return m_id; }
    void showTotals();
    void showInspector(const QString &partition = {});
    void showHistory();

    model::ReviewModel *reviewModel() const { return m_model; }
    model::ReviewProxyModel *proxyModel() const { return m_proxy; }
    model::EngineClient *engineClient() const { return m_engine; }
    BoundaryInspector *inspector() const { return m_inspector; }
    HistoryView *historyView() const { return m_history; }
    QTableView *totalsTable() const;
    QPushButton *approveButton() const { return m_approve; }
    QPushButton *overrideButton() const { return m_override; }
    QPushButton *undoButton() const { return m_undo; }
    QPushButton *abandonButton() const { return m_abandon; }
    // A cascade's members, root first (hidden when the backfill is not part of one).
    QTabBar *cascadeTabs() const { return m_members; }
    const backfill::ReviewFacts &facts() const { return m_facts; }
    // Why Approve (or Override) is disabled, or what happened last; as shown.
    QString actionNote() const;
    // The evidence text of rule `n` (1..5), as shown.
    QString ruleText(int n) const;
    // Milliseconds from openBackfill() to the table holding the review.
    qint64 lastLoadMs() const { return m_loadMs; }

    // Copies the selected cells (else the whole table) as TSV to the clipboard, and
    // returns the text.
    QString copySelection();
    // The measures whose columns the table shows, in the review's order. Setting them is
    // the user's choice (kept for the model's later backfills); an empty list, or one with
    // no measure of the review, goes back to as many as fit the width.
    QStringList shownMeasures() const;
    void setShownMeasures(const QStringList &measures);
    QToolButton *measuresButton() const;
    // The measures charted, one chart each, side by side (at least one).
    void setChartMeasure(const QString &measure);
    void setChartMeasures(const QStringList &measures);
    QStringList chartMeasures() const;
    QList<QChartView *> chartViews() const;
    QToolButton *chartButton() const;
    // Writes the review packet of the open backfill to `path` (.html, .pdf or .csv): its
    // data is read off the GUI thread, then written; exported() or actionFailed() answers.
    void exportReview(const QString &path);
    QPushButton *exportButton() const { return m_export; }
    QPushButton *cancelPublishButton() const { return m_cancelPublish; }

Q_SIGNALS:
    void reviewLoaded(qint64 id);
    void factsLoaded(qint64 id);
    void published(qint64 id, const reprint::backfill::PublishOutcome &outcome);
    void undone(qint64 id, const reprint::backfill::UndoOutcome &outcome);
    // Publish, undo or re-validation failed; the screen has shown it.
    void actionFailed(qint64 id, const reprint::model::DatabaseError &error);
    void driftReported(qint64 id, const QString &what);
    void revalidated(qint64 oldId, qint64 newId);
    void exported(qint64 id, const QString &path);

private:
    void buildUi();
    void buildHeader(QVBoxLayout *layout);
    QLayout *buildActions();
    // The engine client's answers; each handles only the token this screen asked for.
    void reviewFinished(quint64 token, const backfill::Review &review);
    void factsFinished(quint64 token, const backfill::ReviewFacts &facts);
    void packetDataFinished(quint64 token, const backfill::ReviewPacketData &data);
    void publishFinished(quint64 token, const backfill::PublishOutcome &outcome);
    void undoFinished(quint64 token, const backfill::UndoOutcome &outcome);
    void abandonFinished(quint64 token);
    void backfillFinished(quint64 token, const backfill::BackfillOutcome &outcome);
    void requestFailed(quint64 token, const model::DatabaseError &error);
    void reviewArrived(const backfill::Review &review);
    void updateHeader();
    void updateRules();
    void updateActions();
    void approveClicked(bool overriding);
    void confirmOverride(const QString &note, const QString &reason);
    void startPublish(const QString &note, const QString &reason);
    void publishFailed(const model::DatabaseError &error);
    void showDrift(const model::DatabaseError &error);
    void revalidate();
    void undoClicked();
    void abandonClicked();
    void showCascade(const backfill::Review &review);
    void startUndo(const QString &overrideReason);
    // Undo refused by the drift guard: offers Undo anyway with a typed reason, confirmed twice.
    void offerUndoOverride(const model::DatabaseError &error);
    // The reason is typed: asks once more before the undo that loses the later write.
    void confirmUndoOverride(const QString &reason);
    void setBusy(const QString &text);
    void setNote(const QString &text, bool problem = false);

    model::EngineClient *m_engine;
    model::ReviewModel *m_model;
    model::ReviewProxyModel *m_proxy;

    qint64 m_id = 0;
    backfill::Review m_review;
    backfill::ReviewFacts m_facts;
    bool m_haveFacts = false;
    quint64 m_reviewToken = 0, m_factsToken = 0, m_publishToken = 0, m_undoToken = 0;
    quint64 m_abandonToken = 0, m_backfillToken = 0;
    bool m_revalidateAfterAbandon = false;  // the abandon is a re-validate's first step
    qint64 m_openedAtMs = 0;
    qint64 m_loadMs = -1;

    QLabel *m_title = nullptr;
    QLabel *m_subtitle = nullptr;
    QLabel *m_validation = nullptr;
    QTabBar *m_members = nullptr;  // a cascade's backfills, root first
    QSet<qint64> m_seenMembers;          // members of the open cascade whose review was shown
    qint64 m_cascadeRoot = 0;
    RulesPanel *m_rules = nullptr;
    QTabWidget *m_tabs = nullptr;
    TotalsPage *m_totals = nullptr;
    BoundaryInspector *m_inspector = nullptr;
    HistoryView *m_history = nullptr;
    QLabel *m_actionNote = nullptr;
    QProgressBar *m_busy = nullptr;
    QPushButton *m_undo = nullptr;
    QPushButton *m_abandon = nullptr;
    QPushButton *m_export = nullptr;
    QPushButton *m_cancelPublish = nullptr;
    bool m_readBackAfterCancel = false;  // a publish was cancelled: say what the warehouse holds once reloaded
    // What the last publish, undo or cancel did; shown instead of the idle note until the
    // next action starts or another backfill is opened.
    QString m_outcomeNote;
    bool m_outcomeProblem = false;
    quint64 m_packetToken = 0;
    QString m_packetPath;
    QPushButton *m_override = nullptr;
    QPushButton *m_approve = nullptr;
};

} // namespace reprint::views
