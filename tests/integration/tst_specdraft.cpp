// New spec from a table (issue 14 item 10): the catalog read of a copy of the demo, the
// proposal for a table partitioned by day in America/New_York on a column with an odd
// name, the written spec loading and running `reprint status`, and "Test connection".
#include "testsupport.h"

#include "backfill/connectioncheck.h"
#include "backfill/migrations.h"
#include "backfill/spec.h"
#include "backfill/specdraft.h"
#include "warehouse/iothread.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace reprint;
using backfill::Grain;

namespace {

template <typename T>
T run(warehouse::Task<T> task)
{
    warehouse::asio::io_context io;
    return warehouse::runBlocking(io, std::move(task));
}

std::vector<std::string> names(std::initializer_list<const char *> list)
{
    return {list.begin(), list.end()};
}

// 14 local days of March 2026 in America/New_York (clocks go forward on the 8th: that
// day has 23 hours), two views an hour of each, one partition per day.
const char *kPageViews = R"sql(
CREATE TABLE analytics.page_views (
    view_id bigint NOT NULL,
    "Event Time" timestamptz NOT NULL,
    user_id integer,
    url text,
    "Dwell Seconds" numeric(10,2),
    bytes bigint,
    PRIMARY KEY (view_id, "Event Time")
) PARTITION BY RANGE ("Event Time");
DO $$
DECLARE d date;
BEGIN
    FOR d IN SELECT generate_series(date '2026-03-01', date '2026-03-14', interval '1 day')::date LOOP
        EXECUTE format('CREATE TABLE analytics.%I PARTITION OF analytics.page_views FOR VALUES FROM (%L) TO (%L)',
                       'page_views_' || to_char(d, 'YYYYMMDD'),
                       (d::timestamp AT TIME ZONE 'America/New_York'),
                       ((d + 1)::timestamp AT TIME ZONE 'America/New_York'));
    END LOOP;
END $$;
INSERT INTO analytics.page_views
SELECT row_number() OVER (), t, (random() * 1000)::int, '/p', 1.5, 100
FROM generate_series(timestamptz '2026-03-01 00:15 America/New_York',
                     timestamptz '2026-03-14 23:45 America/New_York', interval '30 minutes') AS t;
ANALYZE analytics.page_views;
CREATE TABLE raw.no_key_events (at timestamp, amount numeric, note text);
)sql";

} // namespace

class TestSpecDraft : public QObject {
    Q_OBJECT

    std::string m_db;

private Q_SLOTS:
    void initTestCase()
    {
        m_db = test::demoCopy("specdraft");
        auto made = test::execute(m_db, kPageViews);
        QVERIFY2(made.ok(), made.ok() ? "" : made.error().toSentence().c_str());
        // The database's sessions default to New York: where the partitions' days are.
        auto zone = test::execute(m_db, "ALTER DATABASE specdraft SET TimeZone = 'America/New_York'");
        QVERIFY2(zone.ok(), zone.ok() ? "" : zone.error().toSentence().c_str());
    }

    void identifiersInTheSpecsSyntax()
    {
        QCOMPARE(backfill::specIdentifier("order_date"), std::string("order_date"));
        QCOMPARE(backfill::specIdentifier("order"), std::string("order"));  // the loader quotes every name
        QCOMPARE(backfill::specIdentifier("Event Time"), std::string("\"Event Time\""));
        QCOMPARE(backfill::specIdentifier("say \"hi\""), std::string("\"say \"\"hi\"\"\""));
    }

    void testConnectionSaysWhoAndWhere()
    {
        auto facts = run(backfill::checkConnection(m_db));
        QVERIFY2(facts.ok(), facts.ok() ? "" : facts.error().toSentence().c_str());
        QVERIFY(!facts->serverVersion.empty());
        QCOMPARE(facts->database, std::string("specdraft"));
        QVERIFY(!facts->user.empty());
        QCOMPARE(facts->schemaVersion, backfill::latestSchemaVersion());
        QCOMPARE(facts->timezone, std::string("America/New_York"));
        QVERIFY(facts->description.find("specdraft") != std::string::npos);

        // A database without Reprint's schema says so (version 0), it is no error.
        auto bare = run(backfill::checkConnection(test::demoCluster().conninfo("postgres")));
        QVERIFY2(bare.ok(), bare.ok() ? "" : bare.error().toSentence().c_str());
        QCOMPARE(bare->schemaVersion, 0);
    }

