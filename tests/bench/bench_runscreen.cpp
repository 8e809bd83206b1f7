// Stall probe of the Run screen: while the screen runs a backfill of the scale-1 demo
// (a quarter of daily partitions over four connections), a 5 ms timer on the GUI thread
// records the gaps between its ticks. Prints the longest and the 99th percentile (goals:
// under 50 ms and under 16.7 ms), the
// update rate (snapshots applied and partition-table signals per second), and the cost of
// applying a burst of 1000 partition updates; names the events inside the gaps over
// 16.7 ms (StallProbe::report). Asserts nothing about time.
#include "backfillprogressmodel.h"
#include "engineclient.h"
#include "runscreen.h"
#include "benchresults.h"
#include "stallprobe.h"
#include "testsupport.h"

#include "backfill/spec.h"

#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QSignalSpy>
#include <QTest>
#include <QTimer>

#include <algorithm>
#include <cstdio>

using reprint::views::RunScreen;
using reprint::model::BackfillProgressModel;

class BenchRunScreen : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void longestGuiStallDuringABackfill()
    {
        const QString specPath = QDir(qEnvironmentVariable("REPRINT_TEST_DEMO_DIR")).filePath(QStringLiteral("demo.yaml"));
        auto spec = reprint::backfill::loadSpec(specPath.toStdString());
        QVERIFY2(spec, "the benchdemo fixture did not write its spec");
        const std::string db = reprint::test::demoCopy("bench_runscreen");
        reprint::model::EngineClient engine;
        engine.setSpec(*spec, QString::fromStdString(db));
        RunScreen screen(&engine);
        screen.resize(1280, 800);
        screen.show();
        QVERIFY(QTest::qWaitForWindowExposed(&screen));

        QElapsedTimer clock;
        reprint::test::StallProbe probe;
        QSignalSpy snapshots(&screen, &RunScreen::snapshotApplied);
        QSignalSpy changed(screen.progressModel(), &QAbstractItemModel::dataChanged);
        QSignalSpy applied(screen.progressModel(), &BackfillProgressModel::progressApplied);

        reprint::backfill::BackfillRequest request;
        request.model = "fct_order_lines";
        request.from = "2026-01-01";
        request.to = "2026-03-31";
        request.parallel = 4;
        // Waits as the application does, in an event loop (QTRY_* would sleep between passes),
        // until 300 ms after the backfill ends (its review is read then).
        QEventLoop loop;
        QTimer::singleShot(900000, &loop, &QEventLoop::quit);
        connect(&screen, &RunScreen::phaseChanged, &loop, [&loop](RunScreen::Phase phase) {
            if (RunScreen::isTerminal(phase))
                QTimer::singleShot(300, &loop, &QEventLoop::quit);
        });
        clock.start();
        probe.start();
        screen.start(request);
        loop.exec();
        probe.stop();
        QVERIFY(RunScreen::isTerminal(screen.phase()));
        const double seconds = clock.elapsed() / 1000.0;
        qInfo("backfill of %d partitions: %s in %.1f s (%lld staged rows)", screen.progressModel()->rowCount(),
              qPrintable(RunScreen::phaseLabel(screen.phase())), seconds, screen.progressModel()->rowsStaged());
        qInfo("longest GUI stall: %.1f ms (goal < 50 ms), 99th percentile gap %.1f ms (goal < 16.7 ms); %d gaps "
              "over 16.7 ms in %lld ticks of the 5 ms probe",
              probe.longestMs(), probe.percentileMs(0.99), probe.over(16.7), probe.ticks());
        qInfo("update rate: %.1f snapshots/s applied, %.1f table passes/s, %.1f dataChanged/s",
              snapshots.count() / seconds, applied.count() / seconds, changed.count() / seconds);
        probe.report(16.7);
        QJsonObject result = probe.json();
        result.insert(QStringLiteral("partitions"), screen.progressModel()->rowCount());
        reprint::test::record(QStringLiteral("run_screen"), result);
    }

    void burstOfAThousandPartitionUpdates()
    {
        BackfillProgressModel model;
        std::vector<reprint::backfill::PartitionState> parts(1000);
        for (int i = 0; i < 1000; ++i)
            parts[std::size_t(i)].partition = "p" + std::to_string(i);
        model.setPartitions(parts);
        model.flush();
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        QElapsedTimer t;
        t.start();
        for (auto &p : parts) {
            p.state = reprint::backfill::PartitionStage::Staged;
            p.rows = 1000;
            p.seconds = 0.5;
            model.updatePartition(p);
        }
        model.flush();
        qInfo("1000 partition updates applied in %.2f ms with %d dataChanged emission(s)", t.nsecsElapsed() / 1e6,
              int(changed.count()));
    }
};

// QTEST_MAIN, with an application that times the events it delivers.
int main(int argc, char **argv)
{
    reprint::test::EventClock app(argc, argv);
    app.setAttribute(Qt::AA_Use96Dpi, true);
    BenchRunScreen bench;
    QTEST_SET_MAIN_SOURCE_PATH
    return QTest::qExec(&bench, argc, argv);
}
#include "bench_runscreen.moc"
