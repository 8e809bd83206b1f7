// RunLogModel alone: appends as row inserts, level filtering through a proxy, copying.
#include "runlogmodel.h"

#include <QAbstractItemModelTester>
#include <QMimeData>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTest>

#include <memory>

using reprint::model::RunLogModel;
using Level = RunLogModel::Level;

class TestRunLogModel : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void appendsAreBatchedRowInserts()
    {
        RunLogModel log;
        QAbstractItemModelTester tester(&log, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy inserted(&log, &QAbstractItemModel::rowsInserted);
        QSignalSpy resets(&log, &QAbstractItemModel::modelReset);
        for (int i = 0; i < 500; ++i)
            log.append(Level::Info, QStringLiteral("line %1").arg(i));
        QCOMPARE(log.rowCount(), 0);
        QVERIFY(inserted.wait(1000));
        QCOMPARE(inserted.count(), 1);
        QCOMPARE(log.rowCount(), 500);
        QCOMPARE(resets.count(), 0);
        QCOMPARE(log.index(499, RunLogModel::MessageColumn).data().toString(), QStringLiteral("line 499"));
    }

    void filtersByLevelAndCopiesLines()
    {
        RunLogModel log;
        const QDateTime t(QDate(2026, 3, 10), QTime(14, 2, 3, 45));
        log.append(Level::Debug, QStringLiteral("2026-03-10 staging"), t);
        log.append(Level::Info, QStringLiteral("2026-03-10 staged: 10 rows"), t);
        log.append(Level::Notice, QStringLiteral("relation exists, skipping"), t);
        log.append(Level::Warning, QStringLiteral("waiting on a lock"), t);
        log.append(Level::Error, QStringLiteral("2026-03-11 failed: division by zero"), t);
        log.flush();
        QSortFilterProxyModel proxy;
        proxy.setSourceModel(&log);
        proxy.setFilterKeyColumn(RunLogModel::LevelColumn);
        proxy.setFilterRegularExpression(RunLogModel::levelFilter(Level::Warning));
        QCOMPARE(proxy.rowCount(), 2);
        proxy.setFilterRegularExpression(RunLogModel::levelFilter(Level::Info));
        QCOMPARE(proxy.rowCount(), 4);
        proxy.setFilterRegularExpression(RunLogModel::levelFilter(Level::Debug));
        QCOMPARE(proxy.rowCount(), 5);

        proxy.setFilterRegularExpression(RunLogModel::levelFilter(Level::Warning));
        const QModelIndexList rows = {proxy.index(0, 0), proxy.index(0, 2), proxy.index(1, 2)};
        std::unique_ptr<QMimeData> mime(proxy.mimeData(rows));
        QCOMPARE(mime->text(), QStringLiteral("14:02:03.045  WARNING  waiting on a lock\n"
                                             "14:02:03.045  ERROR    2026-03-11 failed: division by zero"));
        QCOMPARE(RunLogModel::levelOfSeverity(QStringLiteral("WARNING")), Level::Warning);
        QCOMPARE(RunLogModel::levelOfSeverity(QStringLiteral("notice")), Level::Notice);
    }

    void keepsTheNewestLines()
    {
        RunLogModel log;
        for (int i = 0; i < RunLogModel::kMaxLines + 10; ++i)
            log.append(Level::Info, QString::number(i));
        log.flush();
        QCOMPARE(log.rowCount(), RunLogModel::kMaxLines);
        QCOMPARE(log.index(0, RunLogModel::MessageColumn).data().toString(), QStringLiteral("10"));
        log.append(Level::Info, QStringLiteral("next"));
        log.flush();
        QCOMPARE(log.rowCount(), RunLogModel::kMaxLines);
        QCOMPARE(log.index(0, RunLogModel::MessageColumn).data().toString(), QStringLiteral("11"));
    }
};

QTEST_MAIN(TestRunLogModel)
#include "tst_runlogmodel.moc"
