// ThroughputSeriesModel alone: the trailing-window rate, appends only, and thinning.
#include "throughputseriesmodel.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTest>

using reprint::model::ThroughputSeriesModel;

class TestThroughputSeriesModel : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void rateIsOverTheTrailingWindow()
    {
        ThroughputSeriesModel series;
        QAbstractItemModelTester tester(&series, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy inserted(&series, &QAbstractItemModel::rowsInserted);
        QSignalSpy changed(&series, &QAbstractItemModel::dataChanged);
        QVERIFY(series.addSample(1.0, 1000, 1));
        QCOMPARE(series.lastRate(), 1000.0);          // since the start
        QVERIFY(!series.addSample(1.2, 1200, 1));     // closer than the spacing: dropped
        QVERIFY(series.addSample(2.0, 2000, 2));
        QVERIFY(series.addSample(4.0, 2000, 2));
        QCOMPARE(series.lastRate(), 1000.0 / 3.0);    // 4 s - 1 s window: (2000 - 1000) / 3
        QVERIFY(series.addSample(8.0, 2000, 2));
        QCOMPARE(series.lastRate(), 0.0);             // nothing staged in the last window
        QCOMPARE(series.maxRate(), 1000.0);
        QCOMPARE(series.rowCount(), 4);
        QCOMPARE(inserted.count(), 4);
        QCOMPARE(changed.count(), 0);
        QCOMPARE(series.index(3, ThroughputSeriesModel::DoneColumn).data().toInt(), 2);
    }

    // A resume after a minute's idle gap: the rate never reaches back across the gap, the
    // chart drops to 0 over it, and the average counts only the time spent staging.
    void resumeLeavesTheIdleGapOut()
    {
        ThroughputSeriesModel series;
        QAbstractItemModelTester tester(&series, QAbstractItemModelTester::FailureReportingMode::QtTest);
        for (int i = 1; i <= 10; ++i)
            QVERIFY(series.addSample(i * 0.5, i * 500, i));  // 1000 rows/s for 5 s
        QCOMPARE(series.lastRate(), 1000.0);
        series.beginSegment(65.0, 5000, 10);
        QCOMPARE(series.rowCount(), 12);
        QCOMPARE(series.index(10, ThroughputSeriesModel::ElapsedColumn).data().toDouble(), 5.0);
        QCOMPARE(series.index(10, ThroughputSeriesModel::RateColumn).data().toDouble(), 0.0);
        QCOMPARE(series.index(11, ThroughputSeriesModel::ElapsedColumn).data().toDouble(), 65.0);
        QCOMPARE(series.index(11, ThroughputSeriesModel::RateColumn).data().toDouble(), 0.0);
        for (int i = 1; i <= 10; ++i)
            QVERIFY(series.addSample(65.0 + i * 0.5, 5000 + i * 1000, 10 + i));  // 2000 rows/s
        QCOMPARE(series.lastRate(), 2000.0);
        QVERIFY(series.index(12, ThroughputSeriesModel::RateColumn).data().toDouble() == 2000.0);  // not over the gap
        // 15,000 rows in 10 s of staging, not 70 s.
        QCOMPARE(series.averageRate(), 1500.0);
        series.clear();
        QCOMPARE(series.averageRate(), 0.0);
    }

    void longRunsAreThinned()
    {
        ThroughputSeriesModel series;
        for (int i = 0; i < 3600 * 4; ++i)
            series.addSample(i * 0.25, i * 100, i / 40);
        QVERIFY2(series.rowCount() < 3000, qPrintable(QString::number(series.rowCount())));
        QVERIFY(series.lastElapsed() > 3500);
    }
};

QTEST_MAIN(TestThroughputSeriesModel)
#include "tst_throughputseriesmodel.moc"
