// PartitionScheme: names, bounds and DST behaviour of hour/day/week/month partitions.

#include "backfill/partition.h"

#include <QRegularExpression>
#include <QTest>

#include <set>

using namespace reprint::backfill;

namespace {

template <typename T>
std::string why(const reprint::warehouse::Result<T> &r)
{
    return r.ok() ? std::string() : r.error().message;
}

QDateTime utc(const char *iso)
{
    QDateTime dt = QDateTime::fromString(QString::fromLatin1(iso), Qt::ISODate);
    return dt.toUTC();
}

qint64 hoursOf(const Partition &p)
{
    return p.start.secsTo(p.end) / 3600;
}

} // namespace

class TestPartition : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void grains();
    void dstDays_data();
    void dstDays();
    void dstHours_data();
    void dstHours();
    void repeatedHourNames();
    void skippedHourIsNotAPartition();
    void hourContaining();
    void yearOfHoursInBerlin();
    void yearOfDays();
    void isoWeeks();
    void weekAcrossDst();
    void months_data();
    void months();
    void monthRange();
    void nextAndPrevious();
    void rangeEdges();
    void rangeIsTheWalkOfNext_data();
    void rangeIsTheWalkOfNext();
    void startOfDayInAMidnightGap();
    void skippedDay();
    void halfHourZone();
    void startTextIsIsoWithOffset();
    void parseErrors_data();
    void parseErrors();
    void namesThatDoNotExist_data();
    void namesThatDoNotExist();
    void boundsOutsideTheYears1To9999_data();
    void boundsOutsideTheYears1To9999();
    void invalidTimezone();
};

void TestPartition::grains()
{
    Grain g = Grain::Day;
    QVERIFY(parseGrain("hour", &g));
    QCOMPARE(g, Grain::Hour);
    QVERIFY(parseGrain("week", &g));
    QCOMPARE(g, Grain::Week);
    QVERIFY(parseGrain("month", &g));
    QCOMPARE(g, Grain::Month);
    QVERIFY(parseGrain("day", &g));
    QCOMPARE(g, Grain::Day);
    QVERIFY(!parseGrain("dayly", &g));
    QVERIFY(!parseGrain("Day", &g));
    QVERIFY(!parseGrain("", &g));
    QCOMPARE(g, Grain::Day);
    QCOMPARE(std::string(toString(Grain::Hour)), std::string("hour"));
    QCOMPARE(std::string(toString(Grain::Week)), std::string("week"));
}

void TestPartition::dstDays_data()
{
    QTest::addColumn<QString>("zone");
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("start");
    QTest::addColumn<QString>("end");
    QTest::addColumn<int>("hours");

    QTest::newRow("berlin ordinary") << "Europe/Berlin" << "2026-03-10" << "2026-03-10T00:00:00+01:00"
                                     << "2026-03-11T00:00:00+01:00" << 24;
    QTest::newRow("berlin spring") << "Europe/Berlin" << "2026-03-29" << "2026-03-29T00:00:00+01:00"
                                   << "2026-03-30T00:00:00+02:00" << 23;
    QTest::newRow("berlin autumn") << "Europe/Berlin" << "2026-10-25" << "2026-10-25T00:00:00+02:00"
                                   << "2026-10-26T00:00:00+01:00" << 25;
    QTest::newRow("new york spring") << "America/New_York" << "2026-03-08" << "2026-03-08T00:00:00-05:00"
                                     << "2026-03-09T00:00:00-04:00" << 23;
    QTest::newRow("new york autumn") << "America/New_York" << "2026-11-01" << "2026-11-01T00:00:00-04:00"
                                     << "2026-11-02T00:00:00-05:00" << 25;
    QTest::newRow("utc") << "UTC" << "2026-03-29" << "2026-03-29T00:00:00+00:00" << "2026-03-30T00:00:00+00:00"
                         << 24;
}

void TestPartition::dstDays()
{
    QFETCH(QString, zone);
    QFETCH(QString, name);
    QFETCH(QString, start);
    QFETCH(QString, end);
    QFETCH(int, hours);

    const PartitionScheme scheme(Grain::Day, zone.toStdString());
    QVERIFY(scheme.isValid());
    const auto p = scheme.parse(name.toStdString());
    QVERIFY2(p.ok(), why(p).c_str());
    QCOMPARE(QString::fromStdString(p->name), name);
    QCOMPARE(QString::fromStdString(p->startText()), start);
    QCOMPARE(QString::fromStdString(p->endText()), end);
    QCOMPARE(hoursOf(*p), qint64(hours));
    QCOMPARE(p->start, QDateTime::fromString(start, Qt::ISODate));
    QCOMPARE(p->end, QDateTime::fromString(end, Qt::ISODate));
    QCOMPARE(scheme.containing(p->start), *p);
    QCOMPARE(scheme.containing(p->end.addSecs(-1)), *p);
    QCOMPARE(scheme.containing(p->start.addSecs(-1)).name, scheme.previous(*p).name);
}

