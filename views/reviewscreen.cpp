#include "reviewscreen.h"

#include "reviewpacket.h"
#include "reviewrules.h"

#include "approvedialog.h"
#include "boundaryinspector.h"
#include "reviewcolours.h"
#include "rulespanel.h"
#include "totalspage.h"
#include "undooverridedialog.h"

#include "engineclient.h"
#include "historyview.h"
#include "reviewmodel.h"
#include "reviewproxymodel.h"

#include <QChartView>
#include <QDateTime>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QTabBar>
#include <QTabWidget>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

namespace reprint::views {

using model::ReviewModel;
using model::windowText;

namespace {

QString q(const std::string &s)
{
    return QString::fromStdString(s);
}

bool isDrift(const model::DatabaseError &e)
{
    return e.kind == backfill::EngineKind::Drift;
}

} // namespace

ReviewScreen::ReviewScreen(model::EngineClient *engine, QWidget *parent)
    : QWidget(parent)
    , m_engine(engine)
    , m_model(new ReviewModel(this))
    , m_proxy(new model::ReviewProxyModel(this))
{
    m_proxy->setSourceModel(m_model);
    buildUi();

    connect(m_engine, &model::EngineClient::reviewFinished, this, &ReviewScreen::reviewFinished);
    connect(m_engine, &model::EngineClient::factsFinished, this, &ReviewScreen::factsFinished);
    connect(m_engine, &model::EngineClient::packetDataFinished, this, &ReviewScreen::packetDataFinished);
    connect(m_engine, &model::EngineClient::publishFinished, this, &ReviewScreen::publishFinished);
    connect(m_engine, &model::EngineClient::undoFinished, this, &ReviewScreen::undoFinished);
    connect(m_engine, &model::EngineClient::abandonFinished, this, &ReviewScreen::abandonFinished);
    connect(m_engine, &model::EngineClient::backfillFinished, this, &ReviewScreen::backfillFinished);
    connect(m_engine, &model::EngineClient::failed, this, &ReviewScreen::requestFailed);
    connect(m_history, &HistoryView::backfillActivated, this, [this](qint64 id) {
        openBackfill(id);
        showTotals();
    });
}

ReviewScreen::~ReviewScreen() = default;

void ReviewScreen::reviewFinished(quint64 token, const backfill::Review &r)
{
    if (token != m_reviewToken)
        return;
    m_reviewToken = 0;
    reviewArrived(r);
}

void ReviewScreen::factsFinished(quint64 token, const backfill::ReviewFacts &f)
{
    if (token != m_factsToken)
        return;
    m_factsToken = 0;
    m_facts = f;
    m_haveFacts = true;
    updateHeader();
    updateRules();
    updateActions();
    Q_EMIT factsLoaded(m_id);
}

void ReviewScreen::packetDataFinished(quint64 token, const backfill::ReviewPacketData &data)
{
    if (token != m_packetToken)
        return;
    m_packetToken = 0;
    QString error;
    if (!model::ReviewPacket(data).write(m_packetPath, &error)) {
        setNote(error, true);
        Q_EMIT actionFailed(m_id, model::DatabaseError{warehouse::ErrorKind::Usage, {}, error, {}, {}});
        return;
    }
    setNote(tr("Exported the review of backfill %1 to %2.").arg(data.review.backfillId).arg(m_packetPath), false);
    Q_EMIT exported(data.review.backfillId, m_packetPath);
}

void ReviewScreen::publishFinished(quint64 token, const backfill::PublishOutcome &o)
{
    if (token != m_publishToken)
        return;
    m_publishToken = 0;
    m_busy->hide();
    setNote(tr("Published backfill %1: %L2 rows replaced by %L3, approved by %4. Undo restores the replaced rows.")
                .arg(o.id)
                .arg(o.rowsReplaced)
                .arg(o.rowsInserted)
                .arg(q(o.approver)));
    const QString note = m_actionNote->text();
    openBackfill(m_id);
    m_outcomeNote = note;
    m_outcomeProblem = false;
    setNote(note);
    Q_EMIT published(o.id, o);
}

void ReviewScreen::undoFinished(quint64 token, const backfill::UndoOutcome &o)
{
    if (token != m_undoToken)
        return;
    m_undoToken = 0;
    m_busy->hide();
    const QString note = tr("Undone: %L1 archived rows restored, %L2 published rows removed.").arg(o.rowsRestored).arg(o.rowsRemoved);
    openBackfill(m_id);
    m_outcomeNote = note;
    m_outcomeProblem = false;
    setNote(note);
    Q_EMIT undone(o.id, o);
}

void ReviewScreen::abandonFinished(quint64 token)
{
    if (token != m_abandonToken)
        return;
    m_abandonToken = 0;
    if (!m_revalidateAfterAbandon) {
        m_busy->hide();
        m_outcomeNote = tr("Abandoned backfill %1: its staged rows are dropped and the window is free. Nothing was published.").arg(m_id);
        m_outcomeProblem = false;
        openBackfill(m_id);
        return;
    }
    m_revalidateAfterAbandon = false;
    backfill::BackfillRequest request;
    request.model = m_review.model;
    request.from = m_review.from;
    request.to = m_review.to;
    setBusy(tr("Re-validating %1 against the data as it is now…").arg(windowText(m_review.from, m_review.to)));
    m_backfillToken = m_engine->backfill(request);
}

void ReviewScreen::backfillFinished(quint64 token, const backfill::BackfillOutcome &o)
{
    if (token != m_backfillToken)
        return;
    m_backfillToken = 0;
    m_busy->hide();
    const qint64 old = m_id;
    openBackfill(o.id);
    Q_EMIT revalidated(old, o.id);
}

void ReviewScreen::requestFailed(quint64 token, const model::DatabaseError &e)
{
    if (token == m_packetToken) {
        m_packetToken = 0;
        setNote(tr("Could not export the review: %1").arg(e.sentence()), true);
        Q_EMIT actionFailed(m_id, e);
        return;
    }
    if (token == m_factsToken) {
        m_factsToken = 0;
        setNote(tr("Could not read the backfill's claim and scope: %1").arg(e.sentence()), true);
        return;
    }
    if (token == m_reviewToken) {
        m_reviewToken = 0;
        m_title->setText(tr("Backfill %1").arg(m_id));
        setNote(tr("Could not load the review: %1").arg(e.sentence()), true);
        return;
    }
    if (token == m_publishToken) {
        m_publishToken = 0;
        publishFailed(e);
        return;
    }
    if (token == m_undoToken && isDrift(e)) {
        m_undoToken = 0;
        m_busy->hide();
        setNote(tr("Nothing was undone: %1").arg(e.sentence()), true);
        updateActions();
        offerUndoOverride(e);
        Q_EMIT actionFailed(m_id, e);
        return;
    }
    if (token == m_undoToken || token == m_abandonToken || token == m_backfillToken) {
        m_undoToken = m_abandonToken = m_backfillToken = 0;
        m_busy->hide();
        setNote(e.sentence(), true);
        updateActions();
        Q_EMIT actionFailed(m_id, e);
    }
}

void ReviewScreen::buildUi()
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(16, 12, 16, 10);
    layout->setSpacing(8);
    buildHeader(layout);

