// The backfill engine end to end through the `reprint` CLI, on copies of the demo
// warehouse: init, status, the narrow and the honest window, publish, idempotence,
// readers during publish, claims, drift, the leak guard, DST partitions and bad input.
#include "backfillfixture.h"

#include "warehouse/iothread.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QProcess>

#include <atomic>
#include <csignal>
#include <set>
#include <thread>

using namespace reprint;
using namespace reprint::test;
using warehouse::args;

class TestBackfill : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(QFile::exists(demoSpec()), "the demo fixture did not write its spec");
    }

    void initIsIdempotentAndRefusesANewerSchema()
    {
        const std::string db = test::demoCopy("bf_init");
        const std::string tables = "SELECT count(*) FROM pg_tables WHERE schemaname = 'reprint'";
        const std::string before = scalar(db, tables);
        auto again = test::runReprint(base(QStringLiteral("init"), db));
        QVERIFY2(again.exitCode == 0, qPrintable(again.err));
        QCOMPARE(scalar(db, tables), before);
        const std::string versions = scalar(db, "SELECT count(*) FROM reprint.schema_version");
        QCOMPARE(scalar(db, "SELECT max(version) FROM reprint.schema_version"), versions);  // 1..N, each once
        QVERIFY(test::execute(db, "INSERT INTO reprint.schema_version (version, description) VALUES (999, 'from the future')").ok());
        auto newer = test::runReprint(base(QStringLiteral("init"), db));
        QCOMPARE(newer.exitCode, 1);
        QVERIFY2(newer.err.contains(QStringLiteral("999")) && newer.err.contains(QStringLiteral("Upgrade Reprint")), qPrintable(newer.err));
        auto status = test::runReprint(base(QStringLiteral("status"), db) << QStringLiteral("--model") << QStringLiteral("fct_order_lines")
                                                                          << QStringLiteral("--from") << QStringLiteral("2026-03-09")
                                                                          << QStringLiteral("--to") << QStringLiteral("2026-03-09"));
        QCOMPARE(status.exitCode, 1);
        // A fresh database without Reprint's schema is told to run init.
        QVERIFY(test::execute(db, "DROP SCHEMA reprint CASCADE").ok());
        auto bare = test::runReprint(base(QStringLiteral("history"), db));
        QCOMPARE(bare.exitCode, 1);
        QVERIFY2(bare.err.contains(QStringLiteral("reprint init")), qPrintable(bare.err));
        auto fresh = test::runReprint(base(QStringLiteral("init"), db));
        QVERIFY2(fresh.exitCode == 0, qPrintable(fresh.err));
        QCOMPARE(scalar(db, "SELECT max(version) FROM reprint.schema_version"), versions);
    }

    void statusShowsExactlyTheBrokenDays()
    {
        const std::string db = test::demoCopy("bf_status");
        auto p = test::runReprint(base(QStringLiteral("status"), db)
                                  << QStringLiteral("--model") << QStringLiteral("fct_order_lines") << QStringLiteral("--from")
                                  << QStringLiteral("2025-07-01") << QStringLiteral("--to") << QStringLiteral("2026-06-30")
                                  << QStringLiteral("--format") << QStringLiteral("json"));
        QVERIFY2(p.exitCode == 0, qPrintable(p.err));
        const QJsonArray parts = json(p).value(QStringLiteral("partitions")).toArray();
        QCOMPARE(parts.size(), 365);
        QStringList mismatched;
        for (const QJsonValue &v : parts) {
            const QJsonObject checks = v.toObject().value(QStringLiteral("checks")).toObject();
            bool bad = false;
            for (const QString &k : checks.keys()) {
                QVERIFY(checks.value(k).toString() != QLatin1String("unknown"));
                bad = bad || checks.value(k).toString() == QLatin1String("mismatch");
            }
            if (bad)
                mismatched << v.toObject().value(QStringLiteral("partition")).toString();
        }
        QCOMPARE(mismatched, (QStringList{QStringLiteral("2026-03-09"), QStringLiteral("2026-03-10"), QStringLiteral("2026-03-11"),
                                          QStringLiteral("2026-03-12"), QStringLiteral("2026-03-13"), QStringLiteral("2026-03-14")}));
        // Its rows and sums equal the target's, computed independently.
        const QJsonObject day = parts.at(250).toObject();
        const std::string name = day.value(QStringLiteral("partition")).toString().toStdString();
        QCOMPARE(QString::number(day.value(QStringLiteral("rows")).toInteger()),
                 QString::fromStdString(scalar(db, "SELECT count(*) FROM analytics.fct_order_lines WHERE order_date = $1::date", args(name))));
        QCOMPARE(day.value(QStringLiteral("measures")).toObject().value(QStringLiteral("revenue")).toDouble(),
                 QString::fromStdString(scalar(db, "SELECT sum(revenue) FROM analytics.fct_order_lines WHERE order_date = $1::date", args(name))).toDouble());
    }

    void narrowWindowFailsAndNamesTheNeighbour()
    {
        const std::string db = test::demoCopy("bf_narrow");
        const auto before = dayHashes(db);
        auto p = test::runReprint(base(QStringLiteral("backfill"), db)
                                  << QStringLiteral("--model") << QStringLiteral("fct_order_lines") << QStringLiteral("--from")
                                  << QStringLiteral("2026-03-10") << QStringLiteral("--to") << QStringLiteral("2026-03-14"));
        QCOMPARE(p.exitCode, 3);
        QVERIFY2(p.err.contains(QStringLiteral("2026-03-09")), qPrintable(p.err));
        QVERIFY2(p.err.contains(QStringLiteral("--from 2026-03-09")), qPrintable(p.err));
        QVERIFY(dayHashes(db) == before);  // nothing published
        const long long id = backfillIdFrom(p);
        QVERIFY(id > 0);
        // Publishing it without --override is refused with exit 3; the data stays.
        auto pub = test::runReprint(base(QStringLiteral("publish"), db) << QString::number(id) << QStringLiteral("--approve")
                                                                        << QStringLiteral("looks fine"));
        QCOMPARE(pub.exitCode, 3);
        QVERIFY(dayHashes(db) == before);
        // A second backfill overlapping it is refused with 4 and told how to free the window.
        auto second = test::runReprint(base(QStringLiteral("backfill"), db)
                                       << QStringLiteral("--model") << QStringLiteral("fct_order_lines") << QStringLiteral("--from")
                                       << QStringLiteral("2026-03-09") << QStringLiteral("--to") << QStringLiteral("2026-03-14"));
        QCOMPARE(second.exitCode, 4);
        QVERIFY2(second.err.contains(QStringLiteral("`reprint abandon --spec %1 %2`").arg(demoSpec()).arg(id)), qPrintable(second.err));
        auto abandon = test::runReprint(base(QStringLiteral("abandon"), db) << QString::number(id));
        QCOMPARE(abandon.exitCode, 0);
        QCOMPARE(scalar(db, "SELECT count(*) FROM reprint.claims"), std::string("0"));
    }

    void honestWindowValidatesPublishesAndIsIdempotent()
    {
        const std::string db = test::demoCopy("bf_honest");
        const auto before = dayHashes(db);
        const std::string truth = truthPerDay(db);
        QVERIFY(targetPerDay(db) != truth);  // the bug is there

        auto p = test::runReprint(base(QStringLiteral("backfill"), db)
                                  << QStringLiteral("--model") << QStringLiteral("fct_order_lines") << QStringLiteral("--from")
                                  << QStringLiteral("2026-03-09") << QStringLiteral("--to") << QStringLiteral("2026-03-14")
                                  << QStringLiteral("--parallel") << QStringLiteral("2"));
        QVERIFY2(p.exitCode == 0, qPrintable(p.err));
        const long long id = backfillIdFrom(p);
        QVERIFY(id > 0);

        auto diff = test::runReprint(base(QStringLiteral("diff"), db) << QString::number(id) << QStringLiteral("--format")
                                                                      << QStringLiteral("json"));
        QCOMPARE(diff.exitCode, 0);
        const QJsonObject review = json(diff);
        QCOMPARE(review.value(QStringLiteral("backfill")).toInteger(), id);
        QCOMPARE(review.value(QStringLiteral("model")).toString(), QStringLiteral("fct_order_lines"));
        const QJsonArray parts = review.value(QStringLiteral("partitions")).toArray();
        QCOMPARE(parts.size(), 8);  // six in the window, one outside each end
        QCOMPARE(parts.first().toObject().value(QStringLiteral("partition")).toString(), QStringLiteral("2026-03-08"));
        QCOMPARE(parts.first().toObject().value(QStringLiteral("in_scope")).toBool(), false);
        QCOMPARE(parts.last().toObject().value(QStringLiteral("partition")).toString(), QStringLiteral("2026-03-15"));
        for (const QJsonValue &v : parts) {
            const QJsonObject o = v.toObject();
            const QJsonObject revenue = o.value(QStringLiteral("measures")).toObject().value(QStringLiteral("revenue")).toObject();
            const QString verdict = revenue.value(QStringLiteral("verdict")).toString();
            if (o.value(QStringLiteral("in_scope")).toBool()) {
                QCOMPARE(verdict, QStringLiteral("expected"));
                QCOMPARE(revenue.value(QStringLiteral("new")).toDouble(), revenue.value(QStringLiteral("source")).toDouble());
            } else {
                QCOMPARE(verdict, QStringLiteral("unchanged"));
            }
            for (const QString &m : o.value(QStringLiteral("measures")).toObject().keys())
                QVERIFY(o.value(QStringLiteral("measures")).toObject().value(m).toObject().value(QStringLiteral("verdict")).toString()
                        != QLatin1String("mismatch_source"));
        }
        // Boundary row diff: the evening of 2026-03-09 comes back to 2026-03-09.
        auto rows = test::runReprint(base(QStringLiteral("diff"), db) << QString::number(id) << QStringLiteral("--rows")
                                                                      << QStringLiteral("2026-03-09") << QStringLiteral("--format")
                                                                      << QStringLiteral("json"));
        QVERIFY2(rows.exitCode == 0, qPrintable(rows.err));
        const QJsonObject rd = json(rows);
        const std::string evening = scalar(db, "SELECT count(*) FROM raw.order_lines l JOIN raw.orders o USING (order_id) "
                                               "WHERE o.ordered_at >= '2026-03-09 18:00+00' AND o.ordered_at < '2026-03-10 00:00+00'");
        QCOMPARE(QString::number(rd.value(QStringLiteral("added")).toInteger()), QString::fromStdString(evening));
        QCOMPARE(rd.value(QStringLiteral("removed")).toInteger(), 0);

        // A reader summing the window during publish sees the old or the new total only.
        const std::string window = "SELECT sum(revenue)::text FROM analytics.fct_order_lines "
                                   "WHERE order_date >= '2026-03-09' AND order_date < '2026-03-15'";
        const std::string oldTotal = scalar(db, window);
        test::ProcessResult pub;
        const std::vector<std::string> seen = readWhile(db, window, [&] {
            pub = test::runReprint(base(QStringLiteral("publish"), db) << QString::number(id) << QStringLiteral("--approve")
                                                                       << QStringLiteral("matches raw on every day"));
        });
        const std::string newTotal = scalar(db, window);
        QVERIFY2(pub.exitCode == 0, qPrintable(pub.err));
        QVERIFY(!seen.empty());
        std::set<std::string> distinct(seen.begin(), seen.end());
        for (const std::string &s : distinct)
            QVERIFY2(s == oldTotal || s == newTotal, s.c_str());
        qInfo("reader saw %zu sums during publish: %zu distinct (old %s, new %s)", seen.size(), distinct.size(), oldTotal.c_str(),
              newTotal.c_str());

        // The whole table now equals the raw tables, and days outside the window kept their rows exactly.
        QCOMPARE(targetPerDay(db), truth);
        const auto after = dayHashes(db);
        QCOMPARE(after.size(), before.size());
        for (const auto &[day, hash] : before)
            if (day < "2026-03-09" || day > "2026-03-14")
                QVERIFY2(after.at(day) == hash, day.c_str());
        QCOMPARE(scalar(db, "SELECT approver = current_user AND note = 'matches raw on every day' FROM reprint.backfills WHERE id = $1",
                        args(std::to_string(id))),
                 std::string("t"));
        QCOMPARE(scalar(db, "SELECT count(*) FROM reprint.audit WHERE backfill_id = $1 AND action = 'publish'", args(std::to_string(id))),
                 std::string("1"));

        // Publishing twice is refused.
        auto twice = test::runReprint(base(QStringLiteral("publish"), db) << QString::number(id) << QStringLiteral("--approve")
                                                                          << QStringLiteral("again"));
        QCOMPARE(twice.exitCode, 4);

        // The same backfill again: everything unchanged, and publishing it keeps the counts.
        const std::string rowsBefore = scalar(db, "SELECT count(*) FROM analytics.fct_order_lines");
        auto again = test::runReprint(base(QStringLiteral("backfill"), db)
                                      << QStringLiteral("--model") << QStringLiteral("fct_order_lines") << QStringLiteral("--from")
                                      << QStringLiteral("2026-03-09") << QStringLiteral("--to") << QStringLiteral("2026-03-14")
                                      << QStringLiteral("--format") << QStringLiteral("json"));
        QVERIFY2(again.exitCode == 0, qPrintable(again.err));
        for (const QJsonValue &v : json(again).value(QStringLiteral("partitions")).toArray())
            for (const QJsonValue &m : v.toObject().value(QStringLiteral("measures")).toObject())
                QCOMPARE(m.toObject().value(QStringLiteral("verdict")).toString(), QStringLiteral("unchanged"));
        auto pub2 = test::runReprint(base(QStringLiteral("publish"), db) << QString::number(backfillIdFrom(again))
                                                                         << QStringLiteral("--approve") << QStringLiteral("idempotent"));
        QVERIFY2(pub2.exitCode == 0, qPrintable(pub2.err));
        QCOMPARE(scalar(db, "SELECT count(*) FROM analytics.fct_order_lines"), rowsBefore);
        QCOMPARE(targetPerDay(db), truth);
    }

    void scheduledRunOnAClaimedPartitionIsRefused()
    {
        const std::string db = test::demoCopy("bf_claim");
        auto p = test::runReprint(base(QStringLiteral("backfill"), db)
                                  << QStringLiteral("--model") << QStringLiteral("fct_order_lines") << QStringLiteral("--from")
                                  << QStringLiteral("2026-03-09") << QStringLiteral("--to") << QStringLiteral("2026-03-14"));
        QVERIFY2(p.exitCode == 0, qPrintable(p.err));
        const long long id = backfillIdFrom(p);
        const auto before = dayHashes(db);
        auto run = test::runReprint(base(QStringLiteral("run"), db) << QStringLiteral("--model") << QStringLiteral("fct_order_lines")
                                                                    << QStringLiteral("--partition") << QStringLiteral("2026-03-11"));
        QCOMPARE(run.exitCode, 4);
        QVERIFY2(run.err.contains(QStringLiteral("backfill %1").arg(id)), qPrintable(run.err));
        QVERIFY2(run.err.contains(QString::fromStdString(scalar(db, "SELECT current_user::text"))), qPrintable(run.err));
        QVERIFY(dayHashes(db) == before);
        // Outside the claim, the scheduled run works and uses the same code path.
        auto ok = test::runReprint(base(QStringLiteral("run"), db) << QStringLiteral("--model") << QStringLiteral("fct_order_lines")
                                                                   << QStringLiteral("--partition") << QStringLiteral("2026-03-20")
                                                                   << QStringLiteral("--format") << QStringLiteral("json"));
        QVERIFY2(ok.exitCode == 0, qPrintable(ok.err));
        QCOMPARE(QString::number(json(ok).value(QStringLiteral("rows")).toInteger()),
                 QString::fromStdString(scalar(db, "SELECT count(*) FROM analytics.fct_order_lines WHERE order_date = '2026-03-20'")));
        QVERIFY(dayHashes(db) == before);  // 2026-03-20 was right already: same rows
    }

    void driftBetweenValidationAndPublishIsRefused()
    {
        const std::string db = test::demoCopy("bf_drift");
        auto p = test::runReprint(base(QStringLiteral("backfill"), db)
                                  << QStringLiteral("--model") << QStringLiteral("fct_order_lines") << QStringLiteral("--from")
                                  << QStringLiteral("2026-03-09") << QStringLiteral("--to") << QStringLiteral("2026-03-14"));
        QVERIFY2(p.exitCode == 0, qPrintable(p.err));
        QVERIFY(test::execute(db, "UPDATE analytics.fct_order_lines SET revenue = revenue + 1 WHERE order_line_id = "
                                  "(SELECT min(order_line_id) FROM analytics.fct_order_lines WHERE order_date = '2026-03-12')")
                    .ok());
        const auto before = dayHashes(db);
        auto pub = test::runReprint(base(QStringLiteral("publish"), db) << QString::number(backfillIdFrom(p))
                                                                        << QStringLiteral("--approve") << QStringLiteral("ok"));
        QCOMPARE(pub.exitCode, 4);
        QVERIFY2(pub.err.contains(QStringLiteral("2026-03-12")), qPrintable(pub.err));
        QVERIFY(dayHashes(db) == before);
        QCOMPARE(scalar(db, "SELECT status FROM reprint.backfills WHERE id = $1", args(std::to_string(backfillIdFrom(p)))),
                 std::string("staged"));
    }

    // The source moves after validation: inside the window the validated rows no longer
    // match it, so publish refuses (4) and writes nothing; on a neighbour of the window only,
    // what publish writes is still right, so it publishes and leaves the neighbour as it was.
    void sourceDriftInsideTheWindowIsRefusedOutsideItIsNot_data()
    {
        QTest::addColumn<QString>("day");
        QTest::addColumn<bool>("refused");
        QTest::newRow("inside the window") << QStringLiteral("2026-03-12") << true;
        QTest::newRow("the day after it") << QStringLiteral("2026-03-15") << false;
    }

    void sourceDriftInsideTheWindowIsRefusedOutsideItIsNot()
    {
        QFETCH(QString, day);
        QFETCH(bool, refused);
        const std::string db = test::demoCopy(refused ? "bf_srcdrift_in" : "bf_srcdrift_out");
        auto p = test::runReprint(base(QStringLiteral("backfill"), db)
                                  << QStringLiteral("--model") << QStringLiteral("fct_order_lines") << QStringLiteral("--from")
                                  << QStringLiteral("2026-03-09") << QStringLiteral("--to") << QStringLiteral("2026-03-14"));
        QVERIFY2(p.exitCode == 0, qPrintable(p.err));
        const std::string id = std::to_string(backfillIdFrom(p));
        // One more unit on one line of an order of `day`, in the raw tables the checks read.
        QVERIFY(test::execute(db, "UPDATE raw.order_lines SET quantity = quantity + 1 WHERE order_line_id = "
                                  "(SELECT min(l.order_line_id) FROM raw.order_lines l JOIN raw.orders o USING (order_id) "
                                  "WHERE o.ordered_at >= '" + day.toStdString() + "' AND o.ordered_at < '"
                                  + day.toStdString() + "'::date + 1)")
                    .ok());
        const auto before = dayHashes(db);
        auto pub = test::runReprint(base(QStringLiteral("publish"), db) << QString::fromStdString(id) << QStringLiteral("--approve")
                                                                        << QStringLiteral("ok"));
        const auto after = dayHashes(db);
        if (refused) {
            QCOMPARE(pub.exitCode, 4);
            QVERIFY2(pub.err.contains(QStringLiteral("source changed")) && pub.err.contains(QStringLiteral("quantity matches source")),
                     qPrintable(pub.err));
            QVERIFY(after == before);
            QCOMPARE(scalar(db, "SELECT status FROM reprint.backfills WHERE id = $1", args(id)), std::string("staged"));
            return;
        }
        QVERIFY2(pub.exitCode == 0, qPrintable(pub.err));
        QCOMPARE(scalar(db, "SELECT status FROM reprint.backfills WHERE id = $1", args(id)), std::string("published"));
        QCOMPARE(after.at(day.toStdString()), before.at(day.toStdString()));
        QVERIFY(after.at("2026-03-12") != before.at("2026-03-12"));  // the window was written
    }

    void leakGuardRefusesRowsOutsideThePartition()
    {
        const std::string db = test::demoCopy("bf_leak");
        const auto before = dayHashes(db);
        QTemporaryDir dir;
        // The transform "forgets" the upper bound: it returns every later day too.
        QString leaky = fctTransform();
        leaky.replace(QRegularExpression(QStringLiteral("AND\\s+o\\.ordered_at\\s*<\\s*:end")), QString());
        QVERIFY(leaky != fctTransform());
        const QString spec = specWithTransform(dir, leaky);
        auto p = test::runReprint(base(QStringLiteral("backfill"), db, spec)
                                  << QStringLiteral("--model") << QStringLiteral("fct_order_lines") << QStringLiteral("--from")
                                  << QStringLiteral("2026-06-28") << QStringLiteral("--to") << QStringLiteral("2026-06-28"));
        QCOMPARE(p.exitCode, 1);
        QVERIFY2(p.err.contains(QStringLiteral("outside")) && p.err.contains(QStringLiteral("2026-06-29")), qPrintable(p.err));
        QVERIFY(dayHashes(db) == before);
    }

    void badInput_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("mentions");
        const QString m = QStringLiteral("fct_order_lines");
        QTest::newRow("bad partition") << QStringList{QStringLiteral("backfill"), QStringLiteral("--model"), m, QStringLiteral("--from"),
                                                      QStringLiteral("2026-13-01"), QStringLiteral("--to"), QStringLiteral("2026-03-14")}
                                       << 1 << QStringLiteral("2026-13-01");
        QTest::newRow("reversed window") << QStringList{QStringLiteral("backfill"), QStringLiteral("--model"), m, QStringLiteral("--from"),
                                                        QStringLiteral("2026-03-14"), QStringLiteral("--to"), QStringLiteral("2026-03-09")}
                                         << 1 << QStringLiteral("before it starts");
        QTest::newRow("unknown model") << QStringList{QStringLiteral("status"), QStringLiteral("--model"), QStringLiteral("nope"),
                                                      QStringLiteral("--from"), QStringLiteral("2026-03-09"), QStringLiteral("--to"),
                                                      QStringLiteral("2026-03-14")}
                                       << 1 << QStringLiteral("agg_daily_revenue");
        QTest::newRow("publish without note") << QStringList{QStringLiteral("publish"), QStringLiteral("1")} << 1 << QStringLiteral("--approve");
        QTest::newRow("unknown backfill") << QStringList{QStringLiteral("diff"), QStringLiteral("424242")} << 1 << QStringLiteral("424242");
        QTest::newRow("bad parallel") << QStringList{QStringLiteral("backfill"), QStringLiteral("--model"), m, QStringLiteral("--from"),
                                                     QStringLiteral("2026-03-09"), QStringLiteral("--to"), QStringLiteral("2026-03-14"),
                                                     QStringLiteral("--parallel"), QStringLiteral("zero")}
                                      << 1 << QStringLiteral("--parallel");
        // Issue 13, items 11 and 12: bounds the engine cannot bind, dates that do not
        // exist and numbers out of range are refused before any SQL, naming the value.
        QTest::newRow("partition in year 10000")
            << QStringList{QStringLiteral("backfill"), QStringLiteral("--model"), m, QStringLiteral("--from"), QStringLiteral("2026-03-09"),
                           QStringLiteral("--to"), QStringLiteral("9999-12-31")}
            << 1 << QStringLiteral("'9999-12-31' is past the last day partition Reprint can express, 9999-12-29");
        QTest::newRow("run in year 10000")
            << QStringList{QStringLiteral("run"), QStringLiteral("--model"), m, QStringLiteral("--partition"), QStringLiteral("9999-12-31")}
            << 1 << QStringLiteral("Name a day from 0001-01-02 to 9999-12-29");
        QTest::newRow("partition before year 1")
            << QStringList{QStringLiteral("backfill"), QStringLiteral("--model"), m, QStringLiteral("--from"), QStringLiteral("0001-01-01"),
                           QStringLiteral("--to"), QStringLiteral("2026-03-09")}
            << 1 << QStringLiteral("'0001-01-01' is before the first day partition Reprint can express, 0001-01-02");
        QTest::newRow("february 30")
            << QStringList{QStringLiteral("backfill"), QStringLiteral("--model"), m, QStringLiteral("--from"), QStringLiteral("2026-02-30"),
                           QStringLiteral("--to"), QStringLiteral("2026-03-14")}
            << 1 << QStringLiteral("'2026-02-30' does not exist: February 2026 has 28 days");
        QTest::newRow("parallel overflow")
            << QStringList{QStringLiteral("backfill"), QStringLiteral("--model"), m, QStringLiteral("--from"), QStringLiteral("2026-03-09"),
                           QStringLiteral("--to"), QStringLiteral("2026-03-14"), QStringLiteral("--parallel"), QStringLiteral("99999999999")}
            << 1 << QStringLiteral("--parallel '99999999999' is not a number of staging connections from 1 to 2147483647");
        QTest::newRow("diff id overflow")
            << QStringList{QStringLiteral("diff"), QStringLiteral("99999999999999999999")} << 1
            << QStringLiteral("'99999999999999999999' is not a backfill ID: backfill IDs are whole numbers from 1 to 9223372036854775807");
        QTest::newRow("diff negative id") << QStringList{QStringLiteral("diff"), QStringLiteral("-5")} << 1
                                          << QStringLiteral("diff: '-5' is not a backfill ID: backfill IDs are whole numbers from 1");
        QTest::newRow("resume id overflow")
            << QStringList{QStringLiteral("backfill"), QStringLiteral("--resume"), QStringLiteral("99999999999999999999")} << 1
            << QStringLiteral("--resume '99999999999999999999' is not a backfill ID: backfill IDs are whole numbers from 1");
        QTest::newRow("bad format") << QStringList{QStringLiteral("history"), QStringLiteral("--format"), QStringLiteral("xml")} << 1
                                    << QStringLiteral("xml");
    }

    void badInput()
    {
        QFETCH(QStringList, args);
        QFETCH(int, exitCode);
        QFETCH(QString, mentions);
        static const std::string db = test::demoCopy("bf_bad");
        const auto before = dayHashes(db);
        const QString command = args.takeFirst();
        auto p = test::runReprint(base(command, db) + args);
        QCOMPARE(p.exitCode, exitCode);
        QVERIFY2(p.err.contains(mentions), qPrintable(p.err));
        QVERIFY(dayHashes(db) == before);
        QCOMPARE(scalar(db, "SELECT count(*) FROM reprint.backfills"), std::string("0"));
    }

    // Issue 13, item 12: undo of something that is not a published backfill says what it
    // is and what to do, and changes nothing.
    void undoOfARunOrAStagedBackfillSaysWhatItIs()
    {
        const std::string db = test::demoCopy("bf_undo_wrong");
        auto run = test::runReprint(base(QStringLiteral("run"), db) << QStringLiteral("--model") << QStringLiteral("fct_order_lines")
                                                                    << QStringLiteral("--partition") << QStringLiteral("2026-03-20"));
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        const QString runId = QString::fromStdString(scalar(db, "SELECT max(id)::text FROM reprint.backfills WHERE kind = 'run'"));
        auto staged = test::runReprint(base(QStringLiteral("backfill"), db)
                                       << QStringLiteral("--model") << QStringLiteral("fct_order_lines") << QStringLiteral("--from")
                                       << QStringLiteral("2026-03-09") << QStringLiteral("--to") << QStringLiteral("2026-03-14"));
        QVERIFY2(staged.exitCode == 0, qPrintable(staged.err));
        const QString stagedId = QString::number(backfillIdFrom(staged));
        const auto before = dayHashes(db);
        const std::string states = "SELECT string_agg(id || ' ' || kind || ' ' || status, ', ' ORDER BY id) FROM reprint.backfills";
        const std::string statesBefore = scalar(db, states);

        auto undoRun = test::runReprint(base(QStringLiteral("undo"), db) << runId);
        QCOMPARE(undoRun.exitCode, 4);
        QVERIFY2(undoRun.err.contains(runId + " is a scheduled run of fct_order_lines 2026-03-20 (published), not a backfill"),
                 qPrintable(undoRun.err));
        QVERIFY2(undoRun.err.contains(QStringLiteral("reprint backfill")), qPrintable(undoRun.err));
        QVERIFY2(!undoRun.err.contains(QStringLiteral("only a published backfill")), qPrintable(undoRun.err));

        auto undoStaged = test::runReprint(base(QStringLiteral("undo"), db) << stagedId);
        QCOMPARE(undoStaged.exitCode, 4);
        QVERIFY2(undoStaged.err.contains("backfill " + stagedId + " is staged, not published"), qPrintable(undoStaged.err));
        QVERIFY2(undoStaged.err.contains("reprint abandon") && undoStaged.err.contains(QStringLiteral("reprint publish")),
                 qPrintable(undoStaged.err));
        QVERIFY2(!undoStaged.err.contains(QStringLiteral("only a published backfill")), qPrintable(undoStaged.err));

        QVERIFY(dayHashes(db) == before);
        QCOMPARE(scalar(db, states), statesBefore);
    }

    // Issue 13, item 12: yaml-cpp reads an unclosed quote as a string to the end of the
    // file; the CLI names the quote's file, line and column, not a "missing" key after it.
    void unclosedQuoteInTheSpecNamesTheQuote()
    {
        QTemporaryDir dir;
        int line = 0;
        int column = 0;
        const QString spec = specCopy(dir, [&](QString &yaml) {
            const QString target = QStringLiteral("target: analytics.fct_order_lines");
            const int at = int(yaml.indexOf(target));
            line = int(yaml.left(at).count(QLatin1Char('\n'))) + 1;
            column = at - int(yaml.lastIndexOf(QLatin1Char('\n'), at)) + int(QStringLiteral("target: ").size());
            yaml.replace(at, target.size(), QStringLiteral("target: \"analytics.fct_order_lines"));
        });
        const std::string db = test::demoCopy("bf_bad_spec");
        auto p = test::runReprint(base(QStringLiteral("status"), db, spec)
                                  << QStringLiteral("--model") << QStringLiteral("fct_order_lines") << QStringLiteral("--from")
                                  << QStringLiteral("2026-03-09") << QStringLiteral("--to") << QStringLiteral("2026-03-14"));
        QCOMPARE(p.exitCode, 1);
        QVERIFY2(p.err.contains(QStringLiteral("spec.yaml:%1:%2: YAML syntax error: the \" here opens a quoted string that is never closed")
                                    .arg(line)
                                    .arg(column)),
                 qPrintable(p.err));
        QVERIFY2(!p.err.contains(QStringLiteral("missing required key")), qPrintable(p.err));
    }

    void wrongPasswordOrMissingSocketExits2WithoutThePassword()
    {
        auto p = test::runReprint({QStringLiteral("status"), QStringLiteral("--spec"), demoSpec(), QStringLiteral("--db"),
                                   QStringLiteral("host=/nonexistent/sock port=5432 dbname=demo user=x password=hunter2-secret"),
                                   QStringLiteral("--model"), QStringLiteral("fct_order_lines"), QStringLiteral("--from"),
                                   QStringLiteral("2026-03-09"), QStringLiteral("--to"), QStringLiteral("2026-03-14")});
        QCOMPARE(p.exitCode, 2);
        QVERIFY(!p.err.contains(QStringLiteral("hunter2")));
        QVERIFY(!p.out.contains(QStringLiteral("hunter2")));
        QVERIFY2(p.err.contains(QStringLiteral("/nonexistent/sock")), qPrintable(p.err));
    }

    void hostileIdentifierIsQuotedNeverExecuted()
    {
        const std::string db = test::demoCopy("bf_hostile");
        QTemporaryDir dir;
        QDir(dir.path()).mkpath(QStringLiteral("t"));
        QFile t(dir.filePath(QStringLiteral("t/x.sql")));
        t.open(QIODevice::WriteOnly);
        t.write("SELECT 1 AS id, now() AS ts WHERE now() >= :start AND now() < :end\n");
        t.close();
        QFile s(dir.filePath(QStringLiteral("evil.yaml")));
        s.open(QIODevice::WriteOnly);
        s.write("models:\n"
                "  - name: evil\n"
                "    target: 'analytics.\"x; drop table raw.products; --\"'\n"
                "    partition: { column: ts, grain: day }\n"
                "    key: [id]\n"
                "    transform: t/x.sql\n");
        s.close();
        auto p = test::runReprint(base(QStringLiteral("status"), db, s.fileName())
                                  << QStringLiteral("--model") << QStringLiteral("evil") << QStringLiteral("--from")
                                  << QStringLiteral("2026-03-09") << QStringLiteral("--to") << QStringLiteral("2026-03-09"));
        QCOMPARE(p.exitCode, 1);
        QVERIFY2(p.err.contains(QStringLiteral("does not exist")), qPrintable(p.err));
        QCOMPARE(scalar(db, "SELECT to_regclass('raw.products') IS NOT NULL"), std::string("t"));
    }

    void daylightSavingPartitions()
    {
        const std::string db = test::demoCopy("bf_dst");
        // One event every 15 minutes around the 2026 changes in Berlin and New York.
        auto setup = test::execute(db,
            "CREATE TABLE public.events_src (id bigint PRIMARY KEY, ts timestamptz NOT NULL, v int NOT NULL);"
            "INSERT INTO public.events_src SELECT row_number() OVER (ORDER BY ts), ts, 1 FROM ("
            " SELECT generate_series('2026-03-06 00:00+00'::timestamptz, '2026-04-01 00:00+00', '15 minutes') AS ts UNION ALL"
            " SELECT generate_series('2026-10-23 00:00+00'::timestamptz, '2026-11-03 00:00+00', '15 minutes')) g;"
            "CREATE TABLE public.events (LIKE public.events_src);");
        QVERIFY2(setup.ok(), setup.ok() ? "" : setup.error().message.c_str());
        QTemporaryDir dir;
        QFile t(dir.filePath(QStringLiteral("events.sql")));
        t.open(QIODevice::WriteOnly);
        t.write("SELECT id, ts, v FROM public.events_src WHERE ts >= :start AND ts < :end\n");
        t.close();
        QFile s(dir.filePath(QStringLiteral("dst.yaml")));
        s.open(QIODevice::WriteOnly);
        s.write("models:\n"
                "  - name: berlin_hour\n    target: public.events\n    partition: { column: ts, grain: hour, timezone: Europe/Berlin }\n"
                "    key: [id]\n    measures: [v]\n    transform: events.sql\n"
                "  - name: berlin_day\n    target: public.events\n    partition: { column: ts, grain: day, timezone: Europe/Berlin }\n"
                "    key: [id]\n    measures: [v]\n    transform: events.sql\n"
                "  - name: newyork_day\n    target: public.events\n    partition: { column: ts, grain: day, timezone: America/New_York }\n"
                "    key: [id]\n    measures: [v]\n    transform: events.sql\n");
        s.close();
        const QString spec = s.fileName();
        QVERIFY(test::runReprint(base(QStringLiteral("init"), db, spec)).exitCode == 0);

        // Backfill (and publish) a Berlin day window across both changes; then count per partition.
        auto rowsOf = [&](const QString &model, const QString &from, const QString &to) {
            auto p = test::runReprint(base(QStringLiteral("status"), db, spec) << QStringLiteral("--model") << model << QStringLiteral("--from")
                                                                              << from << QStringLiteral("--to") << to << QStringLiteral("--format")
                                                                              << QStringLiteral("json"));
            QMap<QString, qint64> out;
            for (const QJsonValue &v : json(p).value(QStringLiteral("partitions")).toArray())
                out.insert(v.toObject().value(QStringLiteral("partition")).toString(), v.toObject().value(QStringLiteral("rows")).toInteger());
            return out;
        };
        for (const auto &[from, to] : {std::pair{"2026-03-28", "2026-03-30"}, std::pair{"2026-10-24", "2026-10-26"}}) {
            auto b = test::runReprint(base(QStringLiteral("backfill"), db, spec) << QStringLiteral("--model") << QStringLiteral("berlin_day")
                                                                                << QStringLiteral("--from") << QLatin1String(from)
                                                                                << QStringLiteral("--to") << QLatin1String(to));
            QCOMPARE(b.exitCode, 0);
            auto pub = test::runReprint(base(QStringLiteral("publish"), db, spec) << QString::number(backfillIdFrom(b))
                                                                                 << QStringLiteral("--approve") << QStringLiteral("dst"));
            QVERIFY2(pub.exitCode == 0, qPrintable(pub.err));
        }
        const auto spring = rowsOf(QStringLiteral("berlin_day"), QStringLiteral("2026-03-28"), QStringLiteral("2026-03-30"));
        QCOMPARE(spring.value(QStringLiteral("2026-03-28")), 96);
        QCOMPARE(spring.value(QStringLiteral("2026-03-29")), 92);   // 23 hours
        QCOMPARE(spring.value(QStringLiteral("2026-03-30")), 96);
        const auto autumn = rowsOf(QStringLiteral("berlin_day"), QStringLiteral("2026-10-24"), QStringLiteral("2026-10-26"));
        QCOMPARE(autumn.value(QStringLiteral("2026-10-25")), 100);  // 25 hours
        // Hours across the spring change: 02:00 does not exist, nothing vanishes.
        const auto hours = rowsOf(QStringLiteral("berlin_hour"), QStringLiteral("2026-03-29T00"), QStringLiteral("2026-03-29T04"));
        QCOMPARE(hours.size(), 4);
        qint64 total = 0;
        for (qint64 n : hours) {
            QCOMPARE(n, 4);
            total += n;
        }
        QCOMPARE(QString::number(total),
                 QString::fromStdString(scalar(db, "SELECT count(*) FROM public.events WHERE ts >= '2026-03-29 00:00+01' AND ts < '2026-03-29 05:00+02'")));
        // Autumn: the repeated 02:00 hour is two partitions of four rows each.
        const auto autumnHours = rowsOf(QStringLiteral("berlin_hour"), QStringLiteral("2026-10-25T00"), QStringLiteral("2026-10-25T04"));
        QCOMPARE(autumnHours.size(), 6);
        for (qint64 n : autumnHours)
            QCOMPARE(n, 4);
        // New York days (events_src was not published there, so read the source model directly).
        QVERIFY(test::execute(db, "INSERT INTO public.events SELECT * FROM public.events_src ON CONFLICT DO NOTHING").ok());
        const auto ny = rowsOf(QStringLiteral("newyork_day"), QStringLiteral("2026-03-07"), QStringLiteral("2026-03-09"));
        QCOMPARE(ny.value(QStringLiteral("2026-03-08")), 92);
        const auto nyAutumn = rowsOf(QStringLiteral("newyork_day"), QStringLiteral("2026-10-31"), QStringLiteral("2026-11-02"));
        QCOMPARE(nyAutumn.value(QStringLiteral("2026-11-01")), 100);
    }
};

QTEST_GUILESS_MAIN(TestBackfill)
#include "tst_backfill.moc"
