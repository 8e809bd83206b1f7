// The review packet (`reprint report ID --out FILE.pdf|.html|.csv`) on a published demo
// backfill: its text holds the window, every partition row, the approver and the note,
// and its numbers are those of `reprint diff --format json`.
#include "backfillfixture.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QProcess>
#include <QStandardPaths>

using namespace reprint;
using namespace reprint::test;

namespace {

QString pdfText(const QString &path)
{
    QProcess p;
    p.start(QStringLiteral("pdftotext"), {QStringLiteral("-layout"), path, QStringLiteral("-")});
    if (!p.waitForFinished(30000) || p.exitCode() != 0)
        return {};
    return QString::fromUtf8(p.readAllStandardOutput());
}

QString fileText(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

} // namespace

class TestReport : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(QFile::exists(demoSpec()), "the demo fixture did not write its spec");
        QVERIFY2(!QStandardPaths::findExecutable(QStringLiteral("pdftotext")).isEmpty(),
                 "pdftotext is missing: run packaging/install-deps.sh (poppler-utils)");
        m_db = test::demoCopy("report");
        auto staged = test::runReprint(base(QStringLiteral("backfill"), m_db) << QStringLiteral("--model") << QStringLiteral("fct_order_lines")
                                                                              << QStringLiteral("--from") << QStringLiteral("2026-03-09")
                                                                              << QStringLiteral("--to") << QStringLiteral("2026-03-14"));
        QVERIFY2(staged.exitCode == 0, qPrintable(staged.err));
        m_id = QString::number(backfillIdFrom(staged));
        auto pub = test::runReprint(base(QStringLiteral("publish"), m_db) << m_id << QStringLiteral("--approve") << m_note);
        QVERIFY2(pub.exitCode == 0, qPrintable(pub.err));
        auto diff = test::runReprint(base(QStringLiteral("diff"), m_db) << m_id << QStringLiteral("--format") << QStringLiteral("json"));
        QCOMPARE(diff.exitCode, 0);
        m_partitions = json(diff).value(QStringLiteral("partitions")).toArray();
        QCOMPARE(m_partitions.size(), 8);
        m_approver = QString::fromStdString(scalar(m_db, "SELECT approver FROM reprint.backfills WHERE id = " + m_id.toStdString()));
        QVERIFY(!m_approver.isEmpty() && m_approver != QLatin1String("<null>"));
    }

    void pdfHoldsTheWindowEveryPartitionAndTheApprover()
    {
        const QString path = m_dir.filePath(QStringLiteral("review.pdf"));
        auto r = test::runReprint(base(QStringLiteral("report"), m_db) << m_id << QStringLiteral("--out") << path);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QString text = pdfText(path);
        QVERIFY2(!text.isEmpty(), "pdftotext read nothing");
        QVERIFY(text.contains(QStringLiteral("2026-03-09 … 2026-03-14")));
        QVERIFY(text.contains(QStringLiteral("fct_order_lines")));
        QVERIFY(text.contains(m_approver));
        QVERIFY(text.contains(m_note));
        for (const QJsonValue &p : m_partitions) {
            const QString name = p.toObject().value(QStringLiteral("partition")).toString();
            // One row per partition in each measure's table: rows, revenue, quantity.
            QCOMPARE(text.count(QRegularExpression(QStringLiteral("^\\s*") + QRegularExpression::escape(name) + QStringLiteral("\\s+(window|boundary|outside)"),
                                                   QRegularExpression::MultilineOption)),
                     3);
        }
        for (const QString &rule : {QStringLiteral("Scoped"), QStringLiteral("Same code path"), QStringLiteral("Idempotent"),
                                    QStringLiteral("Isolated"), QStringLiteral("Validated")})
            QVERIFY2(text.contains(rule), qPrintable(rule));
        QVERIFY(text.contains(QStringLiteral("Row diffs of the boundary partitions")));
    }

    void htmlIsSelfContainedAndEscapesWhatPeopleTyped()
    {
        const QString path = m_dir.filePath(QStringLiteral("review.html"));
        auto r = test::runReprint(base(QStringLiteral("report"), m_db) << m_id << QStringLiteral("--out") << path);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QString html = fileText(path);
        QVERIFY(html.contains(QStringLiteral("2026-03-09 … 2026-03-14")));
        QVERIFY(html.contains(m_approver));
        QVERIFY(html.contains(QString(m_note).toHtmlEscaped()));
        QVERIFY(!html.contains(m_note));  // the raw "<ok>" never reaches the markup
        QVERIFY(html.contains(QStringLiteral("src='data:image/png;base64,")));
        QVERIFY(!html.contains(QStringLiteral("http://")) && !html.contains(QStringLiteral("https://")));
        for (const QJsonValue &p : m_partitions)
            QVERIFY(html.contains(QStringLiteral("<td>") + p.toObject().value(QStringLiteral("partition")).toString() + QStringLiteral("</td>")));
    }

    // The CSV's numbers are the diff's, partition by partition and measure by measure.
    void csvEqualsTheDiff()
    {
        const QString path = m_dir.filePath(QStringLiteral("review.csv"));
        auto r = test::runReprint(base(QStringLiteral("report"), m_db) << m_id << QStringLiteral("--out") << path);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QStringList lines = fileText(path).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(lines.takeFirst(), QStringLiteral("backfill,model,partition,start,place,measure,old,new,delta,delta_pct,source,verdict"));
        int compared = 0;
        for (const QJsonValue &pv : m_partitions) {
            const QJsonObject p = pv.toObject();
            const QJsonObject measures = p.value(QStringLiteral("measures")).toObject();
            for (const QString &m : measures.keys()) {
                const QJsonObject want = measures.value(m).toObject();
                const QString prefix = m_id + QStringLiteral(",fct_order_lines,") + p.value(QStringLiteral("partition")).toString() + QLatin1Char(',');
                QStringList row;
                for (const QString &l : lines)
                    if (l.startsWith(prefix) && l.section(QLatin1Char(','), 5, 5) == m)
                        row = l.split(QLatin1Char(','));
                QVERIFY2(row.size() == 12, qPrintable(prefix + m));
                QCOMPARE(row[6].toDouble(), want.value(QStringLiteral("old")).toDouble());
                QCOMPARE(row[7].toDouble(), want.value(QStringLiteral("new")).toDouble());
                QCOMPARE(row[10].toDouble(), want.value(QStringLiteral("source")).toDouble());
                QCOMPARE(row[11], want.value(QStringLiteral("verdict")).toString());
                ++compared;
            }
        }
        QCOMPARE(compared, lines.size());
    }

    void badRequestsWriteNothing()
    {
        const QString txt = m_dir.filePath(QStringLiteral("review.txt"));
        auto wrongKind = test::runReprint(base(QStringLiteral("report"), m_db) << m_id << QStringLiteral("--out") << txt);
        QCOMPARE(wrongKind.exitCode, 1);
        QVERIFY2(wrongKind.err.contains(QStringLiteral(".html, .pdf or .csv")), qPrintable(wrongKind.err));
        QVERIFY(!QFileInfo::exists(txt));

        const QString missing = m_dir.filePath(QStringLiteral("missing.pdf"));
        auto unknown = test::runReprint(base(QStringLiteral("report"), m_db) << QStringLiteral("99999") << QStringLiteral("--out") << missing);
        QVERIFY(unknown.exitCode != 0);
        QVERIFY2(unknown.err.contains(QStringLiteral("99999")), qPrintable(unknown.err));
        QVERIFY(!QFileInfo::exists(missing));

        const QString nowhere = QStringLiteral("/nonexistent-folder/review.pdf");
        auto unwritable = test::runReprint(base(QStringLiteral("report"), m_db) << m_id << QStringLiteral("--out") << nowhere);
        QCOMPARE(unwritable.exitCode, 1);
        QVERIFY2(unwritable.err.contains(nowhere), qPrintable(unwritable.err));
    }

private:
    const QString m_note = QStringLiteral("<ok> & matches raw on every day");
    QTemporaryDir m_dir;
    std::string m_db;
    QString m_id;
    QString m_approver;
    QJsonArray m_partitions;
};

QTEST_GUILESS_MAIN(TestReport)
#include "tst_report.moc"