    m_rules = new RulesPanel(this);
    layout->addWidget(m_rules);

    m_tabs = new QTabWidget(this);
    m_tabs->setObjectName(QStringLiteral("reviewTabs"));
    m_tabs->setDocumentMode(true);
    m_totals = new TotalsPage(m_model, m_proxy);
    connect(m_totals, &TotalsPage::partitionActivated, this, [this](const QString &p) { showInspector(p); });
    m_tabs->addTab(m_totals, tr("Totals"));
    m_inspector = new BoundaryInspector(m_engine, m_tabs);
    m_tabs->addTab(m_inspector, tr("Boundary Inspector"));
    m_history = new HistoryView(m_engine, m_tabs);
    m_tabs->addTab(m_history, tr("History"));
    layout->addWidget(m_tabs, 1);

    layout->addLayout(buildActions());
}

// The title, what the backfill is (status, validation, who, notes), a cascade's members
// and why validation failed.
void ReviewScreen::buildHeader(QVBoxLayout *layout)
{
    m_title = new QLabel(tr("No backfill open"), this);
    m_title->setObjectName(QStringLiteral("reviewTitle"));
    QFont big = m_title->font();
    big.setPointSizeF(big.pointSizeF() * 1.35);
    big.setBold(true);
    m_title->setFont(big);
    m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_subtitle = new QLabel(tr("Open a backfill from the History tab, or run `reprint backfill` and open its id."), this);
    m_subtitle->setTextFormat(Qt::RichText);
    m_subtitle->setForegroundRole(QPalette::PlaceholderText);
    // A long approval note wraps instead of widening the window past the screen.
    m_subtitle->setWordWrap(true);
    layout->addWidget(m_title);
    layout->addWidget(m_subtitle);
    // A cascade is one approval: each member's review is a tab, root first.
    m_members = new QTabBar(this);
    m_members->setObjectName(QStringLiteral("cascadeMembers"));
    m_members->setDrawBase(false);
    m_members->setExpanding(false);
    m_members->hide();
    connect(m_members, &QTabBar::currentChanged, this, [this](int index) {
        const qint64 id = m_members->tabData(index).toLongLong();
        if (index >= 0 && id > 0 && id != m_id)
            openBackfill(id);
    });
    layout->addWidget(m_members);
    m_validation = new QLabel(this);
    m_validation->setObjectName(QStringLiteral("validationMessage"));
    m_validation->setWordWrap(true);
    m_validation->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_validation->hide();
    layout->addWidget(m_validation);
}