void TestPartition::dstHours_data()
{
    QTest::addColumn<QString>("zone");
    QTest::addColumn<QString>("from");
    QTest::addColumn<QString>("to");
    QTest::addColumn<QStringList>("names");
    QTest::addColumn<QStringList>("starts");

    QTest::newRow("berlin spring")
        << "Europe/Berlin" << "2026-03-29T00" << "2026-03-29T04"
        << QStringList{"2026-03-29T00", "2026-03-29T01", "2026-03-29T03", "2026-03-29T04"}
        << QStringList{"2026-03-29T00:00:00+01:00", "2026-03-29T01:00:00+01:00", "2026-03-29T03:00:00+02:00",
                       "2026-03-29T04:00:00+02:00"};
    QTest::newRow("berlin autumn")
        << "Europe/Berlin" << "2026-10-25T01" << "2026-10-25T03"
        << QStringList{"2026-10-25T01", "2026-10-25T02", "2026-10-25T02+01:00", "2026-10-25T03"}
        << QStringList{"2026-10-25T01:00:00+02:00", "2026-10-25T02:00:00+02:00", "2026-10-25T02:00:00+01:00",
                       "2026-10-25T03:00:00+01:00"};
    QTest::newRow("new york spring")
        << "America/New_York" << "2026-03-08T00" << "2026-03-08T04"
        << QStringList{"2026-03-08T00", "2026-03-08T01", "2026-03-08T03", "2026-03-08T04"}
        << QStringList{"2026-03-08T00:00:00-05:00", "2026-03-08T01:00:00-05:00", "2026-03-08T03:00:00-04:00",
                       "2026-03-08T04:00:00-04:00"};
    QTest::newRow("new york autumn")
        << "America/New_York" << "2026-11-01T00" << "2026-11-01T02"
        << QStringList{"2026-11-01T00", "2026-11-01T01", "2026-11-01T01-05:00", "2026-11-01T02"}
        << QStringList{"2026-11-01T00:00:00-04:00", "2026-11-01T01:00:00-04:00", "2026-11-01T01:00:00-05:00",
                       "2026-11-01T02:00:00-05:00"};
}

void TestPartition::dstHours()
{
    QFETCH(QString, zone);
    QFETCH(QString, from);
    QFETCH(QString, to);
    QFETCH(QStringList, names);
    QFETCH(QStringList, starts);

    const PartitionScheme scheme(Grain::Hour, zone.toStdString());
    const auto first = scheme.parse(from.toStdString());
    const auto last = scheme.parse(to.toStdString());
    QVERIFY2(first.ok(), why(first).c_str());
    QVERIFY2(last.ok(), why(last).c_str());
    const std::vector<Partition> parts = scheme.range(*first, *last);
    QCOMPARE(int(parts.size()), names.size());
    for (size_t i = 0; i < parts.size(); ++i) {
        QCOMPARE(QString::fromStdString(parts[i].name), names[int(i)]);
        QCOMPARE(QString::fromStdString(parts[i].startText()), starts[int(i)]);
        QCOMPARE(parts[i].start.secsTo(parts[i].end), qint64(3600));
        if (i + 1 < parts.size())
            QCOMPARE(parts[i].end, parts[i + 1].start);
        const auto again = scheme.parse(parts[i].name);
        QVERIFY2(again.ok(), why(again).c_str());
        QCOMPARE(*again, parts[i]);
    }
}

void TestPartition::repeatedHourNames()
{
    const PartitionScheme scheme(Grain::Hour, "Europe/Berlin");
    const auto first = scheme.parse("2026-10-25T02");
    const auto second = scheme.parse("2026-10-25T02+01:00");
    const auto firstWithOffset = scheme.parse("2026-10-25T02+02:00");
    QVERIFY2(first.ok(), why(first).c_str());
    QVERIFY2(second.ok(), why(second).c_str());
    QVERIFY2(firstWithOffset.ok(), why(firstWithOffset).c_str());
    QCOMPARE(first->startText(), std::string("2026-10-25T02:00:00+02:00"));
    QCOMPARE(first->endText(), std::string("2026-10-25T02:00:00+01:00"));
    QCOMPARE(second->startText(), std::string("2026-10-25T02:00:00+01:00"));
    QCOMPARE(second->endText(), std::string("2026-10-25T03:00:00+01:00"));
    QCOMPARE(second->name, std::string("2026-10-25T02+01:00"));
    QCOMPARE(*firstWithOffset, *first);
    QCOMPARE(scheme.next(*first), *second);
    QCOMPARE(scheme.previous(*second), *first);
    // An offset that the hour never has in this zone.
    const auto wrong = scheme.parse("2026-10-25T02+05:00");
    QVERIFY(!wrong.ok());
    QCOMPARE(wrong.error().kind, reprint::warehouse::ErrorKind::Usage);
    // An unambiguous hour may be written with its offset too.
    const auto withOffset = scheme.parse("2026-03-10T14+01:00");
    QVERIFY2(withOffset.ok(), why(withOffset).c_str());
    QCOMPARE(withOffset->name, std::string("2026-03-10T14"));
}

