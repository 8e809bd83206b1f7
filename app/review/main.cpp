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

#include <optional>

namespace {

using reprint::model::DemoLauncher;
using reprint::views::MainWindow;
using ConnectionState = MainWindow::ConnectionState;

void printError(const QString &message)
{
    QTextStream(stderr) << "reprint-review: " << message << "\n";
}

// The command line, checked.
struct Options {
    QString spec, db, dir, screenshot, tourDir, select, inspect;
    QStringList window;  // --select FROM..TO split at ".."; two names when given
    double scale = 1;
    bool specSet = false, demo = false, dark = false, selfCheck = false, review = false;
    qint64 reviewId = 0;
    bool headless = false;  // no one to show a message box to
};

// Parses the line into `options` (--help and --version exit here, as QCommandLineParser
// does). An exit code when it is not one to run.
std::optional<int> readOptions(const QApplication &app, Options *options)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Review and run partition backfills on a PostgreSQL warehouse."));
    parser.addHelpOption();
    const QCommandLineOption specOption(QStringLiteral("spec"), QStringLiteral("The spec file to open."), QStringLiteral("S"));
    const QCommandLineOption dbOption(QStringLiteral("db"),
                                      QStringLiteral("Connection string or URI (else the spec's warehouse:, "
                                                     "else the PG* environment)."),
                                      QStringLiteral("CONNINFO"));
    const QCommandLineOption demoOption(QStringLiteral("demo"), QStringLiteral("Start the embedded demo warehouse and open its spec."));
    const QCommandLineOption dirOption(QStringLiteral("dir"), QStringLiteral("Where the demo lives."), QStringLiteral("D"),
                                       DemoLauncher::defaultDirectory());
    const QCommandLineOption scaleOption(QStringLiteral("scale"), QStringLiteral("Demo seed scale (1.0: ~2M order lines)."),
                                         QStringLiteral("N"), QStringLiteral("1.0"));
    const QCommandLineOption screenshotOption(QStringLiteral("screenshot"), QStringLiteral("Render the window once loaded to a PNG and exit."),
                                              QStringLiteral("FILE"));
    const QCommandLineOption darkOption(QStringLiteral("dark"), QStringLiteral("Use a dark palette (also REPRINT_DARK=1)."));
    const QCommandLineOption selectOption(QStringLiteral("select"),
                                          QStringLiteral("Select the window FROM..TO (partition names) in the calendar."),
                                          QStringLiteral("FROM..TO"));
    const QCommandLineOption reviewOption(QStringLiteral("review"), QStringLiteral("Open the review of backfill ID once connected."),
                                          QStringLiteral("ID"));
    const QCommandLineOption inspectOption(QStringLiteral("inspect"), QStringLiteral("With --review: open the boundary inspector on PARTITION."),
                                           QStringLiteral("PARTITION"));
    const QCommandLineOption tourOption(QStringLiteral("screenshots"),
                                        QStringLiteral("With --demo: play the demo story and write a PNG of each screen to DIR."),
                                        QStringLiteral("DIR"));
    const QCommandLineOption selfCheckOption(QStringLiteral("self-check"),
                                             QStringLiteral("Start, wait until the calendar has loaded, print what loaded and quit "
                                                            "(exit 0 when it holds rows, 2 when not)."));
    parser.addOptions({specOption, dbOption, demoOption, dirOption, scaleOption, screenshotOption, darkOption, selectOption,
                       reviewOption, inspectOption, tourOption, selfCheckOption});
    parser.process(app);

    Options &o = *options;
    o.spec = parser.value(specOption);
    o.db = parser.value(dbOption);
    o.dir = parser.value(dirOption);
    o.screenshot = parser.value(screenshotOption);
    o.tourDir = parser.value(tourOption);
    o.select = parser.value(selectOption);
    o.window = o.select.split(QStringLiteral(".."));
    o.inspect = parser.value(inspectOption);
    o.specSet = parser.isSet(specOption);
    o.demo = parser.isSet(demoOption);
    o.dark = parser.isSet(darkOption) || qEnvironmentVariable("REPRINT_DARK") == QLatin1String("1");
    o.selfCheck = parser.isSet(selfCheckOption);
    o.review = parser.isSet(reviewOption);
    o.reviewId = parser.value(reviewOption).toLongLong();
    o.headless = !o.screenshot.isEmpty() || !o.tourDir.isEmpty() || o.selfCheck || QGuiApplication::platformName() == QLatin1String("offscreen");

    if (o.demo && o.specSet) {
        printError(QStringLiteral("--demo and --spec cannot be combined: the demo opens its own spec."));
        return 1;
    }
    bool scaleOk = false;
    o.scale = parser.value(scaleOption).toDouble(&scaleOk);
    if (!scaleOk || o.scale <= 0) {
        printError(QStringLiteral("--scale must be a positive number, e.g. 0.05"));
        return 1;
    }
    if (!o.tourDir.isEmpty() && !o.demo) {
        printError(QStringLiteral("--screenshots plays the demo story: use it with --demo (and a new --dir)."));
        return 1;
    }
    if (parser.isSet(selectOption) && o.window.size() != 2) {
        printError(QStringLiteral("--select takes FROM..TO, e.g. 2026-03-09..2026-03-14"));
        return 1;
    }
    return std::nullopt;
}

