// Reliability: the holes a hostile tester found, each as a regression test through the
// `reprint` CLI on copies of the demo warehouse. Data the demo does not cover lives in a
// model of its own (`odd`): columns named n, o and key, a float measure, keys that repeat.
#include "backfillfixture.h"

#include <QJsonArray>
#include <QProcess>

#include <cmath>
#include <csignal>

using namespace reprint;
using namespace reprint::test;
using warehouse::args;

namespace {

// The odd model: target odd.t and source odd.src with the same columns, three days of
// 2026-01. Day 2's float measure `o` holds 1e16, 1, -1e16 in different physical orders in
// the target and the source, so that a float sum depends on row order.
const char *kOddTables = R"sql(
CREATE SCHEMA odd;
CREATE TABLE odd.src (id int, n int, o float8, "key" text, day date);
CREATE TABLE odd.t (id int, n int, o float8, "key" text, day date);
INSERT INTO odd.src VALUES
  (1, 10, 1.5, 'a', '2026-01-01'), (2, 20, 2.5, 'b', '2026-01-01'),
  (3, 30, 1e16, 'c', '2026-01-02'), (4, 40, 1, 'd', '2026-01-02'), (5, 50, -1e16, 'e', '2026-01-02'),
  (6, 60, 4, 'f', '2026-01-03'), (7, 70, 5, 'g', '2026-01-03');
INSERT INTO odd.t VALUES
  (1, 10, 1.5, 'a', '2026-01-01'), (2, 20, 2.5, 'b', '2026-01-01'), (2, 21, 2.5, 'b', '2026-01-01'),
  (3, 30, 1e16, 'c', '2026-01-02'), (5, 50, -1e16, 'e', '2026-01-02'), (4, 40, 1, 'd', '2026-01-02'),
  (6, 60, 4, 'f', '2026-01-03'), (7, 71, 5, 'g', '2026-01-03');
)sql";

// A spec of the odd model alone, whose warehouse is `db`, so that every command it
// prints runs as printed (no --db). `check` is an extra check's SQL, if any.
QString oddSpec(QTemporaryDir &dir, const std::string &db, const QString &check = {})
{
    auto write = [&](const QString &name, const QString &text) {
        QFile f(dir.filePath(name));
        f.open(QIODevice::WriteOnly);
        f.write(text.toUtf8());
    };
    write(QStringLiteral("odd.sql"),
          QStringLiteral("SELECT s.id, s.n, s.o, s.\"key\", s.day FROM odd.src AS s WHERE s.day >= :start AND s.day < :end\n"));
    QString yaml = QStringLiteral("warehouse: \"%1\"\nmodels:\n  - name: odd\n    target: odd.t\n"
                                  "    partition: { column: day, grain: day, timezone: UTC }\n    key: [id]\n"
                                  "    measures: [o, n]\n    transform: odd.sql\n    publish: replace\n")
                       .arg(QString::fromStdString(db));
    if (!check.isEmpty()) {
        write(QStringLiteral("check.sql"), check);
        yaml += QStringLiteral("    checks:\n      - name: n matches source\n        measure: n\n        source: check.sql\n");
    }
    write(QStringLiteral("odd.yaml"), yaml);
    return dir.filePath(QStringLiteral("odd.yaml"));
}

std::string oddCopy(const std::string &name)
{
    const std::string db = test::demoCopy(name);
    auto r = test::execute(db, kOddTables);
    if (!r)
        qWarning("odd tables: %s", r.error().message.c_str());
    return db;
}

QStringList oddArgs(const QString &command, const QString &spec)
{
    return {command, QStringLiteral("--spec"), spec};
}

ProcessResult oddBackfill(const QString &spec, const QString &from = QStringLiteral("2026-01-01"),
                          const QString &to = QStringLiteral("2026-01-03"))
{
    return test::runReprint(oddArgs(QStringLiteral("backfill"), spec) << QStringLiteral("--model") << QStringLiteral("odd")
                                                                       << QStringLiteral("--from") << from << QStringLiteral("--to") << to);
}

// Every `reprint ...` command quoted in `text`, split into arguments (paths have no spaces here).
QList<QStringList> commandsIn(const QString &text)
{
    QList<QStringList> out;
    static const QRegularExpression quoted(QStringLiteral("`(reprint [^`]+)`"));
    for (auto it = quoted.globalMatch(text); it.hasNext();) {
        QStringList words = it.next().captured(1).split(QLatin1Char(' '), Qt::SkipEmptyParts);
        words.removeFirst();
        out.append(words);
    }
    return out;
}

} // namespace