void TestPartition::skippedHourIsNotAPartition()
{
    const PartitionScheme berlin(Grain::Hour, "Europe/Berlin");
    const auto skipped = berlin.parse("2026-03-29T02");
    QVERIFY(!skipped.ok());
    QCOMPARE(skipped.error().kind, reprint::warehouse::ErrorKind::Usage);
    QCOMPARE(skipped.error().message,
             std::string("'2026-03-29T02' is not an hour partition (expected YYYY-MM-DDTHH, or YYYY-MM-DDTHH+HH:MM "
                         "for a repeated hour): the clocks in Europe/Berlin skip that hour"));
    const PartitionScheme newYork(Grain::Hour, "America/New_York");
    QVERIFY(!newYork.parse("2026-03-08T02").ok());
    QVERIFY(newYork.parse("2026-03-29T02").ok());
}

void TestPartition::hourContaining()
{
    const PartitionScheme scheme(Grain::Hour, "Europe/Berlin");
    QCOMPARE(scheme.containing(utc("2026-10-25T00:30:00Z")).name, std::string("2026-10-25T02"));
    QCOMPARE(scheme.containing(utc("2026-10-25T01:00:00Z")).name, std::string("2026-10-25T02+01:00"));
    QCOMPARE(scheme.containing(utc("2026-10-25T01:59:59Z")).name, std::string("2026-10-25T02+01:00"));
    QCOMPARE(scheme.containing(utc("2026-10-25T02:00:00Z")).name, std::string("2026-10-25T03"));
    QCOMPARE(scheme.containing(utc("2026-03-29T00:59:59Z")).name, std::string("2026-03-29T01"));
    QCOMPARE(scheme.containing(utc("2026-03-29T01:00:00Z")).name, std::string("2026-03-29T03"));
    const Partition p = scheme.containing(utc("2026-03-10T13:17:05Z"));
    QCOMPARE(p.name, std::string("2026-03-10T14"));
    QCOMPARE(p.startText(), std::string("2026-03-10T14:00:00+01:00"));
    QCOMPARE(p.endText(), std::string("2026-03-10T15:00:00+01:00"));
}

void TestPartition::yearOfHoursInBerlin()
{
    const PartitionScheme scheme(Grain::Hour, "Europe/Berlin");
    const auto from = scheme.parse("2026-01-01T00");
    const auto to = scheme.parse("2026-12-31T23");
    QVERIFY(from.ok() && to.ok());
    const std::vector<Partition> hours = scheme.range(*from, *to);
    QCOMPARE(hours.size(), size_t(8760));
    std::set<std::string> names;
    for (size_t i = 0; i < hours.size(); ++i) {
        QCOMPARE(hours[i].start.secsTo(hours[i].end), qint64(3600));
        if (i + 1 < hours.size())
            QCOMPARE(hours[i].end, hours[i + 1].start);
        names.insert(hours[i].name);
    }
    QCOMPARE(names.size(), size_t(8760));
    QVERIFY(!names.count("2026-03-29T02"));
    QVERIFY(names.count("2026-10-25T02+01:00"));
    QCOMPARE(hours.front().startText(), std::string("2026-01-01T00:00:00+01:00"));
    QCOMPARE(hours.back().endText(), std::string("2027-01-01T00:00:00+01:00"));
}

void TestPartition::yearOfDays()
{
    for (const char *zone : {"Europe/Berlin", "America/New_York", "UTC"}) {
        const PartitionScheme scheme(Grain::Day, zone);
        const auto days = scheme.range(*scheme.parse("2026-01-01"), *scheme.parse("2026-12-31"));
        QCOMPARE(days.size(), size_t(365));
        qint64 seconds = 0;
        for (size_t i = 0; i + 1 < days.size(); ++i)
            QCOMPARE(days[i].end, days[i + 1].start);
        for (const Partition &d : days)
            seconds += d.start.secsTo(d.end);
        QCOMPARE(seconds, qint64(365) * 86400);
    }
    const PartitionScheme scheme(Grain::Day, "Europe/Berlin");
    QCOMPARE(scheme.range(*scheme.parse("2028-01-01"), *scheme.parse("2028-12-31")).size(), size_t(366));
}

