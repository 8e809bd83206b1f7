// Benchmark: Reprint's backfill + publish against the plain SQL a careful person would run
// in psql (BEGIN; DELETE the window; INSERT ... SELECT the same transform; COMMIT), on
// copies of the demo warehouse at scale 1, in the same run. Prints ratios, asserts none.
#include "benchresults.h"
#include "testsupport.h"

#include "backfill/engine.h"
#include "backfill/spec.h"
#include "backfill/sqltext.h"
#include "warehouse/iothread.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include <algorithm>
#include <chrono>
#include <thread>

using namespace reprint;
using Clock = std::chrono::steady_clock;

namespace {

double seconds(Clock::time_point a, Clock::time_point b)
{
    return std::chrono::duration<double>(b - a).count();
}

template <typename T>
T block(warehouse::Task<T> task)
{
    warehouse::asio::io_context io;
    return warehouse::runBlocking(io, std::move(task));
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// The mean of each phase over `runs`, in the order the phases first ran.
QJsonArray meanPhases(const std::vector<backfill::Timings> &runs)
{
    backfill::Laps sum;
    for (const backfill::Timings &t : runs)
        for (const backfill::PhaseTime &p : t)
            sum.add(p.phase, p.ms / static_cast<double>(runs.size()));
    QJsonArray out;
    for (const backfill::PhaseTime &p : sum.timings())
        out.append(QJsonObject{{QStringLiteral("phase"), QString::fromStdString(p.phase)}, {QStringLiteral("ms"), p.ms}});
    return out;
}

} // namespace

class BenchBackfill : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        auto spec = backfill::loadSpec(QDir(qEnvironmentVariable("REPRINT_TEST_DEMO_DIR")).filePath(QStringLiteral("demo.yaml")).toStdString());
        QVERIFY2(spec.ok(), spec.ok() ? "" : spec.error().message.c_str());
        m_spec = *spec;
    }

    void backfillVersusPlainSql()
    {
        const backfill::Model &model = *m_spec.model("fct_order_lines");
        auto bound = backfill::bindNamedParameters(model.transformSql, {"start", "end"});
        QVERIFY(bound.ok());
        std::string transform = bound->sql;
        while (!transform.empty() && (transform.back() == ';' || std::isspace(static_cast<unsigned char>(transform.back()))))
            transform.pop_back();

        struct Window {
            const char *name;
            const char *from;
            const char *to;
            const char *endExclusive;
        };
        const std::vector<Window> windows = {{"1 day", "2026-03-10", "2026-03-10", "2026-03-11"},
                                             {"5 days", "2026-03-10", "2026-03-14", "2026-03-15"},
                                             {"30 days", "2026-03-01", "2026-03-30", "2026-03-31"}};
        QJsonArray results;
        QTextStream out(stdout);
        out << "\nwindow    baseline_s  reprint_s  stage_validate_s  publish_s  ratio\n";
        for (const Window &w : windows) {
            std::vector<double> base, total, stageValidate, publish;
            std::vector<backfill::Timings> backfillPhases, publishPhases;
            for (int round = 0; round < 3; ++round) {
                // The baseline: delete + insert of the same transform, no validation at all.
                const std::string a = test::demoCopy("bench_base");
                {
                    const auto t0 = Clock::now();
                    auto r = block([](std::string ci, std::string sql, std::string from, std::string to) -> warehouse::Task<warehouse::Status> {
                        auto c = co_await warehouse::Connection::connect(ci);
                        if (!c)
                            co_return c.error();
                        auto x = co_await (*c)->execute("BEGIN");
                        if (x)
                            x = co_await (*c)->query("DELETE FROM analytics.fct_order_lines WHERE order_date >= $1::date AND order_date < $2::date",
                                                     warehouse::args(from, to));
                        if (x)
                            x = co_await (*c)->query("INSERT INTO analytics.fct_order_lines " + sql,
                                                     warehouse::args(from + "T00:00:00+00:00", to + "T00:00:00+00:00"),
                                                     warehouse::oids(warehouse::kTimestamptzOid, warehouse::kTimestamptzOid));
                        if (x)
                            x = co_await (*c)->execute("COMMIT");
                        if (!x)
                            co_return x.error();
                        co_return warehouse::ok();
                    }(a, transform, w.from, w.endExclusive));
                    QVERIFY2(r.ok(), r.ok() ? "" : r.error().message.c_str());
                    base.push_back(seconds(t0, Clock::now()));
                }
                // Reprint: claim, stage, validate (totals, checks, boundary row diffs), publish.
                const std::string b = test::demoCopy("bench_reprint");
                backfill::Engine engine(m_spec, b);
                const auto t0 = Clock::now();
                backfill::BackfillRequest req;
                req.model = "fct_order_lines";
                req.from = w.from;
                req.to = w.to;
                auto staged = block(engine.backfill(req));
                const auto t1 = Clock::now();
                QVERIFY2(staged.ok(), staged.ok() ? "" : staged.error().message.c_str());
                backfill::PublishRequest pub;
                pub.id = staged->id;
                pub.note = "bench";
                pub.overrideReason = staged->validationPassed ? "" : "bench: the narrow window fails on purpose";
                auto published = block(engine.publish(pub));
                const auto t2 = Clock::now();
                QVERIFY2(published.ok(), published.ok() ? "" : published.error().message.c_str());
                stageValidate.push_back(seconds(t0, t1));
                publish.push_back(seconds(t1, t2));
                backfillPhases.push_back(staged->timings);
                publishPhases.push_back(published->timings);
                total.push_back(seconds(t0, t2));
            }
            const double ratio = median(total) / median(base);
            out << QString::asprintf("%-8s  %10.3f  %9.3f  %16.3f  %9.3f  %5.2fx\n", w.name, median(base), median(total),
                                     median(stageValidate), median(publish), ratio);
            results.append(QJsonObject{{QStringLiteral("window"), QString::fromLatin1(w.name)},
                                       {QStringLiteral("baseline_s"), median(base)},
                                       {QStringLiteral("reprint_s"), median(total)},
                                       {QStringLiteral("stage_validate_s"), median(stageValidate)},
                                       {QStringLiteral("publish_s"), median(publish)},
                                       {QStringLiteral("ratio"), ratio},
                                       {QStringLiteral("backfill_phases_ms"), meanPhases(backfillPhases)},
                                       {QStringLiteral("publish_phases_ms"), meanPhases(publishPhases)}});
            for (const auto &[what, phases] : {std::pair{"backfill", meanPhases(backfillPhases)}, std::pair{"publish", meanPhases(publishPhases)}})
                for (const QJsonValue &p : phases)
                    out << QString::asprintf("  %-8s %-8s %9.1f ms  %s\n", w.name, what, p.toObject().value(QStringLiteral("ms")).toDouble(),
                                             qPrintable(p.toObject().value(QStringLiteral("phase")).toString()));
        }
        const double growth = results.at(2).toObject().value(QStringLiteral("reprint_s")).toDouble()
                              / results.at(0).toObject().value(QStringLiteral("reprint_s")).toDouble();
        const double baseGrowth = results.at(2).toObject().value(QStringLiteral("baseline_s")).toDouble()
                                  / results.at(0).toObject().value(QStringLiteral("baseline_s")).toDouble();
        out << QString::asprintf("30-day / 1-day cost: reprint %.2fx, baseline %.2fx\n", growth, baseGrowth);
        const QJsonObject summary{{QStringLiteral("benchmark"), QStringLiteral("backfill_vs_plain_sql")},
                                  {QStringLiteral("rows_in_table"), QString::fromStdString(test::query(test::demoCopy("bench_count"), "SELECT count(*) FROM analytics.fct_order_lines")->last().scalar())},
                                  {QStringLiteral("windows"), results},
                                  {QStringLiteral("growth_30_vs_1_reprint"), growth},
                                  {QStringLiteral("growth_30_vs_1_baseline"), baseGrowth}};
        out << QJsonDocument(summary).toJson(QJsonDocument::Compact) << "\n";
        test::record(QStringLiteral("backfill_vs_plain_sql"), summary);
        out.flush();
    }

    // --parallel 2 against --parallel 1 on the same 30-day window: with the model's source
    // checks (they run on sessions of their own beside the staging, so --parallel 1 already
    // keeps two cores busy), and without them (the staging alone: what more sessions gain
    // where the server has the cores).
    void parallelStaging()
    {
        backfill::Spec unchecked = m_spec;
        for (backfill::Model &m : unchecked.models)
            m.checks.clear();
        double medians[2][2] = {{0, 0}, {0, 0}};
        for (int withChecks : {1, 0}) {
            std::vector<double> seconds[2];
            for (int round = 0; round < 3; ++round)
                for (int parallel : {1, 2}) {
                    const std::string db = test::demoCopy("bench_parallel");
                    backfill::Engine engine(withChecks ? m_spec : unchecked, db);
                    backfill::BackfillRequest req;
                    req.model = "fct_order_lines";
                    req.from = "2026-03-01";
                    req.to = "2026-03-30";
                    req.parallel = parallel;
                    const auto t0 = Clock::now();
                    auto staged = block(engine.backfill(req));
                    QVERIFY2(staged.ok(), staged.ok() ? "" : staged.error().message.c_str());
                    seconds[parallel - 1].push_back(std::chrono::duration<double>(Clock::now() - t0).count());
                }
            medians[withChecks][0] = median(seconds[0]);
            medians[withChecks][1] = median(seconds[1]);
        }
        QTextStream out(stdout);
        out << QString::asprintf("\n30-day stage + validate: --parallel 1 %.3f s, --parallel 2 %.3f s, speed-up %.2fx\n",
                                 medians[1][0], medians[1][1], medians[1][0] / medians[1][1]);
        out << QString::asprintf("30-day stage + validate without source checks: --parallel 1 %.3f s, --parallel 2 %.3f s, "
                                 "speed-up %.2fx\n",
                                 medians[0][0], medians[0][1], medians[0][0] / medians[0][1]);
        test::record(QStringLiteral("parallel_staging"),
                     QJsonObject{{QStringLiteral("parallel_1_s"), medians[1][0]},
                                 {QStringLiteral("parallel_2_s"), medians[1][1]},
                                 {QStringLiteral("ratio_2_vs_1"), medians[1][1] / medians[1][0]},
                                 {QStringLiteral("unchecked_parallel_1_s"), medians[0][0]},
                                 {QStringLiteral("unchecked_parallel_2_s"), medians[0][1]},
                                 {QStringLiteral("unchecked_ratio_2_vs_1"), medians[0][1] / medians[0][0]}});
        out.flush();
    }

    // Publish by replace (delete + insert) against publish by partition swap: how long each
    // holds the target's lock (replace: from its DELETE to COMMIT, blocking writers of the
    // window; swap: from its ACCESS EXCLUSIVE lock to COMMIT, blocking readers too).
    void publishStrategies()
    {
        struct Window {
            const char *name, *from, *to;
        };
        QTextStream out(stdout);
        out << "\nwindow    strategy  publish_s  lock_held_ms\n";
        QJsonArray results;
        for (const Window &w : {Window{"1 day", "2026-03-10", "2026-03-10"}, Window{"30 days", "2026-03-01", "2026-03-30"}}) {
            double held[2] = {0, 0};
            for (int i = 0; i < 2; ++i) {
                backfill::Spec spec = m_spec;
                for (backfill::Model &m : spec.models)
                    m.publish = i == 0 ? backfill::PublishStrategy::Replace : backfill::PublishStrategy::Swap;
                std::vector<double> seconds, lockMs;
                // One copy per strategy: each round's undo puts the window back as it was.
                const std::string db = test::demoCopy("bench_strategy");
                backfill::Engine engine(spec, db);
                for (int round = 0; round < 3; ++round) {
                    backfill::BackfillRequest req;
                    req.model = "fct_order_lines";
                    req.from = w.from;
                    req.to = w.to;
                    auto staged = block(engine.backfill(req));
                    QVERIFY2(staged.ok(), staged.ok() ? "" : staged.error().message.c_str());
                    backfill::PublishRequest pub;
                    pub.id = staged->id;
                    pub.note = "bench";
                    pub.overrideReason = staged->validationPassed ? "" : "bench: the narrow window fails on purpose";
                    const auto t0 = Clock::now();
                    auto published = block(engine.publish(pub));
                    QVERIFY2(published.ok(), published.ok() ? "" : published.error().message.c_str());
                    seconds.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
                    lockMs.push_back(published->lockHeldMs);
                    backfill::UndoRequest undo;
                    undo.id = staged->id;
                    auto undone = block(engine.undo(undo));
                    QVERIFY2(undone.ok(), undone.ok() ? "" : undone.error().message.c_str());
                }
                held[i] = median(lockMs);
                const char *strategy = i == 0 ? "replace" : "swap";
                out << QString::asprintf("%-8s  %-8s  %9.3f  %12.1f\n", w.name, strategy, median(seconds), held[i]);
                results.append(QJsonObject{{QStringLiteral("window"), QString::fromLatin1(w.name)},
                                           {QStringLiteral("strategy"), QString::fromLatin1(strategy)},
                                           {QStringLiteral("publish_s"), median(seconds)},
                                           {QStringLiteral("lock_held_ms"), held[i]}});
            }
            out << QString::asprintf("%-8s  swap holds its lock %.2fx as long as replace\n", w.name, held[1] / held[0]);
        }
        out << QJsonDocument(QJsonObject{{QStringLiteral("benchmark"), QStringLiteral("publish_strategies")},
                                         {QStringLiteral("results"), results}})
                   .toJson(QJsonDocument::Compact)
            << "\n";
        test::record(QStringLiteral("publish_strategies"), results);
        out.flush();
    }

private:
    backfill::Spec m_spec;
};

QTEST_GUILESS_MAIN(BenchBackfill)
#include "bench_backfill.moc"
