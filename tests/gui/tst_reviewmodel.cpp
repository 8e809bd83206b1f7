// ReviewModel and its proxy on the demo: the item-model contract, cells equal to the
// engine's stored review (`reprint diff --format json`) and to independent sums from the
// raw tables, the filters, the totals row and TSV copy.
#include "reviewfixture.h"

#include "engineclient.h"
#include "reviewmodel.h"
#include "reviewproxymodel.h"

#include <QAbstractItemModelTester>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTest>

#include <cmath>

using namespace reprint;
using model::ReviewModel;
using Field = ReviewModel::Field;

namespace {

backfill::Review loadReview(const std::string &db, qint64 id)
{
    model::EngineClient client;
    client.setSpec(test::loadDemoSpec(), QString::fromStdString(db));
    QSignalSpy done(&client, &model::EngineClient::reviewFinished);
    QSignalSpy failed(&client, &model::EngineClient::failed);
    client.review(id);
    if (!QTest::qWaitFor([&] { return done.count() + failed.count() > 0; }, 60000) || done.isEmpty())
        return {};
    return done.first().at(1).value<backfill::Review>();
}

int rowOf(const QAbstractItemModel &m, const QString &partition)
{
    for (int r = 0; r < m.rowCount(); ++r)
        if (m.index(r, 0).data(ReviewModel::PartitionRole).toString() == partition)
            return r;
    return -1;
}

double value(const ReviewModel &m, int row, const QString &measure, Field f)
{
    return m.index(row, m.columnFor(int(m.measures().indexOf(measure)), f)).data(ReviewModel::ValueRole).toDouble();
}

} // namespace

class ReviewModelTest : public QObject {
    Q_OBJECT

    std::string m_db;
    qint64 m_honest = 0;

private Q_SLOTS:
    void initTestCase()
    {
        m_db = test::demoCopy("tst_reviewmodel");
        int code = -1;
        m_honest = test::stageBackfill(m_db, QStringLiteral("2026-03-09"), QStringLiteral("2026-03-14"), &code);
        QCOMPARE(code, 0);
        QVERIFY(m_honest > 0);
    }

    void passesModelTester()
    {
        ReviewModel model;
        model::ReviewProxyModel proxy;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester proxyTester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        proxy.setSourceModel(&model);
        proxy.sort(2, Qt::DescendingOrder);
        model.setReview(loadReview(m_db, m_honest));
        QCOMPARE(model.rowCount(), 6 + 2 + 1);
        QCOMPARE(model.columnCount(), ReviewModel::kFixedColumns + 3 * ReviewModel::kFieldsPerMeasure);
        proxy.setFilter(model::ReviewProxyModel::Filter::Problems);
        proxy.setFilter(model::ReviewProxyModel::Filter::Changed);
        proxy.setFilter(model::ReviewProxyModel::Filter::All);
        // The totals row stays last in either order.
        QVERIFY(proxy.index(proxy.rowCount() - 1, 0).data(ReviewModel::TotalsRole).toBool());
        proxy.sort(2, Qt::AscendingOrder);
        QVERIFY(proxy.index(proxy.rowCount() - 1, 0).data(ReviewModel::TotalsRole).toBool());
        model.setReview({});
        QCOMPARE(model.rowCount(), 0);
    }

