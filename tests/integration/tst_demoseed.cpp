// The demo data contract (resources/demo): shape, exact row counts, partitions, the known
// bug's footprint against the checks, the transforms, the written spec, and that a seed is
// the same rows every time. Reads the shared demo database only; seeds its own small
// clusters for the determinism test.
#include "testsupport.h"

#include "backfill/demo.h"
#include "backfill/spec.h"
#include "backfill/sqltext.h"

#include <QDate>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

using namespace reprint;

namespace {

using DayValues = std::map<QString, double>;  // "2026-03-10" -> value

QString errorText(const warehouse::Result<warehouse::Reply> &r)
{
    return r.ok() ? QString() : QString::fromStdString(r.error().toSentence());
}

double scale()
{
    bool ok = false;
    const double s = qEnvironmentVariable("REPRINT_TEST_SCALE", QStringLiteral("0.1")).toDouble(&ok);
    return ok ? s : 0.1;
}

// The demo database with the session in UTC, so that timestamptz text is stable.
std::string demoDb()
{
    return test::demoCluster().conninfo(backfill::kDemoDatabase) + " options='-c TimeZone=UTC'";
}

std::string readText(const std::string &path)
{
    QFile f(QString::fromStdString(path));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return f.readAll().toStdString();
}

std::string demoFile(const std::string &relative)
{
    return test::demoCluster().dir() + "/" + relative;
}

// Runs a spec SQL file (a check or a transform) for [start, end) the way the engine binds it.
warehouse::Result<warehouse::Reply> runForWindow(const std::string &conninfo, const std::string &sql, const QString &start,
                                                 const QString &end)
{
    auto bound = backfill::bindNamedParameters(sql, {"start", "end"});
    if (!bound)
        return bound.error();
    warehouse::Params params;
    for (const std::string &name : bound->names)
        params.push_back((name == "start" ? start : end).toStdString());
    return test::query(conninfo, bound->sql, params);
}

// A check's answer for the whole year, by day.
DayValues checkByDay(const std::string &file)
{
    DayValues out;
    auto r = runForWindow(demoDb(), readText(demoFile(file)), QStringLiteral("2025-07-01T00:00:00+00:00"),
                          QStringLiteral("2026-07-01T00:00:00+00:00"));
    if (!r) {
        QTest::qFail(qPrintable(QStringLiteral("%1: %2").arg(QString::fromStdString(file), errorText(r))), __FILE__,
                     __LINE__);
        return out;
    }
    const auto &set = r->last();
    for (std::size_t i = 0; i < set.rows.size(); ++i)
        out[QString::fromStdString(set.at(i, "partition").value_or("")).left(10)] =
            QString::fromStdString(set.at(i, "value").value_or("nan")).toDouble();
    return out;
}

// A target's own per-day sums of `measures` (and "rows").
std::map<std::string, DayValues> targetByDay(const std::string &table, const std::vector<std::string> &measures)
{
    std::string sql = "SELECT order_date::text AS day, count(*) AS rows";
    for (const std::string &m : measures)
        sql += ", sum(" + m + ") AS " + m;
    sql += " FROM " + table + " GROUP BY order_date";
    std::map<std::string, DayValues> out;
    auto r = test::query(demoDb(), sql);
    if (!r) {
        QTest::qFail(qPrintable(errorText(r)), __FILE__, __LINE__);
        return out;
    }
    const auto &set = r->last();
    for (std::size_t i = 0; i < set.rows.size(); ++i) {
        const QString day = QString::fromStdString(set.at(i, "day").value_or(""));
        out["rows"][day] = QString::fromStdString(set.at(i, "rows").value_or("nan")).toDouble();
        for (const std::string &m : measures)
            out[m][day] = QString::fromStdString(set.at(i, m).value_or("nan")).toDouble();
    }
    return out;
}

// Days on which `actual` and `truth` differ (a day missing on one side counts).
QStringList differingDays(const DayValues &actual, const DayValues &truth)
{
    QSet<QString> days;
    for (const auto &[d, v] : actual)
        days.insert(d);
    for (const auto &[d, v] : truth)
        days.insert(d);
    QStringList out;
    for (const QString &d : days) {
        const auto a = actual.find(d);
        const auto t = truth.find(d);
        if (a == actual.end() || t == truth.end()
            || std::abs(a->second - t->second) > 1e-9 * std::max(1.0, std::abs(t->second)))
            out << d;
    }
    out.sort();
    return out;
}

QStringList dayRange(const QString &from, const QString &to)
{
    QStringList out;
    for (QDate d = QDate::fromString(from, Qt::ISODate); d <= QDate::fromString(to, Qt::ISODate); d = d.addDays(1))
        out << d.toString(Qt::ISODate);
    return out;
}

std::string scalar(const std::string &conninfo, const std::string &sql)
{
    auto r = test::query(conninfo, sql);
    if (!r) {
        QTest::qFail(qPrintable(errorText(r)), __FILE__, __LINE__);
        return {};
    }
    return r->last().scalar();
}

long long number(const std::string &sql)
{
    const std::string text = scalar(demoDb(), sql);
    return text.empty() ? -1 : std::stoll(text);
}

// A demo of its own in `dir` at scale 0.01, removed first and stopped at the end.
struct TinyDemo {
    explicit TinyDemo(const std::string &dir)
    {
        std::error_code ec;
        std::filesystem::remove_all(dir, ec);
        options.dir = dir;
        options.scale = 0.01;
    }
    ~TinyDemo() { (void)backfill::stopDemo(options.dir); }
    backfill::DemoOptions options;
};

} // namespace