// The note on what is possible or what happened, the busy bar and the action buttons.
QLayout *ReviewScreen::buildActions()
{
    auto *actions = new QHBoxLayout;
    m_actionNote = new QLabel(this);
    m_actionNote->setObjectName(QStringLiteral("actionNote"));
    m_actionNote->setWordWrap(true);
    m_actionNote->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_busy = new QProgressBar(this);
    m_busy->setRange(0, 0);
    m_busy->setMaximumWidth(120);
    m_busy->setTextVisible(false);
    m_busy->hide();
    m_cancelPublish = new QPushButton(tr("Cancel publish"), this);
    m_cancelPublish->setObjectName(QStringLiteral("cancelPublishButton"));
    m_cancelPublish->setToolTip(tr("Cancel the running publish: it rolls back whole, unless it has already committed; "
                                   "the screen then reads back which."));
    m_cancelPublish->hide();
    m_export = new QPushButton(tr("Export review…"), this);
    m_export->setObjectName(QStringLiteral("exportButton"));
    m_export->setToolTip(tr("Save this review as a packet to file or send: HTML, PDF or CSV."));
    m_undo = new QPushButton(tr("Undo Publish…"), this);
    m_undo->setObjectName(QStringLiteral("undoButton"));
    m_abandon = new QPushButton(tr("Abandon…"), this);
    m_abandon->setObjectName(QStringLiteral("abandonButton"));
    m_abandon->setToolTip(tr("Drop the staged rows and free the window; nothing is published."));
    m_override = new QPushButton(tr("Override…"), this);
    m_override->setObjectName(QStringLiteral("overrideButton"));
    m_approve = new QPushButton(tr("Approve && Publish…"), this);
    m_approve->setObjectName(QStringLiteral("approveButton"));
    m_approve->setDefault(true);
    QFont bold = m_approve->font();
    bold.setBold(true);
    m_approve->setFont(bold);
    actions->addWidget(m_busy);
    actions->addWidget(m_actionNote, 1);
    actions->addWidget(m_cancelPublish);
    actions->addWidget(m_export);
    actions->addWidget(m_undo);
    actions->addWidget(m_abandon);
    actions->addWidget(m_override);
    actions->addWidget(m_approve);
    m_undo->hide();
    m_abandon->hide();
    m_override->hide();
    m_approve->setEnabled(false);

    connect(m_approve, &QPushButton::clicked, this, [this] { approveClicked(false); });
    connect(m_override, &QPushButton::clicked, this, [this] { approveClicked(true); });
    connect(m_undo, &QPushButton::clicked, this, &ReviewScreen::undoClicked);
    connect(m_abandon, &QPushButton::clicked, this, &ReviewScreen::abandonClicked);
    connect(m_cancelPublish, &QPushButton::clicked, this, [this] {
        if (!m_publishToken)
            return;
        m_engine->cancel(m_publishToken);
        m_cancelPublish->setEnabled(false);
        setNote(tr("Cancelling the publish of backfill %1…").arg(m_id));
    });
    connect(m_export, &QPushButton::clicked, this, [this] {
        const QString suggested = QStringLiteral("review-%1-%2.pdf").arg(m_id).arg(q(m_review.model));
        const QString path = QFileDialog::getSaveFileName(this, tr("Export the review of backfill %1").arg(m_id), suggested,
                                                          tr("PDF (*.pdf);;HTML (*.html);;CSV (*.csv)"));
        if (!path.isEmpty())
            exportReview(path);
    });
    return actions;
}