void TestPartition::isoWeeks()
{
    const PartitionScheme scheme(Grain::Week, "UTC");
    const auto w1 = scheme.parse("2026-W01");
    QVERIFY2(w1.ok(), why(w1).c_str());
    QCOMPARE(w1->name, std::string("2026-W01"));
    QCOMPARE(w1->startText(), std::string("2025-12-29T00:00:00+00:00"));
    QCOMPARE(w1->endText(), std::string("2026-01-05T00:00:00+00:00"));
    QCOMPARE(*scheme.parse("2025-12-29"), *w1);

    // 2027-01-01 is a Friday in the 53rd week of 2026.
    const Partition newYear = scheme.containing(utc("2027-01-01T12:00:00Z"));
    QCOMPARE(newYear.name, std::string("2026-W53"));
    QCOMPARE(newYear.startText(), std::string("2026-12-28T00:00:00+00:00"));
    QCOMPARE(newYear.endText(), std::string("2027-01-04T00:00:00+00:00"));
    QCOMPARE(*scheme.parse("2026-W53"), newYear);
    QCOMPARE(scheme.next(newYear).name, std::string("2027-W01"));

    const auto w11 = scheme.parse("2026-W11");
    QVERIFY(w11.ok());
    QCOMPARE(w11->startText(), std::string("2026-03-09T00:00:00+00:00"));
    QCOMPARE(scheme.containing(utc("2026-03-15T23:59:59Z")).name, std::string("2026-W11"));
    QCOMPARE(scheme.containing(utc("2026-03-16T00:00:00Z")).name, std::string("2026-W12"));

    const auto w = scheme.range(*scheme.parse("2026-W01"), *scheme.parse("2026-W53"));
    QCOMPARE(w.size(), size_t(53));

    const auto notMonday = scheme.parse("2026-03-10");
    QVERIFY(!notMonday.ok());
    QCOMPARE(notMonday.error().message,
             std::string("'2026-03-10' is not a week partition (expected YYYY-Www, or the Monday as YYYY-MM-DD): "
                         "it is a Tuesday, not a Monday"));
    const auto noWeek53 = scheme.parse("2025-W53");
    QVERIFY(!noWeek53.ok());
    QCOMPARE(noWeek53.error().message,
             std::string("'2025-W53' is not a week partition (expected YYYY-Www, or the Monday as YYYY-MM-DD): "
                         "2025 has no week 53"));
}

void TestPartition::weekAcrossDst()
{
    const PartitionScheme scheme(Grain::Week, "Europe/Berlin");
    const auto w = scheme.parse("2026-W13");
    QVERIFY(w.ok());
    QCOMPARE(w->startText(), std::string("2026-03-23T00:00:00+01:00"));
    QCOMPARE(w->endText(), std::string("2026-03-30T00:00:00+02:00"));
    QCOMPARE(hoursOf(*w), qint64(167));
}

void TestPartition::months_data()
{
    QTest::addColumn<QString>("zone");
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("start");
    QTest::addColumn<QString>("end");
    QTest::addColumn<int>("hours");

    QTest::newRow("feb 2026") << "UTC" << "2026-02" << "2026-02-01T00:00:00+00:00" << "2026-03-01T00:00:00+00:00"
                              << 28 * 24;
    QTest::newRow("feb 2028 leap") << "UTC" << "2028-02" << "2028-02-01T00:00:00+00:00"
                                   << "2028-03-01T00:00:00+00:00" << 29 * 24;
    QTest::newRow("april") << "UTC" << "2026-04" << "2026-04-01T00:00:00+00:00" << "2026-05-01T00:00:00+00:00"
                           << 30 * 24;
    QTest::newRow("december") << "UTC" << "2026-12" << "2026-12-01T00:00:00+00:00" << "2027-01-01T00:00:00+00:00"
                              << 31 * 24;
    QTest::newRow("berlin march") << "Europe/Berlin" << "2026-03" << "2026-03-01T00:00:00+01:00"
                                  << "2026-04-01T00:00:00+02:00" << 31 * 24 - 1;
    QTest::newRow("new york november") << "America/New_York" << "2026-11" << "2026-11-01T00:00:00-04:00"
                                       << "2026-12-01T00:00:00-05:00" << 30 * 24 + 1;
}

