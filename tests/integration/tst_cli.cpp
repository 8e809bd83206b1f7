// The CLI parts of issue 14, through the `reprint` binary on copies of the demo warehouse:
// the row diff pages (item 9), a mistyped command's suggestion runs as printed (item 12),
// a refused backfill takes no id (item 6), and one sentence for a failed validation, one
// plural, one null (item 13). Each spec copy names its database as its warehouse, so that
// every command the CLI prints runs as printed (no --db).
#include "backfillfixture.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QLocale>
#include <QProcess>

#include <algorithm>
#include <cmath>

using namespace reprint;
using namespace reprint::test;

namespace {

// A copy of the demo spec whose warehouse is `db`.
QString specFor(QTemporaryDir &dir, const std::string &db)
{
    return specCopy(dir, [&](QString &yaml) {
        yaml.replace(QRegularExpression(QStringLiteral("^warehouse: .*$"), QRegularExpression::MultilineOption),
                     QStringLiteral("warehouse: \"%1\"").arg(QString::fromStdString(db)));
    });
}

QStringList cmd(const QString &command, const QString &spec)
{
    return {command, QStringLiteral("--spec"), spec};
}

ProcessResult backfill(const QString &spec, const QString &from, const QString &to)
{
    return runReprint(cmd(QStringLiteral("backfill"), spec) << QStringLiteral("--model") << QStringLiteral("fct_order_lines")
                                                            << QStringLiteral("--from") << from << QStringLiteral("--to") << to);
}

// The `reprint ...` commands quoted in `text`, split into arguments (no spaces in paths
// here; a single-quoted word is unquoted).
QList<QStringList> commandsIn(const QString &text)
{
    QList<QStringList> out;
    static const QRegularExpression quoted(QStringLiteral("`(reprint [^`]+)`"));
    static const QRegularExpression word(QStringLiteral("'([^']*)'|(\\S+)"));
    for (auto it = quoted.globalMatch(text); it.hasNext();) {
        QStringList words;
        const QString line = it.next().captured(1);
        for (auto w = word.globalMatch(line); w.hasNext();) {
            const auto m = w.next();
            words << (m.capturedStart(1) >= 0 ? m.captured(1) : m.captured(2));
        }
        words.removeFirst();
        out.append(words);
    }
    return out;
}

QStringList keysOf(const QJsonObject &diff)
{
    QStringList keys;
    for (const QJsonValue &v : diff.value(QStringLiteral("sample")).toArray())
        keys << QString::fromUtf8(QJsonDocument(v.toObject().value(QStringLiteral("key")).toObject()).toJson(QJsonDocument::Compact));
    return keys;
}

} // namespace

