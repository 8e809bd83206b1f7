// CalendarScreen offscreen, on copies of the demo: scoping with the mouse and the
// keyboard, the under-scope warning and Widen, Select failing, the plan's command line,
// cancel, the cache it opens from, and the database going away mid-refresh. Its speed at
// scale is measured by tests/bench/bench_calendar, not here.
#include "calendarscreen.h"
#include "calendarview.h"
#include "darkpalette.h"
#include "engineclient.h"
#include "partitioncalendarmodel.h"
#include "testsupport.h"

#include "backfill/spec.h"

#include <QApplication>
#include <QCheckBox>
#include <QDialog>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QPalette>
#include <QProcess>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollBar>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStyleFactory>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>

#include <memory>

using reprint::backfill::BackfillRequest;
using reprint::model::EngineClient;
using reprint::model::PartitionCalendarModel;
using reprint::views::CalendarScreen;
using reprint::views::CalendarView;

namespace {

QString demoSpecPath()
{
    return QDir(qEnvironmentVariable("REPRINT_TEST_DEMO_DIR")).filePath(QStringLiteral("demo.yaml"));
}

reprint::backfill::Spec loadSpec(const QString &path)
{
    auto spec = reprint::backfill::loadSpec(path.toStdString());
    if (!spec)
        qFatal("cannot load %s: %s", qPrintable(path), spec.error().toSentence().c_str());
    return *spec;
}

// A screen over its own engine and demo copy.
struct Fixture {
    explicit Fixture(const std::string &database, const QString &specPath = demoSpecPath())
        : conninfo(QString::fromStdString(reprint::test::demoCopy(database)))
        , spec(loadSpec(specPath))
    {
        engine.setSpec(spec, conninfo);
        screen = std::make_unique<CalendarScreen>(&engine);
        screen->resize(1280, 800);
        screen->show();
    }

    // Shows `model` and waits for its first refresh; false when it failed.
    bool open(const QString &model = QStringLiteral("fct_order_lines"))
    {
        QSignalSpy done(screen.get(), &CalendarScreen::refreshFinished);
        screen->showModel(model);
        if (!done.wait(120000))
            return false;
        return done.at(0).at(0).toBool();
    }

    CalendarView *view() const { return screen->view(); }
    PartitionCalendarModel *calendar() const { return screen->calendarModel(); }
    int ordinal(const QString &name) const { return calendar()->ordinalOfName(name); }
    QLineEdit *field(const char *name) const { return screen->findChild<QLineEdit *>(QLatin1String(name)); }
    template <typename T>
    T *child(const char *name) const { return screen->findChild<T *>(QLatin1String(name)); }

    void click(const QString &partition, Qt::KeyboardModifiers modifiers = Qt::NoModifier) const
    {
        const int o = ordinal(partition);
        QVERIFY(o >= 0);
        view()->scrollTo(calendar()->indexOfOrdinal(o));
        const QRect r = view()->cellRect(o);
        QVERIFY(view()->viewport()->rect().contains(r.center()));
        QTest::mouseClick(view()->viewport(), Qt::LeftButton, modifiers, r.center());
    }

    QString conninfo;
    reprint::backfill::Spec spec;
    EngineClient engine;
    std::unique_ptr<CalendarScreen> screen;
};

QString selected(const Fixture &f)
{
    const CalendarView *v = f.view();
    if (!v->hasRange())
        return {};
    return f.calendar()->data(f.calendar()->indexOfOrdinal(v->selectionFirst()), PartitionCalendarModel::PartitionNameRole).toString()
        + QStringLiteral("..")
        + f.calendar()->data(f.calendar()->indexOfOrdinal(v->selectionLast()), PartitionCalendarModel::PartitionNameRole).toString();
}

} // namespace

class CalendarScreenTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QApplication::setOrganizationName(QStringLiteral("ReprintTest"));
        QApplication::setApplicationName(QStringLiteral("tst_calendarscreen"));
        QDir(QStandardPaths::writableLocation(QStandardPaths::CacheLocation)).removeRecursively();
        QSettings().clear();
    }

    void clickThenShiftClickWarnsAndWidens()
    {
        Fixture f("tst_calendarscreen_scope");
        QVERIFY(f.open());
        QVERIFY(f.screen->errorText().isEmpty());
        QSignalSpy windows(f.screen.get(), &CalendarScreen::windowSelected);

        f.click(QStringLiteral("2026-03-10"));
        QCOMPARE(f.field("from")->text(), QStringLiteral("2026-03-10"));
        QCOMPARE(f.field("to")->text(), QStringLiteral("2026-03-10"));
        f.click(QStringLiteral("2026-03-14"), Qt::ShiftModifier);
        QCOMPARE(f.field("from")->text(), QStringLiteral("2026-03-10"));
        QCOMPARE(f.field("to")->text(), QStringLiteral("2026-03-14"));
        QCOMPARE(selected(f), QStringLiteral("2026-03-10..2026-03-14"));
        QCOMPARE(f.view()->selectionModel()->selectedIndexes().size(), 5);
        QCOMPARE(windows.last().at(1).toString(), QStringLiteral("2026-03-14"));

        auto *warning = f.child<QWidget>("underScopeWarning");
        QVERIFY(warning->isVisible());
        QVERIFY2(f.screen->warningText().contains(QStringLiteral("2026-03-09")), qPrintable(f.screen->warningText()));
        QVERIFY(!f.screen->warningText().contains(QStringLiteral("2026-03-15")));

        QTest::mouseClick(f.child<QPushButton>("widen"), Qt::LeftButton);
        QCOMPARE(selected(f), QStringLiteral("2026-03-09..2026-03-14"));
        QCOMPARE(f.field("from")->text(), QStringLiteral("2026-03-09"));
        QVERIFY(!warning->isVisible());
        QVERIFY(f.screen->warningText().isEmpty());

        // Typed fields select too, and a bad name is refused with its reason.
        f.field("from")->setText(QStringLiteral("2026-03-01"));
        f.field("to")->setText(QStringLiteral("2026-03-03"));
        QMetaObject::invokeMethod(f.field("to"), "editingFinished");
        QCOMPARE(selected(f), QStringLiteral("2026-03-01..2026-03-03"));
        f.field("to")->setText(QStringLiteral("2026-13-01"));
        QMetaObject::invokeMethod(f.field("to"), "editingFinished");
        QCOMPARE(selected(f), QStringLiteral("2026-03-01..2026-03-03"));
        QVERIFY(!f.field("to")->toolTip().isEmpty());
        // The reason is said next to the fields, not only in a tooltip.
        auto *why = f.child<QLabel>("windowError");
        QVERIFY(why->isVisible());
        QCOMPARE(why->text(), f.field("to")->toolTip());
        QCOMPARE(f.screen->windowErrorText(), why->text());
        f.field("to")->setText(QStringLiteral("2031-01-01"));
        QMetaObject::invokeMethod(f.field("to"), "editingFinished");
        QVERIFY2(f.screen->windowErrorText().contains(QStringLiteral("2031-01-01")), qPrintable(f.screen->windowErrorText()));
        f.field("to")->setText(QStringLiteral("2026-03-04"));
        QMetaObject::invokeMethod(f.field("to"), "editingFinished");
        QCOMPARE(selected(f), QStringLiteral("2026-03-01..2026-03-04"));
        QVERIFY(f.screen->windowErrorText().isEmpty());

        // Dragging selects the range between press and release.
        const QRect a = f.view()->cellRect(f.ordinal(QStringLiteral("2026-03-16")));
        const QRect b = f.view()->cellRect(f.ordinal(QStringLiteral("2026-03-18")));
        QTest::mousePress(f.view()->viewport(), Qt::LeftButton, {}, a.center());
        QMouseEvent move(QEvent::MouseMove, b.center(), f.view()->viewport()->mapToGlobal(b.center()), Qt::NoButton,
                         Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(f.view()->viewport(), &move);
        QTest::mouseRelease(f.view()->viewport(), Qt::LeftButton, {}, b.center());
        QCOMPARE(selected(f), QStringLiteral("2026-03-16..2026-03-18"));
    }

    void selectFailingAndPlan()
    {
        Fixture f("tst_calendarscreen_plan");
        QVERIFY(f.open());
        QTest::mouseClick(f.child<QPushButton>("selectFailing"), Qt::LeftButton);
        QCOMPARE(selected(f), QStringLiteral("2026-03-09..2026-03-14"));
        QCOMPARE(f.field("from")->text(), QStringLiteral("2026-03-09"));
        QCOMPARE(f.field("to")->text(), QStringLiteral("2026-03-14"));
        QVERIFY(f.screen->warningText().isEmpty());

        const reprint::model::Plan &plan = f.screen->plan();
        QCOMPARE(plan.partitions, 6);
        qint64 rows = 0;
        for (int o = f.ordinal(QStringLiteral("2026-03-09")); o <= f.ordinal(QStringLiteral("2026-03-14")); ++o)
            rows += f.calendar()->status(o)->rows;
        QCOMPARE(plan.rows, rows);
        QVERIFY(rows > 0);
        QCOMPARE(plan.diffPartitions, (QStringList{QStringLiteral("2026-03-09"), QStringLiteral("2026-03-14")}));
        QCOMPARE(plan.outsidePartitions, (QStringList{QStringLiteral("2026-03-08"), QStringLiteral("2026-03-15")}));
        QCOMPARE(plan.downstream.size(), 1);
        QCOMPARE(plan.downstream.at(0).model, QStringLiteral("agg_daily_revenue"));
        QCOMPARE(plan.downstream.at(0).from, QStringLiteral("2026-03-09"));
        QCOMPARE(plan.downstream.at(0).to, QStringLiteral("2026-03-14"));
        QVERIFY(plan.conflicts.isEmpty());

        const QString expected = QStringLiteral("reprint backfill --spec %1 --model fct_order_lines --from 2026-03-09 --to 2026-03-14")
                                     .arg(reprint::model::shellQuoted(QString::fromStdString(f.spec.path)));
        QCOMPARE(f.field("command")->text(), expected);
        QVERIFY(f.child<QLabel>("planBoundary")->text().contains(QStringLiteral("2026-03-08")));
        QVERIFY(f.child<QLabel>("planDownstream")->text().contains(QStringLiteral("agg_daily_revenue")));

        f.child<QCheckBox>("cascade")->setChecked(true);
        QCOMPARE(f.field("command")->text(), expected + QStringLiteral(" --cascade"));

        // The plan follows the selection.
        f.click(QStringLiteral("2026-03-12"));
        QCOMPARE(f.field("command")->text(),
                 QStringLiteral("reprint backfill --spec %1 --model fct_order_lines --from 2026-03-12 --to 2026-03-12 --cascade")
                     .arg(reprint::model::shellQuoted(QString::fromStdString(f.spec.path))));

        QSignalSpy requested(f.screen.get(), &CalendarScreen::backfillRequested);
        QTest::mouseClick(f.child<QPushButton>("startBackfill"), Qt::LeftButton);
        QCOMPARE(requested.count(), 0);  // the plan is confirmed first
        QDialog *confirm = f.child<QDialog>("confirmBackfill");
        QVERIFY(confirm && confirm->isVisible());
        QTest::mouseClick(confirm->findChild<QPushButton *>(QStringLiteral("confirmStart")), Qt::LeftButton);
        QCOMPARE(requested.count(), 1);
        const auto request = requested.at(0).at(0).value<BackfillRequest>();
        QCOMPARE(request.model, std::string("fct_order_lines"));
        QCOMPARE(request.from, std::string("2026-03-12"));
        QCOMPARE(request.to, std::string("2026-03-12"));
        QVERIFY(request.cascade);
    }

    void startConfirmsThePlanFirst()
    {
        Fixture f("tst_calendarscreen_confirm");
        QVERIFY(f.open());
        QSignalSpy requested(f.screen.get(), &CalendarScreen::backfillRequested);
        QVERIFY(f.screen->selectWindow(QStringLiteral("2026-03-10"), QStringLiteral("2026-03-14")));
        QVERIFY(!f.screen->warningText().isEmpty());

        // Under-scoped: the dialog shows the plan with the warning; Enter does not start.
        QTest::mouseClick(f.child<QPushButton>("startBackfill"), Qt::LeftButton);
        QDialog *confirm = f.child<QDialog>("confirmBackfill");
        QVERIFY(confirm && confirm->isVisible());
        auto text = [&confirm](const char *name) {
            auto *l = confirm->findChild<QLabel *>(QLatin1String(name));
            return l ? l->text() : QStringLiteral("(no %1)").arg(QLatin1String(name));
        };
        QVERIFY2(text("confirmWindow").contains(QStringLiteral("2026-03-10 .. 2026-03-14 (5 partitions)")),
                 qPrintable(text("confirmWindow")));
        qint64 rows = 0;
        for (int o = f.ordinal(QStringLiteral("2026-03-10")); o <= f.ordinal(QStringLiteral("2026-03-14")); ++o)
            rows += f.calendar()->status(o)->rows;
        QVERIFY2(text("confirmRows").contains(QLocale().toString(rows)), qPrintable(text("confirmRows")));
        QCOMPARE(text("confirmTime"), f.screen->plan().estimateText());
        QVERIFY2(text("confirmDownstream").contains(QStringLiteral("agg_daily_revenue, 2026-03-10 .. 2026-03-14 (5 partitions)")),
                 qPrintable(text("confirmDownstream")));
        QVERIFY(text("confirmDownstream").contains(QStringLiteral("not staged")));
        QVERIFY(text("confirmBoundary").contains(QStringLiteral("2026-03-09")));
        QVERIFY(text("confirmCommand").startsWith(QStringLiteral("reprint backfill --spec")));
        QVERIFY(confirm->findChild<QWidget *>(QStringLiteral("confirmWarning"))->isVisible());
        QVERIFY2(text("confirmWarningText").contains(QStringLiteral("2026-03-09")), qPrintable(text("confirmWarningText")));
        auto *start = confirm->findChild<QPushButton *>(QStringLiteral("confirmStart"));
        QCOMPARE(start->text(), QStringLiteral("Start anyway"));
        QVERIFY(!start->isDefault());
        QVERIFY(confirm->findChild<QPushButton *>(QStringLiteral("confirmCancel"))->isDefault());
        QTest::keyClick(confirm, Qt::Key_Return);
        QTRY_VERIFY(!f.child<QDialog>("confirmBackfill"));
        QCOMPARE(requested.count(), 0);

        // Widen from the dialog: the window grows, nothing starts.
        QTest::mouseClick(f.child<QPushButton>("startBackfill"), Qt::LeftButton);
        confirm = f.child<QDialog>("confirmBackfill");
        QVERIFY(confirm);
        QTest::mouseClick(confirm->findChild<QPushButton *>(QStringLiteral("confirmWiden")), Qt::LeftButton);
        QCOMPARE(selected(f), QStringLiteral("2026-03-09..2026-03-14"));
        QTRY_VERIFY(!f.child<QDialog>("confirmBackfill"));
        QCOMPARE(requested.count(), 0);

        // The honest window, with Cascade: no warning, Start is the default, downstream staged too.
        f.child<QCheckBox>("cascade")->setChecked(true);
        QTest::mouseClick(f.child<QPushButton>("startBackfill"), Qt::LeftButton);
        confirm = f.child<QDialog>("confirmBackfill");
        QVERIFY(confirm);
        QVERIFY(!confirm->findChild<QWidget *>(QStringLiteral("confirmWarning")));
        QVERIFY(!confirm->findChild<QPushButton *>(QStringLiteral("confirmWiden")));
        // Each downstream model has its box: ticked, it is staged with the window.
        auto *stage = confirm->findChild<QCheckBox *>(QStringLiteral("stage_agg_daily_revenue"));
        QVERIFY(stage);
        QVERIFY(stage->isChecked());
        QVERIFY2(stage->text().contains(QStringLiteral("agg_daily_revenue, 2026-03-09 .. 2026-03-14 (6 partitions): staged and validated too")),
                 qPrintable(stage->text()));
        // Left out, it says it goes stale, and the command says --leave-out.
        stage->setChecked(false);
        QVERIFY2(stage->text().contains(QStringLiteral("left out: stale once this is published")), qPrintable(stage->text()));
        QVERIFY2(text("confirmCommand").endsWith(QStringLiteral("--cascade --leave-out agg_daily_revenue")), qPrintable(text("confirmCommand")));
        stage->setChecked(true);
        QVERIFY(!text("confirmCommand").contains(QStringLiteral("--leave-out")));
        start = confirm->findChild<QPushButton *>(QStringLiteral("confirmStart"));
        QCOMPARE(start->text(), QStringLiteral("Start backfill"));
        QVERIFY(start->isDefault());
        QTest::keyClick(confirm, Qt::Key_Return);
        QCOMPARE(requested.count(), 1);
        const auto request = requested.at(0).at(0).value<BackfillRequest>();
        QCOMPARE(request.from, std::string("2026-03-09"));
        QCOMPARE(request.to, std::string("2026-03-14"));
        QVERIFY(request.cascade);
        QVERIFY(request.leaveOut.empty());

        // Started with the model left out: the request leaves it out.
        QTRY_VERIFY(!f.child<QDialog>("confirmBackfill"));
        QTest::mouseClick(f.child<QPushButton>("startBackfill"), Qt::LeftButton);
        confirm = f.child<QDialog>("confirmBackfill");
        QVERIFY(confirm);
        confirm->findChild<QCheckBox *>(QStringLiteral("stage_agg_daily_revenue"))->setChecked(false);
        QTest::mouseClick(confirm->findChild<QPushButton *>(QStringLiteral("confirmStart")), Qt::LeftButton);
        QCOMPARE(requested.count(), 2);
        const auto leftOut = requested.at(1).at(0).value<BackfillRequest>();
        QVERIFY(leftOut.cascade);
        QCOMPARE(leftOut.leaveOut, std::vector<std::string>{"agg_daily_revenue"});
    }

    void scopeRowStaysPutAndUnclipped()
    {
        Fixture f("tst_calendarscreen_layout");
        f.screen->resize(1000, 760);  // the calendar's room in a 1280 px window with the sidebar
        QVERIFY(f.open());
        QVERIFY(f.screen->selectWindow(QStringLiteral("2026-03-09"), QStringLiteral("2026-03-14")));
        QVERIFY(f.screen->warningText().isEmpty());
        QTest::qWait(50);
        const QRect before(f.view()->mapTo(f.screen.get(), QPoint(0, 0)), f.view()->size());
        QVERIFY(f.child<QLabel>("scopeNote")->isVisible());
        QVERIFY2(f.child<QLabel>("scopeNote")->text().contains(QStringLiteral("2026-03-08")),
                 qPrintable(f.child<QLabel>("scopeNote")->text()));
        QVERIFY(f.screen->selectWindow(QStringLiteral("2026-03-10"), QStringLiteral("2026-03-14")));
        QVERIFY(!f.screen->warningText().isEmpty());
        QTest::qWait(50);
        QVERIFY(f.child<QWidget>("underScopeWarning")->isVisible());
        const QRect after(f.view()->mapTo(f.screen.get(), QPoint(0, 0)), f.view()->size());
        QCOMPARE(after, before);  // the calendar does not jump when the warning appears

        // The window's labels: as wide as their letters drawn one by one (a mnemonic label
        // is drawn in pieces, without kerning: "To" was clipped to "Tc").
        int labels = 0;
        for (QLabel *l : f.screen->findChildren<QLabel *>()) {
            if (l->text() != QStringLiteral("&To") && l->text() != QStringLiteral("&From"))
                continue;
            ++labels;
            int letters = 0;
            for (const QChar c : QString(l->text()).remove(QLatin1Char('&')))
                letters += l->fontMetrics().horizontalAdvance(c);
            QVERIFY2(l->contentsRect().width() >= letters, qPrintable(QStringLiteral("%1: %2 px for %3 px of letters")
                                                                       .arg(l->text()).arg(l->width()).arg(letters)));
        }
        QCOMPARE(labels, 2);
        auto *status = f.child<QLabel>("refreshStatus");
        QVERIFY2(status->fontMetrics().horizontalAdvance(status->text()) <= status->contentsRect().width(),
                 qPrintable(QStringLiteral("%1 in %2 px").arg(status->text()).arg(status->width())));
    }

    // Item 4 of issue 14: a backfill, a publish and an undo made by another process (the
    // CLI) show in the calendar without anyone pressing Refresh; the plan's estimate is
    // then measured on the past backfill (item 14).
    void followsChangesMadeByAnotherProcess()
    {
        Fixture f("tst_calendarscreen_follow");
        QVERIFY(f.open());
        const int o = f.ordinal(QStringLiteral("2026-03-10"));
        auto claimOf = [&f, o] { return f.calendar()->data(f.calendar()->indexOfOrdinal(o), PartitionCalendarModel::ClaimRole).toString(); };
        QVERIFY(claimOf().isEmpty());
        QVERIFY(f.calendar()->isFailing(o));
        QVERIFY(f.screen->selectWindow(QStringLiteral("2026-03-09"), QStringLiteral("2026-03-14")));
        QVERIFY(f.screen->plan().conflicts.isEmpty());
        const std::string db = f.conninfo.toStdString();
        auto scalar = [&db](const std::string &sql) {
            auto r = reprint::test::query(db, sql);
            return r ? r->last().scalar() : std::string("(error)");
        };
        const bool noPastBackfills = scalar("SELECT count(*) FROM reprint.backfill_partitions") == "0";
        if (noPastBackfills) {
            QVERIFY(!f.screen->throughput().isKnown());
            QVERIFY2(f.screen->plan().seconds < 0, qPrintable(f.screen->plan().estimateText()));
        }
        QSignalSpy announced(f.screen.get(), &CalendarScreen::changeAnnounced);
        QSignalSpy refreshes(f.screen.get(), &CalendarScreen::refreshFinished);
        const QStringList common{QStringLiteral("--spec"), demoSpecPath(), QStringLiteral("--db"), f.conninfo};

        // A backfill staged from the terminal claims the window.
        QProcess cli;
        cli.start(reprint::test::reprintBinary(),
                  QStringList{QStringLiteral("backfill")} + common
                      + QStringList{QStringLiteral("--model"), QStringLiteral("fct_order_lines"), QStringLiteral("--from"),
                                    QStringLiteral("2026-03-09"), QStringLiteral("--to"), QStringLiteral("2026-03-14")});
        QVERIFY(cli.waitForStarted());
        QTRY_VERIFY_WITH_TIMEOUT(claimOf().contains(QStringLiteral("backfill")), 60000);
        QVERIFY(!announced.isEmpty());
        QTRY_VERIFY_WITH_TIMEOUT(cli.state() == QProcess::NotRunning, 120000);
        QVERIFY2(cli.exitCode() == 0, cli.readAllStandardError().constData());
        const std::string id = scalar("SELECT max(id) FROM reprint.backfills WHERE parent_id IS NULL");
        QTRY_VERIFY_WITH_TIMEOUT(claimOf().contains(QStringLiteral("staged")), 30000);
        QTRY_VERIFY_WITH_TIMEOUT(!f.screen->plan().conflicts.isEmpty(), 10000);
        QVERIFY(!f.child<QPushButton>("startBackfill")->isEnabled());
        QVERIFY2(f.child<QLabel>("refreshStatus")->text().contains(QStringLiteral("after a change in the warehouse")),
                 qPrintable(f.child<QLabel>("refreshStatus")->text()));
        // The estimate now comes from the backfill's own partitions.
        QTRY_VERIFY_WITH_TIMEOUT(f.screen->throughput().isKnown(), 10000);
        QVERIFY(f.screen->plan().backfillsMeasured >= 1);
        QVERIFY(f.screen->plan().seconds >= 0);
        QVERIFY2(f.child<QLabel>("planSummary")->text().contains(QStringLiteral("past backfill")),
                 qPrintable(f.child<QLabel>("planSummary")->text()));

        // Publish from the terminal: the checks pass, the partition says who published it.
        auto published = reprint::test::runReprint(QStringList{QStringLiteral("publish")} + common
                                                   + QStringList{QString::fromStdString(id), QStringLiteral("--approve"),
                                                                 QStringLiteral("matches raw")});
        QVERIFY2(published.exitCode == 0, qPrintable(published.err));
        QTRY_VERIFY_WITH_TIMEOUT(!f.calendar()->isFailing(o), 30000);
        QTRY_VERIFY_WITH_TIMEOUT(claimOf() == QStringLiteral("published by backfill %1").arg(QString::fromStdString(id)), 30000);
        QVERIFY(f.screen->plan().conflicts.isEmpty());

        // Undo from the terminal: the bug is back.
        auto undone = reprint::test::runReprint(QStringList{QStringLiteral("undo")} + common
                                                + QStringList{QString::fromStdString(id)});
        QVERIFY2(undone.exitCode == 0, qPrintable(undone.err));
        QTRY_VERIFY_WITH_TIMEOUT(f.calendar()->isFailing(o), 30000);
        QTRY_VERIFY_WITH_TIMEOUT(claimOf().isEmpty(), 30000);
        // None of it came from a refresh of the whole calendar: only the window was read.
        for (const QList<QVariant> &a : announced)
            QVERIFY2(a.at(0).toString() >= QStringLiteral("2026-03-09") && a.at(1).toString() <= QStringLiteral("2026-03-14"),
                     qPrintable(a.at(0).toString() + QStringLiteral("..") + a.at(1).toString()));
    }

    // Not a check: writes calendar-confirm*.png when REPRINT_SCREENSHOT_DIR is set.
    void screenshots()
    {
        const QString out = qEnvironmentVariable("REPRINT_SCREENSHOT_DIR");
        if (out.isEmpty())
            QSKIP("set REPRINT_SCREENSHOT_DIR to write the calendar screenshots");
        const QPalette light = QApplication::palette();
        for (const bool dark : {false, true}) {
            QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
            if (dark)
                reprint::views::useDarkPalette();
            else
                QApplication::setPalette(light);
            const QString suffix = dark ? QStringLiteral("-dark") : QString();
            Fixture f(dark ? "tst_calendarscreen_shots_dark" : "tst_calendarscreen_shots");
            f.screen->resize(1000, 760);
            QVERIFY(f.open());
            QVERIFY(f.screen->selectWindow(QStringLiteral("2026-03-10"), QStringLiteral("2026-03-14")));
            f.field("to")->setText(QStringLiteral("2026-13-01"));
            QMetaObject::invokeMethod(f.field("to"), "editingFinished");
            QTest::qWait(100);
            QVERIFY(f.screen->grab().save(out + QStringLiteral("/calendar-warning%1.png").arg(suffix)));
            f.field("to")->setText(QStringLiteral("2026-03-14"));
            QMetaObject::invokeMethod(f.field("to"), "editingFinished");
            QTest::mouseClick(f.child<QPushButton>("startBackfill"), Qt::LeftButton);
            QDialog *confirm = f.child<QDialog>("confirmBackfill");
            QVERIFY(confirm);
            QTest::qWait(100);
            QVERIFY(confirm->grab().save(out + QStringLiteral("/calendar-confirm%1.png").arg(suffix)));
            confirm->reject();
            // A cascade with its downstream model left out.
            QVERIFY(f.screen->selectWindow(QStringLiteral("2026-03-09"), QStringLiteral("2026-03-14")));
            f.child<QCheckBox>("cascade")->setChecked(true);
            QTRY_VERIFY(!f.child<QDialog>("confirmBackfill"));
            QTest::mouseClick(f.child<QPushButton>("startBackfill"), Qt::LeftButton);
            confirm = f.child<QDialog>("confirmBackfill");
            QVERIFY(confirm);
            confirm->findChild<QCheckBox *>(QStringLiteral("stage_agg_daily_revenue"))->setChecked(false);
            QTest::qWait(100);
            QVERIFY(confirm->grab().save(out + QStringLiteral("/calendar-confirm-leaveout%1.png").arg(suffix)));
            confirm->reject();
        }
        QApplication::setPalette(light);
    }

    void keyboardSelection()
    {
        Fixture f("tst_calendarscreen_keys");
        QVERIFY(f.open());
        f.click(QStringLiteral("2026-03-10"));
        QVERIFY(f.view()->hasFocus());
        for (int i = 0; i < 4; ++i)
            QTest::keyClick(f.view(), Qt::Key_Right, Qt::ShiftModifier);
        QCOMPARE(selected(f), QStringLiteral("2026-03-10..2026-03-14"));
        QCOMPARE(f.field("to")->text(), QStringLiteral("2026-03-14"));
        QVERIFY(f.screen->warningText().contains(QStringLiteral("2026-03-09")));
        QTest::keyClick(f.view(), Qt::Key_Left, Qt::ShiftModifier);
        QCOMPARE(selected(f), QStringLiteral("2026-03-10..2026-03-13"));
        // Backwards past the anchor.
        for (int i = 0; i < 5; ++i)
            QTest::keyClick(f.view(), Qt::Key_Left, Qt::ShiftModifier);
        QCOMPARE(selected(f), QStringLiteral("2026-03-08..2026-03-10"));
        QTest::keyClick(f.view(), Qt::Key_Right);
        QCOMPARE(selected(f), QStringLiteral("2026-03-09..2026-03-09"));
        // Down moves to the next month's row, under the same weekday column.
        QTest::keyClick(f.view(), Qt::Key_Down, Qt::ShiftModifier);
        QCOMPARE(f.field("from")->text(), QStringLiteral("2026-03-09"));
        QCOMPARE(f.field("to")->text(), QStringLiteral("2026-04-13"));
        QTest::keyClick(f.view(), Qt::Key_Escape);
        QVERIFY(!f.view()->hasRange());
        QVERIFY(f.field("from")->text().isEmpty());
    }

    // A refresh paints every partition's totals in one read, then reads the source checks:
    // when the totals show, the checks of a partition never read say "checking" (not a
    // verdict); after the checks, the demo's bug shows; a second refresh keeps the verdicts
    // of totals that did not change while the checks are read again.
    void totalsFirstThenChecks()
    {
        QDir(QStandardPaths::writableLocation(QStandardPaths::CacheLocation)).removeRecursively();
        Fixture f("tst_calendarscreen_totals");
        const QString bad = QStringLiteral("2026-03-10");
        const QString good = QStringLiteral("2026-03-02");
        struct Seen {
            int times = 0;
            bool finished = false;
            qint64 rows = -1;
            QStringList badStates;
            bool badFailing = false;
        } seen;
        auto statesOf = [&f](const QString &name) {
            QStringList out;
            const QModelIndex idx = f.calendar()->indexOfOrdinal(f.ordinal(name));
            for (const QVariant &v : idx.data(PartitionCalendarModel::ChecksRole).toList())
                out << v.toMap().value(QStringLiteral("state")).toString();
            return out;
        };
        QSignalSpy done(f.screen.get(), &CalendarScreen::refreshFinished);
        connect(f.screen.get(), &CalendarScreen::totalsShown, this, [&] {
            ++seen.times;
            seen.finished = !done.isEmpty();
            const auto *s = f.calendar()->status(f.ordinal(bad));
            seen.rows = s ? s->rows : -1;
            seen.badStates = statesOf(bad);
            seen.badFailing = f.calendar()->isFailing(f.ordinal(bad));
        });
        f.screen->showModel(QStringLiteral("fct_order_lines"));
        QVERIFY(done.wait(120000));
        QVERIFY(done.at(0).at(0).toBool());
        QCOMPARE(seen.times, 1);
        QVERIFY(!seen.finished);
        auto count = reprint::test::query(f.conninfo.toStdString(),
                                          "SELECT count(*) FROM analytics.fct_order_lines WHERE order_date = '2026-03-10'");
        QVERIFY(count);
        QCOMPARE(seen.rows, std::stoll(count->last().scalar()));
        QCOMPARE(seen.badStates, QStringList(3, QStringLiteral("checking")));
        QVERIFY(!seen.badFailing);
        // The checks read: the double discount of 2026-03-10 fails its revenue check.
        QVERIFY(statesOf(bad).contains(QStringLiteral("mismatch")));
        QVERIFY(f.calendar()->isFailing(f.ordinal(bad)));
        QCOMPARE(statesOf(good), QStringList(3, QStringLiteral("ok")));

        done.clear();
        f.screen->refresh();
        QVERIFY(done.wait(120000));
        QCOMPARE(seen.times, 2);
        QVERIFY(!seen.finished);
        QVERIFY(seen.badStates.contains(QStringLiteral("mismatch")));
        QVERIFY(!seen.badStates.contains(QStringLiteral("checking")));
        QVERIFY(seen.badFailing);
    }

    void cancelKeepsDataAndCacheOpensAtOnce()
    {
        {
            Fixture f("tst_calendarscreen_cancel");
            QVERIFY(f.open());
            const qint64 rows = f.calendar()->status(f.ordinal(QStringLiteral("2026-03-10")))->rows;
            QSignalSpy done(f.screen.get(), &CalendarScreen::refreshFinished);
            f.screen->refresh();
            QVERIFY(f.screen->isRefreshing());
            QVERIFY(f.child<QProgressBar>("refreshProgress")->isVisible());
            QVERIFY(f.child<QToolButton>("cancelRefresh")->isVisible());
            QTest::mouseClick(f.child<QToolButton>("cancelRefresh"), Qt::LeftButton);
            QVERIFY(!f.screen->isRefreshing());
            QCOMPARE(done.count(), 1);
            QCOMPARE(done.at(0).at(0).toBool(), false);
            QVERIFY(!f.child<QProgressBar>("refreshProgress")->isVisible());
            QVERIFY(f.screen->errorText().isEmpty());
            QCOMPARE(f.calendar()->status(f.ordinal(QStringLiteral("2026-03-10")))->rows, rows);
            // Late answers to the cancelled request change nothing.
            QTest::qWait(500);
            QCOMPARE(done.count(), 1);
        }
        // A new screen opens from the cached statistics before it has read anything.
        // The file is read off the GUI thread: the statistics show when cacheShown() is emitted.
        // The refresh starts once the event loop runs (after the first paint), not in
        // showModel(); a switch to another model before then starts none.
        Fixture g("tst_calendarscreen_cancel");
        QSignalSpy shown(g.screen.get(), &CalendarScreen::cacheShown);
        QSignalSpy done(g.screen.get(), &CalendarScreen::refreshFinished);
        QSignalSpy reads(&g.engine, &EngineClient::statusFinished);
        g.screen->showModel(QStringLiteral("fct_order_lines"));
        QVERIFY(!g.screen->isRefreshing());
        g.screen->showModel(QString());
        QTest::qWait(300);
        QVERIFY(!g.screen->isRefreshing());
        QCOMPARE(shown.count(), 0);
        QCOMPARE(reads.count(), 0);
        g.screen->showModel(QStringLiteral("fct_order_lines"));
        QVERIFY(shown.count() == 1 || shown.wait(10000));
        QVERIFY(done.isEmpty());
        QVERIFY(g.calendar()->status(g.ordinal(QStringLiteral("2026-03-10"))));
        QVERIFY(g.calendar()->isFailing(g.ordinal(QStringLiteral("2026-03-09"))));
        QVERIFY(done.wait(120000));
        QCOMPARE(done.count(), 1);
        QVERIFY(done.at(0).at(0).toBool());
    }

    void databaseGoingAwayKeepsDataAndRetries()
    {
        Fixture f("tst_calendarscreen_gone");
        QVERIFY(f.open());
        const int o = f.ordinal(QStringLiteral("2026-03-10"));
        const qint64 rows = f.calendar()->status(o)->rows;

        QSignalSpy chunks(&f.engine, &EngineClient::statusFinished);
        QSignalSpy done(f.screen.get(), &CalendarScreen::refreshFinished);
        f.screen->refresh();
        QVERIFY(chunks.wait(60000));
        auto dropped = reprint::test::execute(reprint::test::demoCluster().conninfo("postgres"),
                                              "DROP DATABASE tst_calendarscreen_gone WITH (FORCE)");
        QVERIFY2(dropped, dropped ? "" : dropped.error().toSentence().c_str());
        QVERIFY(done.wait(60000));
        QCOMPARE(done.at(0).at(0).toBool(), false);
        QVERIFY(!f.screen->isRefreshing());

        const QString error = f.screen->errorText();
        QVERIFY(!error.isEmpty());
        QVERIFY2(f.child<QWidget>("refreshError")->findChild<QLabel *>()->text().contains(QStringLiteral("Could not refresh")),
                 qPrintable(error));
        QVERIFY(f.child<QWidget>("refreshError")->isVisible());
        QVERIFY(f.child<QPushButton>("retry")->isVisible());
        QVERIFY(f.child<QProgressBar>("refreshProgress")->isHidden());
        // The last data stays.
        QVERIFY(f.calendar()->status(o));
        QCOMPARE(f.calendar()->status(o)->rows, rows);
        QVERIFY(f.calendar()->isFailing(f.ordinal(QStringLiteral("2026-03-09"))));

        // Retry once the database is back.
        reprint::test::demoCopy("tst_calendarscreen_gone");
        done.clear();
        QTest::mouseClick(f.child<QPushButton>("retry"), Qt::LeftButton);
        QVERIFY(done.wait(120000));
        QCOMPARE(done.at(0).at(0).toBool(), true);
        QVERIFY(f.child<QWidget>("refreshError")->isHidden());
        QVERIFY(f.screen->errorText().isEmpty());
    }
};

QTEST_MAIN(CalendarScreenTest)
#include "tst_calendarscreen.moc"
