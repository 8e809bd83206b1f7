// The window room (model/backfill/window.h) without a database: a window from names, its
// neighbours, the instants it spans, and the one downstream mapping that the calendar's
// plan, the engine's cascade and the review's stale list all use. The expected windows are
// worked out by hand from the calendar (ISO weeks, DST days), not from the code.
// tst_reliability (leftOutDownstreamIsStaleAndNeverWritten) checks that the engine stages
// the same day -> week -> month windows that plan() below shows.

#include "backfill/window.h"
#include "partitioncalendarmodel.h"
#include "plan.h"

#include <QTest>

using namespace reprint::backfill;
using reprint::model::PartitionCalendarModel;
using reprint::model::Plan;

namespace {

Model model(const std::string &name, Grain grain, const std::string &zone, std::vector<std::string> dependsOn = {})
{
    Model m;
    m.name = name;
    m.grain = grain;
    m.timezone = zone;
    m.dependsOn = std::move(dependsOn);
    return m;
}

// orders (day) -> daily (day) -> weekly (week) -> monthly (month), all UTC; orders also
// reads an external relation.
Spec chain()
{
    Spec s;
    s.models = {model("orders", Grain::Day, "UTC", {"raw.orders"}), model("daily", Grain::Day, "UTC", {"orders"}),
                model("weekly", Grain::Week, "UTC", {"daily"}), model("monthly", Grain::Month, "UTC", {"weekly"})};
    return s;
}

Window windowOrFail(const Model &m, const std::string &from, const std::string &to)
{
    auto w = windowOf(m, from, to);
    if (!w)
        qFatal("windowOf(%s, %s, %s): %s", m.name.c_str(), from.c_str(), to.c_str(), w.error().message.c_str());
    return *w;
}

// "daily 2026-03-28..2026-03-31 staged" per downstream model, in cascade order.
QStringList describe(const std::vector<DownstreamWindow> &ds)
{
    QStringList out;
    for (const DownstreamWindow &d : ds)
        out << QString::fromStdString(d.model->name + " " + d.window.text() + (d.staged ? " staged" : " stale"));
    return out;
}

QStringList names(const Window &w)
{
    QStringList out;
    for (const Partition &p : w.partitions)
        out << QString::fromStdString(p.name);
    return out;
}

QDateTime utc(const char *iso)
{
    return QDateTime::fromString(QString::fromLatin1(iso), Qt::ISODate).toUTC();
}

} // namespace

class TestWindow : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void fromNames();
    void stagingOrderPutsBoundariesFirst();
    void neighboursAcrossYearEnds();
    void badNames();
    void spanningIsEndExclusive();
    void dayToWeekToMonth();
    void leftOutIsStaleWithWhatReadsIt();
    void unionOfUpstreams();
    void springDayToHours();
    void autumnDayToHours();
    void hourToDayAcrossZones();
    void planShowsTheCascade();
    void planLeavesOut();
};

void TestWindow::fromNames()
{
    const Spec s = chain();
    const Window w = windowOrFail(*s.model("daily"), "2026-03-28", "2026-03-31");
    QCOMPARE(names(w), (QStringList{"2026-03-28", "2026-03-29", "2026-03-30", "2026-03-31"}));
    QCOMPARE(w.before.name, std::string("2026-03-27"));
    QCOMPARE(w.after.name, std::string("2026-04-01"));
    QCOMPARE(w.text(), std::string("2026-03-28..2026-03-31"));
    QCOMPARE(windowOrFail(*s.model("daily"), "2026-03-28", "2026-03-28").text(), std::string("2026-03-28"));
    // A week may be named by its Monday.
    QCOMPARE(windowOrFail(*s.model("weekly"), "2026-03-23", "2026-W14").text(), std::string("2026-W13..2026-W14"));
}

