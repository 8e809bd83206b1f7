// The reprint-review executable: --screenshot renders the loaded window and exits 0; a
// bad spec exits 1 naming file:line:col on stderr; the password never reaches stderr.
#include "specfixture.h"

#include <algorithm>

#include <QDir>
#include <QImage>
#include <QSet>
#include <QProcess>
#include <QTest>

namespace {

struct Run {
    int exitCode = -1;
    QString err;
};

Run review(const QStringList &args, int timeoutMs = 60000)
{
    Run r;
    const QString bin = qEnvironmentVariable("REPRINT_REVIEW_BIN");
    if (bin.isEmpty()) {
        r.err = QStringLiteral("REPRINT_REVIEW_BIN is not set: run the test through ctest");
        return r;
    }
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    p.setProcessEnvironment(env);
    p.start(bin, args);
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
        r.err = QStringLiteral("timed out");
        return r;
    }
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.err = QString::fromUtf8(p.readAllStandardError());
    return r;
}

} // namespace

class ReviewAppTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // The screenshot tour plays the demo story on a fresh demo warehouse and writes a
    // 1280x800 PNG of each of its screens (and the abandon's confirmation), none of them blank.
    void screenshotTourWritesEveryScreen()
    {
        const QString demoDir = qEnvironmentVariable("REPRINT_TEST_DIR") + QStringLiteral("/tour-demo");
        const QString reprint = qEnvironmentVariable("REPRINT_BIN");
        QVERIFY(!reprint.isEmpty());
        auto stopDemo = [&] {
            QProcess::execute(reprint, {QStringLiteral("demo"), QStringLiteral("--dir"), demoDir, QStringLiteral("--stop")});
            QDir(demoDir).removeRecursively();
        };
        stopDemo();
        QTemporaryDir out;
        const Run r = review({QStringLiteral("--demo"), QStringLiteral("--dir"), demoDir, QStringLiteral("--scale"), QStringLiteral("0.05"),
                              QStringLiteral("--screenshots"), out.path()},
                             240000);
        stopDemo();
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        for (const char *name : {"01-calendar", "02-scoped", "03-run", "04-review", "05-inspector", "06-published", "07-history",
                                 "08-cascade", "09-abandon-confirm", "10-abandoned"}) {
            const QImage image(out.filePath(QLatin1String(name) + QStringLiteral(".png")));
            QVERIFY2(!image.isNull(), name);
            if (QLatin1String(name) != QLatin1String("09-abandon-confirm"))  // a dialog, at its own size
                QCOMPARE(image.size(), QSize(1280, 800));
            // Not blank: a screen of text and tables has many colours and a spread of brightness.
            QSet<QRgb> colours;
            double sum = 0, sumSq = 0;
            int n = 0;
            for (int y = 0; y < image.height(); y += 4)
                for (int x = 0; x < image.width(); x += 4) {
                    const QRgb px = image.pixel(x, y);
                    colours.insert(px);
                    const double g = qGray(px);
                    sum += g;
                    sumSq += g * g;
                    ++n;
                }
            const double variance = sumSq / n - (sum / n) * (sum / n);
            QVERIFY2(colours.size() > 40 && variance > 100, qPrintable(QStringLiteral("%1: %2 colours, variance %3").arg(QLatin1String(name)).arg(colours.size()).arg(variance)));
        }
    }

    void screenshotOfASpecWithAFailedConnection()
    {
        QTemporaryDir dir;
        const QString spec = reprint::test::writeSmallSpec(
            dir, QStringLiteral("host=/nonexistent-reprint-socket dbname=shop user=alice password=hunter2"));
        const QString png = dir.filePath(QStringLiteral("window.png"));
        for (const bool dark : {false, true}) {
            QStringList args{QStringLiteral("--spec"), spec, QStringLiteral("--screenshot"), png};
            if (dark)
                args << QStringLiteral("--dark");
            const Run r = review(args);
            QVERIFY2(r.exitCode == 0, qPrintable(r.err));
            QVERIFY(!r.err.contains(QStringLiteral("hunter2")));
            const QImage image(png);
            QVERIFY(!image.isNull());
            QCOMPARE(image.size() / image.devicePixelRatio(), QSize(1280, 800));
            // The palette is what most of the window is painted in: the median lightness, not one
            // pixel (the centre lands on a calendar cell or between cells depending on the date).
            QList<int> lightness;
            for (int y = 0; y < image.height(); y += 8)
                for (int x = 0; x < image.width(); x += 8)
                    lightness.append(QColor(image.pixel(x, y)).lightness());
            std::sort(lightness.begin(), lightness.end());
            const int median = lightness.at(lightness.size() / 2);
            QVERIFY2(dark ? median < 100 : median > 150, qPrintable(QString::number(median)));
            QFile::remove(png);
        }
    }

    void badSpecExitsOneWithItsLine()
    {
        QTemporaryDir dir;
        const QString bad = dir.filePath(QStringLiteral("bad.yaml"));
        QVERIFY(reprint::test::writeFile(bad, "models:\n"
                                              "  - name: m\n"
                                              "    target: a.m\n"
                                              "    partition: { column: d, grain: dayly }\n"
                                              "    key: [id]\n"
                                              "    transform: t.sql\n"));
        const QString png = dir.filePath(QStringLiteral("window.png"));
        const Run r = review({QStringLiteral("--spec"), bad, QStringLiteral("--screenshot"), png});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(QStringLiteral("bad.yaml:")), qPrintable(r.err));
        QVERIFY(!QFile::exists(png));
    }

    void usageErrorsExitOne()
    {
        QCOMPARE(review({QStringLiteral("--demo"), QStringLiteral("--spec"), QStringLiteral("x.yaml")}).exitCode, 1);
        QCOMPARE(review({QStringLiteral("--demo"), QStringLiteral("--scale"), QStringLiteral("zero")}).exitCode, 1);
    }
};

QTEST_GUILESS_MAIN(ReviewAppTest)
#include "tst_reviewapp.moc"