    void cellsEqualTheCliDiff()
    {
        ReviewModel model;
        model.setReview(loadReview(m_db, m_honest));
        const auto p = test::runReprint({QStringLiteral("diff"), QStringLiteral("--spec"), test::demoSpec(), QStringLiteral("--db"),
                                         QString::fromStdString(m_db), QString::number(m_honest), QStringLiteral("--format"),
                                         QStringLiteral("json")});
        QCOMPARE(p.exitCode, 0);
        const QJsonArray partitions = QJsonDocument::fromJson(p.out.toUtf8()).object().value(QStringLiteral("partitions")).toArray();
        QCOMPARE(partitions.size(), model.partitionCount());
        int compared = 0;
        for (const QJsonValue &pv : partitions) {
            const QJsonObject po = pv.toObject();
            const int row = rowOf(model, po.value(QStringLiteral("partition")).toString());
            QVERIFY(row >= 0);
            const bool inScope = po.value(QStringLiteral("in_scope")).toBool();
            QCOMPARE(model.index(row, 1).data(ReviewModel::PlaceRole).toInt() != int(ReviewModel::Place::Outside), inScope);
            const QJsonObject measures = po.value(QStringLiteral("measures")).toObject();
            for (auto it = measures.begin(); it != measures.end(); ++it) {
                const QJsonObject m = it.value().toObject();
                QCOMPARE(value(model, row, it.key(), Field::Old), m.value(QStringLiteral("old")).toDouble());
                QCOMPARE(value(model, row, it.key(), Field::New), m.value(QStringLiteral("new")).toDouble());
                QCOMPARE(value(model, row, it.key(), Field::Source), m.value(QStringLiteral("source")).toDouble());
                const int verdict = model.index(row, model.columnFor(int(model.measures().indexOf(it.key())), Field::Verdict))
                                        .data(ReviewModel::VerdictRole)
                                        .toInt();
                QCOMPARE(QString::fromLatin1(backfill::toString(backfill::Verdict(verdict))),
                         m.value(QStringLiteral("verdict")).toString());
                ++compared;
            }
        }
        QCOMPARE(compared, model.partitionCount() * 3);
    }

    void cellsEqualIndependentSums()
    {
        ReviewModel model;
        model.setReview(loadReview(m_db, m_honest));
        // New: computed from the raw tables; old: the target as it is (nothing published).
        auto truth = test::query(m_db, "SELECT (o.ordered_at AT TIME ZONE 'UTC')::date::text, count(*)::text, "
                                       "sum(round(l.quantity * l.unit_price * (1 - l.discount), 2))::text, sum(l.quantity)::text "
                                       "FROM raw.order_lines l JOIN raw.orders o USING (order_id) "
                                       "WHERE o.ordered_at >= '2026-03-09 00:00+00' AND o.ordered_at < '2026-03-15 00:00+00' GROUP BY 1");
        QVERIFY(truth);
        QCOMPARE(truth->last().rows.size(), std::size_t(6));
        double windowRevenue = 0;
        for (const auto &row : truth->last().rows) {
            const int r = rowOf(model, QString::fromStdString(*row[0]));
            QVERIFY2(r >= 0, row[0]->c_str());
            QCOMPARE(value(model, r, QStringLiteral("rows"), Field::New), std::stod(*row[1]));
            QCOMPARE(value(model, r, QStringLiteral("revenue"), Field::New), std::stod(*row[2]));
            QCOMPARE(value(model, r, QStringLiteral("quantity"), Field::New), std::stod(*row[3]));
            windowRevenue += std::stod(*row[2]);
        }
        auto old = test::query(m_db, "SELECT order_date::text, count(*)::text, sum(revenue)::text FROM analytics.fct_order_lines "
                                     "WHERE order_date BETWEEN '2026-03-08' AND '2026-03-15' GROUP BY 1");
        QVERIFY(old);
        QCOMPARE(old->last().rows.size(), std::size_t(8));
        for (const auto &row : old->last().rows) {
            const int r = rowOf(model, QString::fromStdString(*row[0]));
            QVERIFY2(r >= 0, row[0]->c_str());
            QCOMPARE(value(model, r, QStringLiteral("rows"), Field::Old), std::stod(*row[1]));
            QCOMPARE(value(model, r, QStringLiteral("revenue"), Field::Old), std::stod(*row[2]));
        }
        // The totals row: the window's sums, delta and delta %.
        const int t = model.totalsRow();
        QVERIFY(std::abs(value(model, t, QStringLiteral("revenue"), Field::New) - windowRevenue) < 0.005);
        const double o = value(model, t, QStringLiteral("revenue"), Field::Old);
        const double n = value(model, t, QStringLiteral("revenue"), Field::New);
        QVERIFY(std::abs(value(model, t, QStringLiteral("revenue"), Field::Delta) - (n - o)) < 1e-6);
        QVERIFY(std::abs(value(model, t, QStringLiteral("revenue"), Field::DeltaPercent) - 100 * (n - o) / o) < 1e-6);
    }