void TestPartition::months()
{
    QFETCH(QString, zone);
    QFETCH(QString, name);
    QFETCH(QString, start);
    QFETCH(QString, end);
    QFETCH(int, hours);

    const PartitionScheme scheme(Grain::Month, zone.toStdString());
    const auto p = scheme.parse(name.toStdString());
    QVERIFY2(p.ok(), why(p).c_str());
    QCOMPARE(QString::fromStdString(p->name), name);
    QCOMPARE(QString::fromStdString(p->startText()), start);
    QCOMPARE(QString::fromStdString(p->endText()), end);
    QCOMPARE(hoursOf(*p), qint64(hours));
}

void TestPartition::monthRange()
{
    const PartitionScheme scheme(Grain::Month, "Europe/Berlin");
    const auto months = scheme.range(*scheme.parse("2026-01"), *scheme.parse("2026-12"));
    QCOMPARE(months.size(), size_t(12));
    QCOMPARE(months[0].name, std::string("2026-01"));
    QCOMPARE(months[11].name, std::string("2026-12"));
    QCOMPARE(scheme.next(months[11]).name, std::string("2027-01"));
    QCOMPARE(scheme.previous(months[0]).name, std::string("2025-12"));
    QCOMPARE(scheme.containing(utc("2026-02-28T23:30:00Z")).name, std::string("2026-03"));
}

void TestPartition::nextAndPrevious()
{
    const PartitionScheme day(Grain::Day, "Europe/Berlin");
    const auto newYear = day.parse("2026-01-01");
    QVERIFY(newYear.ok());
    QCOMPARE(day.previous(*newYear).name, std::string("2025-12-31"));
    QCOMPARE(day.next(*newYear).name, std::string("2026-01-02"));
    const auto spring = day.parse("2026-03-29");
    QCOMPARE(day.previous(day.next(*spring)), *spring);
    QCOMPARE(day.next(day.previous(*spring)), *spring);
    QCOMPARE(day.next(*spring).startText(), std::string("2026-03-30T00:00:00+02:00"));
    // 23:30 UTC on 9 March is already 10 March in Berlin.
    QCOMPARE(day.containing(utc("2026-03-09T23:30:00Z")).name, std::string("2026-03-10"));
    QCOMPARE(day.containing(utc("2026-03-09T22:59:59Z")).name, std::string("2026-03-09"));
}

void TestPartition::rangeEdges()
{
    const PartitionScheme scheme(Grain::Day, "UTC");
    const Partition a = *scheme.parse("2026-03-10");
    const Partition b = *scheme.parse("2026-03-14");
    QCOMPARE(scheme.range(a, b).size(), size_t(5));
    QCOMPARE(scheme.range(a, a).size(), size_t(1));
    QCOMPARE(scheme.range(a, a).front(), a);
    QVERIFY(scheme.range(b, a).empty());
    QVERIFY(a < b);
    QVERIFY(!(b < a));
}

void TestPartition::rangeIsTheWalkOfNext_data()
{
    QTest::addColumn<Grain>("grain");
    QTest::addColumn<QString>("zone");
    QTest::addColumn<QString>("from");
    QTest::addColumn<QString>("to");
    QTest::newRow("hours, New York, both changes") << Grain::Hour << "America/New_York" << "2026-03-07T00" << "2026-11-02T23";
    QTest::newRow("hours, Lord Howe's half-hour change") << Grain::Hour << "Australia/Lord_Howe" << "2026-04-04T00"
                                                        << "2026-04-05T23";
    QTest::newRow("hours, Kolkata") << Grain::Hour << "Asia/Kolkata" << "2026-01-01T00" << "2026-01-03T23";
    QTest::newRow("days, Apia's skipped day") << Grain::Day << "Pacific/Apia" << "2011-12-01" << "2012-01-31";
    QTest::newRow("days, Sao Paulo's midnight gap") << Grain::Day << "America/Sao_Paulo" << "2018-10-01" << "2018-12-31";
    QTest::newRow("days, years before 1000") << Grain::Day << "UTC" << "0999-12-25" << "1000-01-05";
    QTest::newRow("weeks, Berlin") << Grain::Week << "Europe/Berlin" << "2025-W50" << "2027-W03";
    QTest::newRow("months, New York") << Grain::Month << "America/New_York" << "2024-11" << "2027-02";
}

