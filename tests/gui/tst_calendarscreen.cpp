// CalendarScreen offscreen, on copies of the demo: scoping with the mouse and the
// keyboard, the under-scope warning and Widen, Select failing, the plan's command line,
// cancel, the cache it opens from, and the database going away mid-refresh. Also measures
// the time to first paint and to a full refresh over a year of daily and of hourly
// partitions (printed; bounded loosely).
#include "calendarscreen.h"
#include "calendarview.h"
#include "engineclient.h"
#include "partitioncalendarmodel.h"
#include "testsupport.h"

#include "backfill/spec.h"

#include <QApplication>
#include <QCheckBox>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollBar>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
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

double msSince(const QElapsedTimer &t)
{
    return double(t.nsecsElapsed()) / 1e6;
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
        QCOMPARE(requested.count(), 1);
        const auto request = requested.at(0).at(0).value<BackfillRequest>();
        QCOMPARE(request.model, std::string("fct_order_lines"));
        QCOMPARE(request.from, std::string("2026-03-12"));
        QCOMPARE(request.to, std::string("2026-03-12"));
        QVERIFY(request.cascade);
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
        Fixture g("tst_calendarscreen_cancel");
        g.screen->showModel(QStringLiteral("fct_order_lines"));
        QVERIFY(g.screen->isRefreshing());
        QVERIFY(g.calendar()->status(g.ordinal(QStringLiteral("2026-03-10"))));
        QVERIFY(g.calendar()->isFailing(g.ordinal(QStringLiteral("2026-03-09"))));
        QSignalSpy done(g.screen.get(), &CalendarScreen::refreshFinished);
        QVERIFY(done.wait(120000));
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

    void measuresFirstPaintAndRefresh()
    {
        // A year of hourly partitions: raw.orders of the demo by the hour of ordered_at.
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        auto write = [&dir](const QString &name, const QByteArray &text) {
            QFile file(dir.filePath(name));
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write(text);
        };
        write(QStringLiteral("orders.sql"), "SELECT * FROM raw.orders WHERE ordered_at >= :start AND ordered_at < :end\n");
        write(QStringLiteral("orders_check.sql"),
              "SELECT date_trunc('hour', ordered_at, 'UTC') AS partition, count(*) AS value FROM raw.orders "
              "WHERE ordered_at >= :start AND ordered_at < :end GROUP BY 1\n");
        write(QStringLiteral("hourly.yaml"),
              "models:\n"
              "  - name: orders_hourly\n"
              "    target: raw.orders\n"
              "    partition: { column: ordered_at, grain: hour, timezone: UTC }\n"
              "    key: [order_id]\n"
              "    transform: orders.sql\n"
              "    depends_on: [raw.orders]\n"
              "    checks:\n"
              "      - name: rows match source\n"
              "        measure: rows\n"
              "        source: orders_check.sql\n");

        struct Case {
            const char *database;
            QString spec;
            QString model;
            const char *label;
        };
        const QList<Case> cases{
            {"tst_calendarscreen_bench_day", demoSpecPath(), QStringLiteral("fct_order_lines"), "a year of days"},
            {"tst_calendarscreen_bench_hour", dir.filePath(QStringLiteral("hourly.yaml")), QStringLiteral("orders_hourly"),
             "a year of hours"},
        };
        for (const Case &c : cases) {
            QDir(QStandardPaths::writableLocation(QStandardPaths::CacheLocation)).removeRecursively();
            Fixture f(c.database, c.spec);
            f.screen->showModel(QString()); // the empty page, then time the model's opening
            QElapsedTimer t;
            t.start();
            f.screen->showModel(c.model);
            f.view()->viewport()->repaint();
            const double firstPaint = msSince(t);
            const int partitions = f.calendar()->partitionCount();
            QSignalSpy done(f.screen.get(), &CalendarScreen::refreshFinished);
            if (!f.screen->isRefreshing())
                f.screen->refresh();
            QVERIFY(done.wait(300000));
            const double refresh = msSince(t) - firstPaint;
            QVERIFY2(done.at(0).at(0).toBool(), qPrintable(f.screen->errorText()));

            // Reopening: from the cache, then first paint.
            f.screen->showModel(QString());
            t.restart();
            f.screen->showModel(c.model);
            f.view()->viewport()->repaint();
            const double cachedPaint = msSince(t);
            int reported = 0;
            for (int o = 0; o <= f.calendar()->lastPastOrdinal(); ++o)
                reported += f.calendar()->status(o) ? 1 : 0;
            QVERIFY(done.wait(300000));

            // Scrolling: a repaint per page through the whole window.
            QScrollBar *bar = f.view()->verticalScrollBar();
            int frames = 0;
            t.restart();
            for (int v = 0; v <= bar->maximum(); v += std::max(1, bar->pageStep() / 2), ++frames) {
                bar->setValue(v);
                f.view()->viewport()->repaint();
            }
            const double perFrame = msSince(t) / std::max(1, frames);
            // Selecting the whole window.
            t.restart();
            f.view()->selectRange(0, f.calendar()->lastPastOrdinal());
            f.view()->viewport()->repaint();
            const double selectAll = msSince(t);

            qInfo("%s (%d partitions, %d past): first paint %.1f ms (no cache), %.1f ms (from the cache, %d partitions "
                  "shown at once); full refresh %.0f ms; scroll repaint %.2f ms per frame over %d frames; select all "
                  "and repaint %.1f ms",
                  c.label, partitions, f.calendar()->lastPastOrdinal() + 1, firstPaint, cachedPaint, reported, refresh,
                  perFrame, frames, selectAll);
            QVERIFY(reported > 0);
            QVERIFY2(firstPaint < 2000, "first paint is slow");
            QVERIFY2(perFrame < 50, "a frame takes longer than 50 ms");
        }
    }
};

QTEST_MAIN(CalendarScreenTest)
#include "tst_calendarscreen.moc"
