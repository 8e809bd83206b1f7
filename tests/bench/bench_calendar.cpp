// The calendar at scale: a year of daily and a year of hourly partitions of the scale-1
// demo, and ten years of days. Measures the first paint (no cache, then from the cache),
// the full refresh against a baseline in the same run (one count(*) over the target's
// rows of the same range: a single pass of the table), the longest GUI-thread stall and
// the 99th percentile gap during the refresh, and a scroll repaint. Prints the figures and
// merges them into bench/results.json; asserts nothing about time.
#include "calendarscreen.h"
#include "calendarview.h"
#include "engineclient.h"
#include "partitioncalendarmodel.h"
#include "benchresults.h"
#include "stallprobe.h"
#include "testsupport.h"

#include "backfill/spec.h"
#include "backfill/sqltext.h"

#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QScrollBar>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>

#include <memory>

using reprint::model::EngineClient;
using reprint::views::CalendarScreen;

namespace {

double msSince(const QElapsedTimer &t) { return double(t.nsecsElapsed()) / 1e6; }

struct Case {
    const char *database;
    QString spec;
    QString model;
    QString table;   // the target, for the baseline
    QString column;  // its partition column
    int years;       // the calendar's span, ending this year
    const char *label;
};

// A count(*) over the target's rows the calendar spans: the one pass a refresh cannot beat.
double baselineMs(const std::string &conninfo, const Case &c, const QDate &from)
{
    const std::string sql = "SELECT count(*) FROM " + c.table.toStdString() + " WHERE " + c.column.toStdString()
        + " >= '" + from.toString(Qt::ISODate).toStdString() + "'";
    (void)reprint::test::query(conninfo, sql);  // warm, as the refresh's reads are after the first paint
    QElapsedTimer t;
    t.start();
    auto r = reprint::test::query(conninfo, sql);
    if (!r)
        qFatal("baseline failed: %s", r.error().toSentence().c_str());
    return msSince(t);
}

// The model's source checks over the same range, run by hand one after the other on one
// session (as in psql): the server's own work behind the check verdicts of a full refresh.
double checksBaselineMs(const std::string &conninfo, const reprint::backfill::Model &m, const QDate &from, const QDate &to)
{
    const std::string start = from.toString(Qt::ISODate).toStdString() + "T00:00:00+00:00";
    const std::string end = to.toString(Qt::ISODate).toStdString() + "T00:00:00+00:00";
    QElapsedTimer t;
    t.start();
    for (const reprint::backfill::Check &check : m.checks) {
        auto bound = reprint::backfill::bindNamedParameters(check.sql, {"start", "end"});
        if (!bound)
            qFatal("check %s: %s", check.name.c_str(), bound.error().toSentence().c_str());
        auto r = reprint::test::query(conninfo, bound->sql, reprint::warehouse::args(start, end));
        if (!r)
            qFatal("check %s failed: %s", check.name.c_str(), r.error().toSentence().c_str());
    }
    return msSince(t);
}

} // namespace