// range() builds each partition from the end of the one before; next() from scratch. Both
// give the same partitions, and every name reads back as its partition.
void TestPartition::rangeIsTheWalkOfNext()
{
    QFETCH(Grain, grain);
    QFETCH(QString, zone);
    QFETCH(QString, from);
    QFETCH(QString, to);
    const PartitionScheme scheme(grain, zone.toStdString());
    const auto a = scheme.parse(from.toStdString());
    const auto b = scheme.parse(to.toStdString());
    QVERIFY2(a.ok() && b.ok(), (why(a) + why(b)).c_str());
    const std::vector<Partition> parts = scheme.range(*a, *b);
    std::vector<Partition> walked;
    for (Partition p = *a; p.start <= b->start; p = scheme.next(p))
        walked.push_back(p);
    QCOMPARE(parts.size(), walked.size());
    QVERIFY(parts.size() > 2);
    for (std::size_t i = 0; i < parts.size(); ++i) {
        QCOMPARE(parts[i].name, walked[i].name);
        QCOMPARE(parts[i].startText(), walked[i].startText());
        QCOMPARE(parts[i].endText(), walked[i].endText());
        const auto back = scheme.parse(parts[i].name);
        QVERIFY2(back.ok(), parts[i].name.c_str());
        QCOMPARE(*back, parts[i]);
    }
    QCOMPARE(parts.front(), *a);
    QCOMPARE(parts.back(), *b);
}

void TestPartition::startOfDayInAMidnightGap()
{
    // Brazil moved its clocks forward at midnight: 2018-11-04 began at 01:00.
    const PartitionScheme scheme(Grain::Day, "America/Sao_Paulo");
    const auto p = scheme.parse("2018-11-04");
    QVERIFY2(p.ok(), why(p).c_str());
    QCOMPARE(p->startText(), std::string("2018-11-04T01:00:00-02:00"));
    QCOMPARE(p->endText(), std::string("2018-11-05T00:00:00-02:00"));
    QCOMPARE(hoursOf(*p), qint64(23));
    QCOMPARE(scheme.previous(*p).endText(), p->startText());
    QCOMPARE(hoursOf(scheme.previous(*p)), qint64(24));
}

void TestPartition::skippedDay()
{
    // Samoa skipped 2011-12-30 when it crossed the date line.
    const PartitionScheme scheme(Grain::Day, "Pacific/Apia");
    const auto days = scheme.range(*scheme.parse("2011-12-29"), *scheme.parse("2011-12-31"));
    QCOMPARE(days.size(), size_t(2));
    QCOMPARE(days[0].name, std::string("2011-12-29"));
    QCOMPARE(days[1].name, std::string("2011-12-31"));
    QCOMPARE(days[0].end, days[1].start);
    const auto skipped = scheme.parse("2011-12-30");
    QVERIFY(!skipped.ok());
    QCOMPARE(skipped.error().message,
             std::string("'2011-12-30' is not a day partition (expected YYYY-MM-DD): the clocks in Pacific/Apia skip it"));
}

void TestPartition::halfHourZone()
{
    const PartitionScheme scheme(Grain::Hour, "Asia/Kolkata");
    const Partition p = scheme.containing(utc("2026-03-10T08:45:00Z"));
    QCOMPARE(p.name, std::string("2026-03-10T14"));
    QCOMPARE(p.startText(), std::string("2026-03-10T14:00:00+05:30"));
    QCOMPARE(p.start, utc("2026-03-10T08:30:00Z"));
}

void TestPartition::startTextIsIsoWithOffset()
{
    const PartitionScheme scheme(Grain::Day, "Europe/Berlin");
    const Partition p = *scheme.parse("2026-03-10");
    QCOMPARE(p.startText(), std::string("2026-03-10T00:00:00+01:00"));
    QCOMPARE(p.start, utc("2026-03-09T23:00:00Z"));
    QCOMPARE(p.start.timeZone(), QTimeZone("Europe/Berlin"));
    QCOMPARE(Partition{}.startText(), std::string());
}

void TestPartition::parseErrors_data()
{
    QTest::addColumn<int>("grain");
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("message");

    const QString day = "is not a day partition (expected YYYY-MM-DD)";
    const QString hour = "is not an hour partition (expected YYYY-MM-DDTHH, or YYYY-MM-DDTHH+HH:MM for a repeated hour)";
    const QString week = "is not a week partition (expected YYYY-Www, or the Monday as YYYY-MM-DD)";
    const QString month = "is not a month partition (expected YYYY-MM)";
    QTest::newRow("short") << int(Grain::Day) << "2026-3-1" << "'2026-3-1' " + day;
    QTest::newRow("hour for day") << int(Grain::Day) << "2026-03-10T14" << "'2026-03-10T14' " + day;
    QTest::newRow("empty") << int(Grain::Day) << "" << "'' " + day;
    QTest::newRow("day for hour") << int(Grain::Hour) << "2026-03-10" << "'2026-03-10' " + hour;
    QTest::newRow("minutes") << int(Grain::Hour) << "2026-03-10T14:00" << "'2026-03-10T14:00' " + hour;
    QTest::newRow("week 0") << int(Grain::Week) << "2026-W00" << "'2026-W00' " + week + ": 2026 has no week 0";
    QTest::newRow("week 54") << int(Grain::Week) << "2026-W54" << "'2026-W54' " + week + ": 2026 has no week 54";
    QTest::newRow("week no W") << int(Grain::Week) << "2026-11" << "'2026-11' " + week;
    QTest::newRow("day for month") << int(Grain::Month) << "2026-03-01" << "'2026-03-01' " + month;
}

