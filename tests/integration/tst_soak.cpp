// The reliability soak (label reliability-long, out of the default run: minutes): rounds
// of two backfills racing for one window, the winner published and undone, while readers
// read the window's per-day totals without pause. Each read must be the window all old or
// all new, never a mix; each race must have exactly one winner. Prints its figures.
#include "backfillfixture.h"

#include <QProcess>

using namespace reprint;
using namespace reprint::test;

namespace {

const QString kFrom = QStringLiteral("2026-03-09");
const QString kTo = QStringLiteral("2026-03-14");

const char *kWindowTotals =
    "SELECT string_agg(d::text || ' ' || n || ' ' || s, E'\\n' ORDER BY d) FROM (SELECT order_date AS d, count(*) AS n, "
    "sum(revenue) AS s FROM analytics.fct_order_lines WHERE order_date BETWEEN '2026-03-09' AND '2026-03-14' GROUP BY 1) x";

// Readers on connections of their own, each read one statement (one snapshot).
class Readers {
public:
    Readers(std::string db, std::string oldText, std::string newText, int count)
    {
        for (int i = 0; i < count; ++i)
            m_threads.emplace_back([this, db, oldText, newText] {
                warehouse::IoThread io;
                auto conn = io.spawn(warehouse::Connection::connect(db)).get();
                if (!conn) {
                    ++failed;
                    return;
                }
                while (!m_stop) {
                    auto r = io.spawn([](warehouse::ConnectionPtr c) -> warehouse::Task<warehouse::Result<warehouse::Reply>> {
                        co_return co_await c->execute(kWindowTotals);
                    }(*conn)).get();
                    if (!r) {
                        ++failed;
                        continue;
                    }
                    const std::string seen = r->last().scalar();
                    ++reads;
                    if (seen == oldText)
                        ++old;
                    else if (seen == newText)
                        ++fresh;
                    else
                        ++mixed;
                }
                (*conn)->close();
            });
    }
    ~Readers() { stop(); }
    void stop()
    {
        m_stop = true;
        for (auto &t : m_threads)
            if (t.joinable())
                t.join();
    }
    std::atomic<long> reads{0}, old{0}, fresh{0}, mixed{0}, failed{0};

private:
    std::atomic<bool> m_stop{false};
    std::vector<std::thread> m_threads;
};

} // namespace

class TestSoak : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void racesPublishesAndUndosUnderReaders()
    {
        const int rounds = qEnvironmentVariableIntValue("REPRINT_SOAK_ROUNDS") > 0 ? qEnvironmentVariableIntValue("REPRINT_SOAK_ROUNDS") : 60;
        const std::string db = test::demoCopy("soak");
        const std::string oldText = scalar(db, kWindowTotals);
        std::string newText;
        for (const QString &line : QString::fromStdString(truthPerDay(db)).split(QLatin1Char('\n')))
            if (line.left(10) >= kFrom && line.left(10) <= kTo)
                newText += (newText.empty() ? "" : "\n") + line.toStdString();
        QVERIFY(oldText != newText);
        Readers readers(db, oldText, newText, 2);
        const QStringList backfill = base(QStringLiteral("backfill"), db) << QStringLiteral("--model") << QStringLiteral("fct_order_lines")
                                                                         << QStringLiteral("--from") << kFrom << QStringLiteral("--to") << kTo;
        int races = 0, publishes = 0, undos = 0;
        for (int round = 0; round < rounds; ++round) {
            // Two backfills race for the window: exactly one stages it, the other is refused.
            QProcess a, b;
            a.start(test::reprintBinary(), backfill);
            b.start(test::reprintBinary(), backfill);
            QVERIFY(a.waitForFinished(300000) && b.waitForFinished(300000));
            const QString aErr = QString::fromUtf8(a.readAllStandardError()), bErr = QString::fromUtf8(b.readAllStandardError());
            const QList<int> codes{a.exitCode(), b.exitCode()};
            QVERIFY2(codes.count(0) == 1 && codes.count(4) == 1, qPrintable(aErr + QStringLiteral("\n---\n") + bErr));
            ++races;
            const QString winnerOut = QString::fromUtf8(a.exitCode() == 0 ? a.readAllStandardOutput() : b.readAllStandardOutput());
            const QString winnerErr = a.exitCode() == 0 ? aErr : bErr;
            const long long id = backfillIdFrom({0, winnerOut, winnerErr});
            QVERIFY2(id > 0, qPrintable(winnerErr));
            auto pub = test::runReprint(base(QStringLiteral("publish"), db) << QString::number(id) << QStringLiteral("--approve")
                                                                            << QStringLiteral("soak"));
            QVERIFY2(pub.exitCode == 0, qPrintable(pub.err));
            ++publishes;
            QCOMPARE(scalar(db, kWindowTotals), newText);
            auto undo = test::runReprint(base(QStringLiteral("undo"), db) << QString::number(id));
            QVERIFY2(undo.exitCode == 0, qPrintable(undo.err));
            ++undos;
            QCOMPARE(scalar(db, kWindowTotals), oldText);
        }
        readers.stop();
        qInfo("soak: %d rounds, %d races (one winner each), %d publishes, %d undos; %ld reads: %ld old, %ld new, %ld mixed, %ld failed",
              rounds, races, publishes, undos, readers.reads.load(), readers.old.load(), readers.fresh.load(), readers.mixed.load(),
              readers.failed.load());
        QCOMPARE(readers.mixed.load(), 0L);
        QCOMPARE(readers.failed.load(), 0L);
        QVERIFY(readers.old.load() > 0 && readers.fresh.load() > 0);
    }
};

QTEST_GUILESS_MAIN(TestSoak)
#include "tst_soak.moc"