class TestCli : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(QFile::exists(demoSpec()), "the demo fixture did not write its spec");
    }

    // Item 9: `diff --rows` says which rows of how many it shows, and the command for the
    // next page runs as printed; --limit and --offset page through every row, the JSON
    // carries the total and the page asked; past the end is a usage error whose hint runs.
    void rowDiffSaysWhatItShowsAndPages()
    {
        const std::string db = demoCopy("cli_rows");
        QTemporaryDir dir;
        const QString spec = specFor(dir, db);
        auto bf = backfill(spec, QStringLiteral("2026-03-09"), QStringLiteral("2026-03-14"));
        QVERIFY2(bf.exitCode == 0, qPrintable(bf.err));
        const QString id = QString::number(backfillIdFrom(bf));
        const QStringList rows = cmd(QStringLiteral("diff"), spec) << id << QStringLiteral("--rows") << QStringLiteral("2026-03-10");

        auto all = runReprint(QStringList(rows) << QStringLiteral("--limit") << QStringLiteral("all") << QStringLiteral("--format")
                                                << QStringLiteral("json"));
        QVERIFY2(all.exitCode == 0, qPrintable(all.err));
        const QJsonObject whole = json(all);
        const qint64 total = whole.value(QStringLiteral("total")).toInteger();
        QCOMPARE(total, whole.value(QStringLiteral("added")).toInteger() + whole.value(QStringLiteral("removed")).toInteger()
                            + whole.value(QStringLiteral("changed")).toInteger());
        QVERIFY2(total > 40, qPrintable(QString::number(total)));
        QCOMPARE(whole.value(QStringLiteral("sample")).toArray().size(), total);
        QVERIFY(whole.value(QStringLiteral("limit")).isNull());
        QCOMPARE(whole.value(QStringLiteral("offset")).toInteger(), 0);
        QCOMPARE(whole.value(QStringLiteral("basis")).toString(), QStringLiteral("stage"));
        const QStringList everyKey = keysOf(whole);

        // The default page: 20 rows, said so, with the command for the next.
        auto first = runReprint(rows);
        QVERIFY2(first.exitCode == 0, qPrintable(first.err));
        const QString totalText = QLocale(QLocale::English).toString(total);
        QVERIFY2(first.err.contains(QStringLiteral("showing rows 1-20 of %1 changed/added/removed; ").arg(totalText)), qPrintable(first.err));
        const QList<QStringList> next = commandsIn(first.err);
        QCOMPARE(next.size(), 1);
        QVERIFY2(next.first().contains(QStringLiteral("--spec")) && next.first().contains(QStringLiteral("--offset")),
                 qPrintable(next.first().join(QLatin1Char(' '))));
        auto second = runReprint(next.first());
        QVERIFY2(second.exitCode == 0, qPrintable(second.err));
        QVERIFY2(second.err.contains(QStringLiteral("showing rows 21-40 of %1").arg(totalText)), qPrintable(second.err));
        auto secondJson = runReprint(QStringList(next.first()) << QStringLiteral("--format") << QStringLiteral("json"));
        QCOMPARE(keysOf(json(secondJson)), everyKey.mid(20, 20));

        // --limit and --offset: the same rows as that part of the whole.
        auto page = runReprint(QStringList(rows) << QStringLiteral("--limit") << QStringLiteral("7") << QStringLiteral("--offset")
                                                 << QStringLiteral("3") << QStringLiteral("--format") << QStringLiteral("json"));
        QVERIFY2(page.exitCode == 0, qPrintable(page.err));
        const QJsonObject p = json(page);
        QCOMPARE(p.value(QStringLiteral("total")).toInteger(), total);
        QCOMPARE(p.value(QStringLiteral("offset")).toInteger(), 3);
        QCOMPARE(p.value(QStringLiteral("limit")).toInteger(), 7);
        QCOMPARE(keysOf(p), everyKey.mid(3, 7));
        auto pageTable = runReprint(QStringList(rows) << QStringLiteral("--limit") << QStringLiteral("7") << QStringLiteral("--offset")
                                                      << QStringLiteral("3"));
        QVERIFY2(pageTable.err.contains(QStringLiteral("showing rows 4-10 of %1").arg(totalText)), qPrintable(pageTable.err));
        QVERIFY2(pageTable.err.contains(QStringLiteral("--offset 10 --limit 7`")), qPrintable(pageTable.err));

        // The last page says no more; every row shown says nothing.
        auto last = runReprint(QStringList(rows) << QStringLiteral("--offset") << QString::number(total - 5));
        QVERIFY2(last.exitCode == 0, qPrintable(last.err));
        QVERIFY2(last.err.contains(QStringLiteral("showing rows %1-%2 of %2").arg(QLocale(QLocale::English).toString(total - 4), totalText)),
                 qPrintable(last.err));
        QVERIFY2(!last.err.contains(QStringLiteral("for the next")), qPrintable(last.err));
        auto every = runReprint(QStringList(rows) << QStringLiteral("--limit") << QStringLiteral("all"));
        QVERIFY2(every.exitCode == 0 && !every.err.contains(QStringLiteral("showing")), qPrintable(every.err));

        // Past the end: exit 1, and the last page it names runs as printed.
        auto past = runReprint(QStringList(rows) << QStringLiteral("--offset") << QString::number(total + 100));
        QCOMPARE(past.exitCode, 1);
        QVERIFY2(past.err.contains(QStringLiteral("--offset %1 is past the last of the %2 changed/added/removed rows of 2026-03-10")
                                       .arg(total + 100)
                                       .arg(totalText)),
                 qPrintable(past.err));
        const QList<QStringList> lastPage = commandsIn(past.err);
        QCOMPARE(lastPage.size(), 1);
        auto ran = runReprint(lastPage.first());
        QVERIFY2(ran.exitCode == 0 && ran.err.contains(QStringLiteral("showing rows %1-%2 of %2").arg(QLocale(QLocale::English).toString(total - 19), totalText)),
                 qPrintable(ran.err));

        // Once published, the pages come from the archive against the target.
        auto pub = runReprint(cmd(QStringLiteral("publish"), spec) << id << QStringLiteral("--approve") << QStringLiteral("paged"));
        QVERIFY2(pub.exitCode == 0, qPrintable(pub.err));
        auto archived = runReprint(QStringList(rows) << QStringLiteral("--offset") << QStringLiteral("20") << QStringLiteral("--format")
                                                     << QStringLiteral("json"));
        QVERIFY2(archived.exitCode == 0, qPrintable(archived.err));
        QCOMPARE(json(archived).value(QStringLiteral("basis")).toString(), QStringLiteral("archive"));
        QCOMPARE(keysOf(json(archived)), everyKey.mid(20, 20));
        qInfo("%lld rows of 2026-03-10 paged: 1-20, 21-40 as printed, 4-10, the last, all; past the end names the last page",
              static_cast<long long>(total));
    }

    void limitAndOffsetAreValidated_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("mentions");
        const QString p = QStringLiteral("2026-03-10");
        QTest::newRow("limit 0") << QStringList{QStringLiteral("--rows"), p, QStringLiteral("--limit"), QStringLiteral("0")}
                                 << QStringLiteral("--limit '0' is not a number of rows from 1 to 2147483647, or all");
        QTest::newRow("limit negative") << QStringList{QStringLiteral("--rows"), p, QStringLiteral("--limit=-3")}
                                        << QStringLiteral("--limit '-3' is not a number of rows");
        QTest::newRow("limit word") << QStringList{QStringLiteral("--rows"), p, QStringLiteral("--limit"), QStringLiteral("every")}
                                    << QStringLiteral("--limit 'every' is not a number of rows");
        QTest::newRow("limit too big") << QStringList{QStringLiteral("--rows"), p, QStringLiteral("--limit"), QStringLiteral("2147483648")}
                                       << QStringLiteral("--limit '2147483648' is not a number of rows");
        QTest::newRow("offset negative") << QStringList{QStringLiteral("--rows"), p, QStringLiteral("--offset=-1")}
                                         << QStringLiteral("--offset '-1' is not a number of rows to skip (0 or more)");
        QTest::newRow("offset word") << QStringList{QStringLiteral("--rows"), p, QStringLiteral("--offset"), QStringLiteral("next")}
                                     << QStringLiteral("--offset 'next' is not a number of rows to skip");
        QTest::newRow("limit without rows") << QStringList{QStringLiteral("--limit"), QStringLiteral("5")}
                                            << QStringLiteral("--limit pages the row-level diff: it needs --rows P");
        QTest::newRow("offset without rows") << QStringList{QStringLiteral("--offset"), QStringLiteral("5")}
                                             << QStringLiteral("--offset pages the row-level diff: it needs --rows P");
        QTest::newRow("limit on another command")
            << QStringList{QStringLiteral("--approve"), QStringLiteral("x"), QStringLiteral("--limit"), QStringLiteral("5")}
            << QStringLiteral("publish does not take --limit");
    }

    void limitAndOffsetAreValidated()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, mentions);
        static const std::string db = demoCopy("cli_bad_paging");
        const QString command = QTest::currentDataTag() == QLatin1String("limit on another command") ? QStringLiteral("publish")
                                                                                                     : QStringLiteral("diff");
        auto p = runReprint(base(command, db) << QStringLiteral("1") << args);
        QCOMPARE(p.exitCode, 1);
        QVERIFY2(p.err.contains(mentions), qPrintable(p.err));
        QCOMPARE(scalar(db, "SELECT count(*) FROM reprint.backfills"), std::string("0"));
    }

    // Item 12: a mistyped command names the nearest, and the corrected line it prints runs.
    void aMistypedCommandsSuggestionRunsAsPrinted()
    {
        const std::string db = demoCopy("cli_typo");
        QTemporaryDir dir;
        const QString spec = specFor(dir, db);
        auto p = runReprint(cmd(QStringLiteral("hisotry"), spec) << QStringLiteral("--format") << QStringLiteral("json"));
        QCOMPARE(p.exitCode, 1);
        QVERIFY2(p.err.contains(QStringLiteral("reprint: unknown command 'hisotry'; did you mean `reprint history`?")), qPrintable(p.err));
        const QList<QStringList> hints = commandsIn(p.err);
        QStringList full;
        for (const QStringList &h : hints)
            if (h.size() > 1)
                full = h;
        QCOMPARE(full, QStringList(cmd(QStringLiteral("history"), spec) << QStringLiteral("--format") << QStringLiteral("json")));
        auto ran = runReprint(full);
        QVERIFY2(ran.exitCode == 0, qPrintable(ran.err));
        QVERIFY(json(ran).contains(QStringLiteral("backfills")));
    }

    // Item 6: a backfill refused because its window is claimed takes no id, nor does a
    // refused scheduled run: the ids `history` lists have no gaps. Two backfills of one
    // window started at once take one id between them.
    void aRefusedBackfillTakesNoId()
    {
        const std::string db = demoCopy("cli_ids");
        QTemporaryDir dir;
        const QString spec = specFor(dir, db);
        auto failed = backfill(spec, QStringLiteral("2026-03-10"), QStringLiteral("2026-03-14"));
        QCOMPARE(failed.exitCode, 3);
        QCOMPARE(backfillIdFrom(failed), 1LL);
        auto refused = backfill(spec, QStringLiteral("2026-03-09"), QStringLiteral("2026-03-14"));
        QCOMPARE(refused.exitCode, 4);
        QVERIFY2(refused.err.contains(QStringLiteral("claimed by backfill 1")), qPrintable(refused.err));
        auto run = runReprint(cmd(QStringLiteral("run"), spec) << QStringLiteral("--model") << QStringLiteral("fct_order_lines")
                                                               << QStringLiteral("--partition") << QStringLiteral("2026-03-12"));
        QCOMPARE(run.exitCode, 4);
        QCOMPARE(scalar(db, "SELECT last_value::text FROM reprint.backfills_id_seq"), std::string("1"));
        // The refusal's way out runs as printed.
        QStringList abandon;
        for (const QStringList &c : commandsIn(refused.err))
            if (c.first() == QLatin1String("abandon"))
                abandon = c;
        QCOMPARE(abandon, QStringList(cmd(QStringLiteral("abandon"), spec) << QStringLiteral("1")));
        auto freed = runReprint(abandon);
        QVERIFY2(freed.exitCode == 0, qPrintable(freed.err));
        auto ok = backfill(spec, QStringLiteral("2026-03-09"), QStringLiteral("2026-03-14"));
        QVERIFY2(ok.exitCode == 0, qPrintable(ok.err));
        QCOMPARE(backfillIdFrom(ok), 2LL);

        // Two at once on a free window (2026-04): one claims it, the other is refused, and
        // only one id is taken.
        QProcess a, b;
        const QStringList args = cmd(QStringLiteral("backfill"), spec) << QStringLiteral("--model") << QStringLiteral("fct_order_lines")
                                                                       << QStringLiteral("--from") << QStringLiteral("2026-04-01")
                                                                       << QStringLiteral("--to") << QStringLiteral("2026-04-03");
        a.start(reprintBinary(), args);
        b.start(reprintBinary(), args);
        QVERIFY(a.waitForFinished(120000) && b.waitForFinished(120000));
        QList<int> codes{a.exitCode(), b.exitCode()};
        std::sort(codes.begin(), codes.end());
        QVERIFY2(codes == (QList<int>{0, 4}) || codes == (QList<int>{3, 4}),
                 qPrintable(QString::fromUtf8(a.readAllStandardError() + b.readAllStandardError())));
        QCOMPARE(scalar(db, "SELECT last_value::text FROM reprint.backfills_id_seq"), std::string("3"));

        auto hist = runReprint(cmd(QStringLiteral("history"), spec) << QStringLiteral("--format") << QStringLiteral("json"));
        QVERIFY2(hist.exitCode == 0, qPrintable(hist.err));
        QList<qint64> ids;
        for (const QJsonValue &v : json(hist).value(QStringLiteral("backfills")).toArray())
            ids << v.toObject().value(QStringLiteral("id")).toInteger();
        std::sort(ids.begin(), ids.end());
        QCOMPARE(ids, (QList<qint64>{1, 2, 3}));
        qInfo("ids 1 (abandoned), 2, 3; a refused backfill, a refused run and a refused racer took none");
    }

    // Item 13: a failed validation is one sentence that names the backfill; an empty value
    // is null in `history` JSON as in `status`; counts agree with their nouns.
    // --timings: every phase of a backfill and of its publish, each with its share; the
    // phases add up to the whole, which is no more than the command's own wall time.
    void timingsNameEveryPhase()
    {
        const std::string db = demoCopy("cli_timings");
        QTemporaryDir dir;
        const QString spec = specFor(dir, db);
        auto parse = [](const QString &err, double *total) {
            QStringList phases;
            const QRegularExpression head(QStringLiteral("timings \\(ms, share of ([0-9.]+) ms\\):"));
            const auto h = head.match(err);
            *total = h.hasMatch() ? h.captured(1).toDouble() : -1;
            double sum = 0;
            static const QRegularExpression line(QStringLiteral("^\\s+([0-9.]+)\\s+([0-9.]+) %  (.+)$"), QRegularExpression::MultilineOption);
            for (auto it = line.globalMatch(err.mid(h.capturedEnd())); it.hasNext();) {
                const auto m = it.next();
                sum += m.captured(1).toDouble();
                phases << m.captured(3);
            }
            if (std::abs(sum - *total) > 0.5 + 0.001 * *total)
                phases << QStringLiteral("sum %1 != total %2").arg(sum).arg(*total);
            return phases;
        };
        QElapsedTimer wall;
        wall.start();
        auto bf = runReprint(cmd(QStringLiteral("backfill"), spec) << QStringLiteral("--model") << QStringLiteral("fct_order_lines")
                                                                    << QStringLiteral("--from") << QStringLiteral("2026-03-09")
                                                                    << QStringLiteral("--to") << QStringLiteral("2026-03-14")
                                                                    << QStringLiteral("--timings"));
        const qint64 bfWall = wall.elapsed();
        QVERIFY2(bf.exitCode == 0, qPrintable(bf.err));
        double total = 0;
        const QStringList phases = parse(bf.err, &total);
        for (const char *want : {"connect and read the catalog", "claim the window", "stage", "validate: totals of target and stage",
                                 "validate: source checks", "validate: boundary row diffs", "validate: store the review"})
            QVERIFY2(phases.contains(QLatin1String(want)), qPrintable(want + QStringLiteral(" not in: ") + phases.join(QLatin1Char('|'))));
        QVERIFY(total > 0 && total <= bfWall);
        auto pub = runReprint(cmd(QStringLiteral("publish"), spec) << QStringLiteral("1") << QStringLiteral("--approve") << QStringLiteral("x")
                                                                   << QStringLiteral("--timings"));
        QVERIFY2(pub.exitCode == 0, qPrintable(pub.err));
        const QStringList published = parse(pub.err, &total);
        for (const char *want : {"fence writers (wait for the lock)", "drift guard: target totals", "drift guard: source checks", "commit"})
            QVERIFY2(published.contains(QLatin1String(want)), qPrintable(want + QStringLiteral(" not in: ") + published.join(QLatin1Char('|'))));
        QVERIFY(std::any_of(published.begin(), published.end(), [](const QString &p) { return p.startsWith(QLatin1String("archive and ")); }));
        // Without --timings, none of it.
        auto plain = runReprint(cmd(QStringLiteral("history"), spec));
        QVERIFY(!plain.err.contains(QStringLiteral("timings")));
        qInfo("backfill phases: %s", qPrintable(phases.join(QStringLiteral(", "))));
    }

    void oneSentenceOneNullOnePlural()
    {
        const std::string db = demoCopy("cli_words");
        QTemporaryDir dir;
        const QString spec = specFor(dir, db);
        auto failed = backfill(spec, QStringLiteral("2026-03-10"), QStringLiteral("2026-03-14"));
        QCOMPARE(failed.exitCode, 3);
        QVERIFY2(failed.err.contains(QStringLiteral("reprint: backfill 1 staged; validation failed: ")), qPrintable(failed.err));
        QVERIFY2(!failed.err.contains(QStringLiteral("FAILED")) && !failed.err.contains(QStringLiteral("staged and validated")),
                 qPrintable(failed.err));
        QCOMPARE(failed.err.count(QStringLiteral("validation failed")), 1);

        auto hist = runReprint(cmd(QStringLiteral("history"), spec) << QStringLiteral("--format") << QStringLiteral("json"));
        QVERIFY2(hist.exitCode == 0, qPrintable(hist.err));
        const QJsonObject row = json(hist).value(QStringLiteral("backfills")).toArray().first().toObject();
        for (const char *field : {"approver", "note", "override_reason", "published_at"})
            QVERIFY2(row.value(QLatin1String(field)).isNull(), field);
        QCOMPARE(row.value(QStringLiteral("validation")).toString(), QStringLiteral("failed"));
        auto status = runReprint(cmd(QStringLiteral("status"), spec) << QStringLiteral("--model") << QStringLiteral("fct_order_lines")
                                                                     << QStringLiteral("--from") << QStringLiteral("2026-03-01")
                                                                     << QStringLiteral("--to") << QStringLiteral("2026-03-01")
                                                                     << QStringLiteral("--format") << QStringLiteral("json"));
        QVERIFY2(status.exitCode == 0, qPrintable(status.err));
        QVERIFY(json(status).value(QStringLiteral("partitions")).toArray().first().toObject().value(QStringLiteral("claimed_by")).isNull());

        auto prune = runReprint(cmd(QStringLiteral("history"), spec) << QStringLiteral("--prune") << QStringLiteral("--retention-days")
                                                                     << QStringLiteral("1"));
        QVERIFY2(prune.exitCode == 0, qPrintable(prune.err));
        QVERIFY2(prune.err.contains(QStringLiteral("dropped 0 archives older than 1 day ")), qPrintable(prune.err));
        QVERIFY2(!prune.err.contains(QStringLiteral("(s)")), qPrintable(prune.err));
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