void TestPartition::parseErrors()
{
    QFETCH(int, grain);
    QFETCH(QString, name);
    QFETCH(QString, message);
    const PartitionScheme scheme(Grain(grain), "Europe/Berlin");
    const auto r = scheme.parse(name.toStdString());
    QVERIFY(!r.ok());
    QCOMPARE(r.error().kind, reprint::warehouse::ErrorKind::Usage);
    QCOMPARE(QString::fromStdString(r.error().message), message);
}

void TestPartition::namesThatDoNotExist_data()
{
    QTest::addColumn<int>("grain");
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("message");
    QTest::addColumn<QString>("hint");

    QTest::newRow("feb 30") << int(Grain::Day) << "2026-02-30" << "'2026-02-30' does not exist: February 2026 has 28 days"
                            << "The last day of February 2026 is 2026-02-28.";
    QTest::newRow("feb 29 2026") << int(Grain::Day) << "2026-02-29" << "'2026-02-29' does not exist: February 2026 has 28 days"
                                 << "The last day of February 2026 is 2026-02-28.";
    QTest::newRow("april 31") << int(Grain::Day) << "2026-04-31" << "'2026-04-31' does not exist: April 2026 has 30 days"
                              << "The last day of April 2026 is 2026-04-30.";
    QTest::newRow("day 00") << int(Grain::Day) << "2026-03-00" << "'2026-03-00' does not exist: March 2026 has 31 days"
                            << "The first day of March 2026 is 2026-03-01.";
    QTest::newRow("month 13") << int(Grain::Day) << "2026-13-01"
                              << "'2026-13-01' does not exist: there is no month 13 (months run 01 to 12)"
                              << "Partition names are written year first: YYYY-MM-DD.";
    QTest::newRow("hour 24") << int(Grain::Hour) << "2026-03-10T24" << "'2026-03-10T24' does not exist: hours run 00 to 23"
                             << "The hour after 2026-03-10T23 is 2026-03-11T00.";
    QTest::newRow("hour 99 on a feb 30") << int(Grain::Hour) << "2026-02-30T99"
                                         << "'2026-02-30T99' does not exist: February 2026 has 28 days"
                                         << "The last day of February 2026 is 2026-02-28.";
    QTest::newRow("offset minutes 60") << int(Grain::Hour) << "2026-10-25T02+01:60"
                                       << "'2026-10-25T02+01:60' does not exist: the minutes of an offset run 00 to 59"
                                       << "Write the offset as +HH:MM, e.g. +01:00.";
    QTest::newRow("month 13 of a month") << int(Grain::Month) << "2026-13" << "'2026-13' does not exist: months run 01 to 12"
                                         << "Partition names are written year first: YYYY-MM.";
    QTest::newRow("month 00") << int(Grain::Month) << "2026-00" << "'2026-00' does not exist: months run 01 to 12"
                              << "Partition names are written year first: YYYY-MM.";
    QTest::newRow("a week's monday that does not exist") << int(Grain::Week) << "2026-02-30"
                                                         << "'2026-02-30' does not exist: February 2026 has 28 days"
                                                         << "The last day of February 2026 is 2026-02-28.";
}

void TestPartition::namesThatDoNotExist()
{
    QFETCH(int, grain);
    QFETCH(QString, name);
    QFETCH(QString, message);
    QFETCH(QString, hint);
    const PartitionScheme scheme(Grain(grain), "Europe/Berlin");
    const auto r = scheme.parse(name.toStdString());
    QVERIFY(!r.ok());
    QCOMPARE(r.error().kind, reprint::warehouse::ErrorKind::Usage);
    QCOMPARE(QString::fromStdString(r.error().message), message);
    QCOMPARE(QString::fromStdString(r.error().hint), hint);
    QVERIFY(scheme.parse("2024-02-29T00").ok() || Grain(grain) != Grain::Hour);
}