    void listsTablesNotPartitionsNorReprintsOwn()
    {
        auto tables = run(backfill::listCatalogTables(m_db));
        QVERIFY2(tables.ok(), tables.ok() ? "" : tables.error().toSentence().c_str());
        std::vector<std::string> shown;
        for (const auto &t : *tables)
            shown.push_back(t.name.display());
        auto has = [&](const std::string &n) { return std::find(shown.begin(), shown.end(), n) != shown.end(); };
        QVERIFY(has("analytics.page_views"));
        QVERIFY(has("analytics.fct_order_lines"));
        QVERIFY(has("raw.no_key_events"));
        QVERIFY(!has("analytics.page_views_20260308"));
        for (const std::string &n : shown)
            QVERIFY2(n.rfind("reprint", 0) != 0, n.c_str());
        for (const auto &t : *tables)
            if (t.name.display() == "analytics.page_views") {
                QCOMPARE(t.kind, std::string("partitioned"));
                QCOMPARE(t.estimatedRows, 14LL * 48 - 2);  // the 8th has 23 hours
            }
    }

    void proposesFromThePartitionKeyInItsZone()
    {
        auto catalog = run(backfill::readTableCatalog(m_db, {"analytics", "page_views"}));
        QVERIFY2(catalog.ok(), catalog.ok() ? "" : catalog.error().toSentence().c_str());
        QCOMPARE(catalog->partitionStrategy, std::string("range"));
        QCOMPARE(catalog->partitionKey, names({"Event Time"}));
        QCOMPARE(catalog->bounds.size(), std::size_t(14));
        QCOMPARE(catalog->sessionTimezone, std::string("America/New_York"));
        QVERIFY(catalog->column("view_id")->notNull);
        QVERIFY(!catalog->column("url")->notNull);
        QCOMPARE(catalog->uniqueKeys.size(), std::size_t(1));
        QVERIFY(catalog->uniqueKeys.front().primary);

        const backfill::SpecDraft d = backfill::proposeDraft(*catalog, m_db + " password=not-this-one");
        QCOMPARE(d.name, std::string("page_views"));
        QCOMPARE(d.partitionColumn, std::string("Event Time"));
        QCOMPARE(d.grain, Grain::Day);
        QCOMPARE(d.timezone, std::string("America/New_York"));
        QCOMPARE(d.key, names({"view_id", "Event Time"}));
        QCOMPARE(d.measures, names({"Dwell Seconds", "bytes"}));  // user_id is an identifier
        QCOMPARE(d.columns, names({"view_id", "Event Time", "user_id", "url", "Dwell Seconds", "bytes"}));
        QVERIFY(d.warehouse.find("password") == std::string::npos);
        QVERIFY(d.warehouse.find("not-this-one") == std::string::npos);
        QVERIFY(draftProblems(d).empty());
    }

