// Clear errors (issue 13 items 8 and 9), through the `reprint` CLI on copies of the demo
// warehouse: a transform's or a check's SQL error names its file, line and column; a
// replace publish that times out on a row lock names the table, says nothing was
// published, and gives the command that tries again, which runs as printed.
#include "backfillfixture.h"

#include <QRegularExpression>

using namespace reprint;
using namespace reprint::test;
using warehouse::args;

namespace {

// A copy of the demo spec directory whose warehouse is `db` (so that every command it
// prints runs as printed), passed through `edit` as well.
template <typename Edit>
QString specOn(QTemporaryDir &dir, const std::string &db, Edit edit)
{
    return specCopy(dir, [&](QString &yaml) {
        yaml.replace(QRegularExpression(QStringLiteral("^warehouse: .*$"), QRegularExpression::MultilineOption),
                     QStringLiteral("warehouse: \"%1\"").arg(QString::fromStdString(db)));
        edit(yaml);
    });
}

void write(const QString &path, const QString &text)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(text.toUtf8());
}

ProcessResult backfill(const QString &spec, const QString &from, const QString &to)
{
    return test::runReprint({QStringLiteral("backfill"), QStringLiteral("--spec"), spec, QStringLiteral("--model"),
                             QStringLiteral("fct_order_lines"), QStringLiteral("--from"), from, QStringLiteral("--to"), to});
}

// Rows and revenue of the window 2026-03-09..14 of the target, by independent SQL.
std::string windowFigures(const std::string &db)
{
    return scalar(db, "SELECT count(*) || ' ' || coalesce(sum(revenue), 0) FROM analytics.fct_order_lines "
                      "WHERE order_date BETWEEN '2026-03-09' AND '2026-03-14'");
}

// The `reprint VERB ...` command quoted in `text`, split into arguments (no spaces in paths here).
QStringList commandIn(const QString &text, const QString &verb)
{
    const auto m = QRegularExpression(QStringLiteral("`reprint (%1 [^`]+)`").arg(verb)).match(text);
    return m.hasMatch() ? m.captured(1).split(QLatin1Char(' '), Qt::SkipEmptyParts) : QStringList();
}

} // namespace