void TestWindow::stagingOrderPutsBoundariesFirst()
{
    const Spec s = chain();
    auto order = [](const Window &w) {
        QStringList out;
        for (const auto &[p, boundary] : stagingOrder(w))
            out << QString::fromStdString(p.name) + (boundary ? QStringLiteral("*") : QString());
        return out;
    };
    QCOMPARE(order(windowOrFail(*s.model("daily"), "2026-03-28", "2026-03-31")),
             (QStringList{"2026-03-28*", "2026-03-31*", "2026-03-29", "2026-03-30"}));
    QCOMPARE(order(windowOrFail(*s.model("daily"), "2026-03-28", "2026-03-29")), (QStringList{"2026-03-28*", "2026-03-29*"}));
    QCOMPARE(order(windowOrFail(*s.model("daily"), "2026-03-28", "2026-03-28")), QStringList{"2026-03-28*"});
}

void TestWindow::neighboursAcrossYearEnds()
{
    const Spec s = chain();
    // 2026-W01 starts on Monday 2025-12-29; 2025 has 52 ISO weeks.
    const Window weeks = windowOrFail(*s.model("weekly"), "2026-W01", "2026-W01");
    QCOMPARE(weeks.before.name, std::string("2025-W52"));
    QCOMPARE(weeks.after.name, std::string("2026-W02"));
    QCOMPARE(weeks.first().start, utc("2025-12-29T00:00:00Z"));
    const Window months = windowOrFail(*s.model("monthly"), "2026-12", "2026-12");
    QCOMPARE(months.before.name, std::string("2026-11"));
    QCOMPARE(months.after.name, std::string("2027-01"));
}

void TestWindow::badNames()
{
    const Spec s = chain();
    auto backwards = windowOf(*s.model("daily"), "2026-03-31", "2026-03-28");
    QVERIFY(!backwards);
    QCOMPARE(backwards.error().kind, ErrorKind::Usage);
    QVERIFY2(backwards.error().message.find("2026-03-31..2026-03-28 ends before it starts") != std::string::npos,
             backwards.error().message.c_str());
    QVERIFY(backwards.error().hint.find("Swap --from and --to") != std::string::npos);
    auto missing = windowOf(*s.model("daily"), "2026-02-30", "2026-03-01");
    QVERIFY(!missing);
    QVERIFY2(missing.error().message.find("2026-02-30") != std::string::npos, missing.error().message.c_str());
    auto wrongGrain = windowOf(*s.model("monthly"), "2026-03-01", "2026-03-01");
    QVERIFY(!wrongGrain);
}

void TestWindow::spanningIsEndExclusive()
{
    const Spec s = chain();
    const Model &daily = *s.model("daily");
    QCOMPARE(windowSpanning(daily, utc("2026-03-28T00:00:00Z"), utc("2026-03-30T00:00:00Z")).text(),
             std::string("2026-03-28..2026-03-29"));
    QCOMPARE(windowSpanning(daily, utc("2026-03-28T00:00:00Z"), utc("2026-03-30T00:00:01Z")).text(),
             std::string("2026-03-28..2026-03-30"));
    // An empty span is the partition holding its instant.
    QCOMPARE(windowSpanning(daily, utc("2026-03-28T12:00:00Z"), utc("2026-03-28T12:00:00Z")).text(), std::string("2026-03-28"));
}

void TestWindow::dayToWeekToMonth()
{
    // Saturday 2026-03-28 .. Tuesday 2026-03-31 touches W13 (03-23..29) and W14
    // (03-30..04-05); W14 ends in April, so the month model gets March and April. Mapping
    // the root window straight onto months would give March alone.
    const Spec s = chain();
    const Window root = windowOrFail(*s.model("orders"), "2026-03-28", "2026-03-31");
    QCOMPARE(describe(downstreamWindows(s, root)),
             (QStringList{"daily 2026-03-28..2026-03-31 staged", "weekly 2026-W13..2026-W14 staged",
                          "monthly 2026-03..2026-04 staged"}));
    // From a middle model: only what is downstream of it.
    const Window weeks = windowOrFail(*s.model("weekly"), "2026-W05", "2026-W05");  // 01-26 .. 02-01
    QCOMPARE(describe(downstreamWindows(s, weeks)), (QStringList{"monthly 2026-01..2026-02 staged"}));
    QCOMPARE(describe(downstreamWindows(s, windowOrFail(*s.model("monthly"), "2026-03", "2026-03"))), QStringList{});
}

