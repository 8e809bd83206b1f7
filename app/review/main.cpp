// reprint-review: the review window over a spec and its warehouse.
//
//   reprint-review --spec S [--db CONNINFO]
//   reprint-review --demo [--dir D] [--scale N]
//   --review ID [--inspect PARTITION]: open a backfill's review (and the boundary inspector)
//   --screenshots DIR (with --demo): play the demo story and write a PNG of each screen (tour.h)
//   --self-check: start, wait for the connection and the calendar's first refresh, print
//                 what loaded, quit (0 when the calendar holds rows, else 2): CI's proof
//                 that the README's demo command opens a working window
//   common: --screenshot FILE (render the loaded window to a PNG and exit), --dark,
//           --select FROM..TO (select that window in the calendar)
//
// Exit codes follow the CLI: 0 ok, 1 usage or spec error, 2 database/connection error
// (only where the window cannot report it itself: --screenshot and headless runs).
#include "calendarscreen.h"
#include "darkpalette.h"
#include "demolauncher.h"
#include "mainwindow.h"
#include "partitioncalendarmodel.h"
#include "boundaryinspector.h"
#include "reviewscreen.h"
#include "rowdiffmodel.h"
#include "tour.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QFileInfo>
#include <QMessageBox>
#include <QPixmap>
#include <QTextStream>
#include <QTimer>

