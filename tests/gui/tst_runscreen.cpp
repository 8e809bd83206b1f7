// RunScreen offscreen, on copies of the demo: a backfill started from the screen staged to
// the end with the engine's totals; a slow one cancelled and the cancel read back from
// the warehouse; a backfill started by the CLI in another process, followed; closing
// during a run. With REPRINT_SCREENSHOT_DIR set, also writes the Run screen screenshots
// (during and after a run, light and dark) from the main window.
#include "backfillprogressmodel.h"
#include "darkpalette.h"
#include "engineclient.h"
#include "mainwindow.h"
#include "runlogmodel.h"
#include "runscreen.h"
#include "testsupport.h"
#include "throughputseriesmodel.h"

#include "backfill/spec.h"

#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QValueAxis>
#include <QDialog>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QMessageBox>
#include <QPalette>
#include <QProcess>
#include <QPushButton>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStyleFactory>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <map>
#include <memory>

using reprint::backfill::BackfillRequest;
using reprint::model::BackfillProgressModel;
using reprint::model::EngineClient;
using reprint::views::RunScreen;
using Phase = RunScreen::Phase;

namespace {

QString demoDir()
{
    return qEnvironmentVariable("REPRINT_TEST_DEMO_DIR");
}

QString demoSpec()
{
    return QDir(demoDir()).filePath(QStringLiteral("demo.yaml"));
}

reprint::backfill::Spec loadSpec(const QString &path)
{
    auto spec = reprint::backfill::loadSpec(path.toStdString());
    if (!spec)
        qFatal("cannot load %s: %s", qPrintable(path), spec.error().toSentence().c_str());
    return *spec;
}

// A copy of the demo spec in `dir` whose fct_order_lines transform is `wrap` applied to
// the demo's (`%1` stands for the original SELECT without its trailing semicolon).
QString wrappedSpec(const QTemporaryDir &dir, const QString &wrap)
{
    const QDir demo(demoDir());
    for (const QString &sub : {QStringLiteral("transforms"), QStringLiteral("checks")}) {
        QDir(dir.path()).mkpath(sub);
        for (const QString &f : QDir(demo.filePath(sub)).entryList(QDir::Files))
            QFile::copy(demo.filePath(sub + QLatin1Char('/') + f), dir.filePath(sub + QLatin1Char('/') + f));
    }
    QFile original(demo.filePath(QStringLiteral("transforms/fct_order_lines.sql")));
    if (!original.open(QIODevice::ReadOnly))
        return {};
    const QString select = QString::fromUtf8(original.readAll()).trimmed().remove(QRegularExpression(QStringLiteral(";\\s*$")));
    QFile t(dir.filePath(QStringLiteral("transforms/wrapped_fct.sql")));
    if (!t.open(QIODevice::WriteOnly))
        return {};
    t.write(wrap.arg(select).toUtf8());
    QFile in(demoSpec());
    if (!in.open(QIODevice::ReadOnly))
        return {};
    QString yaml = QString::fromUtf8(in.readAll());
    yaml.replace(QStringLiteral("transforms/fct_order_lines.sql"), QStringLiteral("transforms/wrapped_fct.sql"));
    QFile out(dir.filePath(QStringLiteral("demo.yaml")));
    if (!out.open(QIODevice::WriteOnly))
        return {};
    out.write(yaml.toUtf8());
    return out.fileName();
}

const QString kSlow = QStringLiteral("SELECT t.* FROM (\n%1\n) AS t CROSS JOIN (SELECT pg_sleep(1)) AS slow\n");
// Slow, and the partition of the 12th fails (division by zero, only known at run time).
const QString kSlowFailing12 = QStringLiteral(
    "SELECT t.* FROM (\n%1\n) AS t CROSS JOIN (SELECT pg_sleep(1)) AS slow\n"
    "WHERE 1 / (extract(day FROM :start::timestamptz AT TIME ZONE 'UTC')::int - 12) IS NOT NULL\n");

BackfillRequest request(const char *from, const char *to, int parallel = 1)
{
    BackfillRequest r;
    r.model = "fct_order_lines";
    r.from = from;
    r.to = to;
    r.parallel = parallel;
    return r;
}

std::string scalar(const std::string &db, const std::string &sql, reprint::warehouse::Params params = {})
{
    auto r = reprint::test::query(db, sql, std::move(params));
    if (!r)
        return "<error: " + r.error().message + ">";
    return r->last().scalar("<null>");
}

// The engine's stored review: the new row count of each partition of the window.
std::map<QString, long long> reviewRows(const std::string &db, qint64 id)
{
    std::map<QString, long long> out;
    auto r = reprint::test::query(db,
                                  "SELECT partition, new::bigint::text FROM reprint.partition_totals "
                                  "WHERE backfill_id = $1 AND measure = 'rows' AND in_scope",
                                  {std::to_string(id)});
    if (!r)
        return out;
    for (const auto &row : r->last().rows)
        out[QString::fromStdString(*row[0])] = std::stoll(row[1].value_or("0"));
    return out;
}

std::map<QString, long long> screenRows(const BackfillProgressModel *model)
{
    std::map<QString, long long> out;
    for (int r = 0; r < model->rowCount(); ++r)
        out[model->index(r, 0).data(BackfillProgressModel::PartitionRole).toString()] =
            model->index(r, BackfillProgressModel::RowsColumn).data(BackfillProgressModel::ValueRole).toLongLong();
    return out;
}

bool allStaged(const BackfillProgressModel *model)
{
    if (model->rowCount() == 0)
        return false;
    for (int r = 0; r < model->rowCount(); ++r)
        if (model->index(r, 0).data(BackfillProgressModel::StateRole).toString() != QLatin1String("staged"))
            return false;
    return true;
}

bool verdictsShown(const BackfillProgressModel *model)
{
    for (int r = 0; r < model->rowCount(); ++r)
        if (!model->index(r, BackfillProgressModel::VerdictColumn).data(BackfillProgressModel::VerdictRole).isValid())
            return false;
    return model->rowCount() > 0;
}

// Clicks the button labelled `text` of the message box named `name` once it shows.
void clickWhenShown(QWidget *scope, const QString &name, const QString &text)
{
    auto *timer = new QTimer;
    timer->setInterval(20);
    QObject::connect(timer, &QTimer::timeout, timer, [timer, scope, name, text] {
        QList<QMessageBox *> boxes = scope ? scope->findChildren<QMessageBox *>(name) : QList<QMessageBox *>();
        for (QWidget *w : QApplication::topLevelWidgets())
            if (auto *b = qobject_cast<QMessageBox *>(w); b && b->objectName() == name)
                boxes << b;
        for (QMessageBox *box : boxes) {
            if (!box->isVisible())
                continue;
            for (QAbstractButton *b : box->buttons())
                if (b->text() == text) {
                    timer->stop();
                    timer->deleteLater();
                    b->click();
                    return;
                }
        }
    });
    timer->start();
}

struct Fixture {
    explicit Fixture(const std::string &database, const QString &specPath = demoSpec())
        : db(reprint::test::demoCopy(database))
        , spec(specPath)
    {
        engine.setSpec(loadSpec(specPath), QString::fromStdString(db));
        screen = std::make_unique<RunScreen>(&engine);
        screen->resize(1100, 720);
        screen->show();
    }
    std::string db;
    QString spec;
    EngineClient engine;
    std::unique_ptr<RunScreen> screen;
};

} // namespace

