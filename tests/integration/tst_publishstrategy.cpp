// Publish strategies (replace, swap, auto) and a publish whose connection is lost at
// COMMIT: through the `reprint` CLI on copies of the demo warehouse, whose targets have
// one physical partition per day.
#include "backfillfixture.h"
#include "socketproxy.h"

#include "warehouse/iothread.h"

#include <QJsonArray>
#include <QProcess>

#include <csignal>

#include <memory>
#include <set>

using namespace reprint;
using namespace reprint::test;
using warehouse::args;

namespace {

const QString kFrom = QStringLiteral("2026-03-09");
const QString kTo = QStringLiteral("2026-03-14");

long long stage(const std::string &db, const QString &spec)
{
    auto p = test::runReprint(base(QStringLiteral("backfill"), db, spec) << QStringLiteral("--model") << QStringLiteral("fct_order_lines")
                                                                         << QStringLiteral("--from") << kFrom << QStringLiteral("--to") << kTo);
    if (p.exitCode != 0)
        qWarning("backfill failed: %s", qPrintable(p.err));
    return backfillIdFrom(p);
}

ProcessResult publish(const std::string &db, const QString &spec, long long id)
{
    return test::runReprint(base(QStringLiteral("publish"), db, spec) << QString::number(id) << QStringLiteral("--approve")
                                                                      << QStringLiteral("checked") << QStringLiteral("--format")
                                                                      << QStringLiteral("json"));
}

// A copy of the demo whose fct_order_lines publishes with `strategy`, with the honest
// window staged and validated.
struct StagedCopy {
    std::string db;
    std::unique_ptr<QTemporaryDir> dir = std::make_unique<QTemporaryDir>();
    QString spec;
    std::map<std::string, std::string> before;  // dayHashes() before the backfill
    long long id = 0;
};

StagedCopy stagedCopy(const std::string &name, const QString &strategy)
{
    StagedCopy out;
    out.db = test::demoCopy(name);
    out.spec = specPublishing(*out.dir, strategy);
    out.before = dayHashes(out.db);
    out.id = stage(out.db, out.spec);
    return out;
}

// Each physical partition of the fct target with its bounds, and its indexes' names.
std::string physicalLayout(const std::string &db)
{
    return scalar(db, "SELECT string_agg(c.relname || ' ' || pg_get_expr(c.relpartbound, c.oid) || ' ' || "
                      "(SELECT coalesce(string_agg(x.indexrelid::regclass::text, ',' ORDER BY 1), '') FROM pg_index x "
                      "WHERE x.indrelid = c.oid), E'\\n' ORDER BY c.relname) "
                      "FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid "
                      "WHERE i.inhparent = 'analytics.fct_order_lines'::regclass");
}

std::string leftovers(const std::string &db)
{
    return scalar(db, "SELECT count(*) FROM pg_class WHERE relname LIKE 'reprint\\_new\\_%' "
                      "OR relnamespace = 'reprint_archive'::regnamespace");
}

// The range partitions of `parent` (an expression giving its regclass) from the window's
// first day on and before the day after it: "oid bounds" a line, in bounds order; "" when
// it has none.
std::string partitionsOfWindow(const std::string &db, const std::string &parent, warehouse::Params params = {})
{
    return scalar(db, "SELECT coalesce(string_agg(c.oid::text || ' ' || b.text, E'\\n' ORDER BY b.text), '') "
                      "FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid, pg_get_expr(c.relpartbound, c.oid) AS b(text) "
                      "WHERE i.inhparent = " + parent + " AND b.text >= 'FOR VALUES FROM (''2026-03-09'')' "
                      "AND b.text < 'FOR VALUES FROM (''2026-03-15'')'",
                  std::move(params));
}

// The stage's partitions of backfill `id`, or "" when its stage is one table.
std::string stagedPartitions(const std::string &db, long long id)
{
    return partitionsOfWindow(db, "(SELECT ('reprint_staging.' || quote_ident(stage_table))::regclass FROM reprint.backfills "
                                  "WHERE id = $1)", args(std::to_string(id)));
}

// The target's physical partitions of the window.
std::string windowPartitions(const std::string &db)
{
    return partitionsOfWindow(db, "'analytics.fct_order_lines'::regclass");
}

std::string statusOf(const std::string &db, long long id)
{
    return scalar(db, "SELECT status FROM reprint.backfills WHERE id = $1", args(std::to_string(id)));
}

// The window's days of the target as they should be, computed from the raw tables.
std::string truthOfWindow(const std::string &db)
{
    std::string out;
    const std::string truth = truthPerDay(db);
    for (const QString &line : QString::fromStdString(truth).split(QLatin1Char('\n')))
        if (line.left(10) >= kFrom && line.left(10) <= kTo)
            out += line.toStdString() + "\n";
    return out;
}

std::string targetOfWindow(const std::string &db)
{
    std::string out;
    for (const QString &line : QString::fromStdString(targetPerDay(db)).split(QLatin1Char('\n')))
        if (line.left(10) >= kFrom && line.left(10) <= kTo)
            out += line.toStdString() + "\n";
    return out;
}

// `db`'s conninfo through `proxy` instead of the demo cluster's own socket.
std::string throughProxy(const std::string &db, const SocketProxy &proxy)
{
    std::string out = db;
    const std::string host = demoCluster().socketDir();
    out.replace(out.find(host), host.size(), proxy.dir());
    return out;
}

// The two ways a COMMIT's answer goes missing (the `committed` column of the *LostInFlight tests).
void commitLossCases()
{
    QTest::addColumn<bool>("committed");
    QTest::newRow("lost before the server committed") << false;
    QTest::newRow("answer lost after the server committed") << true;
}

// Starts `reprint publish ID --approve checked` in `proc` and returns once it waits for a
// lock another session holds (the worst moment for a race), or false after 10 s.
bool startPublishQueuedBehindALock(QProcess &proc, const std::string &db, const QString &spec, long long id)
{
    proc.start(test::reprintBinary(), base(QStringLiteral("publish"), db, spec) << QString::number(id) << QStringLiteral("--approve")
                                                                                 << QStringLiteral("checked"));
    if (!proc.waitForStarted())
        return false;
    return QTest::qWaitFor(
        [&] {
            return scalar(db, "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'reprint' AND wait_event_type = 'Lock'")
                   == "1";
        },
        10000);
}

} // namespace