class TestDemoSeed : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(test::demoCluster().isRunning());
        QCOMPARE(scalar(demoDb(), "SELECT current_database()"), std::string(backfill::kDemoDatabase));
    }

    void tablesHaveTheContractedColumns()
    {
        auto r = test::query(demoDb(),
                             "SELECT table_schema || '.' || table_name, string_agg(column_name || ' ' || "
                             "CASE WHEN data_type = 'numeric' THEN format('numeric(%s,%s)', numeric_precision, numeric_scale) "
                             "ELSE data_type END, ', ' ORDER BY ordinal_position) "
                             "FROM information_schema.columns WHERE table_schema IN ('raw', 'analytics') "
                             "AND table_name IN ('customers', 'products', 'orders', 'order_lines', 'fct_order_lines', "
                             "'agg_daily_revenue') GROUP BY 1 ORDER BY 1");
        QVERIFY2(r.ok(), qPrintable(errorText(r)));
        std::map<std::string, std::string> columns;
        for (const auto &row : r->last().rows)
            columns[row[0].value_or("")] = row[1].value_or("");
        QCOMPARE(columns.size(), std::size_t(6));
        QCOMPARE(columns["raw.orders"],
                 std::string("order_id bigint, customer_id bigint, ordered_at timestamp with time zone, status text"));
        QCOMPARE(columns["raw.order_lines"],
                 std::string("order_line_id bigint, order_id bigint, product_id integer, quantity integer, "
                             "unit_price numeric(10,2), discount numeric(4,3)"));
        QCOMPARE(columns["raw.products"],
                 std::string("product_id integer, name text, category text, unit_price numeric(10,2)"));
        QCOMPARE(columns["raw.customers"].substr(0, 38), std::string("customer_id bigint, name text, country"));
        QCOMPARE(columns["analytics.fct_order_lines"],
                 std::string("order_line_id bigint, order_id bigint, order_date date, ordered_at timestamp with time "
                             "zone, customer_id bigint, product_id integer, category text, quantity integer, "
                             "unit_price numeric(10,2), discount numeric(4,3), revenue numeric(14,2)"));
        QCOMPARE(columns["analytics.agg_daily_revenue"],
                 std::string("order_date date, revenue numeric(14,2), orders bigint, lines bigint, quantity bigint"));

        QCOMPARE(scalar(demoDb(), "SELECT pg_get_constraintdef(oid) FROM pg_constraint "
                                  "WHERE conrelid = 'analytics.fct_order_lines'::regclass AND contype = 'p'"),
                 std::string("PRIMARY KEY (order_line_id, order_date)"));
        QCOMPARE(scalar(demoDb(), "SELECT pg_get_constraintdef(oid) FROM pg_constraint "
                                  "WHERE conrelid = 'analytics.agg_daily_revenue'::regclass AND contype = 'p'"),
                 std::string("PRIMARY KEY (order_date)"));
        QCOMPARE(number("SELECT count(*) FROM pg_indexes WHERE schemaname = 'raw' AND indexdef IN ("
                        "'CREATE INDEX orders_ordered_at_idx ON raw.orders USING btree (ordered_at)', "
                        "'CREATE INDEX order_lines_order_id_idx ON raw.order_lines USING btree (order_id)')"),
                 2LL);
    }

    void oneDeclarativePartitionPerDay()
    {
        for (const char *table : {"fct_order_lines", "agg_daily_revenue"}) {
            const std::string parent = std::string("analytics.") + table;
            QCOMPARE(scalar(demoDb(), "SELECT pg_get_partkeydef('" + parent + "'::regclass)"),
                     std::string("RANGE (order_date)"));
            auto r = test::query(demoDb(),
                                 "SELECT count(*), count(DISTINCT pg_get_expr(c.relpartbound, c.oid)), "
                                 "min(c.relname), max(c.relname) FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid "
                                 "WHERE i.inhparent = $1::regclass",
                                 {parent});
            QVERIFY2(r.ok(), qPrintable(errorText(r)));
            const auto &row = r->last().rows.at(0);
            QCOMPARE(row[0].value_or(""), std::string("365"));
            QCOMPARE(row[1].value_or(""), std::string("365"));
            QCOMPARE(row[2].value_or(""), std::string(table) + "_20250701");
            QCOMPARE(row[3].value_or(""), std::string(table) + "_20260630");
        }
        QCOMPARE(scalar(demoDb(), "SELECT pg_get_expr(relpartbound, oid) FROM pg_class "
                                  "WHERE oid = 'analytics.fct_order_lines_20260310'::regclass"),
                 std::string("FOR VALUES FROM ('2026-03-10') TO ('2026-03-11')"));
        // Every row sits in the partition of its order_date, and every partition has rows.
        QCOMPARE(number("SELECT count(*) FROM (SELECT tableoid::regclass::text AS p, min(order_date) AS lo, "
                        "max(order_date) AS hi FROM analytics.fct_order_lines GROUP BY 1) s "
                        "WHERE p <> 'analytics.fct_order_lines_' || to_char(lo, 'YYYYMMDD') OR lo <> hi"),
                 0LL);
        QCOMPARE(number("SELECT count(DISTINCT tableoid) FROM analytics.fct_order_lines"), 365LL);
    }

    void rowCountsAreExactAndScaleConsistent()
    {
        const long long lines = number("SELECT count(*) FROM raw.order_lines");
        const long long orders = number("SELECT count(*) FROM raw.orders");
        const long long customers = number("SELECT count(*) FROM raw.customers");
        qInfo("scale %g: %lld order lines, %lld orders, %lld customers", scale(), lines, orders, customers);

        // fct holds exactly the raw lines: same count and the same keys.
        QCOMPARE(number("SELECT count(*) FROM analytics.fct_order_lines"), lines);
        QCOMPARE(number("SELECT count(*) FROM raw.order_lines l FULL JOIN analytics.fct_order_lines f "
                        "USING (order_line_id) WHERE l.order_line_id IS NULL OR f.order_line_id IS NULL"),
                 0LL);
        QCOMPARE(number("SELECT count(*) FROM analytics.agg_daily_revenue"), 365LL);
        QCOMPARE(number("SELECT count(*) FROM raw.order_lines l LEFT JOIN raw.orders o USING (order_id) "
                        "WHERE o.order_id IS NULL"),
                 0LL);
        QCOMPARE(number("SELECT count(*) FROM raw.orders o LEFT JOIN raw.customers c USING (customer_id) "
                        "WHERE c.customer_id IS NULL"),
                 0LL);

        // The seed is pinned for the scales the tests and the docs use.
        if (scale() == 0.1) {
            QCOMPARE(lines, 210408LL);
            QCOMPARE(orders, 81816LL);
        } else if (scale() == 1.0) {
            QCOMPARE(lines, 2103027LL);
            QCOMPARE(orders, 818234LL);
        }
        // About 2.1 million lines per unit of scale, 2.57 lines per order.
        QVERIFY2(lines >= static_cast<long long>(2.0e6 * scale()) && lines <= static_cast<long long>(2.2e6 * scale()),
                 qPrintable(QString::number(lines)));
        QVERIFY(lines > orders * 2.4 && lines < orders * 2.75);
        QCOMPARE(customers, std::max(500LL, std::llround(60000 * scale())));
        QCOMPARE(number("SELECT count(*) FROM raw.products"), 400LL);
    }

    void valuesAreRealistic()
    {
        // Every day of the year, all 24 hours, and a busy evening of 2026-03-09.
        QCOMPARE(number("SELECT count(DISTINCT (ordered_at AT TIME ZONE 'UTC')::date) FROM raw.orders "
                        "WHERE ordered_at >= '2025-07-01 00:00+00' AND ordered_at < '2026-07-01 00:00+00'"),
                 365LL);
        QCOMPARE(number("SELECT count(*) FROM raw.orders WHERE ordered_at < '2025-07-01 00:00+00' "
                        "OR ordered_at >= '2026-07-01 00:00+00'"),
                 0LL);
        QCOMPARE(number("SELECT count(DISTINCT extract(hour FROM ordered_at AT TIME ZONE 'UTC')) FROM raw.orders"),
                 24LL);
        const long long evening = number("SELECT count(*) FROM raw.orders "
                                         "WHERE ordered_at >= '2026-03-09 18:00+00' AND ordered_at < '2026-03-10 00:00+00'");
        QVERIFY2(evening >= std::max(20LL, std::llround(500 * scale())), qPrintable(QString::number(evening)));

        // Discounts: a fraction in [0, 0.3], and at least 40% of lines have one.
        auto d = test::query(demoDb(), "SELECT min(discount), max(discount), avg((discount > 0)::int) FROM raw.order_lines");
        QVERIFY2(d.ok(), qPrintable(errorText(d)));
        QCOMPARE(d->last().rows[0][0].value_or(""), std::string("0.000"));
        QVERIFY(std::stod(d->last().rows[0][1].value_or("1")) <= 0.3);
        QVERIFY(std::stod(d->last().rows[0][2].value_or("0")) >= 0.40);

        // Weekly pattern (weekends busier) and season (Nov/Dec peak, summer dip), per day.
        auto w = test::query(demoDb(),
                             "SELECT avg(n) FILTER (WHERE dow IN (6, 7)) / avg(n) FILTER (WHERE dow BETWEEN 1 AND 4), "
                             "avg(n) FILTER (WHERE month = 12) / avg(n) FILTER (WHERE month IN (7, 8)) "
                             "FROM (SELECT extract(isodow FROM day) AS dow, extract(month FROM day) AS month, count(*) AS n "
                             "FROM (SELECT (ordered_at AT TIME ZONE 'UTC')::date AS day FROM raw.orders) o GROUP BY day) s");
        QVERIFY2(w.ok(), qPrintable(errorText(w)));
        QVERIFY2(std::stod(w->last().rows[0][0].value_or("0")) > 1.3, w->last().rows[0][0].value_or("").c_str());
        QVERIFY2(std::stod(w->last().rows[0][1].value_or("0")) > 1.6, w->last().rows[0][1].value_or("").c_str());
    }

    void fctDiffersFromItsChecksOnTheBuggyDaysOnly()
    {
        const auto fct = targetByDay("analytics.fct_order_lines", {"revenue", "quantity"});
        const DayValues rows = checkByDay("checks/fct_rows.sql");
        const DayValues revenue = checkByDay("checks/fct_revenue.sql");
        const DayValues quantity = checkByDay("checks/fct_quantity.sql");
        QCOMPARE(rows.size(), std::size_t(365));
        QCOMPARE(differingDays(fct.at("revenue"), revenue), dayRange("2026-03-09", "2026-03-14"));
        QCOMPARE(differingDays(fct.at("rows"), rows), dayRange("2026-03-09", "2026-03-10"));
        QCOMPARE(differingDays(fct.at("quantity"), quantity), dayRange("2026-03-09", "2026-03-10"));
        // The slip moves lines from the 9th to the 10th; the totals stay the same.
        QCOMPARE(fct.at("rows").at("2026-03-09") + fct.at("rows").at("2026-03-10"),
                 rows.at("2026-03-09") + rows.at("2026-03-10"));
        QVERIFY(fct.at("revenue").at("2026-03-12") < revenue.at("2026-03-12"));
    }

    void aggInheritsTheBug()
    {
        const auto agg = targetByDay("analytics.agg_daily_revenue", {"revenue", "orders", "lines", "quantity"});
        QCOMPARE(differingDays(agg.at("revenue"), checkByDay("checks/agg_revenue.sql")), dayRange("2026-03-09", "2026-03-14"));
        QCOMPARE(differingDays(agg.at("orders"), checkByDay("checks/agg_orders.sql")), dayRange("2026-03-09", "2026-03-10"));
        QCOMPARE(differingDays(agg.at("lines"), checkByDay("checks/agg_lines.sql")), dayRange("2026-03-09", "2026-03-10"));
        QCOMPARE(differingDays(agg.at("quantity"), checkByDay("checks/agg_quantity.sql")),
                 dayRange("2026-03-09", "2026-03-10"));
        QCOMPARE(differingDays(agg.at("rows"), checkByDay("checks/agg_rows.sql")), QStringList());
    }

    void transformsBuildTheTruth()
    {
        // The fct transform over the buggy window gives the rows the checks expect, with
        // exactly the target's columns.
        const std::string fctSql = readText(demoFile("transforms/fct_order_lines.sql"));
        auto rebuilt = runForWindow(demoDb(),
                                    "SELECT (order_date::timestamp AT TIME ZONE 'UTC')::text AS partition, count(*) AS rows, "
                                    "sum(revenue) AS revenue, sum(quantity) AS quantity FROM (" + fctSql + ") s GROUP BY 1",
                                    QStringLiteral("2026-03-09T00:00:00+00:00"), QStringLiteral("2026-03-15T00:00:00+00:00"));
        QVERIFY2(rebuilt.ok(), qPrintable(errorText(rebuilt)));
        QCOMPARE(rebuilt->last().rows.size(), std::size_t(6));
        const DayValues checkRevenue = checkByDay("checks/fct_revenue.sql");
        const DayValues checkRows = checkByDay("checks/fct_rows.sql");
        for (std::size_t i = 0; i < rebuilt->last().rows.size(); ++i) {
            const QString day = QString::fromStdString(rebuilt->last().at(i, "partition").value_or("")).left(10);
            QCOMPARE(QString::fromStdString(rebuilt->last().at(i, "revenue").value_or("")).toDouble(), checkRevenue.at(day));
            QCOMPARE(QString::fromStdString(rebuilt->last().at(i, "rows").value_or("")).toDouble(), checkRows.at(day));
        }
        auto columns = runForWindow(demoDb(), fctSql + " LIMIT 0", QStringLiteral("2026-03-09T00:00:00+00:00"),
                                    QStringLiteral("2026-03-10T00:00:00+00:00"));
        QVERIFY2(columns.ok(), qPrintable(errorText(columns)));
        QCOMPARE(columns->last().columns,
                 (std::vector<std::string>{"order_line_id", "order_id", "order_date", "ordered_at", "customer_id",
                                           "product_id", "category", "quantity", "unit_price", "discount", "revenue"}));
        // Outside the bug, the transform reproduces the stored rows exactly.
        auto same = runForWindow(demoDb(),
                                 "SELECT count(*) FROM ((" + fctSql + ") EXCEPT ALL (SELECT * FROM analytics.fct_order_lines "
                                 "WHERE order_date >= '2026-04-01' AND order_date < '2026-04-08')) d",
                                 QStringLiteral("2026-04-01T00:00:00+00:00"), QStringLiteral("2026-04-08T00:00:00+00:00"));
        QVERIFY2(same.ok(), qPrintable(errorText(same)));
        QCOMPARE(same->last().scalar(), std::string("0"));

        // The agg transform reads its upstream through {{ fct_order_lines }}.
        const std::string aggTemplate = readText(demoFile("transforms/agg_daily_revenue.sql"));
        QVERIFY(aggTemplate.find("{{ fct_order_lines }}") != std::string::npos);
        auto aggSql = backfill::resolveModelReferences(aggTemplate, {{"fct_order_lines", "\"analytics\".\"fct_order_lines\""}});
        QVERIFY2(aggSql.ok(), aggSql.ok() ? "" : aggSql.error().toSentence().c_str());
        auto agg = runForWindow(demoDb(),
                                "SELECT count(*) FROM ((" + *aggSql + ") EXCEPT ALL (SELECT * FROM analytics.agg_daily_revenue "
                                "WHERE order_date >= '2026-04-01' AND order_date < '2026-04-08')) d",
                                QStringLiteral("2026-04-01T00:00:00+00:00"), QStringLiteral("2026-04-08T00:00:00+00:00"));
        QVERIFY2(agg.ok(), qPrintable(errorText(agg)));
        QCOMPARE(agg->last().scalar(), std::string("0"));
    }

    void partitionLoadsAreRecorded()
    {
        QCOMPARE(number("SELECT count(*) FROM reprint.partition_loads WHERE model IN ('fct_order_lines', 'agg_daily_revenue') "
                        "AND partition_end = partition_start + interval '1 day' "
                        "AND loaded_at = partition_end + interval '2 hours' AND backfill_id IS NULL"),
                 730LL);
        QCOMPARE(scalar(demoDb(), "SELECT min(partition_start)::text || ' ' || max(partition_start)::text "
                                  "FROM reprint.partition_loads"),
                 std::string("2025-07-01 00:00:00+00 2026-06-30 00:00:00+00"));
    }

    void specIsWrittenAndLoads()
    {
        auto spec = backfill::loadSpec(demoFile("demo.yaml"));
        QVERIFY2(spec.ok(), spec.ok() ? "" : spec.error().toSentence().c_str());
        QCOMPARE(spec->warehouse, test::demoCluster().conninfo(backfill::kDemoDatabase));
        QCOMPARE(spec->models.size(), std::size_t(2));
        const backfill::Model *fct = spec->model("fct_order_lines");
        QVERIFY(fct);
        QCOMPARE(fct->target.display(), std::string("analytics.fct_order_lines"));
        QCOMPARE(fct->partitionColumn, std::string("order_date"));
        QCOMPARE(fct->key, std::vector<std::string>{"order_line_id"});
        QCOMPARE(fct->measures, (std::vector<std::string>{"revenue", "quantity"}));
        QCOMPARE(fct->checks.size(), std::size_t(3));
        const backfill::Model *agg = spec->model("agg_daily_revenue");
        QVERIFY(agg);
        QCOMPARE(agg->dependsOn, std::vector<std::string>{"fct_order_lines"});
        for (const backfill::Model &m : spec->models)
            for (const std::string &measure : m.allMeasures())
                QVERIFY2(!m.checksFor(measure).empty(), (m.name + ": no check for " + measure).c_str());
    }

    void demoCopyIsIndependent()
    {
        const std::string copy = test::demoCopy("tst_demoseed_copy");
        QVERIFY(copy.find("dbname=tst_demoseed_copy") != std::string::npos);
        const long long before = number("SELECT count(*) FROM analytics.fct_order_lines_20260310");
        auto changed = test::execute(copy, "DELETE FROM analytics.fct_order_lines WHERE order_date = '2026-03-10'");
        QVERIFY2(changed.ok(), qPrintable(errorText(changed)));
        QCOMPARE(scalar(copy, "SELECT count(*) FROM analytics.fct_order_lines_20260310"), std::string("0"));
        QCOMPARE(number("SELECT count(*) FROM analytics.fct_order_lines_20260310"), before);
        // Copying again starts from the template, not from the changed copy.
        const std::string again = test::demoCopy("tst_demoseed_copy");
        QCOMPARE(scalar(again, "SELECT count(*) FROM analytics.fct_order_lines_20260310"), std::to_string(before));
        auto dropped = test::execute(test::demoCluster().conninfo(), "DROP DATABASE tst_demoseed_copy");
        QVERIFY2(dropped.ok(), qPrintable(errorText(dropped)));
    }

    void seedIsDeterministic()
    {
        // Two seeds at the same scale in a private cluster give the same rows.
        const std::string dir = test::testDir() + "/determinism";
        const TinyDemo demo(dir);
        const backfill::DemoOptions &options = demo.options;
        const std::string fingerprint =
            "SELECT (SELECT count(*) || ':' || sum(hashtext(l::text)::bigint) FROM raw.order_lines l) || '/' || "
            "(SELECT count(*) || ':' || sum(hashtext(o::text)::bigint) FROM raw.orders o) || '/' || "
            "(SELECT sum(hashtext(f::text)::bigint) FROM analytics.fct_order_lines f)";
        std::string first;
        for (int round = 0; round < 2; ++round) {
            auto started = backfill::startDemo(options);
            QVERIFY2(started.ok(), started.ok() ? "" : started.error().toSentence().c_str());
            QVERIFY(!started->reused);
            const std::string conninfo = started->conninfo + " options='-c TimeZone=UTC'";
            const std::string print = scalar(conninfo, fingerprint);
            QVERIFY(!print.empty());
            if (round == 0)
                first = print;
            else
                QCOMPARE(print, first);
            auto dropped = test::execute(warehouse::LocalCluster(dir).conninfo(), "DROP DATABASE demo WITH (FORCE)");
            QVERIFY2(dropped.ok(), qPrintable(errorText(dropped)));
        }
        // A reused cluster is not seeded again.
        auto again = backfill::startDemo(options);
        QVERIFY(again.ok());
        QVERIFY(!again->reused);  // the demo database was dropped above: seeded afresh
        auto reused = backfill::startDemo(options);
        QVERIFY(reused.ok());
        QVERIFY(reused->reused);
        QCOMPARE(reused->seedSeconds, 0.0);
    }

    void demoIsOnePerPerson()
    {
        // A running cluster that another live process started is refused (with hints that
        // run as printed), used with --share, reused once its starter is gone; a seed of
        // another version is seeded again.
        const std::string dir = test::testDir() + "/perperson";
        const TinyDemo demo(dir);
        const backfill::DemoOptions &options = demo.options;
        auto first = backfill::startDemo(options);
        QVERIFY2(first.ok(), first.ok() ? "" : first.error().toSentence().c_str());
        const std::string demoDb = first->conninfo;
        QVERIFY(test::execute(demoDb, "CREATE TABLE public.someone_elses_work (n int); INSERT INTO public.someone_elses_work VALUES (7)").ok());

        // Another person's process, alive: it "started" the running cluster.
        QProcess other;
        other.start(QStringLiteral("sleep"), {QStringLiteral("120")});
        QVERIFY(other.waitForStarted());
        const auto otherPid = static_cast<long long>(other.processId());
        {
            QFile owner(QString::fromStdString(dir + "/demo-owner"));
            QVERIFY(owner.open(QIODevice::WriteOnly | QIODevice::Truncate));
            owner.write(QByteArray::number(otherPid) + "\nsomeone else\non 2026-12-01 at 09:00 UTC\n");
        }
        std::vector<std::string> said;
        const auto collect = [&](const std::string &line) { said.push_back(line); };
        auto refused = backfill::startDemo(options, collect);
        QVERIFY(!refused.ok());
        QCOMPARE(refused.error().kind, warehouse::ErrorKind::Usage);
        const std::string sentence = refused.error().toSentence();
        QVERIFY2(sentence.find("process " + std::to_string(otherPid) + " (someone else)") != std::string::npos, sentence.c_str());
        QVERIFY2(sentence.find(dir + " is in use") != std::string::npos, sentence.c_str());
        // The person's work is untouched.
        QCOMPARE(scalar(demoDb, "SELECT n FROM public.someone_elses_work"), std::string("7"));

        // The same through the CLI; its --share hint runs as printed.
        const test::ProcessResult cli = test::runReprint({QStringLiteral("demo"), QStringLiteral("--dir"), QString::fromStdString(dir)});
        QCOMPARE(cli.exitCode, 1);  // usage: nothing was started or changed
        const QRegularExpression hint(QStringLiteral("`reprint (demo --dir [^`]+ --share)`"));
        const auto shareHint = hint.match(cli.err);
        QVERIFY2(shareHint.hasMatch(), qPrintable(cli.err));
        const QRegularExpression own(QStringLiteral("`reprint demo --dir ([^` ]+)`"));
        const auto ownHint = own.match(cli.err);
        QVERIFY2(ownHint.hasMatch(), qPrintable(cli.err));
        // The demo of your own goes to a folder nobody uses yet (seeding it is tst_demoseed's
        // other work; the dir is what the hint decides).
        QVERIFY(!QFileInfo::exists(ownHint.captured(1)));
        const test::ProcessResult shared = test::runReprint(shareHint.captured(1).split(QLatin1Char(' ')));
        QVERIFY2(shared.exitCode == 0, qPrintable(shared.err));
        QVERIFY2(shared.err.contains(QStringLiteral("sharing the demo cluster that process %1 (someone else) started").arg(otherPid)),
                 qPrintable(shared.err));
        QVERIFY2(shared.err.contains(QStringLiteral("reusing the demo in %1, seeded on ").arg(QString::fromStdString(dir))),
                 qPrintable(shared.err));
        QCOMPARE(scalar(demoDb, "SELECT n FROM public.someone_elses_work"), std::string("7"));

        // Its starter gone: reused without asking, and the reuse says whose seed it is.
        other.kill();
        QVERIFY(other.waitForFinished());
        said.clear();
        auto reused = backfill::startDemo(options, collect);
        QVERIFY2(reused.ok(), reused.ok() ? "" : reused.error().toSentence().c_str());
        QVERIFY(reused->reused);
        const auto reuseLine = std::find_if(said.begin(), said.end(), [&](const std::string &l) {
            return l.rfind("reusing the demo in " + dir + ", seeded on ", 0) == 0;
        });
        QVERIFY2(reuseLine != said.end(), said.empty() ? "" : said.back().c_str());
        QVERIFY2(reuseLine->find("by pid ") != std::string::npos, reuseLine->c_str());

        // A seed of another version is dropped and seeded again.
        QVERIFY(test::execute(warehouse::LocalCluster(dir).conninfo(),
                              "COMMENT ON DATABASE demo IS 'Reprint demo shop; seed scale 0.01; seed version 000000000000; seeded long ago'")
                    .ok());
        said.clear();
        auto reseeded = backfill::startDemo(options, collect);
        QVERIFY2(reseeded.ok(), reseeded.ok() ? "" : reseeded.error().toSentence().c_str());
        QVERIFY(!reseeded->reused);
        QVERIFY(std::any_of(said.begin(), said.end(), [](const std::string &l) {
            return l.find("seeded by seed version 000000000000") != std::string::npos && l.find("seeding it again") != std::string::npos;
        }));
        QCOMPARE(scalar(demoDb, "SELECT count(*) FROM pg_tables WHERE tablename = 'someone_elses_work'"), std::string("0"));
        const std::string comment =
            scalar(warehouse::LocalCluster(dir).conninfo(), "SELECT shobj_description(oid, 'pg_database') FROM pg_database WHERE datname = 'demo'");
        QVERIFY2(comment.find("seed version " + backfill::seedVersion()) != std::string::npos, comment.c_str());
        QVERIFY(scalar(demoDb, "SELECT count(*) > 0 FROM analytics.fct_order_lines") == "t");
    }
};

QTEST_GUILESS_MAIN(TestDemoSeed)
#include "tst_demoseed.moc"