void ReviewScreen::exportReview(const QString &path)
{
    if (m_id <= 0 || m_packetToken)
        return;
    m_packetPath = path;
    m_packetToken = m_engine->packetData(m_id);
    setNote(tr("Exporting the review of backfill %1 to %2…").arg(m_id).arg(path), false);
}

void ReviewScreen::setChartMeasure(const QString &measure)
{
    setChartMeasures({measure});
}

void ReviewScreen::setChartMeasures(const QStringList &measures)
{
    m_totals->setChartMeasures(measures);
}

QStringList ReviewScreen::chartMeasures() const
{
    return m_totals->chartMeasures();
}

QList<QChartView *> ReviewScreen::chartViews() const
{
    return m_totals->chartViews();
}

QStringList ReviewScreen::shownMeasures() const
{
    return m_totals->shownMeasures();
}

void ReviewScreen::setShownMeasures(const QStringList &measures)
{
    m_totals->setShownMeasures(measures);
}

QTableView *ReviewScreen::totalsTable() const
{
    return m_totals->table();
}

QToolButton *ReviewScreen::measuresButton() const
{
    return m_totals->measuresButton();
}

QToolButton *ReviewScreen::chartButton() const
{
    return m_totals->chartButton();
}

void ReviewScreen::openBackfill(qint64 id)
{
    if (id != m_id)
        m_outcomeNote.clear();
    m_id = id;
    m_haveFacts = false;
    m_openedAtMs = QDateTime::currentMSecsSinceEpoch();
    m_reviewToken = m_engine->review(id);
    m_factsToken = m_engine->facts(id);
    m_title->setText(tr("Backfill %1").arg(id));
    updateActions();
}

void ReviewScreen::reviewArrived(const backfill::Review &review)
{
    const bool sameBackfill = m_review.backfillId == review.backfillId;
    m_review = review;
    if (m_readBackAfterCancel && review.backfillId == m_id) {
        m_readBackAfterCancel = false;
        m_outcomeNote = review.status == backfill::BackfillStatus::Published
                            ? tr("The cancel came too late: backfill %1 had committed and is published.").arg(m_id)
                            : tr("Publish cancelled: it rolled back whole; backfill %1 is still %2 and nothing was published.")
                                  .arg(m_id)
                                  .arg(QLatin1String(backfill::toString(review.status)));
        m_outcomeProblem = review.status != backfill::BackfillStatus::Published;
        setNote(m_outcomeNote, m_outcomeProblem);
    }
    showCascade(review);
    m_model->setReview(review);
    m_totals->showReview(q(review.model));

    if (!sameBackfill || m_inspector->partitions().isEmpty())
        m_inspector->setReview(review);
    updateHeader();
    updateRules();
    updateActions();
    m_history->refresh(q(review.model));
    m_loadMs = QDateTime::currentMSecsSinceEpoch() - m_openedAtMs;
    Q_EMIT reviewLoaded(review.backfillId);
}

