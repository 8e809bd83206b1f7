#include "tour.h"

#include "boundaryinspector.h"
#include "calendarscreen.h"
#include "historyview.h"
#include "mainwindow.h"
#include "reviewmodel.h"
#include "reviewscreen.h"
#include "rowdiffmodel.h"
#include "runscreen.h"

#include "backfill/engine.h"

#include <QDialog>
#include <QDialogButtonBox>
#include <QLineEdit>
#include <QMessageBox>
#include <QPixmap>
#include <QPushButton>
#include <QTabBar>
#include <QTableWidget>

namespace reprint::app {

using views::RunScreen;

namespace {
const QString kFrom = QStringLiteral("2026-03-09");
const QString kTo = QStringLiteral("2026-03-14");
const QString kModel = QStringLiteral("fct_order_lines");
} // namespace

Tour::Tour(views::MainWindow *window, const QString &dir, QObject *parent)
    : QObject(parent)
    , m_window(window)
    , m_dir(dir)
{
    m_timeout.setSingleShot(true);
    connect(&m_timeout, &QTimer::timeout, this, [this] {
        const QString why = m_stuck ? m_stuck() : QString();
        fail(2, why.isEmpty() ? tr("the screenshot tour stopped at step '%1': its screen did not load in time").arg(m_step)
                              : tr("the screenshot tour stopped at step '%1': %2").arg(m_step, why));
    });
}

void Tour::start()
{
    if (!m_dir.mkpath(QStringLiteral(".")))
        return fail(1, tr("cannot create %1 for the screenshots").arg(m_dir.path()));
    calendar();
}

QObject *Tour::begin(const QString &name, int timeoutMs)
{
    delete m_context;
    m_context = new QObject(this);
    m_step = name;
    m_stuck = nullptr;
    m_timeout.start(timeoutMs);
    return m_context;
}

bool Tour::shot(const QString &file)
{
    const QString path = m_dir.filePath(file);
    if (m_window->grab().save(path, "PNG"))
        return true;
    fail(1, tr("could not write the screenshot %1").arg(path));
    return false;
}

void Tour::shootThen(const QString &file, std::function<void()> next)
{
    // Let the layout settle and late repaints land before grabbing.
    QTimer::singleShot(400, m_context, [this, file, next = std::move(next)] {
        if (shot(file))
            next();
    });
}

void Tour::shootWhen(std::function<bool()> ready, const QString &file, std::function<void()> next)
{
    auto *poll = new QTimer(m_context);
    connect(poll, &QTimer::timeout, m_context, [this, poll, ready = std::move(ready), file, next = std::move(next)] {
        if (!ready())
            return;
        poll->stop();
        shootThen(file, next);
    });
    poll->start(100);
}

void Tour::fail(int code, const QString &message)
{
    if (m_done)
        return;
    m_done = true;
    m_timeout.stop();
    delete m_context;
    m_context = nullptr;
    Q_EMIT finished(code, message);
}

void Tour::calendar()
{
    QObject *ctx = begin(QStringLiteral("calendar"), 60000);
    views::CalendarScreen *cal = m_window->calendarScreen();
    auto go = [this] { shootThen(QStringLiteral("01-calendar.png"), [this] { scoped(); }); };
    if (cal->isRefreshing())
        connect(cal, &views::CalendarScreen::refreshFinished, ctx, go, Qt::SingleShotConnection);
    else
        go();
}

void Tour::scoped()
{
    begin(QStringLiteral("scoped"), 10000);
    if (!m_window->calendarScreen()->selectWindow(kFrom, kTo))
        return fail(2, tr("the calendar has no window %1 … %2").arg(kFrom, kTo));
    shootThen(QStringLiteral("02-scoped.png"), [this] { run(); });
}

void Tour::run()
{
    QObject *ctx = begin(QStringLiteral("run"), 180000);
    RunScreen *screen = m_window->runScreen();
    connect(screen, &RunScreen::phaseChanged, ctx, [this, screen](RunScreen::Phase phase) {
        if (phase == RunScreen::Phase::Staging && !m_runShot) {
            m_runShot = shot(QStringLiteral("03-run.png"));
            return;
        }
        if (phase == RunScreen::Phase::Staged || phase == RunScreen::Phase::ValidationFailed) {
            if (!m_runShot && !(m_runShot = shot(QStringLiteral("03-run.png"))))
                return;
            m_backfillId = screen->backfillId();
            review();
        } else if (phase == RunScreen::Phase::Failed || phase == RunScreen::Phase::Cancelled) {
            fail(2, tr("the tour's backfill of %1 … %2 did not stage; it needs a demo warehouse where that window is free "
                       "(start it in a new --dir)").arg(kFrom, kTo));
        }
    });
    backfill::BackfillRequest request;
    request.model = kModel.toStdString();
    request.from = kFrom.toStdString();
    request.to = kTo.toStdString();
    request.parallel = 2;
    // As the calendar's Backfill button does.
    Q_EMIT m_window->calendarScreen()->backfillRequested(request);
}

void Tour::review()
{
    QObject *ctx = begin(QStringLiteral("review"), 60000);
    views::ReviewScreen *screen = m_window->reviewScreen();
    auto ready = std::make_shared<int>(0);
    auto one = [this, ready] {
        if (++*ready == 2)
            shootThen(QStringLiteral("04-review.png"), [this] { inspector(); });
    };
    connect(screen, &views::ReviewScreen::reviewLoaded, ctx, one, Qt::SingleShotConnection);
    connect(screen, &views::ReviewScreen::factsLoaded, ctx, one, Qt::SingleShotConnection);
    m_window->openReview(m_backfillId);
}

void Tour::inspector()
{
    begin(QStringLiteral("inspector"), 60000);
    views::BoundaryInspector *inspector = m_window->reviewScreen()->inspector();
    m_window->reviewScreen()->showInspector(kFrom);
    // The inspector may have opened 2026-03-09 by itself already (the window's first
    // partition): wait for what it shows, not for a signal that may have passed.
    const auto diffLoaded = [inspector] { return inspector->partition() == kFrom && inspector->added() >= 0; };
    m_stuck = [inspector, diffLoaded] {
        if (diffLoaded() && inspector->rowDiffModel()->rowCount() == 0)
            return tr("the boundary partition %1 shows no row differences: this demo's bug was already fixed there (an "
                      "earlier tour published the fix); the tour needs the bug in place (start it in a new --dir)")
                .arg(kFrom);
        return QString();
    };
    shootWhen(
        [inspector, diffLoaded] {
            return diffLoaded() && inspector->rowDiffModel()->rowCount() > 0 && inspector->edgeTable()->rowCount() > 0;
        },
        QStringLiteral("05-inspector.png"), [this] { publish(); });
}

void Tour::publish()
{
    QObject *ctx = begin(QStringLiteral("publish"), 120000);
    views::ReviewScreen *screen = m_window->reviewScreen();
    screen->showTotals();
    if (!screen->approveButton()->isEnabled())
        return fail(2, tr("Approve & Publish is off for backfill %1: %2").arg(m_backfillId).arg(screen->actionNote()));
    // Through the real dialog: the note typed, Publish pressed.
    QTimer::singleShot(0, ctx, [this, screen] {
        auto *dialog = screen->findChild<QDialog *>(QStringLiteral("approveDialog"));
        auto *note = dialog ? dialog->findChild<QLineEdit *>(QStringLiteral("approvalNote")) : nullptr;
        auto *buttons = dialog ? dialog->findChild<QDialogButtonBox *>() : nullptr;
        if (!note || !buttons)
            return fail(2, tr("the approval dialog did not open"));
        note->setText(tr("tour: the totals match the source on every day"));
        buttons->button(QDialogButtonBox::Ok)->click();
    });
    screen->approveButton()->click();
    // Published, and read back as such.
    shootWhen([screen] { return screen->reviewModel()->review().status == backfill::BackfillStatus::Published && screen->undoButton()->isEnabled(); },
              QStringLiteral("06-published.png"), [this] { history(); });
}

void Tour::history()
{
    QObject *ctx = begin(QStringLiteral("history"), 30000);
    views::ReviewScreen *screen = m_window->reviewScreen();
    auto finish = [this] { shootThen(QStringLiteral("07-history.png"), [this] { cascade(); }); };
    connect(screen->historyView(), &views::HistoryView::historyLoaded, ctx, finish, Qt::SingleShotConnection);
    screen->showHistory();
    screen->historyView()->refresh(kModel);
}

void Tour::cascade()
{
    QObject *ctx = begin(QStringLiteral("cascade"), 240000);
    RunScreen *screen = m_window->runScreen();
    connect(screen, &RunScreen::phaseChanged, ctx, [this, screen](RunScreen::Phase phase) {
        if (phase == RunScreen::Phase::Staged || phase == RunScreen::Phase::ValidationFailed) {
            m_cascadeId = screen->backfillId();
            cascadeReview();
        } else if (phase == RunScreen::Phase::Failed || phase == RunScreen::Phase::Cancelled) {
            fail(2, tr("the tour's cascade of %1 … %2 did not stage").arg(kFrom, kTo));
        }
    });
    backfill::BackfillRequest request;
    request.model = kModel.toStdString();
    request.from = kFrom.toStdString();
    request.to = kTo.toStdString();
    request.parallel = 2;
    request.cascade = true;
    Q_EMIT m_window->calendarScreen()->backfillRequested(request);
}

void Tour::cascadeReview()
{
    QObject *ctx = begin(QStringLiteral("cascade review"), 120000);
    views::ReviewScreen *screen = m_window->reviewScreen();
    auto ready = std::make_shared<int>(0);
    auto one = [this, ready, screen] {
        if (++*ready == 2)
            shootWhen([this, screen] { return screen->reviewModel()->review().backfillId == m_cascadeId && screen->cascadeTabs()->count() > 1; },
                      QStringLiteral("08-cascade.png"), [this] { abandon(); });
    };
    connect(screen, &views::ReviewScreen::reviewLoaded, ctx, one, Qt::SingleShotConnection);
    connect(screen, &views::ReviewScreen::factsLoaded, ctx, one, Qt::SingleShotConnection);
    m_window->openReview(m_cascadeId);
    screen->showTotals();
}

void Tour::abandon()
{
    QObject *ctx = begin(QStringLiteral("abandon"), 60000);
    views::ReviewScreen *screen = m_window->reviewScreen();
    QTimer::singleShot(0, ctx, [this, screen] {
        auto *box = screen->findChild<QMessageBox *>(QStringLiteral("abandonConfirm"));
        QPushButton *go = nullptr;
        for (QPushButton *b : box ? box->findChildren<QPushButton *>() : QList<QPushButton *>())
            if (b->text() == tr("Abandon Backfill"))
                go = b;
        if (!go)
            return fail(2, tr("the abandon confirmation did not open"));
        box->adjustSize();
        if (!box->grab().save(m_dir.filePath(QStringLiteral("09-abandon-confirm.png")), "PNG"))
            return fail(1, tr("could not write the screenshot %1").arg(m_dir.filePath(QStringLiteral("09-abandon-confirm.png"))));
        go->click();
    });
    screen->abandonButton()->click();
    shootWhen([screen] { return screen->reviewModel()->review().status == backfill::BackfillStatus::Abandoned; }, QStringLiteral("10-abandoned.png"), [this] {
        m_done = true;
        m_timeout.stop();
        Q_EMIT finished(0, tr("wrote 10 screenshots to %1").arg(m_dir.path()));
    });
}

} // namespace reprint::app