void TestWindow::leftOutIsStaleWithWhatReadsIt()
{
    const Spec s = chain();
    const Window root = windowOrFail(*s.model("orders"), "2026-03-28", "2026-03-31");
    QCOMPARE(describe(downstreamWindows(s, root, {"weekly"})),
             (QStringList{"daily 2026-03-28..2026-03-31 staged", "weekly 2026-W13..2026-W14 stale",
                          "monthly 2026-03..2026-04 stale"}));
    QCOMPARE(describe(downstreamWindows(s, root, {"daily"})),
             (QStringList{"daily 2026-03-28..2026-03-31 stale", "weekly 2026-W13..2026-W14 stale",
                          "monthly 2026-03..2026-04 stale"}));
}

void TestWindow::unionOfUpstreams()
{
    // root (day) feeds a week model and a month model; `both` (day) reads the two, so its
    // window holds both spans: March (the month) and W14 (to 2026-04-05). Listed after them.
    Spec s;
    s.models = {model("both", Grain::Day, "UTC", {"weeks", "months"}), model("root", Grain::Day, "UTC"),
                model("weeks", Grain::Week, "UTC", {"root"}), model("months", Grain::Month, "UTC", {"root"})};
    const Window root = windowOrFail(*s.model("root"), "2026-03-31", "2026-03-31");
    QCOMPARE(describe(downstreamWindows(s, root)),
             (QStringList{"weeks 2026-W14 staged", "months 2026-03 staged", "both 2026-03-01..2026-04-05 staged"}));
}

void TestWindow::springDayToHours()
{
    // Europe/Berlin 2026-03-29 has 23 hours: [2026-03-28T23:00Z, 2026-03-29T22:00Z).
    Spec s;
    s.models = {model("berlin_day", Grain::Day, "Europe/Berlin"), model("utc_hour", Grain::Hour, "UTC", {"berlin_day"}),
                model("berlin_hour", Grain::Hour, "Europe/Berlin", {"berlin_day"}),
                model("utc_day", Grain::Day, "UTC", {"berlin_day"})};
    const Window root = windowOrFail(*s.model("berlin_day"), "2026-03-29", "2026-03-29");
    QCOMPARE(root.first().start.secsTo(root.first().end), qint64(23 * 3600));
    const std::vector<DownstreamWindow> ds = downstreamWindows(s, root);
    QCOMPARE(ds.size(), std::size_t(3));
    QCOMPARE(ds[0].window.partitions.size(), std::size_t(23));
    QCOMPARE(ds[0].window.text(), std::string("2026-03-28T23..2026-03-29T21"));
    QCOMPARE(ds[1].window.partitions.size(), std::size_t(23));  // 02:00 is skipped
    QCOMPARE(ds[1].window.text(), std::string("2026-03-29T00..2026-03-29T23"));
    QVERIFY(!names(ds[1].window).contains(QStringLiteral("2026-03-29T02")));
    QCOMPARE(ds[2].window.text(), std::string("2026-03-28..2026-03-29"));
}

void TestWindow::autumnDayToHours()
{
    // Europe/Berlin 2026-10-25 has 25 hours; the repeated 02:00 is two partitions.
    Spec s;
    s.models = {model("berlin_day", Grain::Day, "Europe/Berlin"), model("berlin_hour", Grain::Hour, "Europe/Berlin", {"berlin_day"})};
    const Window root = windowOrFail(*s.model("berlin_day"), "2026-10-25", "2026-10-25");
    const std::vector<DownstreamWindow> ds = downstreamWindows(s, root);
    QCOMPARE(ds.size(), std::size_t(1));
    const QStringList hours = names(ds[0].window);
    QCOMPARE(hours.size(), 25);
    QVERIFY(hours.contains(QStringLiteral("2026-10-25T02")));
    QVERIFY(hours.contains(QStringLiteral("2026-10-25T02+01:00")));
    QCOMPARE(ds[0].window.before.name, std::string("2026-10-24T23"));
    QCOMPARE(ds[0].window.after.name, std::string("2026-10-26T00"));
}