namespace {

using reprint::model::DemoLauncher;
using reprint::views::MainWindow;
using ConnectionState = MainWindow::ConnectionState;

void printError(const QString &message)
{
    QTextStream(stderr) << "reprint-review: " << message << "\n";
}

} // namespace

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("Reprint"));
    QApplication::setApplicationName(QStringLiteral("reprint-review"));
    QApplication::setApplicationDisplayName(QStringLiteral("Reprint"));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Review and run partition backfills on a PostgreSQL warehouse."));
    parser.addHelpOption();
    const QCommandLineOption specOption(QStringLiteral("spec"), QStringLiteral("The spec file to open."),
                                        QStringLiteral("S"));
    const QCommandLineOption dbOption(QStringLiteral("db"),
                                      QStringLiteral("Connection string or URI (else the spec's warehouse:, "
                                                     "else the PG* environment)."),
                                      QStringLiteral("CONNINFO"));
    const QCommandLineOption demoOption(QStringLiteral("demo"),
                                        QStringLiteral("Start the embedded demo warehouse and open its spec."));
    const QCommandLineOption dirOption(QStringLiteral("dir"), QStringLiteral("Where the demo lives."),
                                       QStringLiteral("D"), DemoLauncher::defaultDirectory());
    const QCommandLineOption scaleOption(QStringLiteral("scale"), QStringLiteral("Demo seed scale (1.0: ~2M order lines)."),
                                         QStringLiteral("N"), QStringLiteral("1.0"));
    const QCommandLineOption screenshotOption(QStringLiteral("screenshot"),
                                              QStringLiteral("Render the window once loaded to a PNG and exit."),
                                              QStringLiteral("FILE"));
    const QCommandLineOption darkOption(QStringLiteral("dark"),
                                        QStringLiteral("Use a dark palette (also REPRINT_DARK=1)."));
    const QCommandLineOption selectOption(QStringLiteral("select"),
                                          QStringLiteral("Select the window FROM..TO (partition names) in the calendar."),
                                          QStringLiteral("FROM..TO"));
    const QCommandLineOption reviewOption(QStringLiteral("review"),
                                          QStringLiteral("Open the review of backfill ID once connected."), QStringLiteral("ID"));
    const QCommandLineOption inspectOption(QStringLiteral("inspect"),
                                           QStringLiteral("With --review: open the boundary inspector on PARTITION."),
                                           QStringLiteral("PARTITION"));
    const QCommandLineOption tourOption(QStringLiteral("screenshots"),
                                        QStringLiteral("With --demo: play the demo story and write a PNG of each screen to DIR."),
                                        QStringLiteral("DIR"));
    const QCommandLineOption selfCheckOption(QStringLiteral("self-check"),
                                             QStringLiteral("Start, wait until the calendar has loaded, print what loaded and quit "
                                                            "(exit 0 when it holds rows, 2 when not)."));
    parser.addOptions({specOption, dbOption, demoOption, dirOption, scaleOption, screenshotOption, darkOption,
                       selectOption, reviewOption, inspectOption, tourOption, selfCheckOption});
    parser.process(app);

    if (parser.isSet(demoOption) && parser.isSet(specOption)) {
        printError(QStringLiteral("--demo and --spec cannot be combined: the demo opens its own spec."));
        return 1;
    }
    bool scaleOk = false;
    const double scale = parser.value(scaleOption).toDouble(&scaleOk);
    if (!scaleOk || scale <= 0) {
        printError(QStringLiteral("--scale must be a positive number, e.g. 0.05"));
        return 1;
    }

    if (parser.isSet(darkOption) || qEnvironmentVariable("REPRINT_DARK") == QLatin1String("1"))
        reprint::views::useDarkPalette();

    const QString screenshot = parser.value(screenshotOption);
    const QString tourDir = parser.value(tourOption);
    if (!tourDir.isEmpty() && !parser.isSet(demoOption)) {
        printError(QStringLiteral("--screenshots plays the demo story: use it with --demo (and a new --dir)."));
        return 1;
    }
    const bool selfCheck = parser.isSet(selfCheckOption);
    const bool headless = !screenshot.isEmpty() || !tourDir.isEmpty() || selfCheck
                          || QGuiApplication::platformName() == QLatin1String("offscreen");

    MainWindow window;
    if (!screenshot.isEmpty() || !tourDir.isEmpty())
        window.resize(1280, 800);

    reprint::app::Tour tour(&window, tourDir);
    bool tourStarted = false;
    if (!tourDir.isEmpty()) {
        QObject::connect(&window, &MainWindow::connectionStateChanged, &tour, [&](ConnectionState state) {
            if (state == ConnectionState::Connected && !tourStarted) {
                tourStarted = true;
                tour.start();
            } else if (state == ConnectionState::Failed) {
                printError(QStringLiteral("the demo warehouse did not answer; no screenshots were taken"));
                app.exit(2);
            }
        });
        QObject::connect(&tour, &reprint::app::Tour::finished, &app, [&app](int code, const QString &message) {
            if (code == 0)
                QTextStream(stderr) << "reprint-review: " << message << "\n";
            else
                printError(message);
            app.exit(code);
        });
    }

    int exitCode = 0;
    auto fail = [&](int code, const QString &title, const QString &message) {
        if (headless) {
            printError(message);
            exitCode = code;
            QTimer::singleShot(0, &app, [&app, code] { app.exit(code); });
            return;
        }
        QMessageBox::critical(&window, title, message);
    };

    bool takingScreenshot = false;
    // With --review, the screenshot waits for the review (and the inspector) to load.
    bool reviewPending = parser.isSet(reviewOption);
    auto takeScreenshot = [&] {
        if (screenshot.isEmpty() || takingScreenshot || reviewPending)
            return;
        takingScreenshot = true;
        // Let the layout settle and the status bar repaint before rendering.
        QTimer::singleShot(400, &window, [&] {
            const QPixmap pixmap = window.grab();
            if (!pixmap.save(screenshot, "PNG")) {
                printError(QStringLiteral("could not write the screenshot to %1").arg(screenshot));
                app.exit(1);
                return;
            }
            app.exit(0);
        });
    };
    // The calendar's first refresh ends before the screenshot when the warehouse answers.
    reprint::views::CalendarScreen *calendar = window.calendarScreen();
    const QStringList window_ = parser.value(selectOption).split(QStringLiteral(".."));
    if (parser.isSet(selectOption) && window_.size() != 2) {
        printError(QStringLiteral("--select takes FROM..TO, e.g. 2026-03-09..2026-03-14"));
        return 1;
    }
    auto applySelection = [&] {
        if (window_.size() == 2 && !calendar->selectWindow(window_.at(0), window_.at(1)))
            printError(QStringLiteral("--select: %1 is not a window of the calendar").arg(parser.value(selectOption)));
    };
    bool connected = false;
    QObject::connect(calendar, &reprint::views::CalendarScreen::refreshFinished, &window, [&](bool ok) {
        applySelection();
        if (connected)
            takeScreenshot();
        if (selfCheck && connected) {
            const reprint::model::PartitionCalendarModel *cells = calendar->calendarModel();
            int loaded = 0;
            long long rows = 0;
            for (int i = 0; i < cells->partitionCount(); ++i)
                if (const auto *status = cells->status(i)) {
                    ++loaded;
                    rows += status->rows;
                }
            const bool good = ok && window.isVisible() && loaded > 0 && rows > 0;
            QTextStream(stderr) << "reprint-review: self-check " << (good ? "passed" : "FAILED") << ": window "
                                << (window.isVisible() ? "shown" : "not shown") << " (" << window.width() << "x" << window.height()
                                << "), model " << calendar->modelName() << ", calendar refreshed " << (ok ? "" : "with an error ")
                                << "with " << loaded << " of " << cells->partitionCount() << " partitions loaded, "
                                << rows << " rows" << (ok ? QString() : QStringLiteral(": ") + calendar->errorText()) << "\n";
            QTimer::singleShot(0, &app, [&app, good] { app.exit(good ? 0 : 2); });
        }
    });
    QObject::connect(&window, &MainWindow::connectionStateChanged, &window, [&](ConnectionState state) {
        if (state == ConnectionState::Failed && selfCheck)
            fail(2, QString(), QObject::tr("self-check FAILED: the warehouse did not answer"));
        if (state == ConnectionState::Failed)
            takeScreenshot();
        if (state == ConnectionState::Connected) {
            connected = true;
            if (!calendar->isRefreshing())
                takeScreenshot();
        }
    });

    const qint64 reviewId = parser.value(reviewOption).toLongLong();
    const QString inspect = parser.value(inspectOption);
    reprint::views::ReviewScreen *review = window.reviewScreen();
    bool reviewLoaded = false, factsLoaded = false, edgesLoaded = inspect.isEmpty(), rowsLoaded = inspect.isEmpty();
    auto reviewReady = [&] {
        if (!reviewPending || !reviewLoaded || !factsLoaded || !edgesLoaded || !rowsLoaded)
            return;
        reviewPending = false;
        takeScreenshot();
    };
    if (parser.isSet(reviewOption)) {
        QObject::connect(&window, &MainWindow::connectionStateChanged, &window, [&, reviewId](ConnectionState state) {
            if (state == ConnectionState::Connected)
                window.openReview(reviewId);
            if (state == ConnectionState::Failed) {
                reviewPending = false;
                takeScreenshot();
            }
        });
        QObject::connect(review, &reprint::views::ReviewScreen::reviewLoaded, &window, [&, inspect] {
            reviewLoaded = true;
            if (!inspect.isEmpty())
                review->showInspector(inspect);
            reviewReady();
        });
        QObject::connect(review, &reprint::views::ReviewScreen::factsLoaded, &window, [&] {
            factsLoaded = true;
            reviewReady();
        });
        QObject::connect(review->inspector(), &reprint::views::BoundaryInspector::edgeRowsLoaded, &window,
                         [&, inspect](const QString &partition) {
                             edgesLoaded = edgesLoaded || partition == inspect;
                             reviewReady();
                         });
        QObject::connect(review->inspector()->rowDiffModel(), &reprint::model::RowDiffModel::batchLoaded, &window, [&] {
            rowsLoaded = rowsLoaded || review->inspector()->partition() == inspect;
            reviewReady();
        });
        QObject::connect(review->inspector(), &reprint::views::BoundaryInspector::diffLoaded, &window,
                         [&, inspect](const QString &partition) {
                             if (partition == inspect && review->inspector()->added() + review->inspector()->removed()
                                                                 + review->inspector()->changed() == 0)
                                 rowsLoaded = true;
                             reviewReady();
                         });
    }

    auto openSpec = [&](const QString &path, const QString &conninfo) {
        QString error;
        if (!window.openSpec(path, conninfo, &error)) {
            fail(1, QObject::tr("Cannot open the spec"),
                 error.isEmpty() ? QObject::tr("Cannot open the spec %1.").arg(path) : error);
            return false;
        }
        return true;
    };

    DemoLauncher demo;
    window.show();

    if (parser.isSet(demoOption)) {
        window.followDemo(&demo);
        QObject::connect(&demo, &DemoLauncher::started, &window,
                         [&](const QString &conninfo, const QString &specPath) { openSpec(specPath, conninfo); });
        QObject::connect(&demo, &DemoLauncher::failed, &window, [&](const QString &message) {
            window.clearBusy();
            fail(2, QObject::tr("Cannot start the demo warehouse"),
                 QObject::tr("The demo warehouse did not start: %1").arg(message));
        });
        window.showBusy(QObject::tr("Starting the demo warehouse in %1…").arg(parser.value(dirOption)));
        demo.start(parser.value(dirOption), scale);
    } else if (parser.isSet(specOption)) {
        if (!openSpec(parser.value(specOption), parser.value(dbOption)) && headless)
            return exitCode;
    } else {
        const QString last = MainWindow::lastSpec();
        if (!last.isEmpty() && QFileInfo::exists(last) && screenshot.isEmpty())
            openSpec(last, parser.value(dbOption));
        else
            takeScreenshot();
    }

    const int code = app.exec();
    return exitCode != 0 ? exitCode : code;
}
