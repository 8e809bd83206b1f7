// Backfills that are interrupted, resumed, undone, run in parallel or cascade: through
// the `reprint` CLI on copies of the demo warehouse.
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

namespace {

// Starts `reprint backfill` of fct_order_lines [from, to] in a process of its own (to be
// killed, cancelled or raced), with a claim lease of `leaseSeconds` when given.
void startBackfill(QProcess &proc, const std::string &db, const QString &spec, const char *from, const char *to,
                   const char *leaseSeconds = nullptr)
{
    if (leaseSeconds) {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("REPRINT_LEASE_SECONDS"), QString::fromLatin1(leaseSeconds));
        proc.setProcessEnvironment(env);
    }
    proc.start(test::reprintBinary(), base(QStringLiteral("backfill"), db, spec)
                                          << QStringLiteral("--model") << QStringLiteral("fct_order_lines") << QStringLiteral("--from")
                                          << QString::fromLatin1(from) << QStringLiteral("--to") << QString::fromLatin1(to));
}

} // namespace

class TestBackfillRecovery : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(QFile::exists(demoSpec()), "the demo fixture did not write its spec");
    }

    void killedDuringStagingLeavesTheTargetAndTheLeaseLapses()
    {
        const std::string db = test::demoCopy("bf_kill");
        const auto before = dayHashes(db);
        QTemporaryDir dir;
        const QString spec = slowSpec(dir, 1);
        QProcess proc;
        startBackfill(proc, db, spec, "2026-03-01", "2026-03-20", "2");
        QVERIFY(proc.waitForStarted());
        QTRY_VERIFY_WITH_TIMEOUT(scalar(db, "SELECT count(*) FROM reprint.backfill_partitions WHERE state = 'staged'") >= std::string("1")
                                     && scalar(db, "SELECT count(*) FROM reprint.backfill_partitions WHERE state = 'staged'") != "<error>",
                                 30000);
        ::kill(static_cast<pid_t>(proc.processId()), SIGKILL);
        QVERIFY(proc.waitForFinished(10000));
        QVERIFY(dayHashes(db) == before);
        QCOMPARE(scalar(db, "SELECT status FROM reprint.backfills"), std::string("staging"));
        // Once the dead process's lease lapses, history calls it resumable and a new backfill takes the window over.
        QTest::qWait(2500);
        auto hist = test::runReprint(base(QStringLiteral("history"), db) << QStringLiteral("--format") << QStringLiteral("json"));
        QCOMPARE(hist.exitCode, 0);
        QCOMPARE(json(hist).value(QStringLiteral("backfills")).toArray().first().toObject().value(QStringLiteral("resumable")).toBool(), true);
        auto again = test::runReprint(base(QStringLiteral("backfill"), db)
                                      << QStringLiteral("--model") << QStringLiteral("fct_order_lines") << QStringLiteral("--from")
                                      << QStringLiteral("2026-03-09") << QStringLiteral("--to") << QStringLiteral("2026-03-14"));
        QVERIFY2(again.exitCode == 0, qPrintable(again.err));
        QVERIFY2(again.err.contains(QStringLiteral("took over the expired claim")), qPrintable(again.err));
        QCOMPARE(scalar(db, "SELECT status FROM reprint.backfills ORDER BY id LIMIT 1"), std::string("failed"));
    }

    // The heartbeat (on the backfill's own session, beside its stage worker) keeps a live
    // staging's lease: long after the first lease would have lapsed the claim is still
    // renewed, and a second backfill of the window is refused, never a takeover.
    void aLiveStagingKeepsRenewingItsLease()
    {
        const std::string db = test::demoCopy("bf_heartbeat");
        QTemporaryDir dir;
        const QString spec = slowSpec(dir, 1);
        QProcess proc;
        startBackfill(proc, db, spec, "2026-03-01", "2026-03-08", "2");  // a beat every second
        QVERIFY(proc.waitForStarted());
        QTRY_VERIFY_WITH_TIMEOUT(scalar(db, "SELECT count(*) FROM reprint.backfill_partitions WHERE state = 'staged'") == "1", 30000);
        const std::string firstLease = scalar(db, "SELECT lease_expires::text FROM reprint.claims");
        QTest::qWait(3000);  // past the lease the claim had then
        QCOMPARE(scalar(db, "SELECT status FROM reprint.backfills"), std::string("staging"));
        QCOMPARE(scalar(db, "SELECT (lease_expires > $1::timestamptz AND lease_expires > now())::text FROM reprint.claims",
                        {firstLease}),
                 std::string("true"));
        auto second = test::runReprint(base(QStringLiteral("backfill"), db)
                                       << QStringLiteral("--model") << QStringLiteral("fct_order_lines") << QStringLiteral("--from")
                                       << QStringLiteral("2026-03-05") << QStringLiteral("--to") << QStringLiteral("2026-03-05"));
        QCOMPARE(second.exitCode, 4);
        QVERIFY2(second.err.contains(QStringLiteral("claimed by backfill")), qPrintable(second.err));
        QVERIFY(proc.waitForFinished(60000));
        QVERIFY2(proc.exitCode() == 0 || proc.exitCode() == 3, qPrintable(QString::fromUtf8(proc.readAllStandardError())));
        QCOMPARE(scalar(db, "SELECT count(*) FROM reprint.backfill_partitions WHERE state = 'staged'"), std::string("8"));
        QCOMPARE(scalar(db, "SELECT count(*) FROM reprint.backfills"), std::string("1"));
    }

    void parallelStagingGivesTheSameReviewBoundariesFirst()
    {
        QJsonArray reviews[2];
        for (int parallel : {1, 2}) {
            const std::string db = test::demoCopy("bf_parallel" + std::to_string(parallel));
            auto p = test::runReprint(base(QStringLiteral("backfill"), db)
                                      << QStringLiteral("--model") << QStringLiteral("fct_order_lines") << QStringLiteral("--from")
                                      << QStringLiteral("2026-03-02") << QStringLiteral("--to") << QStringLiteral("2026-03-14")
                                      << QStringLiteral("--parallel") << QString::number(parallel) << QStringLiteral("--format")
                                      << QStringLiteral("json"));
            QVERIFY2(p.exitCode == 0, qPrintable(p.err));
            reviews[parallel - 1] = json(p).value(QStringLiteral("partitions")).toArray();
            if (parallel == 1)
                QCOMPARE(scalar(db, "SELECT string_agg(partition, ',' ORDER BY updated_at) FROM (SELECT partition, updated_at "
                                    "FROM reprint.backfill_partitions ORDER BY updated_at LIMIT 2) x"),
                         std::string("2026-03-02,2026-03-14"));
        }
        QCOMPARE(reviews[1], reviews[0]);
    }

    void cancelThenResumeEqualsAnUninterruptedRun()
    {
        const std::string db = test::demoCopy("bf_cancel");
        const auto before = dayHashes(db);
        QTemporaryDir dir;
        const QString spec = slowSpec(dir, 0.7);
        QProcess proc;
        startBackfill(proc, db, spec, "2026-03-02", "2026-03-14");
        QVERIFY(proc.waitForStarted());
        QTRY_VERIFY_WITH_TIMEOUT(scalar(db, "SELECT count(*) FROM reprint.backfill_partitions WHERE state = 'staged'") == "2", 30000);
        QElapsedTimer latency;
        latency.start();
        ::kill(static_cast<pid_t>(proc.processId()), SIGINT);
        QVERIFY(proc.waitForFinished(30000));
        qInfo("cancel latency (SIGINT to exit): %lld ms", static_cast<long long>(latency.elapsed()));
        QCOMPARE(proc.exitCode(), 5);
        const QString err = QString::fromUtf8(proc.readAllStandardError());
        QVERIFY2(err.contains(QStringLiteral("--resume")), qPrintable(err));
        QVERIFY(dayHashes(db) == before);
        const std::string id = scalar(db, "SELECT id::text FROM reprint.backfills");
        QCOMPARE(scalar(db, "SELECT status FROM reprint.backfills"), std::string("failed"));
        const std::string stagedBefore = scalar(db, "SELECT count(*) FROM reprint.backfill_partitions WHERE state = 'staged'");
        QVERIFY(stagedBefore >= std::string("2"));
        // Resuming with another transform would mix two versions of it: refused.
        auto mixed = test::runReprint(base(QStringLiteral("backfill"), db) << QStringLiteral("--resume") << QString::fromStdString(id));
        QCOMPARE(mixed.exitCode, 4);
        // Resume: only the rest is staged, under the same id.
        auto resumed = test::runReprint(base(QStringLiteral("backfill"), db, spec) << QStringLiteral("--resume") << QString::fromStdString(id)
                                                                                   << QStringLiteral("--format") << QStringLiteral("json"));
        QVERIFY2(resumed.exitCode == 3 || resumed.exitCode == 0, qPrintable(resumed.err));
        QCOMPARE(json(resumed).value(QStringLiteral("backfill")).toInteger(), QString::fromStdString(id).toLongLong());
        QCOMPARE(scalar(db, "SELECT count(*) FROM reprint.backfills"), std::string("1"));
        QCOMPARE(scalar(db, "SELECT count(*) FROM reprint.backfill_partitions WHERE state <> 'staged'"), std::string("0"));
        // ...and it equals an uninterrupted run on another copy.
        const std::string other = test::demoCopy("bf_cancel_ref");
        auto straight = test::runReprint(base(QStringLiteral("backfill"), other)
                                         << QStringLiteral("--model") << QStringLiteral("fct_order_lines") << QStringLiteral("--from")
                                         << QStringLiteral("2026-03-02") << QStringLiteral("--to") << QStringLiteral("2026-03-14")
                                         << QStringLiteral("--format") << QStringLiteral("json"));
        QCOMPARE(straight.exitCode, resumed.exitCode);
        QCOMPARE(json(resumed).value(QStringLiteral("partitions")), json(straight).value(QStringLiteral("partitions")));
    }

    // `reprint cancel ID` from another process stops a backfill staging elsewhere as
    // Ctrl-C would there: its process exits 5, staged partitions are kept, the request is
    // in the audit, and a resume finishes it.
    void cancelFromAnotherProcess()
    {
        const std::string db = test::demoCopy("bf_remote_cancel");
        const auto before = dayHashes(db);
        QTemporaryDir dir;
        const QString spec = slowSpec(dir, 0.7);
        QProcess proc;
        startBackfill(proc, db, spec, "2026-03-02", "2026-03-14");
        QVERIFY(proc.waitForStarted());
        QTRY_VERIFY_WITH_TIMEOUT(scalar(db, "SELECT count(*) FROM reprint.backfill_partitions WHERE state = 'staged'") == "2", 30000);
        const QString id = QString::fromStdString(scalar(db, "SELECT id::text FROM reprint.backfills"));
        QElapsedTimer latency;
        latency.start();
        auto cancelled = test::runReprint(base(QStringLiteral("cancel"), db, spec) << id);
        qInfo("cancel from another process: %lld ms until the warehouse showed it stopped", static_cast<long long>(latency.elapsed()));
        QVERIFY2(cancelled.exitCode == 0, qPrintable(cancelled.err));
        QVERIFY2(cancelled.err.contains(QStringLiteral("--resume ") + id), qPrintable(cancelled.err));
        QVERIFY(proc.waitForFinished(30000));
        QCOMPARE(proc.exitCode(), 5);
        QVERIFY(dayHashes(db) == before);
        QCOMPARE(scalar(db, "SELECT status FROM reprint.backfills"), std::string("failed"));
        // Why it failed is stored as a value (migration 007), not parsed from the sentence:
        // history calls it cancelled even when the sentence is reworded.
        QCOMPARE(scalar(db, "SELECT failure FROM reprint.backfills"), std::string("cancelled"));
        QVERIFY(test::execute(db, "UPDATE reprint.backfills SET error = 'stopped by its operator'").ok());
        auto hist = test::runReprint(base(QStringLiteral("history"), db) << QStringLiteral("--format") << QStringLiteral("json"));
        QCOMPARE(hist.exitCode, 0);
        const QJsonObject row = json(hist).value(QStringLiteral("backfills")).toArray().first().toObject();
        QCOMPARE(row.value(QStringLiteral("failure")).toString(), QStringLiteral("cancelled"));
        QCOMPARE(row.value(QStringLiteral("error")).toString(), QStringLiteral("stopped by its operator"));
        QCOMPARE(scalar(db, "SELECT count(*) FROM reprint.audit WHERE action = 'cancel'"), std::string("1"));
        QVERIFY(scalar(db, "SELECT count(*) FROM reprint.backfill_partitions WHERE state = 'staged'") >= std::string("2"));
        // Nothing is staging now: a second cancel is refused and names what to do.
        auto again = test::runReprint(base(QStringLiteral("cancel"), db, spec) << id);
        QCOMPARE(again.exitCode, 4);
        QVERIFY2(again.err.contains(QStringLiteral("not staging")), qPrintable(again.err));
        auto resumed = test::runReprint(base(QStringLiteral("backfill"), db, spec) << QStringLiteral("--resume") << id);
        QVERIFY2(resumed.exitCode == 0 || resumed.exitCode == 3, qPrintable(resumed.err));
        QCOMPARE(scalar(db, "SELECT count(*) FROM reprint.backfill_partitions WHERE state <> 'staged'"), std::string("0"));
        QCOMPARE(scalar(db, "SELECT coalesce(failure, 'none') FROM reprint.backfills"), std::string("none"));
    }

    // A cancelled cascade resumes as a whole (a downstream member alone would read the
    // upstream's target, not its staged rows) and ends with the same reviews as an
    // uninterrupted cascade.
    void cancelledCascadeResumesAsAWhole()
    {
        const std::string db = test::demoCopy("bf_cascade_resume");
        QTemporaryDir dir;
        const QString spec = slowSpec(dir, 0.5);
        const QStringList window = {QStringLiteral("--model"), QStringLiteral("fct_order_lines"), QStringLiteral("--from"),
                                    QStringLiteral("2026-03-09"), QStringLiteral("--to"), QStringLiteral("2026-03-14")};
        QProcess proc;
        proc.start(test::reprintBinary(), base(QStringLiteral("backfill"), db, spec) << window << QStringLiteral("--cascade"));
        QVERIFY(proc.waitForStarted());
        QTRY_VERIFY_WITH_TIMEOUT(scalar(db, "SELECT count(*) FROM reprint.backfill_partitions WHERE state = 'staged'") == "2", 30000);
        ::kill(static_cast<pid_t>(proc.processId()), SIGINT);
        QVERIFY(proc.waitForFinished(30000));
        QCOMPARE(proc.exitCode(), 5);
        const QString root = QString::fromStdString(scalar(db, "SELECT id::text FROM reprint.backfills WHERE parent_id IS NULL"));
        const QString child = QString::fromStdString(scalar(db, "SELECT id::text FROM reprint.backfills WHERE parent_id IS NOT NULL"));

        auto alone = test::runReprint(base(QStringLiteral("backfill"), db, spec) << QStringLiteral("--resume") << child);
        QCOMPARE(alone.exitCode, 1);
        QVERIFY2(alone.err.contains(QStringLiteral("--resume ") + root), qPrintable(alone.err));

        auto resumed = test::runReprint(base(QStringLiteral("backfill"), db, spec) << QStringLiteral("--resume") << root
                                                                                   << QStringLiteral("--format") << QStringLiteral("json"));
        QVERIFY2(resumed.exitCode == 0, qPrintable(resumed.err));
        QCOMPARE(scalar(db, "SELECT count(*) FROM reprint.backfills"), std::string("2"));
        QCOMPARE(scalar(db, "SELECT count(*) FROM reprint.backfill_partitions WHERE state <> 'staged'"), std::string("0"));
        const QJsonObject after = json(resumed);
        QCOMPARE(after.value(QStringLiteral("cascade")).toArray().size(), 1);

        const std::string other = test::demoCopy("bf_cascade_resume_ref");
        auto straight = test::runReprint(base(QStringLiteral("backfill"), other) << window << QStringLiteral("--cascade")
                                                                                 << QStringLiteral("--format") << QStringLiteral("json"));
        QVERIFY2(straight.exitCode == 0, qPrintable(straight.err));
        QCOMPARE(after.value(QStringLiteral("partitions")), json(straight).value(QStringLiteral("partitions")));
        QCOMPARE(after.value(QStringLiteral("cascade")).toArray().first().toObject().value(QStringLiteral("partitions")),
                 json(straight).value(QStringLiteral("cascade")).toArray().first().toObject().value(QStringLiteral("partitions")));
        auto pub = test::runReprint(base(QStringLiteral("publish"), db, spec) << root << QStringLiteral("--approve") << QStringLiteral("resumed"));
        QVERIFY2(pub.exitCode == 0, qPrintable(pub.err));
    }

    void killedThenResumedAfterTheLeaseLapses()
    {
        const std::string db = test::demoCopy("bf_kill_resume");
        QTemporaryDir dir;
        const QString spec = slowSpec(dir, 0.7);
        QProcess proc;
        startBackfill(proc, db, spec, "2026-03-09", "2026-03-14", "2");
        QVERIFY(proc.waitForStarted());
        QTRY_VERIFY_WITH_TIMEOUT(scalar(db, "SELECT count(*) FROM reprint.backfill_partitions WHERE state = 'staged'") == "1", 30000);
        ::kill(static_cast<pid_t>(proc.processId()), SIGKILL);
        QVERIFY(proc.waitForFinished(10000));
        const std::string id = scalar(db, "SELECT id::text FROM reprint.backfills");
        // While the dead process's lease is live, a resume is refused; once it lapses, it takes the claim back.
        auto early = test::runReprint(base(QStringLiteral("backfill"), db, spec) << QStringLiteral("--resume") << QString::fromStdString(id));
        if (early.exitCode != 0) {
            QCOMPARE(early.exitCode, 4);
            QTest::qWait(2500);
            auto late = test::runReprint(base(QStringLiteral("backfill"), db, spec) << QStringLiteral("--resume") << QString::fromStdString(id));
            QVERIFY2(late.exitCode == 0, qPrintable(late.err));
        }
        QCOMPARE(scalar(db, "SELECT status || '/' || validation FROM reprint.backfills"), std::string("staged/passed"));
        auto pub = test::runReprint(base(QStringLiteral("publish"), db, spec) << QString::fromStdString(id) << QStringLiteral("--approve")
                                                                              << QStringLiteral("resumed"));
        QVERIFY2(pub.exitCode == 0, qPrintable(pub.err));
        QCOMPARE(targetPerDay(db), truthPerDay(db));
    }

    // Issue 13, item 12: every lease time a message prints is UTC, written as `history`
    // writes times (2026-03-10T14:02:03Z), even for a model in another zone (the
    // engine's sessions run in the model's zone) and whichever session read it.
    void leaseTimesInMessagesAreUtc()
    {
        const std::string db = test::demoCopy("bf_lease_utc");
        QTemporaryDir dir;
        QString transform = fctTransform().trimmed();
        transform.remove(QRegularExpression(QStringLiteral(";\\s*$")));
        transform.replace(QStringLiteral("AT TIME ZONE 'UTC'"), QStringLiteral("AT TIME ZONE 'Asia/Kolkata'"));  // days of the model's zone
        QFile t(QDir(dir.path()).filePath(QStringLiteral("slow_fct.sql")));
        QVERIFY(t.open(QIODevice::WriteOnly));
        t.write(QStringLiteral("SELECT t.* FROM (\n%1\n) AS t CROSS JOIN (SELECT pg_sleep(1)) AS slow\n").arg(transform).toUtf8());
        t.close();
        const QString spec = specCopy(dir, [](QString &yaml) {
            yaml.replace(QStringLiteral("transforms/fct_order_lines.sql"), QStringLiteral("slow_fct.sql"));
            yaml.replace(QStringLiteral("timezone: UTC"), QStringLiteral("timezone: Asia/Kolkata"));
        });
        static const QRegularExpression utc(QStringLiteral("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ"));
        const auto leaseIsUtc = [](const ProcessResult &p, const QString &before) {
            const QRegularExpressionMatch m = QRegularExpression(QRegularExpression::escape(before) + QStringLiteral(" (\\S+)")).match(p.err);
            return m.hasMatch() && utc.match(m.captured(1)).capturedStart() == 0;
        };

        QProcess proc;
        startBackfill(proc, db, spec, "2026-03-01", "2026-03-30", "3");
        QVERIFY(proc.waitForStarted());
        QTRY_VERIFY_WITH_TIMEOUT(QString::fromStdString(scalar(db, "SELECT count(*) FROM reprint.backfill_partitions WHERE state = 'staged'"))
                                         .toInt() >= 1,
                                 30000);
        const QString id = QString::fromStdString(scalar(db, "SELECT id::text FROM reprint.backfills"));
        QCOMPARE(scalar(db, "SELECT status FROM reprint.backfills"), std::string("staging"));

        // While it stages: a second backfill of the window (the claim conflict), a resume and an abandon.
        auto second = test::runReprint(base(QStringLiteral("backfill"), db, spec)
                                       << QStringLiteral("--model") << QStringLiteral("fct_order_lines") << QStringLiteral("--from")
                                       << QStringLiteral("2026-03-10") << QStringLiteral("--to") << QStringLiteral("2026-03-11"));
        QCOMPARE(second.exitCode, 4);
        QVERIFY2(leaseIsUtc(second, QStringLiteral("lease until")), qPrintable(second.err));
        auto resume = test::runReprint(base(QStringLiteral("backfill"), db, spec) << QStringLiteral("--resume") << id);
        QCOMPARE(resume.exitCode, 4);
        QVERIFY2(leaseIsUtc(resume, QStringLiteral("lease until")), qPrintable(resume.err));
        auto abandon = test::runReprint(base(QStringLiteral("abandon"), db, spec) << id);
        QCOMPARE(abandon.exitCode, 4);
        QVERIFY2(leaseIsUtc(abandon, QStringLiteral("lease expires at")), qPrintable(abandon.err));

        // Once its process is dead and the lease has lapsed: a cancel, then a takeover.
        ::kill(static_cast<pid_t>(proc.processId()), SIGKILL);
        QVERIFY(proc.waitForFinished(10000));
        QTest::qWait(3500);
        auto cancelled = test::runReprint(base(QStringLiteral("cancel"), db, spec) << id);
        QCOMPARE(cancelled.exitCode, 4);
        QVERIFY2(leaseIsUtc(cancelled, QStringLiteral("lease lapsed")), qPrintable(cancelled.err));
        auto takeover = test::runReprint(base(QStringLiteral("backfill"), db, spec)
                                         << QStringLiteral("--model") << QStringLiteral("fct_order_lines") << QStringLiteral("--from")
                                         << QStringLiteral("2026-03-10") << QStringLiteral("--to") << QStringLiteral("2026-03-10"));
        QVERIFY2(takeover.err.contains(QStringLiteral("took over the expired claim")), qPrintable(takeover.err));
        QVERIFY2(leaseIsUtc(takeover, QStringLiteral("lease expired")), qPrintable(takeover.err));
    }

    void undoRestoresTheWindowAndRefusesAfterALaterWrite()
    {
        const std::string db = test::demoCopy("bf_undo");
        const auto before = dayHashes(db);
        auto p = test::runReprint(base(QStringLiteral("backfill"), db)
                                  << QStringLiteral("--model") << QStringLiteral("fct_order_lines") << QStringLiteral("--from")
                                  << QStringLiteral("2026-03-09") << QStringLiteral("--to") << QStringLiteral("2026-03-14"));
        QVERIFY2(p.exitCode == 0, qPrintable(p.err));
        const QString id = QString::number(backfillIdFrom(p));
        QCOMPARE(test::runReprint(base(QStringLiteral("publish"), db) << id << QStringLiteral("--approve") << QStringLiteral("fix")).exitCode, 0);
        QVERIFY(dayHashes(db) != before);
        auto undo = test::runReprint(base(QStringLiteral("undo"), db) << id);
        QVERIFY2(undo.exitCode == 0, qPrintable(undo.err));
        QVERIFY(dayHashes(db) == before);  // every partition, in the window and out, as before the publish
        QCOMPARE(scalar(db, "SELECT status FROM reprint.backfills WHERE id = $1", args(id.toStdString())), std::string("undone"));
        QCOMPARE(scalar(db, "SELECT count(*) FROM reprint.audit WHERE action = 'undo'"), std::string("1"));
        QCOMPARE(test::runReprint(base(QStringLiteral("undo"), db) << id).exitCode, 4);
        QCOMPARE(test::runReprint(base(QStringLiteral("publish"), db) << id << QStringLiteral("--approve") << QStringLiteral("x")).exitCode, 4);

        // Publish again, then write into the window: undo is refused unless overridden.
        auto again = test::runReprint(base(QStringLiteral("backfill"), db)
                                      << QStringLiteral("--model") << QStringLiteral("fct_order_lines") << QStringLiteral("--from")
                                      << QStringLiteral("2026-03-09") << QStringLiteral("--to") << QStringLiteral("2026-03-14"));
        const QString id2 = QString::number(backfillIdFrom(again));
        QCOMPARE(test::runReprint(base(QStringLiteral("publish"), db) << id2 << QStringLiteral("--approve") << QStringLiteral("fix")).exitCode, 0);
        QVERIFY(test::execute(db, "UPDATE analytics.fct_order_lines SET quantity = quantity + 1 WHERE order_line_id = "
                                  "(SELECT min(order_line_id) FROM analytics.fct_order_lines WHERE order_date = '2026-03-11')")
                    .ok());
        const auto written = dayHashes(db);
        auto refused = test::runReprint(base(QStringLiteral("undo"), db) << id2);
        QCOMPARE(refused.exitCode, 4);
        QVERIFY2(refused.err.contains(QStringLiteral("2026-03-11")), qPrintable(refused.err));
        QVERIFY(dayHashes(db) == written);
        auto forced = test::runReprint(base(QStringLiteral("undo"), db) << id2 << QStringLiteral("--override") << QStringLiteral("the write was a mistake too"));
        QVERIFY2(forced.exitCode == 0, qPrintable(forced.err));
        QVERIFY(dayHashes(db) == before);
    }

    void cascadePublishesUpstreamAndDownstreamTogether()
    {
        const std::string db = test::demoCopy("bf_cascade");
        auto p = test::runReprint(base(QStringLiteral("backfill"), db)
                                  << QStringLiteral("--model") << QStringLiteral("fct_order_lines") << QStringLiteral("--from")
                                  << QStringLiteral("2026-03-09") << QStringLiteral("--to") << QStringLiteral("2026-03-14")
                                  << QStringLiteral("--cascade") << QStringLiteral("--format") << QStringLiteral("json"));
        QVERIFY2(p.exitCode == 0, qPrintable(p.err));
        const QJsonObject review = json(p);
        const QJsonArray cascade = review.value(QStringLiteral("cascade")).toArray();
        QCOMPARE(cascade.size(), 1);
        QCOMPARE(cascade.first().toObject().value(QStringLiteral("model")).toString(), QStringLiteral("agg_daily_revenue"));
        QCOMPARE(cascade.first().toObject().value(QStringLiteral("validation")).toString(), QStringLiteral("passed"));
        const QString id = QString::number(review.value(QStringLiteral("backfill")).toInteger());
        const QString childId = QString::number(cascade.first().toObject().value(QStringLiteral("backfill")).toInteger());
        // The downstream backfill cannot be published on its own.
        QCOMPARE(test::runReprint(base(QStringLiteral("publish"), db) << childId << QStringLiteral("--approve") << QStringLiteral("x")).exitCode, 1);

        // A reader summing both tables in one statement never sees new upstream with old downstream.
        const std::string both = "SELECT (SELECT sum(revenue) FROM analytics.fct_order_lines WHERE order_date BETWEEN '2026-03-09' AND '2026-03-14')::text"
                                 " || '/' || (SELECT sum(revenue) FROM analytics.agg_daily_revenue WHERE order_date BETWEEN '2026-03-09' AND '2026-03-14')::text";
        const std::string before = scalar(db, both);
        test::ProcessResult pub;
        const std::vector<std::string> seen = readWhile(db, both, [&] {
            pub = test::runReprint(base(QStringLiteral("publish"), db) << id << QStringLiteral("--approve") << QStringLiteral("cascade"));
        });
        const std::string after = scalar(db, both);
        QVERIFY2(pub.exitCode == 0, qPrintable(pub.err));
        QVERIFY(!seen.empty());
        for (const std::string &s : std::set<std::string>(seen.begin(), seen.end()))
            QVERIFY2(s == before || s == after, s.c_str());
        qInfo("reader of both tables saw %zu pairs during the cascade publish (before %s, after %s)", seen.size(), before.c_str(),
              after.c_str());
        // Both models now equal an independent computation from the raw tables, every day.
        QCOMPARE(scalar(db, "SELECT count(*) FROM ((SELECT order_date, revenue, lines, quantity FROM analytics.agg_daily_revenue "
                            "EXCEPT SELECT (o.ordered_at AT TIME ZONE 'UTC')::date, sum(round(l.quantity * l.unit_price * (1 - l.discount), 2)), "
                            "count(*), sum(l.quantity) FROM raw.order_lines l JOIN raw.orders o USING (order_id) GROUP BY 1) "
                            "UNION ALL (SELECT (o.ordered_at AT TIME ZONE 'UTC')::date, sum(round(l.quantity * l.unit_price * (1 - l.discount), 2)), "
                            "count(*), sum(l.quantity) FROM raw.order_lines l JOIN raw.orders o USING (order_id) GROUP BY 1 "
                            "EXCEPT SELECT order_date, revenue, lines, quantity FROM analytics.agg_daily_revenue)) x"),
                 std::string("0"));
        QCOMPARE(targetPerDay(db), truthPerDay(db));
        QCOMPARE(scalar(db, "SELECT string_agg(status, ',' ORDER BY id) FROM reprint.backfills"), std::string("published,published"));
        QCOMPARE(scalar(db, "SELECT count(*) FROM pg_tables WHERE schemaname = 'reprint_staging'"), std::string("0"));
    }
};

QTEST_GUILESS_MAIN(TestBackfillRecovery)
#include "tst_backfillrecovery.moc"