class TestPublishStrategy : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(QFile::exists(demoSpec()), "the demo fixture did not write its spec");
    }

    // Swap and replace leave exactly the same rows; swap keeps the physical layout and its
    // names; undo of a swap restores every partition's md5.
    void swapAndReplaceGiveTheSameRows()
    {
        std::map<std::string, std::string> hashes[2];
        int i = 0;
        for (const QString &strategy : {QStringLiteral("replace"), QStringLiteral("swap")}) {
            const std::string db = test::demoCopy("ps_same_" + strategy.toStdString());
            QTemporaryDir dir;
            const QString spec = specPublishing(dir, strategy);
            const auto before = dayHashes(db);
            const std::string layout = physicalLayout(db);
            const long long id = stage(db, spec);
            QVERIFY(id > 0);
            auto pub = publish(db, spec, id);
            QVERIFY2(pub.exitCode == 0, qPrintable(pub.err));
            const QJsonObject out = json(pub);
            QCOMPARE(out.value(QStringLiteral("strategy")).toString(), strategy);
            QCOMPARE(out.value(QStringLiteral("rows_inserted")).toInteger(),
                     QString::fromStdString(scalar(db, "SELECT count(*) FROM analytics.fct_order_lines "
                                                       "WHERE order_date BETWEEN '2026-03-09' AND '2026-03-14'"))
                         .toLongLong());
            qInfo("%s: lock held %.1f ms", qPrintable(strategy), out.value(QStringLiteral("lock_held_ms")).toDouble());
            QCOMPARE(targetOfWindow(db), truthOfWindow(db));
            QCOMPARE(physicalLayout(db), layout);
            hashes[i++] = dayHashes(db);

            auto undo = test::runReprint(base(QStringLiteral("undo"), db, spec) << QString::number(id));
            QVERIFY2(undo.exitCode == 0, qPrintable(undo.err));
            QVERIFY(dayHashes(db) == before);
            QCOMPARE(physicalLayout(db), layout);
            QCOMPARE(leftovers(db), std::string("0"));
        }
        QVERIFY(hashes[0] == hashes[1]);
    }

    // A swap publishes the staged partitions themselves: the stage is partitioned as the
    // target's window, and publish attaches those very tables (same oids) in place of the
    // old partitions, copying nothing; they carry the old partitions' index names and no
    // CHECK of their own bounds any more, and the stage is gone.
    void swapAttachesTheStagedPartitionsThemselves()
    {
        const auto &[db, dir, spec, before, id] = stagedCopy("ps_zero_copy", QStringLiteral("swap"));
        QVERIFY(id > 0);
        const std::string layout = physicalLayout(db);
        const std::string staged = stagedPartitions(db, id);
        QCOMPARE(QString::fromStdString(staged).count(QLatin1Char('\n')) + 1, 6);
        QVERIFY(staged != windowPartitions(db));
        auto pub = publish(db, spec, id);
        QVERIFY2(pub.exitCode == 0, qPrintable(pub.err));
        QCOMPARE(json(pub).value(QStringLiteral("strategy")).toString(), QStringLiteral("swap"));
        QCOMPARE(windowPartitions(db), staged);
        QCOMPARE(json(pub).value(QStringLiteral("rows_inserted")).toInteger(),
                 QString::fromStdString(scalar(db, "SELECT count(*) FROM analytics.fct_order_lines "
                                                   "WHERE order_date BETWEEN '2026-03-09' AND '2026-03-14'")).toLongLong());
        QCOMPARE(targetOfWindow(db), truthOfWindow(db));
        QCOMPARE(physicalLayout(db), layout);
        QCOMPARE(scalar(db, "SELECT count(*) FROM pg_constraint WHERE conname = 'reprint_swap_bounds'"), std::string("0"));
        QCOMPARE(scalar(db, "SELECT count(*) FROM pg_class WHERE relnamespace = 'reprint_staging'::regnamespace"), std::string("0"));
        QCOMPARE(scalar(db, "SELECT count(*) FROM pg_class WHERE relname LIKE 'reprint\\_new\\_%'"), std::string("0"));
        const auto afterFirst = dayHashes(db);
        // The old partitions were parked in the archive under their own names; a second
        // publish of the window, while that archive is kept, finds the names taken and
        // parks its old partitions renamed.
        QCOMPARE(scalar(db, "SELECT count(*) FROM pg_class WHERE relnamespace = 'reprint_archive'::regnamespace "
                            "AND relname LIKE 'fct\\_order\\_lines\\_202603%' AND relkind = 'r'"),
                 std::string("6"));
        const long long second = stage(db, spec);
        QVERIFY(second > id);
        auto again = publish(db, spec, second);
        QVERIFY2(again.exitCode == 0, qPrintable(again.err));
        QCOMPARE(json(again).value(QStringLiteral("strategy")).toString(), QStringLiteral("swap"));
        QCOMPARE(targetOfWindow(db), truthOfWindow(db));
        QCOMPARE(physicalLayout(db), layout);
        // Undo of the second puts back what the first published; undo of the first, the
        // rows before either.
        auto undoSecond = test::runReprint(base(QStringLiteral("undo"), db, spec) << QString::number(second));
        QVERIFY2(undoSecond.exitCode == 0, qPrintable(undoSecond.err));
        QVERIFY(dayHashes(db) == afterFirst);
        QCOMPARE(physicalLayout(db), layout);
        auto undoFirst = test::runReprint(base(QStringLiteral("undo"), db, spec) << QString::number(id));
        QVERIFY2(undoFirst.exitCode == 0, qPrintable(undoFirst.err));
        QVERIFY(dayHashes(db) == before);
        QCOMPARE(physicalLayout(db), layout);
        QCOMPARE(leftovers(db), std::string("0"));
    }

    // A stage that is one table (staged while the model replaced) is copied into successors
    // when the model swaps by the time it is published: same rows, same layout.
    void aStageOfOneTableIsCopiedIntoTheSwap()
    {
        const std::string db = test::demoCopy("ps_copy_swap");
        QTemporaryDir replaceDir, swapDir;
        const QString replaceSpec = specPublishing(replaceDir, QStringLiteral("replace"));
        const QString swapSpec = specPublishing(swapDir, QStringLiteral("swap"));
        const std::string layout = physicalLayout(db);
        const long long id = stage(db, replaceSpec);
        QVERIFY(id > 0);
        QCOMPARE(stagedPartitions(db, id), std::string());
        const std::string oldPartitions = windowPartitions(db);
        auto pub = publish(db, swapSpec, id);
        QVERIFY2(pub.exitCode == 0, qPrintable(pub.err));
        QCOMPARE(json(pub).value(QStringLiteral("strategy")).toString(), QStringLiteral("swap"));
        QVERIFY(windowPartitions(db) != oldPartitions);
        QCOMPARE(targetOfWindow(db), truthOfWindow(db));
        QCOMPARE(physicalLayout(db), layout);
        QCOMPARE(scalar(db, "SELECT count(*) FROM pg_class WHERE relname LIKE 'reprint\\_new\\_%'"), std::string("0"));
    }

    // A transform that repeats a key of the target's primary key, staged into a stage shaped
    // as the target's partitions, is refused at staging like any repeated key: named, the
    // partition named, the backfill failed, the target untouched.
    void aRepeatedUniqueKeyIsRefusedAtStaging()
    {
        const std::string db = test::demoCopy("ps_unique");
        const auto before = dayHashes(db);
        QTemporaryDir dir;
        const QString repeated = fctTransform().trimmed().remove(QRegularExpression(QStringLiteral(";\\s*$")));
        const QString transform = QStringLiteral("SELECT * FROM (\n") + repeated + QStringLiteral("\n) AS a UNION ALL SELECT * FROM (\n")
                                  + repeated + QStringLiteral("\n) AS b WHERE b.order_line_id = (SELECT min(order_line_id) FROM (\n")
                                  + repeated + QStringLiteral("\n) AS c)\n");
        const QString spec = specWithTransform(dir, transform);
        auto p = test::runReprint(base(QStringLiteral("backfill"), db, spec)
                                  << QStringLiteral("--model") << QStringLiteral("fct_order_lines") << QStringLiteral("--from")
                                  << QStringLiteral("2026-03-10") << QStringLiteral("--to") << QStringLiteral("2026-03-10"));
        QCOMPARE(p.exitCode, 1);
        QVERIFY2(p.err.contains(QStringLiteral("more than once for a unique key of analytics.fct_order_lines in partition 2026-03-10")),
                 qPrintable(p.err));
        QVERIFY2(p.err.contains(QStringLiteral("Key (order_line_id, order_date)=(")), qPrintable(p.err));
        QVERIFY2(p.err.contains(QStringLiteral("--retry-failed")), qPrintable(p.err));
        QCOMPARE(scalar(db, "SELECT status FROM reprint.backfills"), std::string("failed"));
        QVERIFY(dayHashes(db) == before);
    }

    // A window that is not whole physical partitions: `swap` refuses and changes nothing;
    // `auto` falls back to replace.
    // A target partitioned by a timestamptz on New York's days, the window across the
    // spring-forward day (23 hours): the swap finds each day's physical partition by its
    // instants (the catalog prints them in the session's zone), attaches the staged
    // partitions with the same bounds, and leaves the days outside the window as they were.
    void swapOnTimestamptzPartitionsAcrossDst()
    {
        const std::string db = test::demoCopy("swap_ny");
        auto made = test::execute(db, R"sql(
CREATE SCHEMA ny;
CREATE TABLE ny.src (id int, "Seen At" timestamptz, amount double precision);
INSERT INTO ny.src SELECT i, timestamptz '2026-03-06 00:00 America/New_York' + i * interval '37 minutes', i * 0.25
FROM generate_series(0, (7 * 24 - 1) * 60 / 37) AS i;
CREATE TABLE ny.t (id int NOT NULL, "Seen At" timestamptz NOT NULL, amount double precision,
                   PRIMARY KEY (id, "Seen At")) PARTITION BY RANGE ("Seen At");
DO $$ DECLARE d date; BEGIN
  FOR d IN SELECT generate_series(date '2026-03-06', date '2026-03-12', interval '1 day')::date LOOP
    EXECUTE format('CREATE TABLE ny.%I PARTITION OF ny.t FOR VALUES FROM (%L) TO (%L)', 'day_' || to_char(d, 'YYYYMMDD'),
                   d::timestamp AT TIME ZONE 'America/New_York', (d + 1)::timestamp AT TIME ZONE 'America/New_York');
  END LOOP;
END $$;
INSERT INTO ny.t SELECT id, "Seen At", amount * 2 FROM ny.src;
)sql");
        QVERIFY2(made.ok(), made.ok() ? "" : made.error().message.c_str());
        QTemporaryDir dir;
        {
            QFile t(dir.filePath(QStringLiteral("ny.sql")));
            QVERIFY(t.open(QIODevice::WriteOnly));
            t.write("SELECT s.id, s.\"Seen At\", s.amount FROM ny.src AS s WHERE s.\"Seen At\" >= :start AND s.\"Seen At\" < :end\n");
            QFile y(dir.filePath(QStringLiteral("ny.yaml")));
            QVERIFY(y.open(QIODevice::WriteOnly));
            y.write("models:\n  - name: ny_day\n    target: ny.t\n"
                    "    partition: { column: '\"Seen At\"', grain: day, timezone: America/New_York }\n    key: [id]\n"
                    "    measures: [amount]\n    transform: ny.sql\n    publish: swap\n");
        }
        const QString spec = dir.filePath(QStringLiteral("ny.yaml"));
        // Each New York day's rows and sum, of the target and (independently) of the source.
        auto perDay = [&](const std::string &table) {
            return scalar(db, "SELECT string_agg(d || ' ' || n || ' ' || s, E'\\n' ORDER BY d) FROM (SELECT (\"Seen At\" AT TIME ZONE "
                              "'America/New_York')::date::text AS d, count(*) AS n, sum(amount) AS s FROM " + table + " GROUP BY 1) x");
        };
        auto bounds = [&] {
            return scalar(db, "SELECT string_agg(c.oid || ' ' || c.relname || ' ' || pg_get_expr(c.relpartbound, c.oid), E'\\n' "
                              "ORDER BY c.relname) FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid "
                              "WHERE i.inhparent = 'ny.t'::regclass");
        };
        const QStringList before = QString::fromStdString(perDay("ny.t")).split(QLatin1Char('\n'));
        const QStringList truth = QString::fromStdString(perDay("ny.src")).split(QLatin1Char('\n'));
        const QStringList layoutBefore = QString::fromStdString(bounds()).split(QLatin1Char('\n'));
        QCOMPARE(before.size(), 7);
        QCOMPARE(truth.size(), 7);

        auto bf = test::runReprint(base(QStringLiteral("backfill"), db, spec) << QStringLiteral("--model") << QStringLiteral("ny_day")
                                                                              << QStringLiteral("--from") << QStringLiteral("2026-03-07")
                                                                              << QStringLiteral("--to") << QStringLiteral("2026-03-09"));
        QVERIFY2(bf.exitCode == 0, qPrintable(bf.err));
        const long long id = backfillIdFrom(bf);
        QVERIFY(id > 0);
        const auto pub = publish(db, spec, id);
        QVERIFY2(pub.exitCode == 0, qPrintable(pub.err));
        QCOMPARE(json(pub).value(QStringLiteral("strategy")).toString(), QStringLiteral("swap"));

        // Days 7, 8 (23 hours) and 9 now hold the source's rows; 6 and 10-12 the old ones.
        const QStringList after = QString::fromStdString(perDay("ny.t")).split(QLatin1Char('\n'));
        QCOMPARE(after.size(), 7);
        for (int i = 0; i < 7; ++i)
            QCOMPARE(after.at(i), (i >= 1 && i <= 3) ? truth.at(i) : before.at(i));
        // The same partitions under the same names and bounds; the window's three are new tables.
        const QStringList layoutAfter = QString::fromStdString(bounds()).split(QLatin1Char('\n'));
        QCOMPARE(layoutAfter.size(), 7);
        for (int i = 0; i < 7; ++i) {
            QCOMPARE(layoutAfter.at(i).section(QLatin1Char(' '), 1), layoutBefore.at(i).section(QLatin1Char(' '), 1));
            const bool replaced = layoutAfter.at(i).section(QLatin1Char(' '), 0, 0) != layoutBefore.at(i).section(QLatin1Char(' '), 0, 0);
            QCOMPARE(replaced, i >= 1 && i <= 3);
        }
        QCOMPARE(scalar(db, "SELECT count(*) FROM ny.day_20260308"), scalar(db, "SELECT count(*) FROM ny.src WHERE \"Seen At\" >= "
                                                                              "'2026-03-08 00:00 America/New_York' AND \"Seen At\" < "
                                                                              "'2026-03-09 00:00 America/New_York'"));
    }

    void swapOnAMisalignedWindowIsRefusedAndAutoReplaces()
    {
        const std::string db = test::demoCopy("ps_misaligned");
        auto merged = test::execute(db, "BEGIN;"
                                        "CREATE TABLE analytics.fct_two_days (LIKE analytics.fct_order_lines INCLUDING ALL);"
                                        "INSERT INTO analytics.fct_two_days SELECT * FROM analytics.fct_order_lines "
                                        "  WHERE order_date >= '2026-03-10' AND order_date < '2026-03-12';"
                                        "ALTER TABLE analytics.fct_order_lines DETACH PARTITION analytics.fct_order_lines_20260310;"
                                        "ALTER TABLE analytics.fct_order_lines DETACH PARTITION analytics.fct_order_lines_20260311;"
                                        "DROP TABLE analytics.fct_order_lines_20260310, analytics.fct_order_lines_20260311;"
                                        "ALTER TABLE analytics.fct_order_lines ATTACH PARTITION analytics.fct_two_days "
                                        "  FOR VALUES FROM ('2026-03-10') TO ('2026-03-12');"
                                        "COMMIT");
        QVERIFY2(merged, merged ? "" : merged.error().message.c_str());
        QTemporaryDir swapDir, autoDir;
        const QString swapSpec = specPublishing(swapDir, QStringLiteral("swap"));
        const QString autoSpec = specPublishing(autoDir, QStringLiteral("auto"));
        const auto before = dayHashes(db);
        const long long id = stage(db, swapSpec);
        QVERIFY(id > 0);

        auto refused = publish(db, swapSpec, id);
        QCOMPARE(refused.exitCode, 1);
        QVERIFY2(refused.err.contains(QStringLiteral("2026-03-10 is not one whole physical partition")), qPrintable(refused.err));
        QVERIFY2(refused.err.contains(QStringLiteral("publish: auto")), qPrintable(refused.err));
        QVERIFY(dayHashes(db) == before);
        QCOMPARE(statusOf(db, id), std::string("staged"));
        QCOMPARE(leftovers(db), std::string("0"));

        auto fellBack = publish(db, autoSpec, id);
        QVERIFY2(fellBack.exitCode == 0, qPrintable(fellBack.err));
        QCOMPARE(json(fellBack).value(QStringLiteral("strategy")).toString(), QStringLiteral("replace"));
        QCOMPARE(targetOfWindow(db), truthOfWindow(db));
    }

    // While another session holds the target, a swap asks for its lock briefly, retries
    // with backoff, then gives up with exit 4 and nothing changed; once the session ends,
    // the same publish goes through. Readers meanwhile see all old or all new.
    void swapThatCannotGetItsLockGivesUpCleanly()
    {
        const auto &[db, dir, spec, before, id] = stagedCopy("ps_locked", QStringLiteral("swap"));
        QVERIFY(id > 0);
        {
            HeldTransaction holder(db, "SELECT count(*) FROM analytics.fct_order_lines WHERE order_date = '2026-03-20'");
            QVERIFY(holder.ok());
            auto refused = publish(db, spec, id);
            QCOMPARE(refused.exitCode, 4);
            QVERIFY2(refused.err.contains(QStringLiteral("could not lock")), qPrintable(refused.err));
            QVERIFY2(refused.err.contains(QStringLiteral("nothing was published")), qPrintable(refused.err));
            QVERIFY(dayHashes(db) == before);
            QCOMPARE(statusOf(db, id), std::string("staged"));
            QCOMPARE(leftovers(db), std::string("0"));
        }
        const std::string window = "SELECT sum(revenue)::text FROM analytics.fct_order_lines "
                                   "WHERE order_date >= '2026-03-09' AND order_date < '2026-03-15'";
        const std::string oldTotal = scalar(db, window);
        ProcessResult pub;
        const std::vector<std::string> seen = readWhile(db, window, [&] { pub = publish(db, spec, id); });
        QVERIFY2(pub.exitCode == 0, qPrintable(pub.err));
        const std::string newTotal = scalar(db, window);
        QVERIFY(oldTotal != newTotal);
        QVERIFY(!seen.empty());
        const std::set<std::string> distinct(seen.begin(), seen.end());
        for (const std::string &s : distinct)
            QVERIFY2(s == oldTotal || s == newTotal, s.c_str());
        qInfo("reader saw %zu sums during the swap: %zu distinct", seen.size(), distinct.size());
        QCOMPARE(targetOfWindow(db), truthOfWindow(db));
    }

    // The swap's exclusive lock is on the partitioned table alone: a session reading some
    // other partition directly does not hold the swap up; one reading a partition of the
    // window directly does (the detach waits for it), and the swap gives up cleanly.
    void swapWaitsOnlyForReadersOfTheWindow_data()
    {
        QTest::addColumn<QString>("partition");
        QTest::addColumn<bool>("published");
        QTest::newRow("a partition outside the window") << QStringLiteral("fct_order_lines_20260320") << true;
        QTest::newRow("a partition of the window") << QStringLiteral("fct_order_lines_20260311") << false;
    }

    void swapWaitsOnlyForReadersOfTheWindow()
    {
        QFETCH(QString, partition);
        QFETCH(bool, published);
        const auto &[db, dir, spec, before, id] = stagedCopy(published ? "ps_direct_out" : "ps_direct_in", QStringLiteral("swap"));
        QVERIFY(id > 0);
        HeldTransaction holder(db, "SELECT count(*) FROM analytics." + partition.toStdString());
        QVERIFY(holder.ok());
        auto p = publish(db, spec, id);
        if (published) {
            QVERIFY2(p.exitCode == 0, qPrintable(p.err));
            QCOMPARE(statusOf(db, id), std::string("published"));
            QCOMPARE(targetOfWindow(db), truthOfWindow(db));
        } else {
            QCOMPARE(p.exitCode, 4);
            QVERIFY2(p.err.contains(QStringLiteral("could not lock")), qPrintable(p.err));
            QVERIFY(dayHashes(db) == before);
            QCOMPARE(statusOf(db, id), std::string("staged"));
            QCOMPARE(leftovers(db), std::string("0"));
        }
    }

    // A write of the window that commits while publish waits for the target: publish reads
    // it in its drift guard (exit 4, nothing published) instead of overwriting it; the
    // write survives. Both strategies.
    void writeCommittedDuringTheLockWaitIsNotLost_data()
    {
        QTest::addColumn<QString>("strategy");
        QTest::newRow("replace") << QStringLiteral("replace");
        QTest::newRow("swap") << QStringLiteral("swap");
    }
    void writeCommittedDuringTheLockWaitIsNotLost()
    {
        QFETCH(QString, strategy);
        const auto &[db, dir, spec, before, id] = stagedCopy("ps_race_" + strategy.toStdString(), strategy);
        QVERIFY(id > 0);
        const std::string line = scalar(db, "SELECT min(order_line_id)::text FROM analytics.fct_order_lines WHERE order_date = '2026-03-11'");
        const std::string revenue = "SELECT revenue::text FROM analytics.fct_order_lines WHERE order_line_id = " + line;
        const std::string was = scalar(db, revenue);
        const std::string expected = scalar(db, "SELECT (revenue + 1000)::text FROM analytics.fct_order_lines WHERE order_line_id = " + line);
        ProcessResult pub;
        {
            HeldTransaction writer(db, "UPDATE analytics.fct_order_lines SET revenue = revenue + 1000 WHERE order_line_id = " + line);
            QVERIFY(writer.ok());
            QProcess proc;
            QVERIFY(startPublishQueuedBehindALock(proc, db, spec, id));
            writer.end();
            QVERIFY(proc.waitForFinished(30000));
            pub.exitCode = proc.exitCode();
            pub.err = QString::fromUtf8(proc.readAllStandardError());
        }
        QVERIFY2(pub.exitCode == 4, qPrintable(pub.err));
        QVERIFY2(pub.err.contains(QStringLiteral("the target changed since validation")), qPrintable(pub.err));
        QVERIFY2(pub.err.contains(QStringLiteral("nothing was published")), qPrintable(pub.err));
        QCOMPARE(scalar(db, revenue), expected);
        QVERIFY(expected != was);
        QCOMPARE(statusOf(db, id), std::string("staged"));
        QCOMPARE(leftovers(db), std::string("0"));
        qInfo("%s: the write that committed during the lock wait survived; publish exit %d", qPrintable(strategy), pub.exitCode);
    }

    // Ctrl-C while publish waits for a writer of the window: the statement is cancelled,
    // the transaction rolls back whole, exit 5, and history says the backfill is still
    // staged; publishing it later works.
    void cancelDuringPublishRollsBackWhole()
    {
        const auto &[db, dir, spec, before, id] = stagedCopy("ps_cancel", QStringLiteral("replace"));
        QVERIFY(id > 0);
        {
            HeldTransaction writer(db, "SELECT 1 FROM analytics.fct_order_lines WHERE order_date = '2026-03-12' LIMIT 1 FOR UPDATE");
            QVERIFY(writer.ok());
            QProcess proc;
            QVERIFY(startPublishQueuedBehindALock(proc, db, spec, id));
            ::kill(static_cast<pid_t>(proc.processId()), SIGINT);
            QVERIFY(proc.waitForFinished(10000));
            QCOMPARE(proc.exitCode(), 5);
            const QString err = QString::fromUtf8(proc.readAllStandardError());
            QVERIFY2(err.contains(QStringLiteral("cancel")), qPrintable(err));
        }
        QVERIFY(dayHashes(db) == before);
        auto hist = test::runReprint(base(QStringLiteral("history"), db) << QStringLiteral("--format") << QStringLiteral("json"));
        QCOMPARE(hist.exitCode, 0);
        QCOMPARE(json(hist).value(QStringLiteral("backfills")).toArray().first().toObject().value(QStringLiteral("status")).toString(),
                 QStringLiteral("staged"));
        auto pub = publish(db, spec, id);
        QVERIFY2(pub.exitCode == 0, qPrintable(pub.err));
        QCOMPARE(targetOfWindow(db), truthOfWindow(db));
    }

    // The connection drops at COMMIT: before the server got it (rolled back) or after it
    // committed and before the client read the answer. The CLI and `history` then tell
    // what the warehouse holds, read back from it, not assumed.
    void commitLostInFlight_data() { commitLossCases(); }

    void commitLostInFlight()
    {
        QFETCH(bool, committed);
        const std::string name = committed ? "ps_commit_after" : "ps_commit_before";
        const std::string db = test::demoCopy(name);
        const auto before = dayHashes(db);
        const long long id = stage(db, demoSpec());
        QVERIFY(id > 0);

        warehouse::LocalCluster &cluster = demoCluster();
        SocketProxy proxy(cluster.socketDir(), cluster.port());
        QVERIFY(proxy.listening());
        const std::string viaProxy = throughProxy(db, proxy);
        QVERIFY(viaProxy != db);
        proxy.arm(committed ? SocketProxy::Mode::DropAfterCommit : SocketProxy::Mode::DropBeforeCommit);
        auto pub = publish(viaProxy, demoSpec(), id);
        QVERIFY(proxy.dropped());

        auto hist = test::runReprint(base(QStringLiteral("history"), db) << QStringLiteral("--format") << QStringLiteral("json"));
        QCOMPARE(hist.exitCode, 0);
        QString status;
        for (const QJsonValue &v : json(hist).value(QStringLiteral("backfills")).toArray())
            if (v.toObject().value(QStringLiteral("id")).toInteger() == id)
                status = v.toObject().value(QStringLiteral("status")).toString();
        if (committed) {
            QVERIFY2(pub.exitCode == 0, qPrintable(pub.err));
            QCOMPARE(status, QStringLiteral("published"));
            QCOMPARE(targetOfWindow(db), truthOfWindow(db));
        } else {
            QCOMPARE(pub.exitCode, 2);
            QVERIFY2(pub.err.contains(QStringLiteral("rolled back, nothing was published")), qPrintable(pub.err));
            QCOMPARE(status, QStringLiteral("staged"));
            QVERIFY(dayHashes(db) == before);
            auto again = publish(db, demoSpec(), id);
            QVERIFY2(again.exitCode == 0, qPrintable(again.err));
            QCOMPARE(targetOfWindow(db), truthOfWindow(db));
        }
    }

    // The same for undo: its COMMIT's outcome is read back, and the message and the
    // stored state agree (undone; or rolled back, still published, and undo runs again).
    void undoCommitLostInFlight_data() { commitLossCases(); }

    void undoCommitLostInFlight()
    {
        QFETCH(bool, committed);
        const std::string db = test::demoCopy(committed ? "ps_undo_after" : "ps_undo_before");
        const auto before = dayHashes(db);
        const long long id = stage(db, demoSpec());
        QVERIFY(id > 0);
        auto pub = publish(db, demoSpec(), id);
        QVERIFY2(pub.exitCode == 0, qPrintable(pub.err));
        const auto published = dayHashes(db);
        QVERIFY(published != before);

        warehouse::LocalCluster &cluster = demoCluster();
        SocketProxy proxy(cluster.socketDir(), cluster.port());
        QVERIFY(proxy.listening());
        const std::string viaProxy = throughProxy(db, proxy);
        QVERIFY(viaProxy != db);
        proxy.arm(committed ? SocketProxy::Mode::DropAfterCommit : SocketProxy::Mode::DropBeforeCommit);
        auto undo = test::runReprint(base(QStringLiteral("undo"), viaProxy) << QString::number(id));
        QVERIFY(proxy.dropped());
        const std::string status = scalar(db, "SELECT status FROM reprint.backfills WHERE id = $1", {std::to_string(id)});
        if (committed) {
            QVERIFY2(undo.exitCode == 0, qPrintable(undo.err));
            QCOMPARE(status, std::string("undone"));
            QVERIFY(dayHashes(db) == before);
        } else {
            QCOMPARE(undo.exitCode, 2);
            QVERIFY2(undo.err.contains(QStringLiteral("rolled back, nothing was undone")), qPrintable(undo.err));
            QVERIFY2(!undo.err.contains(QStringLiteral("check the connection string")), qPrintable(undo.err));
            QCOMPARE(status, std::string("published"));
            QVERIFY(dayHashes(db) == published);
            auto again = test::runReprint(base(QStringLiteral("undo"), db) << QString::number(id));
            QVERIFY2(again.exitCode == 0, qPrintable(again.err));
            QVERIFY(dayHashes(db) == before);
        }
    }
};

QTEST_GUILESS_MAIN(TestPublishStrategy)
#include "tst_publishstrategy.moc"
