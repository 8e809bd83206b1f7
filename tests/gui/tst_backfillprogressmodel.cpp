// BackfillProgressModel alone (no database): the item-model contract, row signals rather
// than resets, and coalescing of bursts.
#include "backfillprogressmodel.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTest>

using reprint::backfill::PartitionState;
using Stage = reprint::backfill::PartitionStage;
using reprint::backfill::Verdict;
using reprint::model::BackfillProgressModel;

namespace {

PartitionState part(int day, Stage state = Stage::Queued, long long rows = 0, double seconds = 0, bool boundary = false)
{
    PartitionState p;
    p.partition = QStringLiteral("2026-%1-%2").arg(1 + day / 28, 2, 10, QLatin1Char('0')).arg(1 + day % 28, 2, 10, QLatin1Char('0')).toStdString();
    p.state = state;
    p.rows = rows;
    p.seconds = seconds;
    p.boundary = boundary;
    return p;
}

std::vector<PartitionState> window(int n)
{
    std::vector<PartitionState> out;
    out.push_back(part(0, Stage::Queued, 0, 0, true));
    out.push_back(part(n - 1, Stage::Queued, 0, 0, true));
    for (int d = 1; d + 1 < n; ++d)
        out.push_back(part(d));
    return out;
}

} // namespace