void TestWindow::hourToDayAcrossZones()
{
    // 2026-03-10T23:00Z is midnight of 2026-03-11 in Berlin (UTC+1 in March).
    Spec s;
    s.models = {model("utc_hour", Grain::Hour, "UTC"), model("berlin_day", Grain::Day, "Europe/Berlin", {"utc_hour"}),
                model("utc_day", Grain::Day, "UTC", {"utc_hour"})};
    const std::vector<DownstreamWindow> late = downstreamWindows(s, windowOrFail(*s.model("utc_hour"), "2026-03-10T23", "2026-03-10T23"));
    QCOMPARE(describe(late), (QStringList{"berlin_day 2026-03-11 staged", "utc_day 2026-03-10 staged"}));
    const std::vector<DownstreamWindow> span = downstreamWindows(s, windowOrFail(*s.model("utc_hour"), "2026-03-10T22", "2026-03-10T23"));
    QCOMPARE(describe(span), (QStringList{"berlin_day 2026-03-10..2026-03-11 staged", "utc_day 2026-03-10 staged"}));
}

void TestWindow::planShowsTheCascade()
{
    const Spec s = chain();
    PartitionCalendarModel calendar;
    calendar.setModel(*s.model("orders"), 2026, 2026);
    const int first = calendar.ordinalOfName(QStringLiteral("2026-03-28"));
    const int last = calendar.ordinalOfName(QStringLiteral("2026-03-31"));
    QVERIFY(first >= 0 && last == first + 3);
    const Plan plan = Plan::make(s, calendar, first, last, {}, true);
    QCOMPARE(plan.from, QStringLiteral("2026-03-28"));
    QCOMPARE(plan.to, QStringLiteral("2026-03-31"));
    QCOMPARE(plan.partitions, 4);
    QCOMPARE(plan.diffPartitions, (QStringList{"2026-03-28", "2026-03-31"}));
    QCOMPARE(plan.outsidePartitions, (QStringList{"2026-03-27", "2026-04-01"}));
    QStringList shown;
    for (const Plan::Downstream &d : plan.downstream)
        shown << QStringLiteral("%1 %2..%3 %4 %5").arg(d.model, d.from, d.to).arg(d.partitions).arg(d.staged ? "staged" : "stale");
    // What the engine stages (tst_reliability asserts the same windows in reprint.backfills).
    QCOMPARE(shown, (QStringList{"daily 2026-03-28..2026-03-31 4 staged", "weekly 2026-W13..2026-W14 2 staged",
                                 "monthly 2026-03..2026-04 2 staged"}));
    QCOMPARE(plan.staleDownstream().size(), 0);
    QCOMPARE(plan.command(), QStringLiteral("reprint backfill --spec '' --model orders --from 2026-03-28 --to 2026-03-31 --cascade"));
    // Without the cascade every downstream model is stale once the window is published.
    QCOMPARE(Plan::make(s, calendar, first, last, {}, false).staleDownstream().size(), 3);
}

void TestWindow::planLeavesOut()
{
    const Spec s = chain();
    PartitionCalendarModel calendar;
    calendar.setModel(*s.model("orders"), 2026, 2026);
    const int first = calendar.ordinalOfName(QStringLiteral("2026-03-28"));
    const Plan plan = Plan::make(s, calendar, first, first + 3, {}, true, {}, {QStringLiteral("weekly")});
    QCOMPARE(plan.downstream.size(), 3);
    QVERIFY(plan.downstream[0].staged && !plan.downstream[0].leftOut);
    QVERIFY(!plan.downstream[1].staged && plan.downstream[1].leftOut);
    QVERIFY(!plan.downstream[2].staged && !plan.downstream[2].leftOut);  // reads the week model's old rows
    QCOMPARE(plan.leaveOut, QStringList{QStringLiteral("weekly")});
    QVERIFY(plan.command().endsWith(QStringLiteral("--cascade --leave-out weekly")));
    QCOMPARE(plan.request().leaveOut, std::vector<std::string>{"weekly"});
}

QTEST_GUILESS_MAIN(TestWindow)
#include "tst_window.moc"