class TestRunScreen : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(QFile::exists(demoSpec()), "the demo fixture did not write its spec");
        QStandardPaths::setTestModeEnabled(true);
    }

    void stagesTheDemoWindowFromTheScreen()
    {
        Fixture f("run_stage");
        RunScreen *screen = f.screen.get();
        screen->start(request("2026-03-09", "2026-03-14", 2));
        QSignalSpy resets(screen->progressModel(), &QAbstractItemModel::modelReset);
        QSignalSpy inserted(screen->progressModel(), &QAbstractItemModel::rowsInserted);
        QCOMPARE(screen->phase(), Phase::Claiming);
        QVERIFY(screen->cancelButton()->isEnabled());
        // While the claim is made, the table already lists what will be staged, queued, in
        // the order the engine stages it (boundary partitions first).
        QCOMPARE(screen->progressModel()->rowCount(), 6);
        QStringList planned;
        for (int row = 0; row < 6; ++row) {
            planned << screen->progressModel()->index(row, 0).data().toString();
            QCOMPARE(int(screen->progressModel()->partition(row)->state), int(reprint::backfill::PartitionStage::Queued));
        }
        QCOMPARE(planned, QStringList({QStringLiteral("2026-03-09"), QStringLiteral("2026-03-14"), QStringLiteral("2026-03-10"),
                                       QStringLiteral("2026-03-11"), QStringLiteral("2026-03-12"), QStringLiteral("2026-03-13")}));
        QTRY_VERIFY_WITH_TIMEOUT(RunScreen::isTerminal(screen->phase()), 120000);
        QVERIFY2(screen->phase() == Phase::Staged || screen->phase() == Phase::ValidationFailed,
                 qPrintable(RunScreen::phaseLabel(screen->phase())));
        QVERIFY(screen->backfillId() > 0);
        QTRY_VERIFY_WITH_TIMEOUT(allStaged(screen->progressModel()), 10000);
        QCOMPARE(screen->progressModel()->rowCount(), 6);
        // Boundary partitions first, and marked.
        QCOMPARE(screen->progressModel()->index(0, 0).data().toString(), QStringLiteral("2026-03-09"));
        QCOMPARE(screen->progressModel()->index(1, 0).data().toString(), QStringLiteral("2026-03-14"));
        QVERIFY(screen->progressModel()->index(0, 0).data(BackfillProgressModel::BoundaryRole).toBool());
        QVERIFY(!screen->progressModel()->index(2, 0).data(BackfillProgressModel::BoundaryRole).toBool());

        const auto engineRows = reviewRows(f.db, screen->backfillId());
        QCOMPARE(int(engineRows.size()), 6);
        QCOMPARE(screenRows(screen->progressModel()), engineRows);
        long long total = 0;
        for (const auto &[p, rows] : engineRows)
            total += rows;
        QCOMPARE(screen->progressModel()->rowsStaged(), total);
        QTRY_VERIFY_WITH_TIMEOUT(verdictsShown(screen->progressModel()), 10000);

        // The warehouse's snapshots update the planned rows in place: no reset, no new row.
        QCOMPARE(resets.count(), 0);
        QCOMPARE(inserted.count(), 0);
        QVERIFY(!screen->cancelButton()->isEnabled());
        QVERIFY(screen->reviewButton()->isEnabled());
        QVERIFY(!screen->resumeButton()->isEnabled());
        QCOMPARE(screen->findChild<QLabel *>(QStringLiteral("doneValue"))->text(), QStringLiteral("6 of 6"));
        QVERIFY(screen->throughputModel()->rowCount() >= 1);
        // The engine's "validation passed" line is held until the read-back shows every
        // partition staged (so the log reads in order), which may land after the verdicts.
        QTRY_VERIFY_WITH_TIMEOUT(screen->logModel()->text().contains(QStringLiteral("validation passed"))
                                     || screen->logModel()->text().contains(QStringLiteral("validation failed")),
                                 10000);
        const QString log = screen->logModel()->text();
        QVERIFY2(log.indexOf(QStringLiteral("2026-03-14 staged")) < log.indexOf(QStringLiteral("validation ")), qPrintable(log));

        // Review: with nothing connected, the stored review opens read-only.
        screen->reviewButton()->click();
        QTRY_VERIFY_WITH_TIMEOUT(screen->findChild<QDialog *>(QStringLiteral("reviewDialog")), 20000);
        QDialog *dialog = screen->findChild<QDialog *>(QStringLiteral("reviewDialog"));
        QVERIFY(dialog->findChild<QTableView *>()->model()->rowCount() >= 6);
        dialog->close();
        // Connected, it hands over the id instead.
        QSignalSpy review(screen, &RunScreen::reviewRequested);
        screen->reviewButton()->click();
        QCOMPARE(review.count(), 1);
        QCOMPARE(review.at(0).at(0).toLongLong(), screen->backfillId());
    }

    // Issue 14 item 13: a run of a few seconds gets an x axis of its own length (not 0-10 s);
    // the axes' numbers have thousands separators; the engine's "validating" line comes
    // after the last partition's "staged" line; no "(s)" plural in the log.
    void shortRunChartAndLogReadInOrder()
    {
        Fixture f("run_short");
        RunScreen *screen = f.screen.get();
        screen->start(request("2026-03-09", "2026-03-14", 2));
        QTRY_VERIFY_WITH_TIMEOUT(RunScreen::isTerminal(screen->phase()), 120000);
        QTRY_VERIFY_WITH_TIMEOUT(screen->logModel()->text().contains(QStringLiteral("validating")), 10000);
        const double elapsed = screen->throughputModel()->lastElapsed();
        auto *view = screen->findChild<QChartView *>(QStringLiteral("throughputChart"));
        QVERIFY(view);
        auto *x = qobject_cast<QValueAxis *>(view->chart()->axes(Qt::Horizontal).value(0));
        QVERIFY(x);
        QVERIFY2(x->max() >= elapsed && x->max() <= std::max(1.0, elapsed * 2.5),
                 qPrintable(QStringLiteral("axis 0-%1 s for a %2 s run").arg(x->max()).arg(elapsed)));
        QVERIFY2(x->tickType() == QValueAxis::TicksDynamic && x->max() / x->tickInterval() <= 5.01 && x->max() / x->tickInterval() >= 1.99,
                 qPrintable(QStringLiteral("interval %1 on 0-%2").arg(x->tickInterval()).arg(x->max())));
        QVERIFY(view->chart()->localizeNumbers());
        QVERIFY2(view->chart()->locale().toString(800000.0, 'f', 0).size() > 6,
                 qPrintable(view->chart()->locale().toString(800000.0, 'f', 0)));

        const QStringList lines = screen->logModel()->text().split(QLatin1Char('\n'));
        int lastStaged = -1, validating = -1;
        for (int i = 0; i < lines.size(); ++i) {
            if (lines.at(i).contains(QStringLiteral(" staged: ")))
                lastStaged = i;
            if (validating < 0 && lines.at(i).contains(QStringLiteral("validating")))
                validating = i;
        }
        QVERIFY2(lastStaged >= 0 && validating > lastStaged, qPrintable(lines.join(QLatin1Char('\n'))));
        QVERIFY2(!screen->logModel()->text().contains(QStringLiteral("(s)")), qPrintable(lines.join(QLatin1Char('\n'))));
        QVERIFY(screen->logModel()->text().contains(QStringLiteral("(2 connections)")));
    }

    // Issue 14 item 13: after a cancel, an idle gap and Resume, the run's clock goes on and
    // the throughput shown is over the time spent staging, not averaged over the gap.
    void resumeKeepsTheIdleGapOutOfTheThroughput()
    {
        QTemporaryDir dir;
        const QString spec = wrappedSpec(dir, kSlow);
        Fixture f("run_resume_rate", spec);
        RunScreen *screen = f.screen.get();
        screen->start(request("2026-03-01", "2026-03-06"));
        QTRY_VERIFY_WITH_TIMEOUT(screen->progressModel()->stagedCount() >= 2, 60000);
        clickWhenShown(screen, QStringLiteral("cancelConfirmation"), QStringLiteral("Cancel backfill"));
        screen->cancelButton()->click();
        QTRY_COMPARE_WITH_TIMEOUT(screen->phase(), Phase::Cancelled, 30000);
        const double beforeGap = screen->throughputModel()->lastElapsed();
        QTest::qWait(8000);  // idle
        QTRY_VERIFY_WITH_TIMEOUT(screen->resumeButton()->isEnabled(), 10000);
        screen->resumeButton()->click();
        QTRY_VERIFY_WITH_TIMEOUT(screen->phase() == Phase::Staged || screen->phase() == Phase::ValidationFailed, 120000);
        QCOMPARE(screen->progressModel()->stagedCount(), 6);
        // The clock went on through the gap: the chart continues, it does not restart at 0.
        QVERIFY2(screen->throughputModel()->lastElapsed() > beforeGap + 8,
                 qPrintable(QStringLiteral("%1 then %2").arg(beforeGap).arg(screen->throughputModel()->lastElapsed())));
        // Staging takes a little over 1 s a partition (the transform sleeps 1 s).
        double seconds = 0;
        for (const auto &p : screen->progress().partitions)
            seconds += p.seconds;
        const double staging = double(screen->progressModel()->rowsStaged()) / seconds;
        const QString shown = screen->findChild<QLabel *>(QStringLiteral("rateValue"))->text();
        const double rate = QLocale().toDouble(shown.section(QLatin1Char(' '), 0, 0).remove(QLocale().groupSeparator()));
        QVERIFY2(rate > staging * 0.5 && rate < staging * 1.3,
                 qPrintable(QStringLiteral("shown %1, staging pace %2 rows/s").arg(shown).arg(staging)));
    }

    void cancelsASlowBackfill()
    {
        QTemporaryDir dir;
        const QString spec = wrappedSpec(dir, kSlow);
        QVERIFY(!spec.isEmpty());
        Fixture f("run_cancel", spec);
        RunScreen *screen = f.screen.get();
        screen->start(request("2026-03-01", "2026-03-20"));
        QTRY_VERIFY_WITH_TIMEOUT(screen->progressModel()->stagedCount() >= 1, 60000);
        QCOMPARE(screen->phase(), Phase::Staging);
        QVERIFY(screen->cancelButton()->isEnabled());

        // Saying no keeps it running.
        clickWhenShown(screen, QStringLiteral("cancelConfirmation"), QStringLiteral("Keep running"));
        screen->cancelButton()->click();
        QTRY_VERIFY(!screen->findChild<QMessageBox *>(QStringLiteral("cancelConfirmation")));
        QCOMPARE(screen->phase(), Phase::Staging);

        clickWhenShown(screen, QStringLiteral("cancelConfirmation"), QStringLiteral("Cancel backfill"));
        screen->cancelButton()->click();
        // Cancelling may pass between two polls when the warehouse answers at once.
        QTRY_VERIFY(screen->phase() == Phase::Cancelling || screen->phase() == Phase::Cancelled);
        QVERIFY(!screen->cancelButton()->isEnabled());
        QTRY_COMPARE_WITH_TIMEOUT(screen->phase(), Phase::Cancelled, 30000);
        // Read back from the warehouse, not assumed.
        QCOMPARE(screen->progress().backfill.status, reprint::backfill::BackfillStatus::Failed);
        const std::string id = std::to_string(screen->backfillId());
        QCOMPARE(scalar(f.db, "SELECT status FROM reprint.backfills WHERE id = $1", {id}), std::string("failed"));
        QVERIFY(scalar(f.db, "SELECT error FROM reprint.backfills WHERE id = $1", {id}).rfind("cancelled", 0) == 0);
        QVERIFY(screen->progressModel()->stagedCount() < 20);
        QCOMPARE(screen->progressModel()->stagedCount(),
                 std::stoi(scalar(f.db, "SELECT count(*) FROM reprint.backfill_partitions WHERE backfill_id = $1 AND state = 'staged'", {id})));
        QVERIFY(screen->resumeButton()->isEnabled());
        QVERIFY(!screen->isRunning());
    }

    void followsABackfillStartedByTheCli()
    {
        QTemporaryDir dir;
        const QString spec = wrappedSpec(dir, kSlow);
        Fixture f("run_follow", spec);
        RunScreen *screen = f.screen.get();
        QProcess cli;
        cli.start(reprint::test::reprintBinary(),
                  {QStringLiteral("backfill"), QStringLiteral("--spec"), spec, QStringLiteral("--db"), QString::fromStdString(f.db),
                   QStringLiteral("--model"), QStringLiteral("fct_order_lines"), QStringLiteral("--from"), QStringLiteral("2026-03-09"),
                   QStringLiteral("--to"), QStringLiteral("2026-03-14")});
        QVERIFY(cli.waitForStarted());
        QTRY_VERIFY_WITH_TIMEOUT(scalar(f.db, "SELECT count(*) FROM reprint.backfills WHERE status = 'staging'") == "1", 30000);

        QSignalSpy found(screen, &RunScreen::inFlightFound);
        QSignalSpy snapshots(screen, &RunScreen::snapshotApplied);
        screen->followLatestInFlight(QStringLiteral("fct_order_lines"));
        QVERIFY(found.wait(20000));
        const qint64 id = found.at(0).at(0).toLongLong();
        QCOMPARE(screen->backfillId(), id);
        QVERIFY(!screen->isRunning());
        QTRY_VERIFY_WITH_TIMEOUT(screen->phase() == Phase::Staging, 20000);
        QVERIFY(screen->cancelButton()->isEnabled());
        QVERIFY(screen->cancelButton()->toolTip().contains(QStringLiteral("another process")));
        QVERIFY(screen->findChild<QLabel *>(QStringLiteral("claimHolder"))->text() != QStringLiteral("—"));

        QTRY_VERIFY_WITH_TIMEOUT(RunScreen::isTerminal(screen->phase()), 120000);
        QVERIFY(cli.state() == QProcess::NotRunning || cli.waitForFinished(60000));
        QVERIFY2(cli.exitCode() == 0 || cli.exitCode() == 3, cli.readAllStandardError().constData());
        QVERIFY2(screen->phase() == Phase::Staged || screen->phase() == Phase::ValidationFailed,
                 qPrintable(RunScreen::phaseLabel(screen->phase())));
        QTRY_VERIFY_WITH_TIMEOUT(allStaged(screen->progressModel()), 10000);
        QCOMPARE(screenRows(screen->progressModel()), reviewRows(f.db, id));
        // It followed along, not just read the end.
        QVERIFY2(snapshots.count() >= 4, qPrintable(QString::number(snapshots.count())));
        QVERIFY(screen->logModel()->text().contains(QStringLiteral("staged:")));
        QTRY_VERIFY_WITH_TIMEOUT(verdictsShown(screen->progressModel()), 10000);
    }

    // Cancel on a backfill the CLI runs: asked through the warehouse, the CLI stops as
    // Ctrl-C would (exit 5), and the screen shows it cancelled, read back.
    void cancelsABackfillRunningInTheCli()
    {
        QTemporaryDir dir;
        const QString spec = wrappedSpec(dir, kSlow);
        Fixture f("run_remote_cancel", spec);
        RunScreen *screen = f.screen.get();
        QProcess cli;
        cli.start(reprint::test::reprintBinary(),
                  {QStringLiteral("backfill"), QStringLiteral("--spec"), spec, QStringLiteral("--db"), QString::fromStdString(f.db),
                   QStringLiteral("--model"), QStringLiteral("fct_order_lines"), QStringLiteral("--from"), QStringLiteral("2026-03-01"),
                   QStringLiteral("--to"), QStringLiteral("2026-03-20")});
        QVERIFY(cli.waitForStarted());
        QTRY_VERIFY_WITH_TIMEOUT(scalar(f.db, "SELECT count(*) FROM reprint.backfills WHERE status = 'staging'") == "1", 30000);
        QSignalSpy found(screen, &RunScreen::inFlightFound);
        screen->followLatestInFlight(QStringLiteral("fct_order_lines"));
        QVERIFY(found.wait(20000));
        QTRY_VERIFY_WITH_TIMEOUT(screen->phase() == Phase::Staging && screen->progressModel()->stagedCount() >= 1, 60000);
        QVERIFY(screen->cancelButton()->isEnabled());

        clickWhenShown(screen, QStringLiteral("cancelConfirmation"), QStringLiteral("Cancel backfill"));
        screen->cancelButton()->click();
        QTRY_COMPARE(screen->phase(), Phase::Cancelling);
        QTRY_COMPARE_WITH_TIMEOUT(screen->phase(), Phase::Cancelled, 30000);
        QVERIFY(cli.state() == QProcess::NotRunning || cli.waitForFinished(30000));
        QCOMPARE(cli.exitCode(), 5);
        const std::string id = std::to_string(screen->backfillId());
        QCOMPARE(scalar(f.db, "SELECT status FROM reprint.backfills WHERE id = $1", {id}), std::string("failed"));
        QCOMPARE(scalar(f.db, "SELECT count(*) FROM reprint.audit WHERE backfill_id = $1 AND action = 'cancel'", {id}), std::string("1"));
        QVERIFY(screen->logModel()->text().contains(QStringLiteral("to cancel")));
        QTRY_VERIFY(screen->resumeButton()->isEnabled());
    }

    void closingDuringARunAsks()
    {
        QTemporaryDir dir;
        const QString spec = wrappedSpec(dir, kSlow);
        Fixture f("run_close", spec);
        RunScreen *screen = f.screen.get();
        QVERIFY(screen->confirmClose(screen));  // nothing running
        screen->start(request("2026-03-01", "2026-03-20"));
        QTRY_VERIFY_WITH_TIMEOUT(screen->backfillId() > 0, 30000);

        clickWhenShown(screen, QStringLiteral("closeConfirmation"), QStringLiteral("Keep the window open"));
        QVERIFY(!screen->confirmClose(screen));
        QVERIFY(screen->isRunning());

        // The question says the count the header says, as it goes on (issue 14 item 13).
        QString asked, header;
        const int before = screen->progressModel()->stagedCount();
        QTimer::singleShot(0, screen, [&] {
            QTRY_VERIFY_WITH_TIMEOUT(screen->progressModel()->stagedCount() >= before + 2, 30000);
            QTest::qWait(200);
            for (QMessageBox *b : screen->findChildren<QMessageBox *>(QStringLiteral("closeConfirmation")))
                asked = b->text();
            header = screen->findChild<QLabel *>(QStringLiteral("doneValue"))->text();
        });
        clickWhenShown(screen, QStringLiteral("closeConfirmation"), QStringLiteral("Cancel backfill"));
        QVERIFY(!screen->confirmClose(screen));
        QVERIFY2(!header.isEmpty() && asked.contains(QStringLiteral("(%1 partitions done)").arg(header.section(QLatin1Char(' '), 0, 2))),
                 qPrintable(asked + QStringLiteral(" / header: ") + header));
        QCOMPARE(screen->phase(), Phase::Cancelling);
        // The window closes itself once the cancel is confirmed.
        QTRY_VERIFY_WITH_TIMEOUT(!screen->isVisible(), 30000);
        QVERIFY(!screen->isRunning());
        const std::string id = std::to_string(screen->backfillId());
        QCOMPARE(scalar(f.db, "SELECT status FROM reprint.backfills WHERE id = $1", {id}), std::string("failed"));
    }

    // A CLI backfill killed with SIGKILL mid-staging: the screen tells at once (not after
    // the lease) that its process is gone, says "interrupted", keeps Cancel off, and offers
    // Resume and Abandon; Abandon asks first, then frees the window, read back.
    void deadHolderIsInterruptedAndAbandonFreesTheWindow()
    {
        QTemporaryDir dir;
        const QString spec = wrappedSpec(dir, kSlow);
        Fixture f("run_dead_holder", spec);
        RunScreen *screen = f.screen.get();
        QProcess cli;
        cli.start(reprint::test::reprintBinary(),
                  {QStringLiteral("backfill"), QStringLiteral("--spec"), spec, QStringLiteral("--db"), QString::fromStdString(f.db),
                   QStringLiteral("--model"), QStringLiteral("fct_order_lines"), QStringLiteral("--from"), QStringLiteral("2026-03-01"),
                   QStringLiteral("--to"), QStringLiteral("2026-03-20")});
        QVERIFY(cli.waitForStarted());
        QTRY_VERIFY_WITH_TIMEOUT(
            scalar(f.db, "SELECT count(*) FROM reprint.backfill_partitions WHERE state = 'staged'") != "0", 60000);
        const qint64 deadPid = cli.processId();  // 0 once it has exited
        cli.kill();
        QVERIFY(cli.waitForFinished(10000));
        const std::string id = scalar(f.db, "SELECT id FROM reprint.backfills");
        // The lease is still running: only the process is gone.
        QCOMPARE(scalar(f.db, "SELECT (lease_expires > now() + interval '5 seconds')::text FROM reprint.claims"), std::string("true"));
        screen->follow(std::stoll(id));
        QTRY_COMPARE_WITH_TIMEOUT(screen->phase(), Phase::Stalled, 10000);
        QCOMPARE(RunScreen::phaseLabel(Phase::Stalled), QStringLiteral("interrupted · resumable"));
        QVERIFY(!screen->cancelButton()->isEnabled());
        // The staged count arrives with the progress snapshot, a poll later on a busy machine.
        QTRY_VERIFY_WITH_TIMEOUT(screen->resumeButton()->isEnabled(), 30000);
        QVERIFY(screen->abandonButton()->isEnabled());
        const QString banner = screen->findChild<QLabel *>(QStringLiteral("runBanner"))->text();
        QVERIFY2(banner.contains(QStringLiteral("Interrupted")) && banner.contains(QStringLiteral(":%1)").arg(deadPid)), qPrintable(banner));

        // "Keep it" keeps it.
        clickWhenShown(screen, QStringLiteral("abandonConfirmation"), QStringLiteral("Keep it"));
        screen->abandonButton()->click();
        QTRY_VERIFY(!screen->findChild<QMessageBox *>(QStringLiteral("abandonConfirmation")));
        QCOMPARE(scalar(f.db, "SELECT status FROM reprint.backfills"), std::string("staging"));
        const std::string stage = scalar(f.db, "SELECT stage_table FROM reprint.backfills");

        clickWhenShown(screen, QStringLiteral("abandonConfirmation"), QStringLiteral("Abandon backfill"));
        screen->abandonButton()->click();
        QTRY_COMPARE_WITH_TIMEOUT(screen->phase(), Phase::Abandoned, 20000);
        QCOMPARE(scalar(f.db, "SELECT status FROM reprint.backfills"), std::string("abandoned"));
        QCOMPARE(scalar(f.db, "SELECT count(*) FROM reprint.claims"), std::string("0"));
        QCOMPARE(scalar(f.db, "SELECT count(*) FROM pg_tables WHERE schemaname = 'reprint_staging' AND tablename = $1", {stage}),
                 std::string("0"));
        QVERIFY(!screen->abandonButton()->isEnabled());
        QVERIFY(!screen->resumeButton()->isEnabled());
    }

    // Start on a window another backfill holds: nothing is claimed, so the partitions listed
    // as queued when Start was pressed go away, and the banner names the holder.
    void aClaimedWindowListsNothingQueued()
    {
        Fixture f("run_claimed");
        QProcess cli;
        cli.start(reprint::test::reprintBinary(),
                  {QStringLiteral("backfill"), QStringLiteral("--spec"), f.spec, QStringLiteral("--db"), QString::fromStdString(f.db),
                   QStringLiteral("--model"), QStringLiteral("fct_order_lines"), QStringLiteral("--from"), QStringLiteral("2026-03-09"),
                   QStringLiteral("--to"), QStringLiteral("2026-03-14")});
        QVERIFY(cli.waitForFinished(120000));
        QVERIFY2(cli.exitCode() == 0 || cli.exitCode() == 3, cli.readAllStandardError().constData());  // staged: its claim is held
        RunScreen *screen = f.screen.get();
        screen->start(request("2026-03-12", "2026-03-16"));
        QCOMPARE(screen->progressModel()->rowCount(), 5);
        QTRY_VERIFY_WITH_TIMEOUT(RunScreen::isTerminal(screen->phase()), 60000);
        QCOMPARE(screen->phase(), Phase::Failed);
        QCOMPARE(screen->backfillId(), 0);
        QCOMPARE(screen->progressModel()->rowCount(), 0);
        auto *banner = screen->findChild<QLabel *>(QStringLiteral("runBanner"));
        QVERIFY(banner && banner->isVisible());
        QVERIFY2(banner->text().contains(QStringLiteral("claimed")), qPrintable(banner->text()));
        QCOMPARE(scalar(f.db, "SELECT count(*) FROM reprint.backfills"), std::string("1"));
    }

    // Not a check: writes docs/run*.png when REPRINT_SCREENSHOT_DIR is set.
    void screenshots()
    {
        const QString out = qEnvironmentVariable("REPRINT_SCREENSHOT_DIR");
        if (out.isEmpty())
            QSKIP("set REPRINT_SCREENSHOT_DIR to write the Run screen screenshots");
        QTemporaryDir dir;
        const QString failing = wrappedSpec(dir, kSlowFailing12);
        const QPalette light = QApplication::palette();
        const QString lightStyle = QApplication::style()->name();
        for (const bool dark : {false, true}) {
            if (dark)
                reprint::views::useDarkPalette();
            else {
                QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
                QApplication::setPalette(light);
            }
            const QString suffix = dark ? QStringLiteral("-dark") : QString();
            for (const bool during : {true, false}) {
                const std::string db = reprint::test::demoCopy(dark ? (during ? "shot_dd" : "shot_da") : (during ? "shot_ld" : "shot_la"));
                reprint::views::MainWindow window;
                window.resize(1280, 800);
                window.show();
                QString error;
                QVERIFY2(window.openSpec(during ? failing : demoSpec(), QString::fromStdString(db), &error), qPrintable(error));
                auto *tabs = window.findChild<QTabWidget *>(QStringLiteral("modelTabs"));
                RunScreen *screen = window.runScreen();
                QTest::qWait(1500);
                tabs->setCurrentWidget(screen);
                if (during) {
                    screen->start(request("2026-03-01", "2026-03-20", 2));
                    QTRY_VERIFY_WITH_TIMEOUT(screen->progressModel()->stagedCount() >= 9 && screen->progressModel()->failedCount() >= 1, 90000);
                    QTest::qWait(400);
                    QVERIFY(window.grab().save(QDir(out).filePath(QStringLiteral("run%1.png").arg(suffix))));
                    QTRY_VERIFY_WITH_TIMEOUT(RunScreen::isTerminal(screen->phase()), 90000);
                    QTest::qWait(400);
                    QVERIFY(window.grab().save(QDir(out).filePath(QStringLiteral("run-failed%1.png").arg(suffix))));
                } else {
                    screen->start(request("2026-03-09", "2026-03-14", 2));
                    QTRY_VERIFY_WITH_TIMEOUT(RunScreen::isTerminal(screen->phase()), 90000);
                    QTRY_VERIFY_WITH_TIMEOUT(verdictsShown(screen->progressModel()), 20000);
                    QTest::qWait(600);
                    QVERIFY(window.grab().save(QDir(out).filePath(QStringLiteral("run-done%1.png").arg(suffix))));
                }
            }
        }
        QApplication::setStyle(QStyleFactory::create(lightStyle));
        QApplication::setPalette(light);
    }
};

QTEST_MAIN(TestRunScreen)
#include "tst_runscreen.moc"