class TestBackfillProgressModel : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void passesTheModelTester()
    {
        BackfillProgressModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setPartitions(window(6));
        model.flush();
        QCOMPARE(model.rowCount(), 6);
        model.updatePartition(part(2, Stage::Staging));
        model.updatePartition(part(0, Stage::Staged, 120, 0.5, true));
        model.updatePartition(part(5, Stage::Failed, 0, 0.2, true));
        model.flush();
        model.setValidating(true);
        model.setVerdicts({{QStringLiteral("2026-01-01"), Verdict::Expected}});
        for (int r = 0; r < model.rowCount(); ++r)
            for (int c = 0; c < model.columnCount(); ++c)
                for (int role : {int(Qt::DisplayRole), int(Qt::ToolTipRole), int(Qt::ForegroundRole), int(Qt::DecorationRole),
                                 int(BackfillProgressModel::ValueRole), int(BackfillProgressModel::VerdictRole)})
                    (void)model.index(r, c).data(role);
        model.clear();
        QCOMPARE(model.rowCount(), 0);
    }

    void showsStateRowsRateVerdictAndError()
    {
        BackfillProgressModel model;
        model.setPartitions(window(4));
        model.flush();
        QCOMPARE(model.index(0, 0).data().toString(), QStringLiteral("2026-01-01"));
        QVERIFY(model.index(0, 0).data(BackfillProgressModel::BoundaryRole).toBool());
        QVERIFY(model.index(1, 0).data(BackfillProgressModel::BoundaryRole).toBool());
        QVERIFY(!model.index(2, 0).data(BackfillProgressModel::BoundaryRole).toBool());

        PartitionState failed = part(2, Stage::Failed, 0, 0.3);
        failed.error = "division by zero. Fix the transform.";
        model.updatePartition(part(0, Stage::Staged, 1000, 2.0, true));
        model.updatePartition(failed);
        model.flush();
        QCOMPARE(model.index(0, BackfillProgressModel::StateColumn).data(BackfillProgressModel::StateRole).toString(), QStringLiteral("staged"));
        QCOMPARE(model.index(0, BackfillProgressModel::RowsColumn).data(BackfillProgressModel::ValueRole).toLongLong(), 1000);
        QCOMPARE(model.index(0, BackfillProgressModel::RateColumn).data(BackfillProgressModel::ValueRole).toDouble(), 500.0);
        const int failedRow = model.rowOf(QString::fromStdString(failed.partition));
        QCOMPARE(failedRow, 3);  // after the two boundary partitions and the 2nd
        QCOMPARE(model.index(failedRow, BackfillProgressModel::DetailColumn).data().toString(),
                 QStringLiteral("division by zero. Fix the transform."));
        QVERIFY(!model.index(failedRow, BackfillProgressModel::RowsColumn).data(BackfillProgressModel::ValueRole).isValid());
        QCOMPARE(model.stagedCount(), 1);
        QCOMPARE(model.failedCount(), 1);
        QCOMPARE(model.rowsStaged(), 1000);

        QVERIFY(model.index(0, BackfillProgressModel::VerdictColumn).data().toString().isEmpty());
        model.setValidating(true);
        QVERIFY(model.index(0, BackfillProgressModel::VerdictColumn).data().toString().contains(QStringLiteral("validating")));
        model.setVerdicts({{QStringLiteral("2026-01-01"), Verdict::MismatchSource}});
        QCOMPARE(model.index(0, BackfillProgressModel::VerdictColumn).data(BackfillProgressModel::VerdictRole).toInt(),
                 int(Verdict::MismatchSource));
        QVERIFY(model.index(0, BackfillProgressModel::VerdictColumn).data().toString().contains(QStringLiteral("mismatch")));
    }

    // The run's review can come back before the snapshot of its partitions is applied (the
    // screen attaches to the backfill only when it finishes): its verdicts still show.
    void verdictsThatComeBeforeTheirPartitionsShow()
    {
        BackfillProgressModel model;
        model.setPartitions(window(3));  // queued, not applied
        model.setVerdicts({{QStringLiteral("2026-01-01"), Verdict::Expected}, {QStringLiteral("2026-01-03"), Verdict::Unexpected}});
        model.flush();
        QCOMPARE(model.index(model.rowOf(QStringLiteral("2026-01-01")), BackfillProgressModel::VerdictColumn)
                     .data(BackfillProgressModel::VerdictRole).toInt(),
                 int(Verdict::Expected));
        QCOMPARE(model.index(model.rowOf(QStringLiteral("2026-01-03")), BackfillProgressModel::VerdictColumn)
                     .data(BackfillProgressModel::VerdictRole).toInt(),
                 int(Verdict::Unexpected));
        QVERIFY(!model.index(model.rowOf(QStringLiteral("2026-01-02")), BackfillProgressModel::VerdictColumn)
                     .data(BackfillProgressModel::VerdictRole).isValid());
        model.clear();  // forgets the verdicts with the partitions
        model.setPartitions(window(3));
        model.flush();
        QVERIFY(!model.index(0, BackfillProgressModel::VerdictColumn).data(BackfillProgressModel::VerdictRole).isValid());
    }

    void updatesAreRowSignalsNotResets()
    {
        BackfillProgressModel model;
        QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        model.setPartitions(window(6));
        QVERIFY(inserted.wait(1000));  // applied by the model's own timer
        QCOMPARE(inserted.count(), 1);
        QCOMPARE(inserted.at(0).at(1).toInt(), 0);
        QCOMPARE(inserted.at(0).at(2).toInt(), 5);

        auto snapshot = window(6);
        snapshot[2].state = Stage::Staging;
        model.setPartitions(snapshot);
        QVERIFY(changed.wait(1000));
        QCOMPARE(changed.count(), 1);
        QCOMPARE(changed.at(0).at(0).value<QModelIndex>().row(), 2);
        QCOMPARE(changed.at(0).at(1).value<QModelIndex>().row(), 2);

        // The same snapshot again changes nothing.
        changed.clear();
        model.setPartitions(snapshot);
        model.flush();
        QCOMPARE(changed.count(), 0);
        QCOMPARE(resets.count(), 0);
        QCOMPARE(inserted.count(), 1);
    }

    void aBurstIsCoalesced()
    {
        BackfillProgressModel model;
        model.setPartitions(window(1000));
        model.flush();
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        QSignalSpy applied(&model, &BackfillProgressModel::progressApplied);
        QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
        // A thousand partitions finish at once, each announced on its own.
        for (int d = 0; d < 1000; ++d)
            model.updatePartition(part(d, Stage::Staged, 10 + d, 0.5, d == 0 || d == 999));
        QCOMPARE(changed.count(), 0);  // nothing applied before the event loop runs
        QCOMPARE(model.stagedCount(), 0);
        QVERIFY(applied.wait(1000));
        QVERIFY2(changed.count() <= BackfillProgressModel::kMaxRanges, qPrintable(QString::number(changed.count())));
        QCOMPARE(applied.count(), 1);
        QCOMPARE(model.stagedCount(), 1000);
        qInfo("1000 partition updates: %d dataChanged emission(s)", int(changed.count()));

        // Scattered updates (every other row) collapse to one spanning range.
        changed.clear();
        for (int d = 1; d < 999; d += 2)
            model.updatePartition(part(d, Stage::Failed, 0, 0.1));
        model.flush();
        QCOMPARE(changed.count(), 1);
        QCOMPARE(resets.count(), 0);
        QCOMPARE(inserted.count(), 0);
        QCOMPARE(model.failedCount(), 499);
    }
};

QTEST_MAIN(TestBackfillProgressModel)
#include "tst_backfillprogressmodel.moc"