void ReviewScreen::showCascade(const backfill::Review &review)
{
    const qint64 root = review.cascade.empty() ? 0 : review.cascade.front().id;
    if (root != m_cascadeRoot)
        m_seenMembers.clear();
    m_cascadeRoot = root;
    const QSignalBlocker block(m_members);
    while (m_members->count() > 0)
        m_members->removeTab(0);
    m_members->setVisible(root != 0);
    if (root == 0)
        return;
    m_seenMembers.insert(review.backfillId);
    for (const backfill::CascadeMember &m : review.cascade) {
        const QString mark = m.validation == "passed" ? QStringLiteral("✓") : m.validation == "failed" ? QStringLiteral("✗") : QStringLiteral("…");
        const int tab = m_members->addTab(tr("%1 %2 · backfill %3%4")
                                              .arg(mark, q(m.model))
                                              .arg(m.id)
                                              .arg(m.id == root ? tr(" (root)") : QString()));
        m_members->setTabData(tab, QVariant::fromValue<qint64>(m.id));
        m_members->setTabToolTip(tab, tr("%1 %2 … %3: status %4, validation %5%6")
                                          .arg(q(m.model), q(m.from), q(m.to), QLatin1String(backfill::toString(m.status)), m.validation.empty() ? tr("none") : q(m.validation))
                                          .arg(m_seenMembers.contains(m.id) ? QString() : tr(" (not opened yet)")));
        if (m.id == review.backfillId)
            m_members->setCurrentIndex(tab);
    }
}

void ReviewScreen::updateHeader()
{
    if (m_review.backfillId == 0)
        return;
    m_title->setText(tr("Backfill %1 · %2 · %3").arg(m_review.backfillId).arg(q(m_review.model), windowText(m_review.from, m_review.to)));
    const QString validation = m_review.validation.empty() ? tr("not validated")
                               : m_review.validation == "passed"
                                   ? QStringLiteral("<span style='color:%1'>✓ validation passed</span>").arg(kGood.name())
                                   : QStringLiteral("<span style='color:%1'>✗ validation failed</span>").arg(kBad.name());
    QStringList parts{tr("status <b>%1</b>").arg(QLatin1String(backfill::toString(m_review.status))), validation};
    for (const std::string &stale : m_review.staleDownstream)
        parts << QStringLiteral("<span style='color:%1'>%2</span>")
                     .arg(kWarn.name(), tr("stale after publish: %1 (not in this backfill)").arg(q(stale).toHtmlEscaped()));
    if (m_haveFacts) {
        parts << tr("operator %1").arg(q(m_facts.operatorName).toHtmlEscaped());
        if (!m_facts.approver.empty())
            parts << tr("approved by %1 at %2").arg(q(m_facts.approver).toHtmlEscaped(), q(m_facts.publishedAt));
        if (!m_facts.note.empty())
            parts << tr("note “%1”").arg(q(m_facts.note).toHtmlEscaped());
        if (!m_facts.overrideReason.empty())
            parts << QStringLiteral("<span style='color:%1'>%2</span>")
                         .arg(kWarn.name(), tr("override: “%1”").arg(q(m_facts.overrideReason).toHtmlEscaped()));
    }
    m_subtitle->setText(parts.join(QStringLiteral(" &nbsp;·&nbsp; ")));
    m_subtitle->setForegroundRole(QPalette::WindowText);
    if (m_review.validation == "failed" && !m_review.validationMessage.empty()) {
        m_validation->setText(QStringLiteral("<span style='color:%1'><b>Why validation failed:</b></span> %2")
                                  .arg(kBad.name(), q(m_review.validationMessage).toHtmlEscaped()));
        m_validation->show();
    } else {
        m_validation->hide();
    }
}

void ReviewScreen::updateRules()
{
    if (m_review.backfillId == 0)
        return;
    m_rules->setRules(model::rulesOf(m_review, m_haveFacts ? &m_facts : nullptr));
}