// The window and what the command line asks of it: the tour, the screenshot once loaded
// (after the review and the inspector with --review), the self-check, the selection.
// Each follow*() connects one of them; the order they connect in is the order they run.
class ReviewApp {
public:
    ReviewApp(QApplication &app, Options options) : m_app(app), m_o(std::move(options)), m_tour(&m_window, m_o.tourDir)
    {
        if (!m_o.screenshot.isEmpty() || !m_o.tourDir.isEmpty())
            m_window.resize(1280, 800);
        m_reviewPending = m_o.review;
        m_edgesLoaded = m_rowsLoaded = m_o.inspect.isEmpty();
    }

    void followTour();
    void followCalendar();
    void followConnection();
    void followReview();
    // Shows the window and opens what the line names: the demo, the spec, else the last
    // spec. An exit code when there is nothing to run.
    std::optional<int> open();
    int exec()
    {
        const int code = m_app.exec();
        return m_exitCode != 0 ? m_exitCode : code;
    }

private:
    void fail(int code, const QString &title, const QString &message);
    void takeScreenshot();
    void reportSelfCheck(bool ok);
    void reviewReady();
    bool openSpec(const QString &path, const QString &conninfo);

    QApplication &m_app;
    const Options m_o;
    MainWindow m_window;
    reprint::app::Tour m_tour;
    DemoLauncher m_demo;
    int m_exitCode = 0;
    bool m_tourStarted = false, m_takingScreenshot = false, m_connected = false;
    bool m_reviewPending = false, m_reviewLoaded = false, m_factsLoaded = false, m_edgesLoaded = false, m_rowsLoaded = false;
};

void ReviewApp::followTour()
{
    if (m_o.tourDir.isEmpty())
        return;
    QObject::connect(&m_window, &MainWindow::connectionStateChanged, &m_tour, [this](ConnectionState state) {
        if (state == ConnectionState::Connected && !m_tourStarted) {
            m_tourStarted = true;
            m_tour.start();
        } else if (state == ConnectionState::Failed) {
            printError(QStringLiteral("the demo warehouse did not answer; no screenshots were taken"));
            m_app.exit(2);
        }
    });
    QObject::connect(&m_tour, &reprint::app::Tour::finished, &m_app, [this](int code, const QString &message) {
        if (code == 0)
            QTextStream(stderr) << "reprint-review: " << message << "\n";
        else
            printError(message);
        m_app.exit(code);
    });
}

void ReviewApp::fail(int code, const QString &title, const QString &message)
{
    if (m_o.headless) {
        printError(message);
        m_exitCode = code;
        QTimer::singleShot(0, &m_app, [this, code] { m_app.exit(code); });
        return;
    }
    QMessageBox::critical(&m_window, title, message);
}

void ReviewApp::takeScreenshot()
{
    if (m_o.screenshot.isEmpty() || m_takingScreenshot || m_reviewPending)
        return;
    m_takingScreenshot = true;
    // Let the layout settle and the status bar repaint before rendering.
    QTimer::singleShot(400, &m_window, [this] {
        const QPixmap pixmap = m_window.grab();
        if (!pixmap.save(m_o.screenshot, "PNG")) {
            printError(QStringLiteral("could not write the screenshot to %1").arg(m_o.screenshot));
            m_app.exit(1);
            return;
        }
        m_app.exit(0);
    });
}

// The calendar's first refresh ends before the screenshot when the warehouse answers.
void ReviewApp::followCalendar()
{
    reprint::views::CalendarScreen *calendar = m_window.calendarScreen();
    QObject::connect(calendar, &reprint::views::CalendarScreen::refreshFinished, &m_window, [this, calendar](bool ok) {
        if (m_o.window.size() == 2 && !calendar->selectWindow(m_o.window.at(0), m_o.window.at(1)))
            printError(QStringLiteral("--select: %1 is not a window of the calendar").arg(m_o.select));
        if (m_connected)
            takeScreenshot();
        if (m_o.selfCheck && m_connected)
            reportSelfCheck(ok);
    });
}

void ReviewApp::reportSelfCheck(bool ok)
{
    const reprint::views::CalendarScreen *calendar = m_window.calendarScreen();
    const reprint::model::PartitionCalendarModel *cells = calendar->calendarModel();
    int loaded = 0;
    long long rows = 0;
    for (int i = 0; i < cells->partitionCount(); ++i)
        if (const auto *status = cells->status(i)) {
            ++loaded;
            rows += status->rows;
        }
    const bool good = ok && m_window.isVisible() && loaded > 0 && rows > 0;
    QTextStream(stderr) << "reprint-review: self-check " << (good ? "passed" : "FAILED") << ": window "
                        << (m_window.isVisible() ? "shown" : "not shown") << " (" << m_window.width() << "x" << m_window.height()
                        << "), model " << calendar->modelName() << ", calendar refreshed " << (ok ? "" : "with an error ") << "with "
                        << loaded << " of " << cells->partitionCount() << " partitions loaded, " << rows << " rows"
                        << (ok ? QString() : QStringLiteral(": ") + calendar->errorText()) << "\n";
    QTimer::singleShot(0, &m_app, [this, good] { m_app.exit(good ? 0 : 2); });
}

