// PartitionCalendarModel: the calendar layout by grain (day, hour across a DST change,
// week, month), QAbstractItemModelTester throughout, and its data for the demo equal to
// the engine's status for the same window.
#include "engineclient.h"
#include "partitioncalendarmodel.h"
#include "testsupport.h"

#include "backfill/spec.h"

#include <QAbstractItemModelTester>
#include <QDir>
#include <QSignalSpy>
#include <QTest>

#include <cmath>
#include <memory>

using reprint::backfill::Grain;
using reprint::backfill::Model;
using reprint::model::EngineClient;
using reprint::model::PartitionCalendarModel;
using reprint::model::StatusRows;

namespace {

Model modelOf(Grain grain, const std::string &timezone = "UTC")
{
    Model m;
    m.name = "m";
    m.grain = grain;
    m.timezone = timezone;
    m.measures = {"revenue"};
    return m;
}

QString nameAt(const PartitionCalendarModel &model, int row, int column)
{
    return model.index(row, column).data(PartitionCalendarModel::PartitionNameRole).toString();
}

reprint::backfill::Spec demoSpec()
{
    auto spec = reprint::backfill::loadSpec(
        QDir(qEnvironmentVariable("REPRINT_TEST_DEMO_DIR")).filePath(QStringLiteral("demo.yaml")).toStdString());
    if (!spec)
        qFatal("cannot load the demo spec: %s", spec.error().toSentence().c_str());
    return *spec;
}

} // namespace

class PartitionCalendarModelTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void dayGrainIsAWallCalendar()
    {
        PartitionCalendarModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setNow(QDateTime(QDate(2026, 7, 1), QTime(12, 0), QTimeZone::utc()));
        model.setModel(modelOf(Grain::Day), 2025, 2026);
        QCOMPARE(model.rowCount(), 24);
        QCOMPARE(model.columnCount(), 37);
        QCOMPARE(model.partitionCount(), 730);
        // March 2026 begins on a Sunday: the 1st sits under Sunday (column 6).
        QCOMPARE(nameAt(model, 14, 6), QStringLiteral("2026-03-01"));
        QCOMPARE(nameAt(model, 14, 15), QStringLiteral("2026-03-10"));
        QCOMPARE(model.headerData(14, Qt::Vertical, PartitionCalendarModel::GroupRole).toInt(), 2026);
        QVERIFY(model.headerData(5, Qt::Horizontal, PartitionCalendarModel::WeekendRole).toBool());
        QVERIFY(!model.headerData(4, Qt::Horizontal, PartitionCalendarModel::WeekendRole).toBool());
        QVERIFY(model.index(14, 6).data(PartitionCalendarModel::WeekendRole).toBool());
        // Slots before the 1st hold nothing and cannot be selected.
        QCOMPARE(model.flags(model.index(14, 0)), Qt::NoItemFlags);
        QVERIFY(!model.index(14, 0).data().isValid());

        const int o = model.ordinalOfName(QStringLiteral("2026-03-10"));
        QCOMPARE(model.indexOfOrdinal(o), model.index(14, 15));
        QCOMPARE(model.ordinalOf(model.index(14, 15)), o);
        QCOMPARE(model.index(14, 15).data().toInt(), 10);
        QVERIFY(!model.index(14, 15).data(PartitionCalendarModel::HasStatusRole).toBool());
        // The future is never selectable.
        QVERIFY(model.flags(model.index(14, 15)) & Qt::ItemIsSelectable);
        const QModelIndex august = model.indexOfOrdinal(model.ordinalOfName(QStringLiteral("2026-08-01")));
        QVERIFY(!(model.flags(august) & Qt::ItemIsSelectable));
        QVERIFY(august.data(PartitionCalendarModel::FutureRole).toBool());
        QVERIFY(model.indexOfOrdinal(model.ordinalOfName(QStringLiteral("2026-07-01")))
                    .data(PartitionCalendarModel::TodayRole)
                    .toBool());
        QCOMPARE(model.lastPastOrdinal(), model.ordinalOfName(QStringLiteral("2026-07-01")));

        // A wider window keeps what it knew.
        reprint::backfill::StatusRow row;
        row.partition = model.partition(o);
        row.rows = 42;
        row.measures = {{"revenue", "10.5"}};
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        model.setStatus({row});
        QCOMPARE(changed.count(), 1);
        model.setYears(2024, 2026);
        QCOMPARE(model.rowCount(), 36);
        QCOMPARE(model.index(model.indexOfOrdinal(model.ordinalOfName(QStringLiteral("2026-03-10"))).row(), 15)
                     .data(PartitionCalendarModel::RowsRole)
                     .toLongLong(),
                 42);
    }

    void hourGrainAcrossDaylightSaving()
    {
        PartitionCalendarModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setNow(QDateTime(QDate(2027, 1, 1), QTime(0, 0), QTimeZone::utc()));
        model.setModel(modelOf(Grain::Hour, "Europe/Berlin"), 2026, 2026);
        QCOMPARE(model.rowCount(), 365);
        QCOMPARE(model.partitionCount(), 8760);
        // The autumn change repeats 02:00: its second hour takes the 25th column.
        QCOMPARE(model.columnCount(), 25);
        const int first = model.ordinalOfName(QStringLiteral("2026-10-25T02"));
        QVERIFY(first >= 0);
        const QModelIndex second = model.indexOfOrdinal(first + 1);
        QCOMPARE(second.column(), 24);
        QCOMPARE(second.data(PartitionCalendarModel::PartitionNameRole).toString(), QStringLiteral("2026-10-25T02+01:00"));
        // The spring change skips 02:00: that day has no partition in column 2.
        const int march29 = model.indexOfOrdinal(model.ordinalOfName(QStringLiteral("2026-03-29T01"))).row();
        QCOMPARE(model.flags(model.index(march29, 2)), Qt::NoItemFlags);
        QCOMPARE(nameAt(model, march29, 3), QStringLiteral("2026-03-29T03"));
    }

    void weekAndMonthGrainAreStripsPerYear()
    {
        PartitionCalendarModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setNow(QDateTime(QDate(2027, 6, 1), QTime(0, 0), QTimeZone::utc()));
        model.setModel(modelOf(Grain::Week), 2026, 2026);
        QCOMPARE(model.columnCount(), 53);
        QCOMPARE(nameAt(model, 0, 10), QStringLiteral("2026-W11"));
        // ISO 2026 has 53 weeks; the week of 31 December 2026 is W53.
        QCOMPARE(nameAt(model, 0, 52), QStringLiteral("2026-W53"));
        model.setModel(modelOf(Grain::Month), 2022, 2026);
        QCOMPARE(model.rowCount(), 5);
        QCOMPARE(model.columnCount(), 12);
        QCOMPARE(nameAt(model, 4, 2), QStringLiteral("2026-03"));
    }

    void dataEqualsEngineStatus()
    {
        const QString conninfo = QString::fromStdString(reprint::test::demoCopy("tst_partitioncalendarmodel"));
        const reprint::backfill::Spec spec = demoSpec();
        EngineClient engine;
        engine.setSpec(spec, conninfo);
        QSignalSpy finished(&engine, &EngineClient::statusFinished);
        QSignalSpy failed(&engine, &EngineClient::failed);
        engine.status(QStringLiteral("fct_order_lines"), QStringLiteral("2026-02-20"), QStringLiteral("2026-03-31"));
        QTRY_VERIFY_WITH_TIMEOUT(finished.count() + failed.count() == 1, 60000);
        QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.at(0).at(1).value<reprint::model::DatabaseError>().sentence()));
        const StatusRows rows = finished.at(0).at(1).value<StatusRows>();
        QCOMPARE(rows.size(), std::size_t(40));

        PartitionCalendarModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setNow(QDateTime(QDate(2026, 7, 1), QTime(0, 0), QTimeZone::utc()));
        model.setModel(*spec.model("fct_order_lines"), 2026, 2026);
        model.setStatus(rows);

        QStringList failing;
        for (const auto &r : rows) {
            const int o = model.ordinalOfName(QString::fromStdString(r.partition.name));
            QVERIFY(o >= 0);
            const QModelIndex idx = model.indexOfOrdinal(o);
            QVERIFY(idx.data(PartitionCalendarModel::HasStatusRole).toBool());
            QCOMPARE(idx.data(PartitionCalendarModel::RowsRole).toLongLong(), r.rows);
            QCOMPARE(model.status(o)->measures, r.measures);
            QCOMPARE(model.status(o)->checks, r.checks);
            QCOMPARE(model.status(o)->checkValues, r.checkValues);
            QCOMPARE(idx.data(PartitionCalendarModel::LoadedAtRole).toDateTime(),
                     QDateTime::fromString(QString::fromStdString(r.loadedAt), Qt::ISODate));
            const QVariantList checks = idx.data(PartitionCalendarModel::ChecksRole).toList();
            QCOMPARE(checks.size(), int(r.checks.size()));
            bool mismatch = false;
            for (std::size_t i = 0; i < r.checks.size(); ++i) {
                const QVariantMap c = checks.at(int(i)).toMap();
                QCOMPARE(c.value(QStringLiteral("name")).toString().toStdString(), r.checks[i].first);
                QCOMPARE(c.value(QStringLiteral("state")).toString().toStdString(), r.checks[i].second);
                mismatch = mismatch || r.checks[i].second == "mismatch";
            }
            QCOMPARE(model.isFailing(o), mismatch);
            if (mismatch)
                failing << QString::fromStdString(r.partition.name);
            QVERIFY(idx.data(Qt::ToolTipRole).toString().contains(QString::fromStdString(r.partition.name)));
        }
        QCOMPARE(failing, (QStringList{QStringLiteral("2026-03-09"), QStringLiteral("2026-03-10"), QStringLiteral("2026-03-11"),
                                        QStringLiteral("2026-03-12"), QStringLiteral("2026-03-13"), QStringLiteral("2026-03-14")}));
        const QModelIndex bad = model.indexOfOrdinal(model.ordinalOfName(QStringLiteral("2026-03-10")));
        QCOMPARE(bad.data(PartitionCalendarModel::HealthRole).toInt(), int(PartitionCalendarModel::Health::Mismatch));
        QVERIFY(bad.data(Qt::AccessibleTextRole).toString().contains(QStringLiteral("fails")));

        // The totals alone (the calendar's first read): the same totals, no checks read.
        finished.clear();
        engine.status(QStringLiteral("fct_order_lines"), QStringLiteral("2026-02-20"), QStringLiteral("2026-03-31"),
                      reprint::backfill::StatusReads::Totals);
        QTRY_VERIFY_WITH_TIMEOUT(finished.count() + failed.count() == 1, 60000);
        QVERIFY(failed.isEmpty());
        StatusRows totals = finished.at(0).at(1).value<StatusRows>();
        QCOMPARE(totals.size(), rows.size());
        for (std::size_t i = 0; i < rows.size(); ++i) {
            QCOMPARE(totals[i].partition.name, rows[i].partition.name);
            QCOMPARE(totals[i].rows, rows[i].rows);
            QCOMPARE(totals[i].measures, rows[i].measures);
            QVERIFY(!totals[i].checksRead);
            QVERIFY(totals[i].checks.empty() && totals[i].checkValues.empty());
        }
        // Unchanged totals keep the verdicts shown; a partition whose totals moved waits
        // for its checks ("checking"), and so does every partition of a model never checked.
        const int badOrdinal = model.ordinalOfName(QStringLiteral("2026-03-10"));
        for (auto &r : totals)
            if (r.partition.name == "2026-03-11")
                r.rows += 1;
        model.setStatus(totals);
        QVERIFY(model.isFailing(badOrdinal));
        QCOMPARE(model.status(badOrdinal)->checks, rows[std::size_t(badOrdinal - model.ordinalOfName(QStringLiteral("2026-02-20")))].checks);
        const QModelIndex moved = model.indexOfOrdinal(model.ordinalOfName(QStringLiteral("2026-03-11")));
        QCOMPARE(moved.data(PartitionCalendarModel::HealthRole).toInt(), int(PartitionCalendarModel::Health::Unknown));
        QCOMPARE(moved.data(PartitionCalendarModel::ChecksRole).toList().first().toMap().value(QStringLiteral("state")).toString(),
                 QStringLiteral("checking"));
        PartitionCalendarModel fresh;
        fresh.setNow(QDateTime(QDate(2026, 7, 1), QTime(0, 0), QTimeZone::utc()));
        fresh.setModel(*spec.model("fct_order_lines"), 2026, 2026);
        fresh.setStatus(totals);
        QVERIFY(!fresh.isFailing(badOrdinal));
        QCOMPARE(fresh.indexOfOrdinal(badOrdinal).data(PartitionCalendarModel::HealthRole).toInt(),
                 int(PartitionCalendarModel::Health::Unknown));
        model.setStatus(rows);  // the checks read again: every verdict as the engine has it
        QCOMPARE(moved.data(PartitionCalendarModel::HealthRole).toInt(), int(PartitionCalendarModel::Health::Mismatch));

        // Every metric colours the reported partitions and explains itself in a legend.
        using Metric = PartitionCalendarModel::Metric;
        for (Metric metric : {Metric::Checks, Metric::RowsVsMedian, Metric::Measure, Metric::Freshness, Metric::Claims}) {
            model.setMetric(metric, QStringLiteral("revenue"));
            QVERIFY(!model.legend().isEmpty());
            QVERIFY(model.colourOf(model.ordinalOfName(QStringLiteral("2026-03-20"))).isValid());
            QVERIFY(!model.colourOf(model.ordinalOfName(QStringLiteral("2026-01-05"))).isValid());
        }
        model.setMetric(Metric::RowsVsMedian);
        const double ratio = model.index(bad.row(), bad.column() + 10).data(PartitionCalendarModel::MetricRole).toDouble();
        QVERIFY2(ratio > 0.5 && ratio < 2, qPrintable(QString::number(ratio)));

        // The cache round trip (through its file's text) gives the same statistics; the
        // cache is not one of the model once its zone or grain changed.
        const QByteArray text = reprint::model::calendarCacheJson(model.model(), model.statusSnapshot());
        const auto cache = reprint::model::calendarCacheFromJson(text, *spec.model("fct_order_lines"));
        QVERIFY(cache);
        QCOMPARE(cache->time, model.statusTime());
        reprint::backfill::Model otherZone = *spec.model("fct_order_lines");
        otherZone.timezone = "Europe/Berlin";
        QVERIFY(!reprint::model::calendarCacheFromJson(text, otherZone));
        reprint::backfill::Model otherGrain = *spec.model("fct_order_lines");
        otherGrain.grain = reprint::backfill::Grain::Week;
        QVERIFY(!reprint::model::calendarCacheFromJson(text, otherGrain));
        QVERIFY(!reprint::model::calendarCacheFromJson("not json", *spec.model("fct_order_lines")));
        PartitionCalendarModel copy;
        copy.setNow(model.now());
        copy.setModel(*spec.model("fct_order_lines"), 2026, 2026);
        copy.applyCache(*cache);
        QCOMPARE(copy.statusTime(), model.statusTime());
        for (const auto &r : rows) {
            const int o = copy.ordinalOfName(QString::fromStdString(r.partition.name));
            QVERIFY(copy.status(o));
            QCOMPARE(copy.status(o)->rows, r.rows);
            QCOMPARE(copy.status(o)->checks, r.checks);
            QCOMPARE(copy.status(o)->measures, r.measures);
        }
        QCOMPARE(copy.failingOrdinals(), model.failingOrdinals());
    }
};

QTEST_GUILESS_MAIN(PartitionCalendarModelTest)
#include "tst_partitioncalendarmodel.moc"