    void displayIsLocaleFormattedAndLabelled()
    {
        ReviewModel model;
        model.setLocale(QLocale(QLocale::German, QLocale::Germany));
        model.setReview(loadReview(m_db, m_honest));
        const int r = rowOf(model, QStringLiteral("2026-03-11"));
        const int col = model.columnFor(1, Field::New);
        const double v = model.index(r, col).data(ReviewModel::ValueRole).toDouble();
        QCOMPARE(model.index(r, col).data().toString(), QLocale(QLocale::German, QLocale::Germany).toString(v, 'f', 2));
        QVERIFY(model.index(r, col).data().toString().contains(QLatin1Char(',')));
        QCOMPARE(model.index(r, model.columnFor(0, Field::New)).data().toString(),
                 QLocale(QLocale::German, QLocale::Germany).toString(model.index(r, model.columnFor(0, Field::New)).data(ReviewModel::ValueRole).toDouble(), 'f', 0));
        QVERIFY(model.index(r, col).data(Qt::TextAlignmentRole).value<Qt::Alignment>() & Qt::AlignRight);
        // Verdicts are words, not colour alone.
        const QString verdict = model.index(r, model.columnFor(1, Field::Verdict)).data().toString();
        QVERIFY2(verdict.contains(QLatin1String("expected")), qPrintable(verdict));
        QCOMPARE(model.index(model.totalsRow(), 0).data().toString(), QStringLiteral("Window total"));
    }

    void filters()
    {
        ReviewModel model;
        model::ReviewProxyModel proxy;
        proxy.setSourceModel(&model);
        model.setReview(loadReview(m_db, m_honest));
        QCOMPARE(proxy.rowCount(), 9);
        proxy.setFilter(model::ReviewProxyModel::Filter::Changed);
        // Every day of the honest window changed; the outside days did not.
        QCOMPARE(proxy.rowCount(), 6 + 1);
        QCOMPARE(rowOf(proxy, QStringLiteral("2026-03-08")), -1);
        proxy.setFilter(model::ReviewProxyModel::Filter::Problems);
        QCOMPARE(proxy.rowCount(), 1);  // the totals row only: nothing needs attention

        // The narrow window: 2026-03-09 is a failing outside partition.
        auto abandon = test::runReprint({QStringLiteral("abandon"), QStringLiteral("--spec"), test::demoSpec(), QStringLiteral("--db"),
                                         QString::fromStdString(m_db), QString::number(m_honest)});
        QCOMPARE(abandon.exitCode, 0);
        int code = -1;
        const qint64 narrow = test::stageBackfill(m_db, QStringLiteral("2026-03-10"), QStringLiteral("2026-03-14"), &code);
        QCOMPARE(code, 3);
        model.setReview(loadReview(m_db, narrow));
        QCOMPARE(rowOf(proxy, QStringLiteral("2026-03-09")), 0);
        QCOMPARE(proxy.index(0, 1).data(ReviewModel::PlaceRole).toInt(), int(ReviewModel::Place::Outside));
        QCOMPARE(proxy.index(0, 1).data().toString(), QStringLiteral("outside"));
        QVERIFY(proxy.rowCount() >= 2);
        for (int r = 0; r < proxy.rowCount() - 1; ++r)
            QVERIFY(proxy.index(r, 0).data(ReviewModel::ProblemRole).toBool());
        QVERIFY(!model.outsideClean());
    }

    void copiesSelectionAsTsv()
    {
        ReviewModel model;
        model.setReview(loadReview(m_db, test::stageBackfill(m_db, QStringLiteral("2026-03-20"), QStringLiteral("2026-03-21"))));
        QVERIFY(model.rowCount() > 0);
        QModelIndexList sel;
        for (int r = 0; r < 2; ++r)
            for (int c : {0, model.columnFor(1, Field::Old), model.columnFor(1, Field::Verdict)})
                sel << model.index(r, c);
        const QStringList lines = ReviewModel::toTsv(sel).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 3);
        QCOMPARE(lines.at(0), QStringLiteral("Partition\trevenue old\trevenue verdict"));
        const QStringList first = lines.at(1).split(QLatin1Char('\t'));
        QCOMPARE(first.size(), 3);
        QCOMPARE(first.at(0), model.index(0, 0).data().toString());
        QCOMPARE(first.at(1), model.index(0, model.columnFor(1, Field::Old)).data().toString());
    }
};

QTEST_MAIN(ReviewModelTest)
#include "tst_reviewmodel.moc"