void ReviewScreen::updateActions()
{
    const bool busy = m_publishToken || m_undoToken || m_abandonToken || m_backfillToken;
    m_cancelPublish->setVisible(m_publishToken != 0);
    if (!m_publishToken)
        m_cancelPublish->setEnabled(true);
    const bool staged = m_review.status == backfill::BackfillStatus::Staged && m_review.backfillId == m_id;
    const bool passed = m_review.validation == "passed";
    const bool sameUser = m_haveFacts && m_facts.fourEyes && m_facts.currentUser == m_facts.operatorName;
    const bool claim = m_haveFacts && m_facts.claimHeld;

    QString why;
    if (m_review.backfillId != m_id || !m_haveFacts)
        why = tr("Loading the review…");
    else if (!staged)
        why = tr("Read-only: backfill %1 is %2.").arg(m_id).arg(QLatin1String(backfill::toString(m_review.status)));
    else if (!claim)
        why = tr("Backfill %1 no longer holds its claim on the window; run the backfill again.").arg(m_id);
    else if (sameUser)
        why = tr("Model %1 needs four eyes: %2 staged this backfill, so another database user must approve it.")
                  .arg(q(m_review.model), q(m_facts.operatorName));
    else if (!passed)
        why = tr("Validation failed: Approve is off. Widen the window or fix the transform, or Override with a reason.");
    // A cascade is approved at its root, once every member's review was shown.
    const bool member = m_cascadeRoot != 0 && m_cascadeRoot != m_id;
    QStringList unseen;
    for (const backfill::CascadeMember &m : m_review.cascade)
        if (!m_seenMembers.contains(m.id))
            unseen << tr("%1 (backfill %2)").arg(q(m.model)).arg(m.id);
    if (staged && member)
        why = tr("Backfill %1 is part of the cascade of backfill %2: approve the cascade there; it publishes all %3 backfills.")
                  .arg(m_id)
                  .arg(m_cascadeRoot)
                  .arg(m_review.cascade.size());
    else if (staged && why.isEmpty() && !unseen.isEmpty())
        why = tr("A cascade publishes %1 backfills at once: open each model's tab before approving. Not opened yet: %2.")
                  .arg(m_review.cascade.size())
                  .arg(unseen.join(QStringLiteral(", ")));
    const bool cascadeReady = !member && unseen.isEmpty();

    m_approve->setEnabled(!busy && staged && passed && claim && !sameUser && m_haveFacts && cascadeReady);
    m_approve->setToolTip(why);
    m_override->setVisible(staged && !passed);
    m_override->setEnabled(!busy && staged && !passed && claim && !sameUser && m_haveFacts && cascadeReady);
    m_abandon->setVisible(staged);
    m_abandon->setEnabled(!busy && m_haveFacts);
    m_undo->setVisible(m_review.status == backfill::BackfillStatus::Published && m_review.backfillId == m_id);
    m_undo->setEnabled(!busy && m_haveFacts && m_facts.archiveKept);
    if (!busy && !m_outcomeNote.isEmpty() && m_review.backfillId == m_id)
        setNote(m_outcomeNote, m_outcomeProblem);
    else if (!busy && !why.isEmpty())
        setNote(why, staged && (!passed || !claim || sameUser || !cascadeReady));
    else if (!busy && staged && passed && claim)
        setNote(tr("Validation passed and the claim is held: ready to approve."));
}

void ReviewScreen::approveClicked(bool overriding)
{
    auto *dialog = new ApproveDialog(m_id, m_review, overriding, this);
    connect(dialog, &ApproveDialog::approved, this, [this](const QString &note, const QString &reason) {
        if (!reason.isEmpty())
            confirmOverride(note, reason);
        else
            startPublish(note, {});
    });
    dialog->open();
}