class TestReliability : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(QFile::exists(demoSpec()), "the demo fixture did not write its spec");
    }

    // Columns named n, o and key no longer clash with the row diff's SQL; a key the target
    // repeats is paired, not fanned out, and said; float totals do not depend on row order,
    // and the review says which measures are floating point.
    void oddColumnsRepeatedOldKeysAndFloatMeasures()
    {
        const std::string db = oddCopy("rel_odd");
        QTemporaryDir dir;
        const QString spec = oddSpec(dir, db);
        auto bf = oddBackfill(spec);
        QVERIFY2(bf.exitCode == 0, qPrintable(bf.err));
        const long long id = backfillIdFrom(bf);
        QVERIFY(id > 0);
        auto review = test::runReprint(oddArgs(QStringLiteral("diff"), spec) << QString::number(id) << QStringLiteral("--format")
                                                                              << QStringLiteral("json"));
        QVERIFY2(review.exitCode == 0, qPrintable(review.err));
        const QJsonObject r = json(review);
        QCOMPARE(r.value(QStringLiteral("float_measures")).toArray(), QJsonArray{QStringLiteral("o")});
        const std::string exact = scalar(db, "SELECT sum(o::numeric)::text FROM odd.src WHERE day = '2026-01-02'");
        QCOMPARE(exact, std::string("1"));
        bool sawDay2 = false;
        for (const QJsonValue &p : r.value(QStringLiteral("partitions")).toArray()) {
            const QJsonObject part = p.toObject();
            if (part.value(QStringLiteral("partition")).toString() != QLatin1String("2026-01-02"))
                continue;
            sawDay2 = true;
            const QJsonObject o = part.value(QStringLiteral("measures")).toObject().value(QStringLiteral("o")).toObject();
            QCOMPARE(o.value(QStringLiteral("old")).toVariant().toString().toStdString(), exact);
            QCOMPARE(o.value(QStringLiteral("new")).toVariant().toString().toStdString(), exact);
            QCOMPARE(o.value(QStringLiteral("verdict")).toString(), QStringLiteral("unchanged"));
        }
        QVERIFY(sawDay2);

        auto rows = test::runReprint(oddArgs(QStringLiteral("diff"), spec) << QString::number(id) << QStringLiteral("--rows")
                                                                            << QStringLiteral("2026-01-01") << QStringLiteral("--format")
                                                                            << QStringLiteral("json"));
        QVERIFY2(rows.exitCode == 0, qPrintable(rows.err));
        const QJsonObject d = json(rows);
        // The target holds id 2 twice, the stage once: one row paired, one removed, none multiplied.
        QCOMPARE(d.value(QStringLiteral("old_repeats")).toInt(), 1);
        QCOMPARE(d.value(QStringLiteral("new_repeats")).toInt(), 0);
        QCOMPARE(d.value(QStringLiteral("removed")).toInt(), 1);
        QCOMPARE(d.value(QStringLiteral("added")).toInt(), 0);
        QCOMPARE(d.value(QStringLiteral("changed")).toInt(), 0);
        // The stored sample (what the review shows once the stage is gone) holds the removed
        // row as the target holds it: its own columns, none of the diff's.
        const std::string stored = "FROM reprint.row_diffs AS r, jsonb_array_elements(r.sample) AS e WHERE r.backfill_id = "
                                   + std::to_string(id) + " AND r.partition = '2026-01-01'";
        QCOMPARE(scalar(db, "SELECT count(*)::text " + stored), std::string("1"));
        QCOMPARE(scalar(db, "SELECT (e->'old'->>'id') " + stored), std::string("2"));
        QCOMPARE(scalar(db, "SELECT (SELECT string_agg(k, ',' ORDER BY k) FROM jsonb_object_keys(e->'old') AS k) " + stored),
                 std::string("day,id,key,n,o"));
        auto table = test::runReprint(oddArgs(QStringLiteral("diff"), spec) << QString::number(id) << QStringLiteral("--rows")
                                                                             << QStringLiteral("2026-01-01"));
        QVERIFY2(table.out.contains(QStringLiteral("the key repeats")), qPrintable(table.out));
        qInfo("odd columns n/o/key diffed; old side repeats %d; float totals exact", d.value(QStringLiteral("old_repeats")).toInt());
    }

    // A one-partition window is its own first and last partition: its row diff is stored
    // too (it used to be skipped), and matches an independent count.
    void onePartitionWindowKeepsItsRowDiff()
    {
        const std::string db = oddCopy("rel_one_day");
        QTemporaryDir dir;
        const QString spec = oddSpec(dir, db);
        auto bf = oddBackfill(spec, QStringLiteral("2026-01-03"), QStringLiteral("2026-01-03"));
        QVERIFY2(bf.exitCode == 0 || bf.exitCode == 3, qPrintable(bf.err));
        QCOMPARE(scalar(db, "SELECT count(*) || ' ' || string_agg(partition || ':' || changed, ',') FROM reprint.row_diffs"),
                 "1 2026-01-03:" + scalar(db, "SELECT count(*) FROM odd.t t JOIN odd.src s USING (id) WHERE t.day = '2026-01-03' "
                                              "AND (t.n, t.o, t.\"key\") IS DISTINCT FROM (s.n, s.o, s.\"key\")"));
    }

    // A transform that emits a key twice is refused at staging, naming the key and the
    // partition; the backfill is failed (not staging) with its error stored, its claim let
    // go at once, and the target untouched.
    void repeatedNewKeysAreRefusedAtStaging()
    {
        const std::string db = oddCopy("rel_dupkeys");
        QVERIFY(test::execute(db, "INSERT INTO odd.src VALUES (6, 61, 4, 'f2', '2026-01-03')").ok());
        const std::string before = scalar(db, "SELECT md5(string_agg(t::text, '|' ORDER BY t::text)) FROM odd.t t");
        QTemporaryDir dir;
        const QString spec = oddSpec(dir, db);
        auto bf = oddBackfill(spec);
        QCOMPARE(bf.exitCode, 1);
        QVERIFY2(bf.err.contains(QStringLiteral("more than once in partition 2026-01-03")), qPrintable(bf.err));
        QVERIFY2(bf.err.contains(QStringLiteral("key id = (6)")), qPrintable(bf.err));
        QCOMPARE(scalar(db, "SELECT status FROM reprint.backfills"), std::string("failed"));
        QCOMPARE(scalar(db, "SELECT count(*) FROM reprint.claims WHERE lease_expires > now()"), std::string("0"));
        QCOMPARE(scalar(db, "SELECT md5(string_agg(t::text, '|' ORDER BY t::text)) FROM odd.t t"), before);
    }

    // The source checks run on sessions that plan without parallel workers (they already
    // run three at a time, beside the staging), in the backfill's validation and in the drift
    // guard alike, while the server's own setting stays as it is. The check scales its value
    // by the session's setting, so it agrees with the target only when the setting is 0.
    void sourceChecksRunWithoutParallelWorkers()
    {
        const std::string db = oddCopy("rel_serialchecks");
        const std::string serverSetting = scalar(db, "SELECT current_setting('max_parallel_workers_per_gather')");
        QVERIFY2(serverSetting != "0", serverSetting.c_str());
        QTemporaryDir dir;
        const QString spec = oddSpec(dir, db,
                                     QStringLiteral("SELECT s.day AS partition, sum(s.n) * (1 + current_setting('max_parallel_workers_per_gather')::int) "
                                                    "AS value FROM odd.src AS s WHERE s.day >= :start AND s.day < :end GROUP BY 1\n"));
        auto bf = oddBackfill(spec);
        QVERIFY2(bf.exitCode == 0, qPrintable(bf.out + bf.err));
        const long long id = backfillIdFrom(bf);
        QCOMPARE(scalar(db, "SELECT validation FROM reprint.backfills WHERE id = " + std::to_string(id)), std::string("passed"));
        auto pub = test::runReprint(oddArgs(QStringLiteral("publish"), spec) << QString::number(id) << QStringLiteral("--approve")
                                                                              << QStringLiteral("serial checks agree"));
        QVERIFY2(pub.exitCode == 0, qPrintable(pub.out + pub.err));
        QCOMPARE(scalar(db, "SELECT sum(n)::text FROM odd.t"), scalar(db, "SELECT sum(n)::text FROM odd.src"));
        QCOMPARE(scalar(db, "SELECT current_setting('max_parallel_workers_per_gather')"), serverSetting);
    }

    // A check that cannot run (it returns text) used to leave the backfill `staging` with
    // no error and its claim held for the lease. Now it is failed with the error stored, and
    // the printed abandon runs as printed and frees the window at once.
    void failingCheckNeverLeavesAZombie()
    {
        const std::string db = oddCopy("rel_zombie");
        QTemporaryDir dir;
        const QString spec = oddSpec(dir, db,
                                     QStringLiteral("SELECT c.day::timestamptz AS partition, c.\"key\" AS value FROM odd.src AS c "
                                                    "WHERE c.day >= :start AND c.day < :end\n"));
        auto bf = oddBackfill(spec);
        QVERIFY2(bf.exitCode != 0, qPrintable(bf.err));
        QCOMPARE(scalar(db, "SELECT status FROM reprint.backfills"), std::string("failed"));
        QVERIFY(scalar(db, "SELECT coalesce(error, '') FROM reprint.backfills") != "");
        QCOMPARE(scalar(db, "SELECT count(*) FROM reprint.claims WHERE lease_expires > now()"), std::string("0"));
        const QList<QStringList> hints = commandsIn(bf.err);
        QStringList abandon;
        for (const QStringList &c : hints)
            if (c.first() == QLatin1String("abandon"))
                abandon = c;
        QVERIFY2(!abandon.isEmpty(), qPrintable(bf.err));
        QVERIFY2(abandon.contains(QStringLiteral("--spec")), qPrintable(abandon.join(QLatin1Char(' '))));
        auto freed = test::runReprint(abandon);
        QVERIFY2(freed.exitCode == 0, qPrintable(freed.err));
        QCOMPARE(scalar(db, "SELECT status FROM reprint.backfills"), std::string("abandoned"));
        qInfo("ran as printed: reprint %s", qPrintable(abandon.join(QLatin1Char(' '))));
    }

    // Every command a failed validation suggests runs as printed (the spec path included):
    // the narrow demo window names the wider one and the abandon that frees it.
    void hintsOfAFailedValidationRunAsPrinted()
    {
        const std::string db = test::demoCopy("rel_hints");
        QTemporaryDir dir;
        const QString spec = specCopy(dir, [&](QString &yaml) {
            yaml.replace(QRegularExpression(QStringLiteral("^warehouse: .*$"), QRegularExpression::MultilineOption),
                         QStringLiteral("warehouse: \"%1\"").arg(QString::fromStdString(db)));
        });
        auto bf = test::runReprint(oddArgs(QStringLiteral("backfill"), spec) << QStringLiteral("--model") << QStringLiteral("fct_order_lines")
                                                                              << QStringLiteral("--from") << QStringLiteral("2026-03-10")
                                                                              << QStringLiteral("--to") << QStringLiteral("2026-03-14"));
        QCOMPARE(bf.exitCode, 3);
        const QList<QStringList> hints = commandsIn(bf.err + bf.out);
        QVERIFY2(!hints.isEmpty(), qPrintable(bf.err));
        int ran = 0;
        for (QStringList c : hints) {
            QVERIFY2(c.contains(QStringLiteral("--spec")), qPrintable(c.join(QLatin1Char(' '))));
            // Publishing with --override is one of the ways out, not a command to run here.
            if (c.first() != QLatin1String("abandon") && c.first() != QLatin1String("diff"))
                continue;
            auto r = test::runReprint(c);
            QVERIFY2(r.exitCode == 0, qPrintable(c.join(QLatin1Char(' ')) + QStringLiteral(": ") + r.err));
            ++ran;
        }
        QVERIFY(ran > 0);
        qInfo("%lld commands printed, %d run as printed", static_cast<long long>(hints.size()), ran);
    }

    // `status` without --from/--to shows the latest 31 partitions that hold data and says so.
    void statusWithoutAWindowShowsTheLatestPartitions()
    {
        const std::string db = test::demoCopy("rel_status");
        auto st = test::runReprint(base(QStringLiteral("status"), db) << QStringLiteral("--model")
                                                                                                << QStringLiteral("fct_order_lines")
                                                                                                << QStringLiteral("--format")
                                                                                                << QStringLiteral("json"));
        QVERIFY2(st.exitCode == 0, qPrintable(st.err));
        const QJsonArray parts = json(st).value(QStringLiteral("partitions")).toArray();
        QCOMPARE(parts.size(), 31);
        const std::string newest = scalar(db, "SELECT max(order_date)::text FROM analytics.fct_order_lines");
        QCOMPARE(parts.last().toObject().value(QStringLiteral("partition")).toString().toStdString(), newest);
        QVERIFY2(st.err.contains(QStringLiteral("showing the latest 31 partitions")), qPrintable(st.err));
    }

    // A backfill whose process was stopped past its lease, while another backfill took the
    // window over, sees that it lost its claim when it runs again: exit 4, never "staged".
    void claimTakenOverWhileStoppedIsNoticed()
    {
        const std::string db = test::demoCopy("rel_lost_claim");
        QTemporaryDir dir;
        const QString spec = slowSpec(dir, 0.6);
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("REPRINT_LEASE_SECONDS"), QStringLiteral("3"));
        const QStringList backfill = base(QStringLiteral("backfill"), db, spec)
                                     << QStringLiteral("--model") << QStringLiteral("fct_order_lines") << QStringLiteral("--from")
                                     << QStringLiteral("2026-03-09") << QStringLiteral("--to") << QStringLiteral("2026-03-14");
        QProcess a;
        a.setProcessEnvironment(env);
        a.start(test::reprintBinary(), backfill);
        QVERIFY(a.waitForStarted());
        QTRY_VERIFY_WITH_TIMEOUT(scalar(db, "SELECT count(*) FROM reprint.backfill_partitions WHERE state = 'staged'") == "1", 30000);
        ::kill(static_cast<pid_t>(a.processId()), SIGSTOP);
        QTest::qWait(5000);
        QProcess b;
        b.setProcessEnvironment(env);
        b.start(test::reprintBinary(), backfill);
        QVERIFY(b.waitForStarted());
        QTRY_VERIFY_WITH_TIMEOUT(scalar(db, "SELECT count(*) FROM reprint.backfills WHERE id > 1") == "1", 30000);
        QTRY_VERIFY_WITH_TIMEOUT(scalar(db, "SELECT count(*) FROM reprint.claims WHERE backfill_id > 1") == "1", 30000);
        ::kill(static_cast<pid_t>(a.processId()), SIGCONT);
        QVERIFY(a.waitForFinished(60000));
        const QString aErr = QString::fromUtf8(a.readAllStandardError());
        QVERIFY2(a.exitCode() == 4, qPrintable(aErr));
        QVERIFY2(aErr.contains(QStringLiteral("lost its claim")), qPrintable(aErr));
        QVERIFY2(!aErr.contains(QStringLiteral("then publish")), qPrintable(aErr));
        QVERIFY(b.waitForFinished(120000));
        QVERIFY2(b.exitCode() == 0, qPrintable(QString::fromUtf8(b.readAllStandardError())));
        QCOMPARE(scalar(db, "SELECT string_agg(id || ' ' || status, ', ' ORDER BY id) FROM reprint.backfills"),
                 std::string("1 failed, 2 staged"));
    }

    // A model partitioned by a date in Europe/Berlin whose transform turns a timestamptz
    // into a timestamp: every session of the engine runs in UTC, so the transform's values
    // mean what the scheduled run's do (no +1 h shift), while the partitions still follow
    // Berlin's days. A column no measure covers that did change (label, on the boundary
    // day) is reported as unexpected, with a diff command that runs as printed.
    void sessionZoneNeverShiftsValuesAndUncoveredChangesAreUnexpected()
    {
        const std::string db = test::demoCopy("rel_zoned");
        auto made = test::execute(db, R"sql(
CREATE SCHEMA zoned;
CREATE TABLE zoned.src (id int, day date, seen_at timestamptz, label text, amount numeric);
INSERT INTO zoned.src SELECT i, date '2026-01-01' + (i % 3), timestamptz '2026-01-01 10:00+00' + i * interval '1 hour',
                             'item ' || i, i * 1.5 FROM generate_series(1, 30) AS i;
CREATE TABLE zoned.t (id int, day date, seen timestamp, label text, amount numeric);
INSERT INTO zoned.t SELECT id, day, seen_at AT TIME ZONE 'UTC', label, amount FROM zoned.src;
UPDATE zoned.t SET label = 'stale' WHERE id IN (3, 6);
)sql");
        QVERIFY2(made.ok(), made.ok() ? "" : made.error().message.c_str());
        QTemporaryDir dir;
        {
            QFile t(dir.filePath(QStringLiteral("zoned.sql")));
            QVERIFY(t.open(QIODevice::WriteOnly));
            t.write("SELECT s.id, s.day, s.seen_at::timestamp AS seen, s.label, s.amount FROM zoned.src AS s\n"
                    "WHERE s.day >= :start AND s.day < :end\n");
            QFile y(dir.filePath(QStringLiteral("zoned.yaml")));
            QVERIFY(y.open(QIODevice::WriteOnly));
            y.write(QStringLiteral("warehouse: \"%1\"\nmodels:\n  - name: zoned\n    target: zoned.t\n"
                                   "    partition: { column: day, grain: day, timezone: Europe/Berlin }\n    key: [id]\n"
                                   "    measures: [amount]\n    transform: zoned.sql\n    publish: replace\n")
                        .arg(QString::fromStdString(db))
                        .toUtf8());
        }
        const QString spec = dir.filePath(QStringLiteral("zoned.yaml"));
        auto bf = test::runReprint(oddArgs(QStringLiteral("backfill"), spec) << QStringLiteral("--model") << QStringLiteral("zoned")
                                                                              << QStringLiteral("--from") << QStringLiteral("2026-01-01")
                                                                              << QStringLiteral("--to") << QStringLiteral("2026-01-03"));
        QVERIFY2(bf.exitCode == 0, qPrintable(bf.err));
        const long long id = backfillIdFrom(bf);
        // The totals follow Berlin's days, counted independently.
        auto review = test::runReprint(oddArgs(QStringLiteral("diff"), spec) << QString::number(id) << QStringLiteral("--format")
                                                                              << QStringLiteral("json"));
        QVERIFY2(review.exitCode == 0, qPrintable(review.err));
        const QJsonObject r = json(review);
        int checked = 0;
        for (const QJsonValue &p : r.value(QStringLiteral("partitions")).toArray()) {
            const QJsonObject part = p.toObject();
            if (!part.value(QStringLiteral("in_scope")).toBool())
                continue;
            const std::string day = part.value(QStringLiteral("partition")).toString().toStdString();
            const QJsonObject rows = part.value(QStringLiteral("measures")).toObject().value(QStringLiteral("rows")).toObject();
            QCOMPARE(rows.value(QStringLiteral("new")).toVariant().toString().toStdString(),
                     scalar(db, "SELECT count(*)::text FROM zoned.src WHERE day = $1::date", {day}));
            ++checked;
        }
        QCOMPARE(checked, 3);
        // No value shifted: the timestamp column is unchanged on both boundary days.
        for (const char *day : {"2026-01-01", "2026-01-03"}) {
            auto rows = test::runReprint(oddArgs(QStringLiteral("diff"), spec) << QString::number(id) << QStringLiteral("--rows")
                                                                                << QString::fromLatin1(day) << QStringLiteral("--format")
                                                                                << QStringLiteral("json"));
            QVERIFY2(rows.exitCode == 0, qPrintable(rows.err));
            QCOMPARE(json(rows).value(QStringLiteral("column_changes")).toObject().value(QStringLiteral("seen")).toInt(), 0);
        }
        // label changed on the boundary days (ids 3 and 6 are on 2026-01-01): unexpected.
        const QJsonArray unexpected = r.value(QStringLiteral("unexpected_columns")).toArray();
        QCOMPARE(unexpected.size(), 1);
        const QJsonObject u = unexpected.first().toObject();
        QCOMPARE(u.value(QStringLiteral("partition")).toString(), QStringLiteral("2026-01-01"));
        QCOMPARE(u.value(QStringLiteral("column")).toString(), QStringLiteral("label"));
        QCOMPARE(u.value(QStringLiteral("rows")).toInt(),
                 std::stoi(scalar(db, "SELECT count(*) FROM zoned.t t JOIN zoned.src s USING (id) WHERE t.label <> s.label AND t.day = '2026-01-01'")));
        QCOMPARE(u.value(QStringLiteral("verdict")).toString(), QStringLiteral("unexpected"));
        auto table = test::runReprint(oddArgs(QStringLiteral("diff"), spec) << QString::number(id));
        QVERIFY2(table.out.contains(QStringLiteral("UNEXPECTED: 2 rows of 2026-01-01 changed column label")), qPrintable(table.out));
        const QList<QStringList> hints = commandsIn(table.out);
        QCOMPARE(hints.size(), 1);
        auto ran = test::runReprint(hints.first());
        QVERIFY2(ran.exitCode == 0 && ran.out.contains(QStringLiteral("label: 2 changed")), qPrintable(ran.out + ran.err));
        qInfo("Berlin days under a UTC session: 0 shifted values, 1 unexpected column reported");
    }

    // A cascade is one approval and every part of it is shown: the backfill's stderr names
    // each member, `diff ROOT` and the packet hold every member's review, a member cannot
    // be abandoned alone (its hint runs as printed), and publish refuses a member whose
    // review was never produced, changing nothing. Without --cascade, the review says which
    // downstream model goes stale.
    void cascadeIsShownWholeAndPublishedOnlyWhenEveryMemberWasReviewed()
    {
        const std::string db = test::demoCopy("rel_cascade");
        QTemporaryDir dir;
        const QString spec = specCopy(dir, [&](QString &yaml) {
            yaml.replace(QRegularExpression(QStringLiteral("^warehouse: .*$"), QRegularExpression::MultilineOption),
                         QStringLiteral("warehouse: \"%1\"").arg(QString::fromStdString(db)));
        });
        const QStringList window{QStringLiteral("--model"), QStringLiteral("fct_order_lines"), QStringLiteral("--from"),
                                 QStringLiteral("2026-03-09"), QStringLiteral("--to"), QStringLiteral("2026-03-14")};
        // Without --cascade: the downstream is named stale in the review.
        auto alone = test::runReprint(oddArgs(QStringLiteral("backfill"), spec) << window);
        QVERIFY2(alone.exitCode == 0, qPrintable(alone.err));
        const long long aloneId = backfillIdFrom(alone);
        QVERIFY2(alone.out.contains(QStringLiteral("STALE: downstream agg_daily_revenue")), qPrintable(alone.out));
        auto aloneJson = test::runReprint(oddArgs(QStringLiteral("diff"), spec) << QString::number(aloneId) << QStringLiteral("--format")
                                                                                 << QStringLiteral("json"));
        const QJsonArray stale = json(aloneJson).value(QStringLiteral("stale_downstream")).toArray();
        QCOMPARE(stale.size(), 1);
        QVERIFY(stale.first().toString().startsWith(QLatin1String("agg_daily_revenue ")));
        QVERIFY(test::runReprint(oddArgs(QStringLiteral("abandon"), spec) << QString::number(aloneId)).exitCode == 0);

        auto bf = test::runReprint(oddArgs(QStringLiteral("backfill"), spec) << window << QStringLiteral("--cascade"));
        QVERIFY2(bf.exitCode == 0, qPrintable(bf.err));
        const long long root = backfillIdFrom(bf);
        const std::string member = scalar(db, "SELECT id::text FROM reprint.backfills WHERE parent_id = $1", {std::to_string(root)});
        QVERIFY2(bf.err.contains(QStringLiteral("its cascade staged agg_daily_revenue 2026-03-09..2026-03-14 as backfill %1")
                                     .arg(QString::fromStdString(member))),
                 qPrintable(bf.err));

        // diff ROOT holds both reviews, each with its own totals.
        auto diff = test::runReprint(oddArgs(QStringLiteral("diff"), spec) << QString::number(root) << QStringLiteral("--format")
                                                                            << QStringLiteral("json"));
        QVERIFY2(diff.exitCode == 0, qPrintable(diff.err));
        const QJsonObject d = json(diff);
        QCOMPARE(d.value(QStringLiteral("cascade_members")).toArray().size(), 2);
        const QJsonArray members = d.value(QStringLiteral("cascade")).toArray();
        QCOMPARE(members.size(), 1);
        const QJsonObject agg = members.first().toObject();
        QCOMPARE(agg.value(QStringLiteral("model")).toString(), QStringLiteral("agg_daily_revenue"));
        for (const QJsonValue &p : agg.value(QStringLiteral("partitions")).toArray()) {
            const QJsonObject part = p.toObject();
            if (!part.value(QStringLiteral("in_scope")).toBool())
                continue;
            const std::string day = part.value(QStringLiteral("partition")).toString().toStdString();
            const double shown = part.value(QStringLiteral("measures")).toObject().value(QStringLiteral("revenue")).toObject()
                                     .value(QStringLiteral("new")).toDouble();
            const double truth = std::stod(scalar(db, "SELECT sum(round(l.quantity * l.unit_price * (1 - l.discount), 2))::text FROM raw.order_lines l "
                                                      "JOIN raw.orders o USING (order_id) WHERE (o.ordered_at AT TIME ZONE 'UTC')::date = $1::date",
                                                  {day}));
            QVERIFY2(std::abs(shown - truth) < 0.005, (day + ": " + std::to_string(shown) + " vs " + std::to_string(truth)).c_str());
        }
        // The packet holds the downstream model too.
        const QString html = dir.filePath(QStringLiteral("cascade.html"));
        auto report = test::runReprint(oddArgs(QStringLiteral("report"), spec) << QString::number(root) << QStringLiteral("--out") << html);
        QVERIFY2(report.exitCode == 0, qPrintable(report.err));
        QFile packet(html);
        QVERIFY(packet.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(packet.readAll());
        QVERIFY(text.contains(QStringLiteral("Downstream in the cascade: backfill %1, agg_daily_revenue").arg(QString::fromStdString(member))));
        QVERIFY(text.contains(QStringLiteral("A cascade of 2 backfills")));

        // A member is never abandoned alone; the printed command runs.
        auto part = test::runReprint(oddArgs(QStringLiteral("abandon"), spec) << QString::fromStdString(member));
        QCOMPARE(part.exitCode, 1);
        const QList<QStringList> hints = commandsIn(part.err);
        QCOMPARE(hints.size(), 1);
        QCOMPARE(hints.first().first(), QStringLiteral("abandon"));
        QCOMPARE(hints.first().last(), QString::number(root));
        QVERIFY(hints.first().contains(QStringLiteral("--spec")));

        // A member with no review: publish refuses and changes nothing.
        const auto before = dayHashes(db);
        QVERIFY(test::execute(db, "UPDATE reprint.backfills SET validation = NULL WHERE id = " + member).ok());
        auto pub = test::runReprint(oddArgs(QStringLiteral("publish"), spec) << QString::number(root) << QStringLiteral("--approve")
                                                                              << QStringLiteral("x"));
        QCOMPARE(pub.exitCode, 3);
        QVERIFY2(pub.err.contains(QStringLiteral("was never validated")), qPrintable(pub.err));
        QVERIFY(dayHashes(db) == before);
        QCOMPARE(scalar(db, "SELECT string_agg(status, ',' ORDER BY id) FROM reprint.backfills WHERE id >= $1", {std::to_string(root)}),
                 std::string("staged,staged"));
        QVERIFY(test::execute(db, "UPDATE reprint.backfills SET validation = 'passed' WHERE id = " + member).ok());
        pub = test::runReprint(oddArgs(QStringLiteral("publish"), spec) << QString::number(root) << QStringLiteral("--approve")
                                                                         << QStringLiteral("both reviewed"));
        QVERIFY2(pub.exitCode == 0, qPrintable(pub.err));
        QCOMPARE(scalar(db, "SELECT string_agg(status, ',' ORDER BY id) FROM reprint.backfills WHERE id >= $1", {std::to_string(root)}),
                 std::string("published,published"));
    }

    // Issue 14 item 1: a cascade's plan lets the user leave a downstream model out. A chain
    // day -> week -> month: a window of 2026-03-28..31 (Saturday to Tuesday) reaches weeks
    // 13..14, and week 14 ends in April, so the month model gets 2026-03..2026-04 (the
    // engine maps each model from its upstreams' windows, not from the root's). Leaving the
    // week model out leaves the month model out too (it would read the week's old rows);
    // both are named stale in the run and the stored review, and only the rest is staged
    // and published.
    void leftOutDownstreamIsStaleAndNeverWritten()
    {
        const std::string db = test::demoCopy("rel_leaveout");
        QVERIFY(test::execute(db, "CREATE TABLE analytics.agg_weekly_revenue (week_start date PRIMARY KEY, revenue numeric);"
                                  "INSERT INTO analytics.agg_weekly_revenue SELECT date_trunc('week', order_date)::date, sum(revenue) "
                                  "FROM analytics.agg_daily_revenue GROUP BY 1;"
                                  "CREATE TABLE analytics.agg_monthly_revenue (month_start date PRIMARY KEY, revenue numeric);"
                                  "INSERT INTO analytics.agg_monthly_revenue SELECT date_trunc('month', week_start)::date, sum(revenue) "
                                  "FROM analytics.agg_weekly_revenue GROUP BY 1;")
                    .ok());
        QTemporaryDir dir;
        auto write = [&](const QString &name, const QString &text) {
            QFile f(dir.filePath(name));
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(text.toUtf8());
        };
        const QString spec = specCopy(dir, [&](QString &yaml) {
            yaml.replace(QRegularExpression(QStringLiteral("^warehouse: .*$"), QRegularExpression::MultilineOption),
                         QStringLiteral("warehouse: \"%1\"").arg(QString::fromStdString(db)));
            yaml += QStringLiteral(
                "\n  - name: agg_weekly_revenue\n    target: analytics.agg_weekly_revenue\n"
                "    partition: { column: week_start, grain: week, timezone: UTC }\n    key: [week_start]\n"
                "    measures: [revenue]\n    transform: weekly.sql\n    depends_on: [agg_daily_revenue]\n    publish: replace\n"
                "\n  - name: agg_monthly_revenue\n    target: analytics.agg_monthly_revenue\n"
                "    partition: { column: month_start, grain: month, timezone: UTC }\n    key: [month_start]\n"
                "    measures: [revenue]\n    transform: monthly.sql\n    depends_on: [agg_weekly_revenue]\n    publish: replace\n");
        });
        write(QStringLiteral("weekly.sql"),
              QStringLiteral("SELECT date_trunc('week', order_date)::date AS week_start, sum(revenue) AS revenue "
                             "FROM {{ agg_daily_revenue }} WHERE order_date >= :start AND order_date < :end GROUP BY 1\n"));
        write(QStringLiteral("monthly.sql"),
              QStringLiteral("SELECT date_trunc('month', week_start)::date AS month_start, sum(revenue) AS revenue "
                             "FROM {{ agg_weekly_revenue }} WHERE week_start >= :start AND week_start < :end GROUP BY 1\n"));
        const QStringList window{QStringLiteral("--model"), QStringLiteral("fct_order_lines"), QStringLiteral("--from"),
                                 QStringLiteral("2026-03-28"), QStringLiteral("--to"), QStringLiteral("2026-03-31")};

        // Bad leave-outs change nothing and say what would be right.
        auto noCascade = test::runReprint(oddArgs(QStringLiteral("backfill"), spec) << window << QStringLiteral("--leave-out")
                                                                                      << QStringLiteral("agg_weekly_revenue"));
        QCOMPARE(noCascade.exitCode, 1);
        QVERIFY2(noCascade.err.contains(QStringLiteral("--leave-out needs --cascade")), qPrintable(noCascade.err));
        auto unknown = test::runReprint(oddArgs(QStringLiteral("backfill"), spec) << window << QStringLiteral("--cascade")
                                                                                   << QStringLiteral("--leave-out") << QStringLiteral("fct_order_lines"));
        QCOMPARE(unknown.exitCode, 1);
        QVERIFY2(unknown.err.contains(QStringLiteral("not downstream of fct_order_lines"))
                     && unknown.err.contains(QStringLiteral("agg_daily_revenue, agg_weekly_revenue, agg_monthly_revenue")),
                 qPrintable(unknown.err));
        QCOMPARE(scalar(db, "SELECT count(*) FROM reprint.backfills"), std::string("0"));

        // The whole chain: the month model gets both months its weeks touch.
        auto whole = test::runReprint(oddArgs(QStringLiteral("backfill"), spec) << window << QStringLiteral("--cascade"));
        QVERIFY2(whole.exitCode == 0, qPrintable(whole.err));
        QCOMPARE(scalar(db, "SELECT string_agg(model || ' ' || from_partition || '..' || to_partition, ', ' ORDER BY id) "
                            "FROM reprint.backfills"),
                 std::string("fct_order_lines 2026-03-28..2026-03-31, agg_daily_revenue 2026-03-28..2026-03-31, "
                             "agg_weekly_revenue 2026-W13..2026-W14, agg_monthly_revenue 2026-03..2026-04"));
        QVERIFY(test::runReprint(oddArgs(QStringLiteral("abandon"), spec) << QString::number(backfillIdFrom(whole))).exitCode == 0);

        // The week model left out: the month model is out with it.
        const std::string weeksBefore = scalar(db, "SELECT string_agg(week_start || '=' || revenue, ',' ORDER BY week_start) "
                                                   "FROM analytics.agg_weekly_revenue");
        const std::string monthsBefore = scalar(db, "SELECT string_agg(month_start || '=' || revenue, ',' ORDER BY month_start) "
                                                    "FROM analytics.agg_monthly_revenue");
        auto bf = test::runReprint(oddArgs(QStringLiteral("backfill"), spec) << window << QStringLiteral("--cascade")
                                                                              << QStringLiteral("--leave-out") << QStringLiteral("agg_weekly_revenue")
                                                                              << QStringLiteral("--format") << QStringLiteral("json"));
        QVERIFY2(bf.exitCode == 0, qPrintable(bf.err));
        const QJsonObject review = json(bf);
        const QJsonArray members = review.value(QStringLiteral("cascade")).toArray();
        QCOMPARE(members.size(), 1);
        QCOMPARE(members.first().toObject().value(QStringLiteral("model")).toString(), QStringLiteral("agg_daily_revenue"));
        QVERIFY2(bf.err.contains(QStringLiteral("downstream agg_weekly_revenue 2026-W13..2026-W14 will be stale"))
                     && bf.err.contains(QStringLiteral("downstream agg_monthly_revenue 2026-03..2026-04 will be stale"))
                     && bf.err.contains(QStringLiteral("left out of the cascade")),
                 qPrintable(bf.err));
        const QString id = QString::number(review.value(QStringLiteral("backfill")).toInteger());
        auto diff = test::runReprint(oddArgs(QStringLiteral("diff"), spec) << id << QStringLiteral("--format") << QStringLiteral("json"));
        QVERIFY2(diff.exitCode == 0, qPrintable(diff.err));
        QStringList stale;
        for (const QJsonValue &v : json(diff).value(QStringLiteral("stale_downstream")).toArray())
            stale << v.toString();
        QCOMPARE(stale, (QStringList{QStringLiteral("agg_weekly_revenue 2026-W13..2026-W14"),
                                     QStringLiteral("agg_monthly_revenue 2026-03..2026-04")}));
        // The packet says so too.
        const QString html = dir.filePath(QStringLiteral("leaveout.html"));
        QVERIFY(test::runReprint(oddArgs(QStringLiteral("report"), spec) << id << QStringLiteral("--out") << html).exitCode == 0);
        QFile packet(html);
        QVERIFY(packet.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(packet.readAll());
        QVERIFY(text.contains(QStringLiteral("Stale after publish: downstream agg_weekly_revenue 2026-W13..2026-W14")));
        QVERIFY(text.contains(QStringLiteral("Stale after publish: downstream agg_monthly_revenue 2026-03..2026-04")));

        auto pub = test::runReprint(oddArgs(QStringLiteral("publish"), spec) << id << QStringLiteral("--approve") << QStringLiteral("weeks later"));
        QVERIFY2(pub.exitCode == 0, qPrintable(pub.err));
        QCOMPARE(scalar(db, "SELECT string_agg(model || ':' || status, ',' ORDER BY id) FROM reprint.backfills WHERE id >= $1",
                        {id.toStdString()}),
                 std::string("fct_order_lines:published,agg_daily_revenue:published"));
        QCOMPARE(scalar(db, "SELECT string_agg(week_start || '=' || revenue, ',' ORDER BY week_start) FROM analytics.agg_weekly_revenue"),
                 weeksBefore);
        QCOMPARE(scalar(db, "SELECT string_agg(month_start || '=' || revenue, ',' ORDER BY month_start) FROM analytics.agg_monthly_revenue"),
                 monthsBefore);
    }
};

QTEST_GUILESS_MAIN(TestReliability)
#include "tst_reliability.moc"