    void writtenSpecLoadsAndRunsStatus()
    {
        auto catalog = run(backfill::readTableCatalog(m_db, {"analytics", "page_views"}));
        QVERIFY(catalog.ok());
        const backfill::SpecDraft d = backfill::proposeDraft(*catalog, m_db);
        QTemporaryDir dir;
        auto files = backfill::writeDraft(d, dir.path().toStdString());
        QVERIFY2(files.ok(), files.ok() ? "" : files.error().toSentence().c_str());
        QFile yaml(QString::fromStdString(files->specPath));
        QVERIFY(yaml.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(yaml.readAll());
        QVERIFY2(text.contains(QStringLiteral("column: '\"Event Time\"'")), qPrintable(text));
        QFile sql(QString::fromStdString(files->transformPath));
        QVERIFY(sql.open(QIODevice::ReadOnly));
        const QString transform = QString::fromUtf8(sql.readAll());
        QVERIFY(transform.contains(QStringLiteral("Replace with your model's own transform")));
        QVERIFY(transform.contains(QStringLiteral("WHERE \"Event Time\" >= :start AND \"Event Time\" < :end")));

        auto spec = backfill::loadSpec(files->specPath);
        QVERIFY2(spec.ok(), spec.ok() ? "" : spec.error().toSentence().c_str());
        const backfill::Model &m = spec->models.at(0);
        QCOMPARE(m.partitionColumn, std::string("Event Time"));
        QCOMPARE(m.timezone, std::string("America/New_York"));
        QCOMPARE(m.key, d.key);
        QCOMPARE(m.measures, d.measures);
        QCOMPARE(spec->warehouse, m_db);

        // Writing again refuses to replace the files unless asked.
        QVERIFY(!backfill::writeDraft(d, dir.path().toStdString()).ok());
        QVERIFY(backfill::writeDraft(d, dir.path().toStdString(), true).ok());

        // The spec's warehouse: line is the connection: no --db needed.
        const auto status = test::runReprint({QStringLiteral("status"), QStringLiteral("--spec"),
                                              QString::fromStdString(files->specPath), QStringLiteral("--model"),
                                              QStringLiteral("page_views"), QStringLiteral("--from"),
                                              QStringLiteral("2026-03-07"), QStringLiteral("--to"),
                                              QStringLiteral("2026-03-09"), QStringLiteral("--format"),
                                              QStringLiteral("json")});
        QVERIFY2(status.exitCode == 0, qPrintable(status.err + status.out));
        const QJsonArray partitions = QJsonDocument::fromJson(status.out.toUtf8()).object().value(QLatin1String("partitions")).toArray();
        QCOMPARE(partitions.size(), 3);
        // New York days: 48 half hours, and 46 on the day the clocks go forward.
        QCOMPARE(partitions.at(0).toObject().value(QLatin1String("rows")).toVariant().toLongLong(), 48LL);
        QCOMPARE(partitions.at(1).toObject().value(QLatin1String("rows")).toVariant().toLongLong(), 46LL);
        QCOMPARE(partitions.at(2).toObject().value(QLatin1String("rows")).toVariant().toLongLong(), 48LL);
        QCOMPARE(partitions.at(1).toObject().value(QLatin1String("measures")).toObject()
                     .value(QLatin1String("Dwell Seconds")).toVariant().toDouble(), 46 * 1.5);
    }

    void proposesForTheDemosDateColumn()
    {
        auto catalog = run(backfill::readTableCatalog(m_db, {"analytics", "fct_order_lines"}));
        QVERIFY(catalog.ok());
        const backfill::SpecDraft d = backfill::proposeDraft(*catalog, m_db);
        QCOMPARE(d.partitionColumn, std::string("order_date"));
        QCOMPARE(d.grain, Grain::Day);
        QCOMPARE(d.timezone, std::string("UTC"));  // a date's days are not the session's zone's
        QCOMPARE(d.key, names({"order_line_id", "order_date"}));  // the primary key of the partitioned table
        QVERIFY(std::find(d.notes.begin(), d.notes.end(), "Key order_line_id, order_date: the primary key.") != d.notes.end());
        QVERIFY(std::find(d.measures.begin(), d.measures.end(), "revenue") != d.measures.end());
        QVERIFY(std::find(d.measures.begin(), d.measures.end(), "order_id") == d.measures.end());
    }

    void withoutAKeyTheUserMustChoose()
    {
        auto catalog = run(backfill::readTableCatalog(m_db, {"raw", "no_key_events"}));
        QVERIFY(catalog.ok());
        backfill::SpecDraft d = backfill::proposeDraft(*catalog, m_db);
        QCOMPARE(d.partitionColumn, std::string("at"));
        QVERIFY(d.key.empty());
        QCOMPARE(d.measures, names({"amount"}));
        const auto problems = backfill::draftProblems(d);
        QCOMPARE(problems.size(), std::size_t(1));
        QVERIFY(problems.front().find("key") != std::string::npos);
        QTemporaryDir dir;
        QVERIFY(!backfill::writeDraft(d, dir.path().toStdString()).ok());
        // A wall-time column in another zone: the stub compares it with the bounds' wall time.
        d.key = {"note"};
        d.timezone = "Europe/Berlin";
        QVERIFY(backfill::draftTransformSql(d).find("at >= (:start AT TIME ZONE 'Europe/Berlin')") != std::string::npos);
    }

    void unknownTableIsAUsageError()
    {
        auto catalog = run(backfill::readTableCatalog(m_db, {"analytics", "no_such_table"}));
        QVERIFY(!catalog.ok());
        QCOMPARE(catalog.error().kind, warehouse::ErrorKind::Usage);
    }
};

QTEST_GUILESS_MAIN(TestSpecDraft)
#include "tst_specdraft.moc"
