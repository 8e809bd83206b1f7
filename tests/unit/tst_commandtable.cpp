// The command table of `reprint` (issue 14, item 12): edit distance and the nearest
// command, every command's help explaining each option it takes, `reprint --help` listing
// every command with its options, options a command does not take refused, and the
// README's table of commands naming every command. None of it touches a database.
#include "commandtable.h"

#include "backfill/engine.h"
#include "testsupport.h"

#include <QFile>
#include <QRegularExpression>
#include <QTest>

using namespace reprint;
using namespace reprint::cli;

class TestCommandTable : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void editDistance_data()
    {
        QTest::addColumn<QString>("a");
        QTest::addColumn<QString>("b");
        QTest::addColumn<int>("distance");
        QTest::newRow("same") << "publish" << "publish" << 0;
        QTest::newRow("a letter left out") << "publsh" << "publish" << 1;
        QTest::newRow("a letter too many") << "publishh" << "publish" << 1;
        QTest::newRow("a letter wrong") << "publisk" << "publish" << 1;
        QTest::newRow("two letters swapped") << "stauts" << "status" << 1;
        QTest::newRow("empty") << "" << "undo" << 4;
        QTest::newRow("nothing alike") << "xyzzy" << "diff" << 5;
    }

    void editDistance()
    {
        QFETCH(QString, a);
        QFETCH(QString, b);
        QFETCH(int, distance);
        QCOMPARE(cli::editDistance(a, b), distance);
        QCOMPARE(cli::editDistance(b, a), distance);
    }

    void nearestCommand_data()
    {
        QTest::addColumn<QString>("typed");
        QTest::addColumn<QString>("nearest");
        QTest::newRow("publsh") << "publsh" << "publish";
        QTest::newRow("bakfill") << "bakfill" << "backfill";
        QTest::newRow("hisotry") << "hisotry" << "history";
        QTest::newRow("Status") << "Status" << "status";
        QTest::newRow("dmeo") << "dmeo" << "demo";
        QTest::newRow("rn") << "rn" << "run";
        QTest::newRow("xyzzy: nothing near") << "xyzzy" << "";
        QTest::newRow("ab: too short to guess") << "ab" << "";
        QTest::newRow("backfilling: 3 edits") << "backfilling" << "";
    }

    void nearestCommand()
    {
        QFETCH(QString, typed);
        QFETCH(QString, nearest);
        QCOMPARE(cli::nearestCommand(typed), nearest);
    }

    void countedNounsAgreeWithTheirNumber()
    {
        QCOMPARE(backfill::counted(0, "row"), std::string("0 rows"));
        QCOMPARE(backfill::counted(1, "row"), std::string("1 row"));
        QCOMPARE(backfill::counted(2, "backfill"), std::string("2 backfills"));
        QCOMPARE(backfill::counted(1, "day"), std::string("1 day"));
        QCOMPARE(backfill::counted(3, "person", "people"), std::string("3 people"));
    }

    // An unknown command exits 1 and names the nearest one, by edit distance.
    void unknownCommandSuggestsTheNearest()
    {
        auto p = test::runReprint({QStringLiteral("publsh")});
        QCOMPARE(p.exitCode, 1);
        QVERIFY2(p.err.contains(QStringLiteral("reprint: unknown command 'publsh'; did you mean `reprint publish`?")), qPrintable(p.err));
        auto far = test::runReprint({QStringLiteral("xyzzy")});
        QCOMPARE(far.exitCode, 1);
        QVERIFY2(far.err.contains(QStringLiteral("unknown command 'xyzzy'")) && !far.err.contains(QStringLiteral("did you mean")),
                 qPrintable(far.err));
        QVERIFY2(far.err.contains(QStringLiteral("reprint --help")), qPrintable(far.err));
    }

    // `reprint --help` lists every command of the table with every option of its synopsis
    // (--cascade and --resume were missing from it).
    void mainHelpListsEveryCommandWithItsOptions()
    {
        auto p = test::runReprint({QStringLiteral("--help")});
        QCOMPARE(p.exitCode, 0);
        const QStringList lines = p.out.split(QLatin1Char('\n'));
        for (const CommandHelp &c : commandTable()) {
            QString line;
            for (const QString &l : lines)
                if (l.startsWith(QStringLiteral("  ") + c.name + QLatin1Char(' ')))
                    line = l;
            QVERIFY2(!line.isEmpty(), qPrintable(c.name + QStringLiteral(" is not in reprint --help:\n") + p.out));
            QCOMPARE(QStringLiteral("  ") + c.name.leftJustified(10) + c.synopsis.mid(c.name.size()).trimmed(), line);
        }
        for (const char *o : {"--cascade", "--resume", "--retry-failed", "--parallel", "--limit", "--offset", "--prune"})
            QVERIFY2(p.out.contains(QLatin1String(o)), o);
    }

    // Each command's --help explains every option its synopsis names, each on an entry of
    // its own with words after it, plus the common ones.
    void everyCommandsHelpExplainsItsOptions()
    {
        static const QRegularExpression named(QStringLiteral("--([a-z][a-z-]*)"));
        for (const CommandHelp &c : commandTable()) {
            auto p = test::runReprint({c.name, QStringLiteral("--help")});
            QCOMPARE(p.exitCode, 0);
            QVERIFY2(p.out.startsWith(QStringLiteral("usage: reprint ") + c.synopsis + QLatin1Char('\n')), qPrintable(p.out));
            QStringList expected;
            for (auto it = named.globalMatch(c.synopsis); it.hasNext();)
                expected << it.next().captured(1);
            if (c.engine())
                expected << QStringLiteral("db") << QStringLiteral("format") << QStringLiteral("help");
            else
                expected << QStringLiteral("help");
            for (const QString &o : expected) {
                const QRegularExpression entry(QStringLiteral("^  (-h, )?--%1( \\S+)?  +\\S.{8,}$").arg(QRegularExpression::escape(o)),
                                               QRegularExpression::MultilineOption);
                QVERIFY2(entry.match(p.out).hasMatch(), qPrintable(c.name + QStringLiteral(" --help does not explain --") + o + "\n" + p.out));
            }
        }
        auto backfill = test::runReprint({QStringLiteral("backfill"), QStringLiteral("--help")});
        QVERIFY(backfill.out.contains(QStringLiteral("With --resume, re-stage only the partitions that failed")));
        QVERIFY(backfill.out.contains(QStringLiteral("Also backfill every model downstream of this one")));
    }

    // A command refuses an option it does not take, before it reads the spec.
    void optionsACommandDoesNotTakeAreRefused()
    {
        auto p = test::runReprint({QStringLiteral("diff"), QStringLiteral("--spec"), QStringLiteral("/nonexistent.yaml"), QStringLiteral("1"),
                                   QStringLiteral("--parallel"), QStringLiteral("2")});
        QCOMPARE(p.exitCode, 1);
        QVERIFY2(p.err.contains(QStringLiteral("diff does not take --parallel")), qPrintable(p.err));
        QVERIFY2(p.err.contains(QStringLiteral("`reprint diff --help`")), qPrintable(p.err));
        auto help = test::runReprint({QStringLiteral("diff"), QStringLiteral("--help")});
        QCOMPARE(help.exitCode, 0);
    }

    // README's table of commands has a row for every command (report was missing).
    void readmeTableNamesEveryCommand()
    {
        QFile readme(QStringLiteral(REPRINT_SOURCE_DIR "/README.md"));
        QVERIFY(readme.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(readme.readAll());
        const qsizetype table = text.indexOf(QStringLiteral("| command | what it does | exit codes |"));
        QVERIFY(table >= 0);
        const QString rows = text.mid(table, text.indexOf(QStringLiteral("\n\n"), table) - table);
        for (const CommandHelp &c : commandTable())
            QVERIFY2(rows.contains(QStringLiteral("\n| `") + c.name + QLatin1Char(' ')) || rows.contains(QStringLiteral("\n| `") + c.name + QLatin1Char('`')),
                     qPrintable(c.name + QStringLiteral(" has no row in README's table of commands")));
    }
};

QTEST_GUILESS_MAIN(TestCommandTable)
#include "tst_commandtable.moc"