// A partition is bound as ISO 8601 text, and so are its neighbours (the boundary checks
// read them): names whose bounds would leave the years 0001..9999 are refused by parse()
// itself, before any SQL, and naming the limit.
void TestPartition::boundsOutsideTheYears1To9999_data()
{
    QTest::addColumn<int>("grain");
    QTest::addColumn<QString>("zone");
    QTest::addColumn<QString>("earliest");
    QTest::addColumn<QString>("latest");
    QTest::addColumn<QStringList>("refused");

    QTest::newRow("day UTC") << int(Grain::Day) << "UTC" << "0001-01-02" << "9999-12-29"
                             << QStringList{"9999-12-31", "9999-12-30", "0001-01-01", "0000-06-15"};
    // Tokyo's local mean time is ahead of UTC: its first day starts in year 0 in UTC.
    QTest::newRow("day Tokyo") << int(Grain::Day) << "Asia/Tokyo" << "0001-01-03" << "9999-12-29"
                               << QStringList{"9999-12-31", "0001-01-02", "0001-01-01"};
    QTest::newRow("day Kiritimati (+14)") << int(Grain::Day) << "Pacific/Kiritimati" << "0001-01-02" << "9999-12-29"
                                          << QStringList{"9999-12-31", "9999-12-30", "0001-01-01"};
    QTest::newRow("day Los Angeles") << int(Grain::Day) << "America/Los_Angeles" << "0001-01-02" << "9999-12-29"
                                     << QStringList{"9999-12-31", "0001-01-01"};
    QTest::newRow("hour UTC") << int(Grain::Hour) << "UTC" << "0001-01-01T01" << "9999-12-31T21"
                              << QStringList{"9999-12-31T23", "9999-12-31T22", "0001-01-01T00"};
    QTest::newRow("week UTC") << int(Grain::Week) << "UTC" << "0001-W02" << "9999-W50"
                              << QStringList{"9999-W52", "9999-W51", "0001-W01", "9999-12-27"};
    QTest::newRow("month UTC") << int(Grain::Month) << "UTC" << "0001-02" << "9999-10"
                               << QStringList{"9999-12", "9999-11", "0001-01", "0000-12"};
}

void TestPartition::boundsOutsideTheYears1To9999()
{
    QFETCH(int, grain);
    QFETCH(QString, zone);
    QFETCH(QString, earliest);
    QFETCH(QString, latest);
    QFETCH(QStringList, refused);
    const PartitionScheme scheme(Grain(grain), zone.toStdString());
    QCOMPARE(QString::fromStdString(scheme.earliest().name), earliest);
    QCOMPARE(QString::fromStdString(scheme.latest().name), latest);
    // The limits themselves parse, and every bound the engine would bind for them has a
    // four-digit year, in the zone and in UTC.
    static const QRegularExpression iso(QStringLiteral("^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d[+-Z]"));
    for (const QString &limit : {earliest, latest}) {
        const auto p = scheme.parse(limit.toStdString());
        QVERIFY2(p.ok(), why(p).c_str());
        QCOMPARE(QString::fromStdString(p->name), limit);
        for (const Partition &q : {scheme.previous(*p), *p, scheme.next(*p)}) {
            for (const QDateTime &t : {q.start, q.end}) {
                QVERIFY2(iso.match(t.toString(Qt::ISODate)).hasMatch(), qPrintable(t.toString(Qt::ISODate) + " of " + limit));
                QVERIFY2(iso.match(t.toUTC().toString(Qt::ISODate)).hasMatch(), qPrintable(t.toUTC().toString(Qt::ISODate)));
            }
            QVERIFY(!q.startText().empty() && !q.endText().empty());
        }
    }
    for (const QString &name : refused) {
        const auto r = scheme.parse(name.toStdString());
        QVERIFY2(!r.ok(), qPrintable(name));
        QCOMPARE(r.error().kind, reprint::warehouse::ErrorKind::Usage);
        const QString message = QString::fromStdString(r.error().message);
        const bool early = name < earliest;
        QVERIFY2(message.startsWith("'" + name + "' is " + (early ? "before the first " : "past the last ")
                                    + toString(Grain(grain)) + " partition Reprint can express, " + (early ? earliest : latest)),
                 qPrintable(message));
        QVERIFY2(message.contains("0001 to 9999"), qPrintable(message));
        QCOMPARE(QString::fromStdString(r.error().hint),
                 QString("Name a%1 %2 from %3 to %4; nothing was changed.")
                     .arg(Grain(grain) == Grain::Hour ? "n" : "", toString(Grain(grain)), earliest, latest));
    }
}

void TestPartition::invalidTimezone()
{
    QVERIFY(!PartitionScheme(Grain::Day, "Mars/Olympus_Mons").isValid());
    QVERIFY(PartitionScheme(Grain::Day, "UTC").isValid());
    QVERIFY(PartitionScheme(Grain::Day, "America/New_York").isValid());
}

QTEST_GUILESS_MAIN(TestPartition)
#include "tst_partition.moc"