class BenchCalendar : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QApplication::setOrganizationName(QStringLiteral("ReprintBench"));
        QApplication::setApplicationName(QStringLiteral("bench_calendar"));
    }

    void firstPaintRefreshAndStalls()
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
        const QString demoSpec = QDir(qEnvironmentVariable("REPRINT_TEST_DEMO_DIR")).filePath(QStringLiteral("demo.yaml"));
        const QList<Case> cases{
            {"bench_calendar_day", demoSpec, QStringLiteral("fct_order_lines"), QStringLiteral("analytics.fct_order_lines"),
             QStringLiteral("order_date"), 2, "a year of days"},
            {"bench_calendar_hour", dir.filePath(QStringLiteral("hourly.yaml")), QStringLiteral("orders_hourly"),
             QStringLiteral("raw.orders"), QStringLiteral("ordered_at"), 1, "a year of hours"},
            {"bench_calendar_decade", demoSpec, QStringLiteral("fct_order_lines"), QStringLiteral("analytics.fct_order_lines"),
             QStringLiteral("order_date"), 10, "ten years of days"},
        };
        QJsonArray results;
        for (const Case &c : cases) {
            QDir(QStandardPaths::writableLocation(QStandardPaths::CacheLocation)).removeRecursively();
            const std::string conninfo = reprint::test::demoCopy(c.database);
            auto spec = reprint::backfill::loadSpec(c.spec.toStdString());
            QVERIFY2(spec, c.spec.toUtf8().constData());
            EngineClient engine;
            engine.setSpec(*spec, QString::fromStdString(conninfo));
            CalendarScreen screen(&engine);
            screen.resize(1280, 800);
            screen.show();
            QVERIFY(QTest::qWaitForWindowExposed(&screen));
            screen.showModel(QString());  // the empty page, then time the model's opening

            reprint::test::StallProbe probe;
            QSignalSpy done(&screen, &CalendarScreen::refreshFinished);
            QElapsedTimer t;
            double totalsAt = -1;  // since t, the refresh's first read (every total) shown
            QObject ctx;
            connect(&screen, &CalendarScreen::totalsShown, &ctx, [&] { totalsAt = msSince(t); });
            t.start();
            probe.start();
            screen.showModel(c.model);
            screen.view()->viewport()->repaint();
            const double firstPaint = msSince(t);
            if (!screen.isRefreshing())
                screen.refresh();
            QVERIFY(done.wait(600000));
            double refresh = msSince(t) - firstPaint;
            double totals = totalsAt - firstPaint;
            QVERIFY(done.at(0).at(0).toBool());
            if (c.years > 2) {
                // Earlier… as a user goes back, a year a click; then a full refresh of them all.
                auto *earlier = screen.findChild<QToolButton *>(QStringLiteral("earlierYear"));
                QVERIFY(earlier);
                while (screen.calendarModel()->firstYear() > QDate::currentDate().year() - c.years + 1) {
                    done.clear();
                    earlier->click();
                    if (screen.isRefreshing())
                        QVERIFY(done.wait(600000));
                }
                done.clear();
                probe.start();
                t.restart();
                screen.refresh();
                QVERIFY(done.wait(600000));
                refresh = msSince(t);
                totals = totalsAt;
                QVERIFY(done.at(0).at(0).toBool());
            }
            probe.stop();
            QObject::disconnect(&screen, &CalendarScreen::totalsShown, &ctx, nullptr);
            const int partitions = screen.calendarModel()->partitionCount();
            const int past = screen.calendarModel()->lastPastOrdinal() + 1;
            const QDate from = screen.calendarModel()->partition(0).start.date();
            const double baseline = baselineMs(conninfo, c, from);
            const double checksBaseline = checksBaselineMs(conninfo, *spec->model(c.model.toStdString()), from,
                                                           screen.calendarModel()->partition(past - 1).start.date().addDays(1));
            QTest::qWait(500);  // the cache's write, on a pool thread

            // Reopening: the first paint, then the cache shown (read off the GUI thread).
            screen.showModel(QString());
            QSignalSpy shown(&screen, &CalendarScreen::cacheShown);
            t.restart();
            screen.showModel(c.model);
            screen.view()->viewport()->repaint();
            const double cachedPaint = msSince(t);
            QVERIFY(shown.count() == 1 || shown.wait(30000));
            const double cacheShown = msSince(t);
            int reported = 0;
            for (int o = 0; o < past; ++o)
                reported += screen.calendarModel()->status(o) ? 1 : 0;
            QVERIFY(reported > 0);
            QVERIFY(done.wait(600000));

            // Scrolling: a repaint per half page through the whole calendar.
            QScrollBar *bar = screen.view()->verticalScrollBar();
            int frames = 0;
            t.restart();
            for (int v = 0; v <= bar->maximum(); v += std::max(1, bar->pageStep() / 2), ++frames) {
                bar->setValue(v);
                screen.view()->viewport()->repaint();
            }
            const double perFrame = msSince(t) / std::max(1, frames);

            qInfo("%s (%d partitions, %d past): first paint %.1f ms; every total shown at %.0f ms = %.2fx one count(*); "
                  "full refresh (the source checks read) %.0f ms = %.2fx one count(*) of "
                  "the range (%.0f ms), %.2fx the source checks run by hand (%.0f ms); GUI stall during the refresh: longest %.1f ms, 99th percentile %.1f ms; "
                  "reopened: first paint %.1f ms, the cache (%d partitions) shown at %.1f ms; scroll %.2f ms a frame",
                  c.label, partitions, past, firstPaint, totals, totals / baseline, refresh, refresh / baseline, baseline, refresh / checksBaseline, checksBaseline, probe.longestMs(),
                  probe.percentileMs(0.99), cachedPaint, reported, cacheShown, perFrame);
            QJsonObject r = probe.json();
            r.insert(QStringLiteral("case"), QString::fromLatin1(c.label));
            r.insert(QStringLiteral("partitions"), partitions);
            r.insert(QStringLiteral("first_paint_ms"), firstPaint);
            r.insert(QStringLiteral("refresh_ms"), refresh);
            r.insert(QStringLiteral("totals_shown_ms"), totals);
            r.insert(QStringLiteral("count_baseline_ms"), baseline);
            r.insert(QStringLiteral("checks_baseline_ms"), checksBaseline);
            r.insert(QStringLiteral("cached_first_paint_ms"), cachedPaint);
            r.insert(QStringLiteral("cache_shown_ms"), cacheShown);
            r.insert(QStringLiteral("scroll_frame_ms"), perFrame);
            results.append(r);
        }
        reprint::test::record(QStringLiteral("calendar"), results);
    }
};

QTEST_MAIN(BenchCalendar)
#include "bench_calendar.moc"