class TestClearErrors : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(QFile::exists(demoSpec()), "the demo fixture did not write its spec");
    }

    // A syntax error on the transform's last line, after :start and :end on that same line
    // (rewritten to $1 and $2 before the server sees them), is reported at the file's own
    // line and column, with the file as the spec names it. The failure is stored so, and
    // the target is untouched.
    void transformErrorNamesFileLineAndColumn()
    {
        const std::string db = test::demoCopy("ce_transform");
        const auto before = dayHashes(db);
        QTemporaryDir dir;
        const QString spec = specOn(dir, db, [](QString &yaml) {
            yaml.replace(QStringLiteral("transforms/fct_order_lines.sql"), QStringLiteral("transforms/broken.sql"));
        });
        const QString text = fctTransform().trimmed() + QStringLiteral(" AND GROUP BY 1\n");
        write(QDir(dir.path()).filePath(QStringLiteral("transforms/broken.sql")), text);
        const QStringList lines = text.split(QLatin1Char('\n'));
        const int line = static_cast<int>(lines.size()) - 1;  // the text ends with a newline
        const int column = static_cast<int>(lines[line - 1].indexOf(QStringLiteral("GROUP"))) + 1;
        QVERIFY(lines[line - 1].contains(QStringLiteral(":end AND GROUP")));
        QVERIFY(line > 10 && column > 40);

        auto bf = backfill(spec, QStringLiteral("2026-03-09"), QStringLiteral("2026-03-10"));
        const QString expected = QStringLiteral("transforms/broken.sql line %1, column %2: syntax error at or near \"GROUP\"")
                                     .arg(line)
                                     .arg(column);
        QCOMPARE(bf.exitCode, 1);
        QVERIFY2(bf.err.contains(expected), qPrintable(bf.err));
        QVERIFY2(bf.err.contains(QStringLiteral("partition 2026-03-09: ") + expected), qPrintable(bf.err));
        QCOMPARE(scalar(db, "SELECT status FROM reprint.backfills"), std::string("failed"));
        QVERIFY2(QString::fromStdString(scalar(db, "SELECT error FROM reprint.backfills")).contains(expected),
                 scalar(db, "SELECT error FROM reprint.backfills").c_str());
        QVERIFY(dayHashes(db) == before);
        qInfo("%s", qPrintable(expected));
    }

    // The same for a check's SQL: a column that does not exist, on the check file's third line.
    void checkErrorNamesFileLineAndColumn()
    {
        const std::string db = test::demoCopy("ce_check");
        const auto before = dayHashes(db);
        QTemporaryDir dir;
        const QString spec = specOn(dir, db, [](QString &) {});
        const QString file = QDir(dir.path()).filePath(QStringLiteral("checks/fct_revenue.sql"));
        QFile in(file);
        QVERIFY(in.open(QIODevice::ReadOnly));
        QString text = QString::fromUtf8(in.readAll());
        in.close();
        QVERIFY(text.contains(QStringLiteral("(1 - l.discount)")));
        text.replace(QStringLiteral("(1 - l.discount)"), QStringLiteral("(1 - l.no_such_discount)"));
        write(file, text);
        const QStringList lines = text.split(QLatin1Char('\n'));
        int line = 0, column = 0;
        for (int i = 0; i < lines.size() && !line; ++i)
            if (const auto at = lines[i].indexOf(QStringLiteral("l.no_such_discount")); at >= 0) {
                line = i + 1;
                column = static_cast<int>(at) + 1;
            }
        QCOMPARE(line, 3);

        auto bf = backfill(spec, QStringLiteral("2026-03-09"), QStringLiteral("2026-03-10"));
        const QString expected = QStringLiteral("check 'revenue matches source' failed: checks/fct_revenue.sql line %1, column %2: "
                                                "column l.no_such_discount does not exist")
                                     .arg(line)
                                     .arg(column);
        QVERIFY2(bf.exitCode == 1, qPrintable(bf.err));
        QVERIFY2(bf.err.contains(expected), qPrintable(bf.err));
        QVERIFY(dayHashes(db) == before);
        qInfo("%s", qPrintable(expected));
    }

    // A replace publish whose delete waits for a row another session holds (SELECT ... FOR
    // UPDATE) gives up after the lock timeout: exit 4, the table and the window named,
    // nothing published (the target, the archive schema and the backfill's status as they
    // were), and the printed command publishes once the lock is gone.
    void replaceTimingOutOnARowLockSaysSo()
    {
        const std::string db = test::demoCopy("ce_rowlock");
        QTemporaryDir dir;
        const QString spec = specOn(dir, db, [](QString &yaml) {
            yaml.replace(QRegularExpression(QStringLiteral("publish: auto\\b")), QStringLiteral("publish: replace"));
        });
        auto bf = backfill(spec, QStringLiteral("2026-03-09"), QStringLiteral("2026-03-14"));
        QVERIFY2(bf.exitCode == 0, qPrintable(bf.err));
        const long long id = backfillIdFrom(bf);
        QVERIFY(id > 0);
        const auto before = dayHashes(db);
        const std::string figures = windowFigures(db);
        const std::string id_ = std::to_string(id);

        ProcessResult pub;
        {
            HeldTransaction locker(db, "SELECT 1 FROM analytics.fct_order_lines WHERE order_date = '2026-03-12' "
                                       "ORDER BY order_line_id LIMIT 1 FOR UPDATE");
            QVERIFY(locker.ok());
            qputenv("REPRINT_LOCK_TIMEOUT_MS", "300");
            pub = test::runReprint({QStringLiteral("publish"), QStringLiteral("--spec"), spec, QString::number(id),
                                    QStringLiteral("--approve"), QStringLiteral("checked")},
                                   60000);
            qunsetenv("REPRINT_LOCK_TIMEOUT_MS");
        }
        QVERIFY2(pub.exitCode == 4, qPrintable(pub.err));
        QVERIFY2(pub.err.contains(QStringLiteral("could not replace 2026-03-09..2026-03-14 of \"analytics\".\"fct_order_lines\": "
                                                 "another session held rows of it locked for more than 300 ms (lock timeout); "
                                                 "nothing of backfill %1 was published")
                                      .arg(id)),
                 qPrintable(pub.err));
        QVERIFY2(!pub.err.contains(QStringLiteral("canceling statement")), qPrintable(pub.err));
        const QString retry = QStringLiteral("`reprint publish --spec %1 %2 --approve NOTE`").arg(spec).arg(id);
        QVERIFY2(pub.err.contains(retry), qPrintable(pub.err));
        QVERIFY(dayHashes(db) == before);
        QCOMPARE(windowFigures(db), figures);
        QCOMPARE(scalar(db, "SELECT status FROM reprint.backfills WHERE id = $1", args(id_)), std::string("staged"));
        QCOMPARE(scalar(db, "SELECT count(*) FROM pg_class WHERE relnamespace = 'reprint_archive'::regnamespace"), std::string("0"));
        QCOMPARE(scalar(db, "SELECT count(*) FROM reprint.audit WHERE action = 'publish'"), std::string("0"));

        const QStringList again = commandIn(pub.err, QStringLiteral("publish"));
        QVERIFY(again.contains(QStringLiteral("--spec")));
        auto retried = test::runReprint(again);
        QVERIFY2(retried.exitCode == 0, qPrintable(retried.err));
        QCOMPARE(scalar(db, "SELECT status FROM reprint.backfills WHERE id = $1", args(id_)), std::string("published"));
        QVERIFY(windowFigures(db) != figures);
        qInfo("row lock: exit %d, nothing published; then ran as printed: reprint %s", pub.exitCode,
              qPrintable(again.join(QLatin1Char(' '))));
    }
};

QTEST_GUILESS_MAIN(TestClearErrors)
#include "tst_clearerrors.moc"