void ReviewApp::followConnection()
{
    QObject::connect(&m_window, &MainWindow::connectionStateChanged, &m_window, [this](ConnectionState state) {
        if (state == ConnectionState::Failed && m_o.selfCheck)
            fail(2, QString(), QObject::tr("self-check FAILED: the warehouse did not answer"));
        if (state == ConnectionState::Failed)
            takeScreenshot();
        if (state == ConnectionState::Connected) {
            m_connected = true;
            if (!m_window.calendarScreen()->isRefreshing())
                takeScreenshot();
        }
    });
}

void ReviewApp::reviewReady()
{
    if (!m_reviewPending || !m_reviewLoaded || !m_factsLoaded || !m_edgesLoaded || !m_rowsLoaded)
        return;
    m_reviewPending = false;
    takeScreenshot();
}

// --review ID [--inspect PARTITION]: opens the review once connected; the screenshot
// waits until it, its facts and the inspector's edges and rows have loaded.
void ReviewApp::followReview()
{
    if (!m_o.review)
        return;
    reprint::views::ReviewScreen *review = m_window.reviewScreen();
    reprint::views::BoundaryInspector *inspector = review->inspector();
    const QString inspect = m_o.inspect;
    QObject::connect(&m_window, &MainWindow::connectionStateChanged, &m_window, [this](ConnectionState state) {
        if (state == ConnectionState::Connected)
            m_window.openReview(m_o.reviewId);
        if (state == ConnectionState::Failed) {
            m_reviewPending = false;
            takeScreenshot();
        }
    });
    QObject::connect(review, &reprint::views::ReviewScreen::reviewLoaded, &m_window, [this, review, inspect] {
        m_reviewLoaded = true;
        if (!inspect.isEmpty())
            review->showInspector(inspect);
        reviewReady();
    });
    QObject::connect(review, &reprint::views::ReviewScreen::factsLoaded, &m_window, [this] {
        m_factsLoaded = true;
        reviewReady();
    });
    QObject::connect(inspector, &reprint::views::BoundaryInspector::edgeRowsLoaded, &m_window, [this, inspect](const QString &partition) {
        m_edgesLoaded = m_edgesLoaded || partition == inspect;
        reviewReady();
    });
    QObject::connect(inspector->rowDiffModel(), &reprint::model::RowDiffModel::batchLoaded, &m_window, [this, inspector, inspect] {
        m_rowsLoaded = m_rowsLoaded || inspector->partition() == inspect;
        reviewReady();
    });
    QObject::connect(inspector, &reprint::views::BoundaryInspector::diffLoaded, &m_window, [this, inspector, inspect](const QString &partition) {
        if (partition == inspect && inspector->added() + inspector->removed() + inspector->changed() == 0)
            m_rowsLoaded = true;
        reviewReady();
    });
}

bool ReviewApp::openSpec(const QString &path, const QString &conninfo)
{
    QString error;
    if (!m_window.openSpec(path, conninfo, &error)) {
        fail(1, QObject::tr("Cannot open the spec"), error.isEmpty() ? QObject::tr("Cannot open the spec %1.").arg(path) : error);
        return false;
    }
    return true;
}

std::optional<int> ReviewApp::open()
{
    m_window.show();
    if (m_o.demo) {
        m_window.followDemo(&m_demo);
        QObject::connect(&m_demo, &DemoLauncher::started, &m_window,
                         [this](const QString &conninfo, const QString &specPath) { openSpec(specPath, conninfo); });
        QObject::connect(&m_demo, &DemoLauncher::failed, &m_window, [this](const QString &message) {
            m_window.clearBusy();
            fail(2, QObject::tr("Cannot start the demo warehouse"), QObject::tr("The demo warehouse did not start: %1").arg(message));
        });
        m_window.showBusy(QObject::tr("Starting the demo warehouse in %1…").arg(m_o.dir));
        m_demo.start(m_o.dir, m_o.scale);
    } else if (m_o.specSet) {
        if (!openSpec(m_o.spec, m_o.db) && m_o.headless)
            return m_exitCode;
    } else {
        const QString last = MainWindow::lastSpec();
        if (!last.isEmpty() && QFileInfo::exists(last) && m_o.screenshot.isEmpty())
            openSpec(last, m_o.db);
        else
            takeScreenshot();
    }
    return std::nullopt;
}

} // namespace

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("Reprint"));
    QApplication::setApplicationName(QStringLiteral("reprint-review"));
    QApplication::setApplicationDisplayName(QStringLiteral("Reprint"));

    Options options;
    if (const auto refused = readOptions(app, &options))
        return *refused;
    if (options.dark)
        reprint::views::useDarkPalette();

    ReviewApp review(app, std::move(options));
    review.followTour();
    review.followCalendar();
    review.followConnection();
    review.followReview();
    if (const auto refused = review.open())
        return *refused;
    return review.exec();
}