void ReviewScreen::confirmOverride(const QString &note, const QString &reason)
{
    auto *box = new QMessageBox(QMessageBox::Warning, tr("Publish Despite Failed Validation?"),
                                tr("Publish backfill %1 although its validation failed?").arg(m_id), QMessageBox::Cancel, this);
    box->setObjectName(QStringLiteral("overrideConfirm"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setInformativeText(tr("Override reason, stored with the publish: “%1”").arg(reason));
    QPushButton *go = box->addButton(tr("Publish Anyway"), QMessageBox::DestructiveRole);
    box->setDefaultButton(QMessageBox::Cancel);
    connect(box, &QMessageBox::buttonClicked, this, [this, go, note, reason](QAbstractButton *b) {
        if (b == go)
            startPublish(note, reason);
    });
    box->open();
}

void ReviewScreen::startPublish(const QString &note, const QString &reason)
{
    backfill::PublishRequest request;
    request.id = m_id;
    request.note = note.toStdString();
    request.overrideReason = reason.toStdString();
    m_publishToken = m_engine->publish(request);
    setBusy(tr("Publishing backfill %1: re-checking for drift, then replacing the window in one transaction…").arg(m_id));
}

void ReviewScreen::publishFailed(const model::DatabaseError &error)
{
    m_busy->hide();
    updateActions();
    if (error.kind == warehouse::ErrorKind::Cancelled) {
        // Rolled back whole, or committed just before the cancel: read back which.
        m_readBackAfterCancel = true;
        setNote(tr("Publish cancelled; reading back what backfill %1 is now…").arg(m_id));
        openBackfill(m_id);
    } else if (isDrift(error)) {
        showDrift(error);
    } else {
        setNote(tr("Nothing was published: %1").arg(error.sentence()), true);
        auto *box = new QMessageBox(QMessageBox::Warning, tr("Not Published"), tr("Nothing was published."), QMessageBox::Close, this);
        box->setObjectName(QStringLiteral("publishError"));
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->setInformativeText(error.sentence());
        box->open();
    }
    Q_EMIT actionFailed(m_id, error);
}

void ReviewScreen::showDrift(const model::DatabaseError &error)
{
    setNote(tr("Drift: %1").arg(error.message), true);
    auto *box = new QMessageBox(QMessageBox::Warning, tr("Changed Since Validation"),
                                tr("Backfill %1 was not published: the data changed after it was validated.").arg(m_id),
                                QMessageBox::NoButton, this);
    box->setObjectName(QStringLiteral("driftDialog"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setInformativeText(tr("What changed: %1\n\nRe-validate abandons backfill %2 and stages %3 again, so that the "
                               "review shows the data as it is now.")
                                .arg(error.message)
                                .arg(m_id)
                                .arg(windowText(m_review.from, m_review.to)));
    if (!error.hint.isEmpty())
        box->setDetailedText(error.hint);
    QPushButton *again = box->addButton(tr("Re-validate"), QMessageBox::AcceptRole);
    box->addButton(QMessageBox::Close);
    connect(box, &QMessageBox::buttonClicked, this, [this, again](QAbstractButton *b) {
        if (b == again)
            revalidate();
    });
    box->open();
    Q_EMIT driftReported(m_id, error.message);
}

void ReviewScreen::revalidate()
{
    setBusy(tr("Abandoning backfill %1…").arg(m_id));
    m_revalidateAfterAbandon = true;
    m_abandonToken = m_engine->abandon(m_id);
}

void ReviewScreen::abandonClicked()
{
    // A cascade is abandoned as a whole, from whichever of its tabs.
    QString question = tr("Abandon backfill %1 of %2 (%3)?").arg(m_id).arg(q(m_review.model), windowText(m_review.from, m_review.to));
    if (m_review.cascade.size() > 1) {
        QStringList members;
        for (const backfill::CascadeMember &m : m_review.cascade)
            members << tr("%1 (backfill %2)").arg(q(m.model)).arg(m.id);
        question = tr("Abandon the cascade of backfill %1, %2 backfills: %3?")
                       .arg(m_cascadeRoot)
                       .arg(m_review.cascade.size())
                       .arg(members.join(QStringLiteral(", ")));
    }
    auto *box = new QMessageBox(QMessageBox::Warning, tr("Abandon the Backfill?"), question, QMessageBox::NoButton, this);
    box->setObjectName(QStringLiteral("abandonConfirm"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setInformativeText(tr("The staged rows are dropped and the claim on the window is released. Nothing is published "
                               "and the target is not touched. This cannot be undone: to try again, start a new backfill."));
    QPushButton *go = box->addButton(tr("Abandon Backfill"), QMessageBox::DestructiveRole);
    box->addButton(tr("Keep It"), QMessageBox::RejectRole);
    connect(box, &QMessageBox::buttonClicked, this, [this, go](QAbstractButton *b) {
        if (b != go || m_abandonToken)
            return;
        const qint64 target = m_cascadeRoot != 0 ? m_cascadeRoot : m_id;
        setBusy(tr("Abandoning backfill %1…").arg(target));
        m_revalidateAfterAbandon = false;
        m_abandonToken = m_engine->abandon(target);
    });
    box->open();
}

void ReviewScreen::undoClicked()
{
    auto *box = new QMessageBox(QMessageBox::Question, tr("Undo Publish?"),
                                tr("Restore the rows that backfill %1 replaced in %2?").arg(m_id).arg(windowText(m_review.from, m_review.to)),
                                QMessageBox::Cancel, this);
    box->setObjectName(QStringLiteral("undoConfirm"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setInformativeText(tr("The published rows of the window are removed and the archived ones put back, in one "
                               "transaction. If something wrote the window since, the engine refuses."));
    QPushButton *go = box->addButton(tr("Undo Publish"), QMessageBox::DestructiveRole);
    connect(box, &QMessageBox::buttonClicked, this, [this, go](QAbstractButton *b) {
        if (b == go)
            startUndo({});
    });
    box->open();
}

void ReviewScreen::startUndo(const QString &overrideReason)
{
    backfill::UndoRequest request;
    request.id = m_id;
    request.overrideReason = overrideReason.toStdString();
    m_undoToken = m_engine->undo(request);
    setBusy(overrideReason.isEmpty() ? tr("Undoing backfill %1…").arg(m_id)
                                     : tr("Undoing backfill %1 despite the later write…").arg(m_id));
}

void ReviewScreen::offerUndoOverride(const model::DatabaseError &error)
{
    auto *box = new QMessageBox(QMessageBox::Warning, tr("Window Written Since"),
                                tr("Backfill %1 was not undone: the window changed after it was published.").arg(m_id),
                                QMessageBox::Cancel, this);
    box->setObjectName(QStringLiteral("undoDrift"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setInformativeText(error.sentence());
    QPushButton *anyway = box->addButton(tr("Undo anyway…"), QMessageBox::DestructiveRole);
    connect(box, &QMessageBox::buttonClicked, this, [this, anyway](QAbstractButton *b) {
        if (b != anyway)
            return;
        auto *dialog = new UndoOverrideDialog(m_id, windowText(m_review.from, m_review.to), this);
        connect(dialog, &UndoOverrideDialog::reasonGiven, this, &ReviewScreen::confirmUndoOverride);
        dialog->open();
    });
    box->open();
}

void ReviewScreen::confirmUndoOverride(const QString &reason)
{
    auto *confirm = new QMessageBox(QMessageBox::Warning, tr("Undo Anyway?"),
                                    tr("Undo backfill %1 and lose the later write?").arg(m_id), QMessageBox::Cancel, this);
    confirm->setObjectName(QStringLiteral("undoOverrideConfirm"));
    confirm->setAttribute(Qt::WA_DeleteOnClose);
    confirm->setInformativeText(tr("Reason: “%1”").arg(reason));
    QPushButton *go = confirm->addButton(tr("Undo anyway"), QMessageBox::DestructiveRole);
    connect(confirm, &QMessageBox::buttonClicked, this, [this, go, reason](QAbstractButton *b) {
        if (b == go)
            startUndo(reason);
    });
    confirm->open();
}

void ReviewScreen::setBusy(const QString &text)
{
    m_outcomeNote.clear();
    m_busy->show();
    setNote(text);
    updateActions();
}

void ReviewScreen::setNote(const QString &text, bool problem)
{
    m_actionNote->setText(text);
    QPalette p = m_actionNote->palette();
    p.setColor(QPalette::WindowText, problem ? kBad : palette().color(QPalette::WindowText));
    m_actionNote->setPalette(p);
}

QString ReviewScreen::actionNote() const
{
    return m_actionNote->text();
}

QString ReviewScreen::ruleText(int n) const
{
    return m_rules->ruleText(n);
}

QString ReviewScreen::copySelection()
{
    return m_totals->copySelection();
}

void ReviewScreen::showTotals()
{
    m_tabs->setCurrentIndex(0);
}

void ReviewScreen::showInspector(const QString &partition)
{
    m_tabs->setCurrentWidget(m_inspector);
    if (!partition.isEmpty() && partition != m_inspector->partition())
        m_inspector->openPartition(partition);
}

void ReviewScreen::showHistory()
{
    m_tabs->setCurrentWidget(m_history);
}

} // namespace reprint::views
