// MainWindow offscreen: the sidebar lists the spec's models, a failed connection is
// reported in the status bar and a dialog, and the password reaches no visible text.
#include "mainwindow.h"
#include "specfixture.h"

#include <QAbstractButton>
#include <QApplication>
#include <QLabel>
#include <QListView>
#include <QMessageBox>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabWidget>
#include <QTest>
#include <QTreeWidget>

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
        QCOMPARE(window.windowTitle(), QStringLiteral("Reprint — shop.yaml"));

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
