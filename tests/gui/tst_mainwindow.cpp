// MainWindow offscreen: the sidebar lists the spec's models, a failed connection is
// reported in the status bar and a dialog, and the password reaches no visible text.
#include "mainwindow.h"
#include "specfixture.h"
#include "testsupport.h"

#include "calendarscreen.h"
#include "partitioncalendarmodel.h"
#include "calendarview.h"
#include "demolauncher.h"
#include "engineclient.h"

#include "backfill/demo.h"
#include "backfill/migrations.h"

#include <QAbstractButton>
#include <QApplication>
#include <QDesktopServices>
#include <QDialog>
#include <QMenuBar>
#include <QLabel>
#include <QListView>
#include <QMessageBox>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabWidget>
#include <QTest>
#include <QTreeWidget>
#include <QUrl>

using reprint::model::SpecModelsModel;
using reprint::views::MainWindow;

namespace {

const QString kPassword = QStringLiteral("hunter2");
const QString kConninfo = QStringLiteral("host=/nonexistent-reprint-socket port=5432 dbname=shop user=alice password=hunter2");

// Every text a user can see in the application's windows.
QStringList visibleTexts()
{
    QStringList texts;
    for (QWidget *top : QApplication::topLevelWidgets()) {
        texts << top->windowTitle();
        for (QLabel *label : top->findChildren<QLabel *>())
            texts << label->text() << label->toolTip();
        if (auto *box = qobject_cast<QMessageBox *>(top))
            texts << box->text() << box->informativeText() << box->detailedText();
        for (QMessageBox *box : top->findChildren<QMessageBox *>())
            texts << box->windowTitle() << box->text() << box->informativeText() << box->detailedText();
        if (auto *window = qobject_cast<QMainWindow *>(top))
            texts << window->statusBar()->currentMessage();
    }
    return texts;
}

// Receives the URLs QDesktopServices is asked to open.
class UrlCatcher : public QObject {
    Q_OBJECT
public:
    QList<QUrl> urls;
public Q_SLOTS:
    void open(const QUrl &url) { urls << url; }
};

QAction *action(QWidget &window, const char *name)
{
    return window.findChild<QAction *>(QLatin1String(name));
}

} // namespace

class MainWindowTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QApplication::setOrganizationName(QStringLiteral("ReprintTest"));
        QApplication::setApplicationName(QStringLiteral("tst_mainwindow"));
    }

    void listsModelsAndReportsConnectionFailure()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString spec = reprint::test::writeSmallSpec(dir, QStringLiteral("dbname=unused"));

        MainWindow window;
        window.resize(1280, 800);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QSignalSpy states(&window, &MainWindow::connectionStateChanged);

        QString error;
        QVERIFY2(window.openSpec(spec, kConninfo, &error), qPrintable(error));
        // The spec's name only: the platform adds the application's ("shop.yaml — Reprint").
        QCOMPARE(window.windowTitle(), QStringLiteral("shop.yaml"));

        auto *list = window.findChild<QListView *>(QStringLiteral("modelList"));
        QVERIFY(list);
        QAbstractItemModel *models = list->model();
        QCOMPARE(models->rowCount(), 2);
        QCOMPARE(models->index(0, 0).data().toString(), QStringLiteral("fct_order_lines"));
        QCOMPARE(models->index(0, 0).data(SpecModelsModel::GrainRole).toString(), QStringLiteral("day"));
        QCOMPARE(models->index(0, 0).data(SpecModelsModel::TargetRole).toString(),
                 QStringLiteral("analytics.fct_order_lines"));
        QCOMPARE(models->index(1, 0).data().toString(), QStringLiteral("agg_monthly_revenue"));
        QCOMPARE(models->index(1, 0).data(SpecModelsModel::GrainRole).toString(), QStringLiteral("month"));
        QCOMPARE(models->index(1, 0).data(SpecModelsModel::TargetRole).toString(),
                 QStringLiteral("analytics.agg_monthly_revenue"));
        QVERIFY(list->visualRect(models->index(1, 0)).isValid());
        QVERIFY(list->visualRect(models->index(1, 0)).height() > list->fontMetrics().height() * 2);

        // The first model is selected and its page shows its definition.
        QCOMPARE(list->currentIndex().row(), 0);
        QCOMPARE(window.findChild<QLabel *>(QStringLiteral("modelTitle"))->text(), QStringLiteral("fct_order_lines"));
        QCOMPARE(window.findChild<QLabel *>(QStringLiteral("targetValue"))->text(),
                 QStringLiteral("analytics.fct_order_lines"));
        QCOMPARE(window.findChild<QLabel *>(QStringLiteral("timezoneValue"))->text(), QStringLiteral("UTC"));
        QVERIFY(window.findChild<QLabel *>(QStringLiteral("measuresValue"))->text().contains(QStringLiteral("revenue, quantity")));
        QCOMPARE(window.findChild<QLabel *>(QStringLiteral("keyValue"))->text(), QStringLiteral("order_line_id"));
        auto *checks = window.findChild<QTreeWidget *>(QStringLiteral("checks"));
        QCOMPARE(checks->topLevelItemCount(), 2);
        QCOMPARE(checks->topLevelItem(0)->text(0), QStringLiteral("revenue matches source"));

        list->setCurrentIndex(models->index(1, 0));
        QCOMPARE(window.findChild<QLabel *>(QStringLiteral("timezoneValue"))->text(), QStringLiteral("Europe/Berlin"));

        auto *tabs = window.findChild<QTabWidget *>(QStringLiteral("modelTabs"));
        QStringList tabNames;
        for (int i = 0; i < tabs->count(); ++i)
            tabNames << tabs->tabText(i);
        QCOMPARE(tabNames, (QStringList{QStringLiteral("Model"), QStringLiteral("Calendar"), QStringLiteral("Run"),
                                        QStringLiteral("Review")}));

        // The socket directory does not exist: the connection fails, and says so.
        QTRY_COMPARE_WITH_TIMEOUT(window.connectionState(), MainWindow::ConnectionState::Failed, 10000);
        QCOMPARE(states.first().first().value<MainWindow::ConnectionState>(), MainWindow::ConnectionState::Connecting);
        QCOMPARE(states.last().first().value<MainWindow::ConnectionState>(), MainWindow::ConnectionState::Failed);
        const QString status = window.findChild<QLabel *>(QStringLiteral("connectionStatus"))->text();
        QVERIFY2(status.startsWith(QStringLiteral("Connection failed: ")), qPrintable(status));
        QVERIFY2(status.contains(QStringLiteral("/nonexistent-reprint-socket")), qPrintable(status));
        QVERIFY2(status.endsWith(QLatin1Char('.')), qPrintable(status));

        QMessageBox *box = nullptr;
        QTRY_VERIFY((box = window.findChild<QMessageBox *>(QStringLiteral("connectionFailure"))) != nullptr);
        QTRY_VERIFY(box->isVisible());
        QVERIFY(box->text().contains(QStringLiteral("shop.yaml")));
        QVERIFY2(box->informativeText().contains(QStringLiteral("Check that the server is running")),
                 qPrintable(box->informativeText()));

        const QStringList texts = visibleTexts();
        QVERIFY(texts.size() > 20);
        for (const QString &text : texts)
            QVERIFY2(!text.contains(kPassword), qPrintable(text));

        // Retry goes back to connecting, and fails the same way.
        box->button(QMessageBox::Retry)->click();
        QTRY_COMPARE(window.connectionState(), MainWindow::ConnectionState::Failed);
        QTRY_VERIFY(window.findChild<QMessageBox *>(QStringLiteral("connectionFailure")) != nullptr);
        for (const QString &text : visibleTexts())
            QVERIFY2(!text.contains(kPassword), qPrintable(text));
    }

    void emptySidebarAsksForASpec()
    {
        MainWindow window;
        window.resize(1280, 800);
        window.show();
        auto *detail = window.calendarScreen()->findChild<QLabel *>(QStringLiteral("detail"));
        QVERIFY(detail);
        QVERIFY2(!detail->text().contains(QStringLiteral("Select a model in the sidebar")), qPrintable(detail->text()));
        QVERIFY2(detail->text().contains(QStringLiteral("Open a spec")), qPrintable(detail->text()));
        QVERIFY(!window.windowTitle().contains(QStringLiteral("Reprint — ")));
    }

    // A spec opened before the window is shown (as reprint-review does) puts the newest
    // partition on screen once the window has its size: the scroll made against the unshown
    // calendar's default size left it below the fold.
    void calendarOpensOnTheNewestPartition()
    {
        QSettings().clear();  // no remembered window: the calendar opens on the newest partition
        const std::string db = reprint::test::demoCopy("tst_mainwindow_newest");
        const QString spec = QDir(qEnvironmentVariable("REPRINT_TEST_DEMO_DIR")).filePath(QStringLiteral("demo.yaml"));
        MainWindow window;
        window.resize(1280, 800);
        QVERIFY(window.openSpec(spec, QString::fromStdString(db)));
        window.findChild<QTabWidget *>()->setCurrentWidget(window.calendarScreen());
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QTRY_COMPARE_WITH_TIMEOUT(window.connectionState(), MainWindow::ConnectionState::Connected, 20000);
        const reprint::views::CalendarView *view = window.calendarScreen()->view();
        const int newest = window.calendarScreen()->calendarModel()->lastPastOrdinal();
        QVERIFY(newest >= 0);
        QTRY_VERIFY2_WITH_TIMEOUT(view->viewport()->rect().contains(view->cellRect(newest)),
                                  qPrintable(QStringLiteral("the newest partition is at y %1 of a %2 px viewport")
                                                 .arg(view->cellRect(newest).top()).arg(view->viewport()->height())),
                                  5000);
    }

    void helpMenuGuideShortcutsAndAbout()
    {
        const std::string db = reprint::test::demoCopy("tst_mainwindow_help");
        const QString spec = QDir(qEnvironmentVariable("REPRINT_TEST_DEMO_DIR")).filePath(QStringLiteral("demo.yaml"));
        MainWindow window;
        window.resize(1280, 800);
        window.show();
        QVERIFY(window.openSpec(spec, QString::fromStdString(db)));
        QTRY_COMPARE_WITH_TIMEOUT(window.connectionState(), MainWindow::ConnectionState::Connected, 20000);
        QMenu *help = window.findChild<QMenu *>(QStringLiteral("helpMenu"));
        QVERIFY(help);
        QVERIFY(window.menuBar()->actions().contains(help->menuAction()));

        // The user guide: opened with the desktop's viewer, from where it is.
        UrlCatcher catcher;
        QDesktopServices::setUrlHandler(QStringLiteral("file"), &catcher, "open");
        QAction *guide = action(window, "userGuideAction");
        QCOMPARE(guide->shortcut(), QKeySequence(QKeySequence::HelpContents));
        guide->trigger();
        QDesktopServices::unsetUrlHandler(QStringLiteral("file"));
        QCOMPARE(catcher.urls.size(), 1);
        const QString path = catcher.urls.first().toLocalFile();
        QVERIFY2(path.endsWith(QStringLiteral("docs/user-guide.md")) && QFileInfo(path).isFile(), qPrintable(path));
        QCOMPARE(path, MainWindow::userGuidePath());

        // Keyboard shortcuts: the menus' and the calendar's.
        action(window, "shortcutsAction")->trigger();
        auto *shortcuts = window.findChild<QDialog *>(QStringLiteral("shortcuts"));
        QVERIFY(shortcuts && shortcuts->isVisible());
        auto *list = shortcuts->findChild<QTreeWidget *>(QStringLiteral("shortcutList"));
        QStringList keys;
        for (int i = 0; i < list->topLevelItemCount(); ++i)
            keys << list->topLevelItem(i)->text(0) + QStringLiteral(" = ") + list->topLevelItem(i)->text(1);
        const QString open = QKeySequence(QKeySequence::Open).toString(QKeySequence::NativeText);
        QVERIFY2(keys.contains(open + QStringLiteral(" = Open Spec…")), qPrintable(keys.join(QLatin1Char('\n'))));
        QVERIFY2(keys.filter(QStringLiteral("Shift+Arrow keys")).size() == 1, qPrintable(keys.join(QLatin1Char('\n'))));
        QVERIFY(keys.filter(QStringLiteral("User Guide")).size() == 1);
        shortcuts->close();

        // About: this build's version and the warehouse's schema version, read from it.
        action(window, "aboutAction")->trigger();
        auto *about = window.findChild<QDialog *>(QStringLiteral("about"));
        QVERIFY(about && about->isVisible());
        QVERIFY(about->findChild<QLabel *>(QStringLiteral("aboutText"))->text().contains(QStringLiteral("Reprint 0.")));
        auto *schema = about->findChild<QLabel *>(QStringLiteral("aboutSchema"));
        const QString expected = QStringLiteral("Reprint schema version %1 in the warehouse").arg(reprint::backfill::latestSchemaVersion());
        QTRY_VERIFY2_WITH_TIMEOUT(schema->text().startsWith(expected), qPrintable(schema->text()), 20000);
        // An older schema is said as such.
        about->close();
        QVERIFY(reprint::test::execute(db, "DELETE FROM reprint.schema_version WHERE version = (SELECT max(version) FROM reprint.schema_version)").ok());
        QTRY_VERIFY(!window.findChild<QDialog *>(QStringLiteral("about")));
        action(window, "aboutAction")->trigger();
        schema = window.findChild<QDialog *>(QStringLiteral("about"))->findChild<QLabel *>(QStringLiteral("aboutSchema"));
        QTRY_VERIFY2_WITH_TIMEOUT(schema->text().contains(QStringLiteral("version %1 in the warehouse; this build knows version %2")
                                                              .arg(reprint::backfill::latestSchemaVersion() - 1)
                                                              .arg(reprint::backfill::latestSchemaVersion())),
                                  qPrintable(schema->text()), 20000);
    }

    // Starting a new demo: the Model tab lists the named steps with their times, as
    // `reprint demo` prints them, and the calendar takes over once it started.
    void demoStartShowsNamedStepsWithTimes()
    {
        const QString dir = QString::fromStdString(reprint::test::testDir()) + QStringLiteral("/demo-steps");
        (void)reprint::backfill::stopDemo(dir.toStdString());  // a cluster left by an earlier run, if any
        QDir(dir).removeRecursively();
        MainWindow window;
        window.resize(1280, 800);
        window.show();
        reprint::model::DemoLauncher demo;
        window.followDemo(&demo);
        QSignalSpy started(&demo, &reprint::model::DemoLauncher::started);
        QSignalSpy failed(&demo, &reprint::model::DemoLauncher::failed);
        QVERIFY(demo.start(dir, 0.01));
        QTRY_VERIFY_WITH_TIMEOUT(!window.demoSteps().isEmpty(), 30000);
        auto *tabs = window.findChild<QTabWidget *>(QStringLiteral("modelTabs"));
        QCOMPARE(tabs->currentIndex(), 0);
        QVERIFY(window.findChild<QWidget *>(QStringLiteral("demoPage"))->isVisible());
        QTRY_VERIFY_WITH_TIMEOUT(!started.isEmpty() || !failed.isEmpty(), 300000);
        QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.first().first().toString()));
        const QStringList steps = window.demoSteps();
        const QString all = steps.join(QLatin1Char('\n'));
        QVERIFY2(steps.size() >= 4, qPrintable(all));
        QVERIFY2(steps.first().contains(QStringLiteral("creating a PostgreSQL cluster in")), qPrintable(all));
        QVERIFY2(all.contains(QStringLiteral("seeding the demo shop at scale 0.01")), qPrintable(all));
        QVERIFY2(all.contains(QStringLiteral("applying Reprint's schema")), qPrintable(all));
        double last = -1;
        for (const QString &step : steps) {
            bool ok = false;
            const double at = QLocale().toDouble(step.section(QStringLiteral(" s  "), 0, 0), &ok);
            QVERIFY2(ok && at >= last, qPrintable(step));
            last = at;
        }
        auto *busy = window.findChild<QLabel *>(QStringLiteral("busyText"));
        QVERIFY2(busy->text().startsWith(QStringLiteral("Starting the demo warehouse (")), qPrintable(busy->text()));
        QVERIFY(window.openSpec(started.first().at(1).toString(), started.first().at(0).toString()));
        QCOMPARE(tabs->currentWidget(), window.calendarScreen());
        QVERIFY(reprint::backfill::stopDemo(dir.toStdString()).ok());
    }

    void passwordInUriStaysHidden()
    {
        QTemporaryDir dir;
        const QString spec = reprint::test::writeSmallSpec(
            dir, QStringLiteral("postgresql://alice:hunter2@%2Fnonexistent-reprint-socket/shop"));
        MainWindow window;
        window.show();
        QString error;
        QVERIFY2(window.openSpec(spec, {}, &error), qPrintable(error));
        QVERIFY(window.connectionState() == MainWindow::ConnectionState::Connecting
                || window.connectionState() == MainWindow::ConnectionState::Failed);
        for (const QString &text : visibleTexts())
            QVERIFY2(!text.contains(kPassword), qPrintable(text));
        QTRY_COMPARE_WITH_TIMEOUT(window.connectionState(), MainWindow::ConnectionState::Failed, 10000);
        for (const QString &text : visibleTexts())
            QVERIFY2(!text.contains(kPassword), qPrintable(text));
    }

    void badSpecKeepsTheWindowAndNamesTheLine()
    {
        QTemporaryDir dir;
        const QString good = reprint::test::writeSmallSpec(dir, QStringLiteral("dbname=unused"));
        const QString bad = dir.filePath(QStringLiteral("bad.yaml"));
        QVERIFY(reprint::test::writeFile(bad, "models:\n"
                                              "  - name: m\n"
                                              "    target: a.m\n"
                                              "    partition: { column: d, grain: dayly }\n"
                                              "    key: [id]\n"
                                              "    transform: transforms/fct_order_lines.sql\n"));
        MainWindow window;
        QVERIFY(window.openSpec(good, kConninfo));
        const QString title = window.windowTitle();

        QString error;
        QVERIFY(!window.openSpec(bad, kConninfo, &error));
        QVERIFY2(error.contains(QStringLiteral("bad.yaml:4:")), qPrintable(error));
        QVERIFY2(error.contains(QStringLiteral("dayly")), qPrintable(error));
        QCOMPARE(window.windowTitle(), title);
        QCOMPARE(window.specModels()->rowCount(), 2);
        QCOMPARE(window.specPath(), QFileInfo(good).absoluteFilePath());
    }

    void rendersInADarkPalette()
    {
        QTemporaryDir dir;
        const QString spec = reprint::test::writeSmallSpec(dir, QStringLiteral("dbname=unused"));
        QPalette dark;
        dark.setColor(QPalette::Window, QColor(0x2b, 0x2d, 0x31));
        dark.setColor(QPalette::WindowText, QColor(0xe4, 0xe6, 0xea));
        dark.setColor(QPalette::Base, QColor(0x1f, 0x21, 0x24));
        dark.setColor(QPalette::Text, QColor(0xe4, 0xe6, 0xea));
        const QPalette before = QApplication::palette();
        QApplication::setPalette(dark);
        MainWindow window;
        window.resize(1280, 800);
        window.show();
        QVERIFY(window.openSpec(spec, kConninfo));
        const QImage image = window.grab().toImage();
        QApplication::setPalette(before);
        QCOMPARE(image.size() / image.devicePixelRatio(), QSize(1280, 800));
        // The sidebar is painted with the dark base, not a hard-coded light colour.
        auto *list = window.findChild<QListView *>(QStringLiteral("modelList"));
        const QPoint inList = list->viewport()->mapTo(&window, QPoint(list->viewport()->width() / 2,
                                                                      list->viewport()->height() - 5));
        QVERIFY(QColor(image.pixel(inList * image.devicePixelRatio())).lightness() < 80);
    }
};

QTEST_MAIN(MainWindowTest)
#include "tst_mainwindow.moc"
