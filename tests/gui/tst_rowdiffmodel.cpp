// RowDiffModel on the demo: rows arrive in fetchMore() batches, never all at once, and
// the honest window's 2026-03-09 diff shows the slipped evening rows as added.
#include "reviewfixture.h"

#include "engineclient.h"
#include "rowdiffmodel.h"

#include <QAbstractItemModelTester>
#include <QDateTime>
#include <QSignalSpy>
#include <QTest>

using namespace reprint;

class RowDiffModelTest : public QObject {
    Q_OBJECT

    std::string m_db;
    qint64 m_id = 0;
    backfill::Spec m_spec;

    backfill::RowDiff rowDiff(const QString &partition)
    {
        model::EngineClient client;
        client.setSpec(m_spec, QString::fromStdString(m_db));
        QSignalSpy done(&client, &model::EngineClient::rowDiffFinished);
        QSignalSpy failed(&client, &model::EngineClient::failed);
        client.rowDiff(m_id, partition);
        if (!QTest::qWaitFor([&] { return done.count() + failed.count() > 0; }, 60000) || done.isEmpty()) {
            if (!failed.isEmpty())
                qWarning("row diff failed: %s", qPrintable(failed.first().at(1).value<model::DatabaseError>().sentence()));
            return {};
        }
        return done.first().at(1).value<backfill::RowDiff>();
    }

private Q_SLOTS:
    void initTestCase()
    {
        m_spec = test::loadDemoSpec();
        m_db = test::demoCopy("tst_rowdiffmodel");
        int code = -1;
        m_id = test::stageBackfill(m_db, QStringLiteral("2026-03-09"), QStringLiteral("2026-03-14"), &code);
        QCOMPARE(code, 0);
    }

    void fetchesInBatches()
    {
        const backfill::RowDiff diff = rowDiff(QStringLiteral("2026-03-09"));
        const qint64 total = diff.added + diff.removed + diff.changed;
        QVERIFY2(total > 25, qPrintable(QString::number(total)));

        model::EngineClient client;
        client.setSpec(m_spec, QString::fromStdString(m_db));
        model::RowDiffModel model(&client);
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy batches(&model, &model::RowDiffModel::batchLoaded);
        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
        model.setBatchSize(10);
        model.setPartition(m_id, QStringLiteral("2026-03-09"), total);
        QCOMPARE(model.rowCount(), 0);
        // The tester may have asked for the first batch already (it calls fetchMore).
        if (!model.isFetching()) {
            QVERIFY(model.canFetchMore({}));
            model.fetchMore({});
        }
        QVERIFY(model.isFetching());
        QVERIFY(!model.canFetchMore({}));  // one page in flight at a time
        QVERIFY(batches.wait(60000));
        QCOMPARE(model.rowCount(), 10);
        QCOMPARE(inserted.count(), 1);
        QCOMPARE(inserted.first().at(1).toInt(), 0);
        QCOMPARE(inserted.first().at(2).toInt(), 9);
        if (!model.isFetching())
            model.fetchMore({});
        QVERIFY(batches.wait(60000));
        QCOMPARE(model.rowCount(), 20);
        QCOMPARE(inserted.last().at(1).toInt(), 10);
        while (model.rowCount() < int(total)) {
            if (!model.isFetching()) {
                QVERIFY(model.canFetchMore({}));
                model.fetchMore({});
            }
            QVERIFY(batches.wait(60000));
        }
        QCOMPARE(model.rowCount(), int(total));
        // Every batch but the last is exactly one page.
        for (int i = 0; i < inserted.count(); ++i)
            QCOMPARE(inserted.at(i).at(2).toInt() - inserted.at(i).at(1).toInt() + 1,
                     i + 1 < inserted.count() ? 10 : int(total - 10 * (inserted.count() - 1)));
        QCOMPARE(model.basis(), QStringLiteral("stage"));
        QVERIFY(!model.canFetchMore({}));
    }

    void eveningRowsAreAdded()
    {
        const backfill::RowDiff diff = rowDiff(QStringLiteral("2026-03-09"));
        QVERIFY(diff.added > 0);
        QCOMPARE(diff.removed, 0);
        // Every slipped line ordered in [18:00, 24:00) UTC on 2026-03-09.
        const std::string expected = test::scalar(m_db, "SELECT count(*) FROM raw.order_lines l JOIN raw.orders o USING (order_id) "
                                                        "WHERE o.ordered_at >= '2026-03-09 18:00+00' AND o.ordered_at < '2026-03-10 00:00+00'");
        QCOMPARE(QString::number(diff.added), QString::fromStdString(expected));

        model::EngineClient client;
        client.setSpec(m_spec, QString::fromStdString(m_db));
        model::RowDiffModel model(&client);
        QSignalSpy batches(&model, &model::RowDiffModel::batchLoaded);
        model.setBatchSize(int(diff.added + diff.changed));
        model.setPartition(m_id, QStringLiteral("2026-03-09"), diff.added + diff.removed + diff.changed);
        model.fetchMore({});
        QVERIFY(batches.wait(60000));
        const int orderedAt = model.oldColumnOf(QStringLiteral("ordered_at")) + 1;  // its new value
        QVERIFY(orderedAt > 0);
        int added = 0;
        for (int r = 0; r < model.rowCount(); ++r) {
            if (model.index(r, 0).data(model::RowDiffModel::ChangeRole).toString() != QLatin1String("added"))
                continue;
            ++added;
            const QDateTime at = QDateTime::fromString(model.index(r, orderedAt).data().toString(), Qt::ISODate).toUTC();
            QVERIFY2(at.isValid(), qPrintable(model.index(r, orderedAt).data().toString()));
            QCOMPARE(at.date(), QDate(2026, 3, 9));
            QVERIFY(at.time() >= QTime(18, 0));
            // An added row has no old values, and its new cells count as changed.
            QVERIFY(model.index(r, orderedAt - 1).data().toString().isEmpty());
            QVERIFY(model.index(r, orderedAt).data(model::RowDiffModel::CellChangedRole).toBool());
        }
        QCOMPARE(added, int(diff.added));
    }

    void edgeRowsShowTheSlip()
    {
        model::EngineClient client;
        client.setSpec(m_spec, QString::fromStdString(m_db));
        QSignalSpy done(&client, &model::EngineClient::edgeRowsFinished);
        client.edgeRows(m_id, QStringLiteral("2026-03-10"), 60);
        QVERIFY(done.wait(60000));
        const auto rows = done.first().at(1).value<backfill::EdgeRows>();
        QCOMPARE(rows.instantColumn, std::string("ordered_at"));
        int moved = 0;
        for (const auto &r : rows.rows)
            if (r.oldPartition == "2026-03-10" && r.newPartition == "2026-03-09") {
                ++moved;
                QVERIFY(r.instantUtc.rfind("2026-03-09 23:", 0) == 0);
            }
        QVERIFY(moved > 0);
    }
};

QTEST_MAIN(RowDiffModelTest)
#include "tst_rowdiffmodel.moc"
