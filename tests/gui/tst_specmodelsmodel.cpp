// SpecModelsModel: rows and roles from a spec file, checked by QAbstractItemModelTester.
#include "specfixture.h"
#include "specmodelsmodel.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTest>

using reprint::model::SpecModelsModel;

class SpecModelsModelTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void rolesDescribeEachModel()
    {
        QTemporaryDir dir;
        const QString spec = reprint::test::writeSmallSpec(dir, QStringLiteral("service=analytics"));
        SpecModelsModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy resets(&model, &QAbstractItemModel::modelReset);

        QString error;
        QVERIFY2(model.load(spec, &error), qPrintable(error));
        QCOMPARE(resets.count(), 1);
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.warehouse(), QStringLiteral("service=analytics"));
        QCOMPARE(model.specPath(), QFileInfo(spec).absoluteFilePath());

        const QModelIndex first = model.index(0);
        QCOMPARE(first.data(SpecModelsModel::NameRole).toString(), QStringLiteral("fct_order_lines"));
        QCOMPARE(first.data(SpecModelsModel::TargetRole).toString(), QStringLiteral("analytics.fct_order_lines"));
        QCOMPARE(first.data(SpecModelsModel::GrainRole).toString(), QStringLiteral("day"));
        QCOMPARE(first.data(SpecModelsModel::TimezoneRole).toString(), QStringLiteral("UTC"));
        QCOMPARE(first.data(SpecModelsModel::PartitionColumnRole).toString(), QStringLiteral("order_date"));
        QCOMPARE(first.data(SpecModelsModel::KeyRole).toStringList(), QStringList{QStringLiteral("order_line_id")});
        QCOMPARE(first.data(SpecModelsModel::MeasuresRole).toStringList(),
                 (QStringList{QStringLiteral("revenue"), QStringLiteral("quantity")}));
        QCOMPARE(first.data(SpecModelsModel::ChecksCountRole).toInt(), 2);
        const QVariantMap check = first.data(SpecModelsModel::ChecksRole).toList().first().toMap();
        QCOMPARE(check.value(QStringLiteral("name")).toString(), QStringLiteral("revenue matches source"));
        QCOMPARE(check.value(QStringLiteral("measure")).toString(), QStringLiteral("revenue"));
        QCOMPARE(check.value(QStringLiteral("tolerance")).toDouble(), 0.001);
        QVERIFY(check.value(QStringLiteral("source")).toString().endsWith(QStringLiteral("transforms/check_revenue.sql")));
        QVERIFY(first.data(SpecModelsModel::TransformFileRole).toString().endsWith(
            QStringLiteral("transforms/fct_order_lines.sql")));

        const QModelIndex second = model.index(1);
        QCOMPARE(second.data(Qt::DisplayRole).toString(), QStringLiteral("agg_monthly_revenue"));
        QCOMPARE(second.data(SpecModelsModel::GrainRole).toString(), QStringLiteral("month"));
        QCOMPARE(second.data(SpecModelsModel::TimezoneRole).toString(), QStringLiteral("Europe/Berlin"));
        QCOMPARE(second.data(SpecModelsModel::ChecksCountRole).toInt(), 0);
        QCOMPARE(second.data(SpecModelsModel::DependsOnRole).toStringList(), QStringList{QStringLiteral("fct_order_lines")});

        QVERIFY(model.roleNames().values().contains("grain"));
    }

    void connectionStateReachesEveryRow()
    {
        QTemporaryDir dir;
        SpecModelsModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QVERIFY(model.load(reprint::test::writeSmallSpec(dir, QStringLiteral("dbname=x"))));
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);

        model.setConnectionState(SpecModelsModel::ConnectionState::Connected);
        QCOMPARE(changed.count(), 1);
        QCOMPARE(changed.first().at(0).toModelIndex().row(), 0);
        QCOMPARE(changed.first().at(1).toModelIndex().row(), 1);
        QCOMPARE(changed.first().at(2).value<QList<int>>(), QList<int>{SpecModelsModel::ConnectionStateRole});
        for (int row = 0; row < model.rowCount(); ++row)
            QCOMPARE(model.index(row).data(SpecModelsModel::ConnectionStateRole).value<SpecModelsModel::ConnectionState>(),
                     SpecModelsModel::ConnectionState::Connected);

        model.setConnectionState(SpecModelsModel::ConnectionState::Connected);
        QCOMPARE(changed.count(), 1);
    }

    void failedLoadKeepsTheRows()
    {
        QTemporaryDir dir;
        SpecModelsModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QVERIFY(model.load(reprint::test::writeSmallSpec(dir, QStringLiteral("dbname=x"))));
        QSignalSpy resets(&model, &QAbstractItemModel::modelReset);

        QString error;
        QVERIFY(!model.load(dir.filePath(QStringLiteral("missing.yaml")), &error));
        QVERIFY2(error.contains(QStringLiteral("missing.yaml")), qPrintable(error));
        QCOMPARE(resets.count(), 0);
        QCOMPARE(model.rowCount(), 2);

        model.clear();
        QCOMPARE(model.rowCount(), 0);
        QCOMPARE(resets.count(), 1);
    }
};

QTEST_GUILESS_MAIN(SpecModelsModelTest)
#include "tst_specmodelsmodel.moc"
