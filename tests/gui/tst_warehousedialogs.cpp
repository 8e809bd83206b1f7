// File › Connect to Warehouse… and File › New Spec… offscreen (issue 14 item 10): a test
// with a wrong password says what went wrong without the password, a right one says the
// server, the user and the schema; New Spec… writes a spec from a demo table that the
// window then opens. Screenshots of both dialogs (default and dark palette) go to
// $REPRINT_SCREENSHOT_DIR when it is set.
#include "connectiondialog.h"
#include "darkpalette.h"
#include "mainwindow.h"
#include "newspecdialog.h"
#include "testsupport.h"

#include "backfill/migrations.h"
#include "backfill/spec.h"

#include <QAbstractButton>
#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPainter>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStyleFactory>
#include <QTemporaryDir>
#include <QTest>

using reprint::views::ConnectionDialog;
using reprint::views::MainWindow;
using reprint::views::NewSpecDialog;

namespace {

const QString kRole = QStringLiteral("reprint_pw");
const QString kGoodPassword = QStringLiteral("corr3ct-h0rse");
const QString kBadPassword = QStringLiteral("hunter2-wrong");

QStringList textsOf(QWidget *w)
{
    QStringList texts{w->windowTitle(), w->toolTip()};
    for (QLabel *l : w->findChildren<QLabel *>())
        texts << l->text() << l->toolTip();
    for (QComboBox *c : w->findChildren<QComboBox *>())
        texts << c->currentText();
    return texts;
}

// `window` at 1280x800 with `dialog` drawn centred over it, as the user sees them.
void shoot(QWidget *window, QWidget *dialog, const QString &name)
{
    const QString dir = qEnvironmentVariable("REPRINT_SCREENSHOT_DIR");
    if (dir.isEmpty())
        return;
    QDir().mkpath(dir);
    QCoreApplication::processEvents();  // let the dialog lay out its latest texts
    QPixmap shot = window->grab();
    const QPixmap over = dialog->grab();
    QPainter p(&shot);
    p.fillRect(shot.rect(), QColor(0, 0, 0, 60));
    p.drawPixmap((shot.width() - over.width()) / 2, (shot.height() - over.height()) / 2, over);
    p.end();
    QVERIFY(shot.save(QDir(dir).filePath(name + QStringLiteral(".png"))));
}

// Shoots `dialog` over `window` again in the app's own dark palette (the one
// reprint-review --dark uses), then puts the light one back.
void shootDark(QWidget *window, QWidget *dialog, const QString &name)
{
    const QPalette before = QApplication::palette();
    reprint::views::useDarkPalette();
    QCoreApplication::processEvents();
    shoot(window, dialog, name);
    QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
    QApplication::setPalette(before);
}

} // namespace

class WarehouseDialogsTest : public QObject {
    Q_OBJECT

    std::string m_passwordHost;  // conninfo of the private cluster, without user or password

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QApplication::setOrganizationName(QStringLiteral("ReprintTest"));
        QApplication::setApplicationName(QStringLiteral("tst_warehousedialogs"));
        QSettings().clear();

        // The private cluster trusts its socket; a role that must give a password makes a
        // wrong password fail as it would on a real warehouse.
        auto &cluster = reprint::test::privateCluster();
        const std::string admin = cluster.conninfo("postgres");
        auto role = reprint::test::execute(admin, "DROP ROLE IF EXISTS reprint_pw; CREATE ROLE reprint_pw LOGIN PASSWORD '"
                                                      + kGoodPassword.toStdString() + "'");
        QVERIFY2(role.ok(), role.ok() ? "" : role.error().toSentence().c_str());
        const QString hbaPath = QString::fromStdString(cluster.dataDir() + "/pg_hba.conf");
        QFile hba(hbaPath);
        QVERIFY(hba.open(QIODevice::ReadOnly));
        QByteArray text = hba.readAll();
        hba.close();
        if (!text.contains("reprint_pw")) {
            text.prepend("local   all       reprint_pw   scram-sha-256\n");
            QVERIFY(hba.open(QIODevice::WriteOnly | QIODevice::Truncate));
            hba.write(text);
            hba.close();
        }
        auto reload = reprint::test::query(admin, "SELECT pg_reload_conf()");
        QVERIFY(reload.ok());
        m_passwordHost = "host=" + cluster.socketDir() + " port=" + std::to_string(cluster.port()) + " dbname=postgres";
        // The reload is asynchronous: wait until the role is asked for its password.
        QTRY_VERIFY_WITH_TIMEOUT(!reprint::test::query(m_passwordHost + " user=reprint_pw", "SELECT 1").ok(), 10000);
    }

    void wrongPasswordThenRightOne()
    {
        MainWindow window;
        window.resize(1280, 800);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QAction *connectAction = window.findChild<QAction *>(QStringLiteral("connectAction"));
        QVERIFY(connectAction);
        connectAction->trigger();
        auto *dialog = window.findChild<ConnectionDialog *>();
        QVERIFY(dialog);
        QTRY_VERIFY(dialog->isVisible());

        auto *connection = dialog->findChild<QComboBox *>(QStringLiteral("connection"));
        auto *password = dialog->findChild<QLineEdit *>(QStringLiteral("password"));
        auto *test = dialog->findChild<QPushButton *>(QStringLiteral("testConnection"));
        QVERIFY(connection && password && test);
        QCOMPARE(password->echoMode(), QLineEdit::Password);
        connection->setCurrentText(QString::fromStdString(m_passwordHost) + QStringLiteral(" user=") + kRole);
        password->setText(kBadPassword);
        QSignalSpy tested(dialog, &ConnectionDialog::connectionTested);
        QTest::mouseClick(test, Qt::LeftButton);
        QVERIFY(!test->isEnabled());  // answered later, from the I/O thread
        QVERIFY(tested.wait(15000));
        QCOMPARE(tested.last().first().toBool(), false);
        const QString failure = dialog->resultText();
        QVERIFY2(failure.contains(QStringLiteral("password authentication failed")), qPrintable(failure));
        QVERIFY2(failure.contains(QStringLiteral("Check the user and password")), qPrintable(failure));
        for (const QString &t : textsOf(dialog))
            QVERIFY2(!t.contains(kBadPassword), qPrintable(t));
        shoot(&window, dialog, QStringLiteral("connect-wrong-password"));

        // The same with the password in the connection string itself.
        password->clear();
        connection->setCurrentText(QString::fromStdString(m_passwordHost) + QStringLiteral(" user=") + kRole
                                   + QStringLiteral(" password=") + kBadPassword);
        QTest::mouseClick(test, Qt::LeftButton);
        QVERIFY(tested.wait(15000));
        QCOMPARE(tested.last().first().toBool(), false);
        QVERIFY(!dialog->resultText().contains(kBadPassword));
        QVERIFY(!dialog->displayConninfo().contains(kBadPassword));

        connection->setCurrentText(QString::fromStdString(m_passwordHost) + QStringLiteral(" user=") + kRole);
        password->setText(kGoodPassword);
        QTest::mouseClick(test, Qt::LeftButton);
        QVERIFY(tested.wait(15000));
        QCOMPARE(tested.last().first().toBool(), true);
        const QString ok = dialog->resultText();
        QVERIFY2(ok.contains(QStringLiteral("Connected</b> to PostgreSQL 1")), qPrintable(ok));
        QVERIFY2(ok.contains(QStringLiteral("user <b>reprint_pw</b>")), qPrintable(ok));
        QVERIFY2(ok.contains(QStringLiteral("schema is not installed")), qPrintable(ok));
        for (const QString &t : textsOf(dialog))
            QVERIFY2(!t.contains(kGoodPassword), qPrintable(t));
        shoot(&window, dialog, QStringLiteral("connect-ok"));
        shootDark(&window, dialog, QStringLiteral("connect-ok-dark"));

        // Connect: the window uses it; the recent list keeps it without the password.
        QTest::mouseClick(dialog->findChild<QPushButton *>(QStringLiteral("connect")), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(window.connectionState(), MainWindow::ConnectionState::Connected, 15000);
        const QStringList recent = ConnectionDialog::recentConnections();
        QCOMPARE(recent.size(), 1);
        QVERIFY(recent.first().contains(QStringLiteral("user=reprint_pw")));
        QVERIFY(!recent.first().contains(kGoodPassword));
        QVERIFY(!recent.first().contains(QStringLiteral("password")));
        const QSettings settings;
        for (const QString &key : settings.allKeys())
            QVERIFY2(!settings.value(key).toString().contains(kGoodPassword), qPrintable(key));
    }

    void newSpecFromADemoTable()
    {
        const std::string db = reprint::test::demoCopy("warehousedialogs");
        QTemporaryDir dir;
        MainWindow window;
        window.resize(1280, 800);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));

        window.findChild<QAction *>(QStringLiteral("connectAction"))->trigger();
        auto *connect = window.findChild<ConnectionDialog *>();
        QVERIFY(connect);
        connect->findChild<QComboBox *>(QStringLiteral("connection"))->setCurrentText(QString::fromStdString(db));
        connect->accept();
        QTRY_COMPARE_WITH_TIMEOUT(window.connectionState(), MainWindow::ConnectionState::Connected, 15000);

        window.findChild<QAction *>(QStringLiteral("newSpecAction"))->trigger();
        auto *dialog = window.findChild<NewSpecDialog *>();
        QVERIFY(dialog);
        QSignalSpy loaded(dialog, &NewSpecDialog::tablesLoaded);
        QSignalSpy proposed(dialog, &NewSpecDialog::proposalShown);
        QVERIFY(loaded.count() || loaded.wait(15000));
        QVERIFY(loaded.first().first().toInt() >= 5);
        auto *write = dialog->findChild<QPushButton *>(QStringLiteral("writeSpec"));
        QVERIFY(!write->isEnabled());  // no table chosen yet
        QVERIFY(dialog->selectTable(QStringLiteral("analytics.fct_order_lines")));
        QVERIFY(proposed.wait(15000));

        QCOMPARE(dialog->findChild<QLineEdit *>(QStringLiteral("modelName"))->text(), QStringLiteral("fct_order_lines"));
        QCOMPARE(dialog->findChild<QComboBox *>(QStringLiteral("partitionColumn"))->currentText(), QStringLiteral("order_date"));
        QCOMPARE(dialog->findChild<QComboBox *>(QStringLiteral("grain"))->currentText(), QStringLiteral("day"));
        QCOMPARE(dialog->findChild<QComboBox *>(QStringLiteral("timezone"))->currentText(), QStringLiteral("UTC"));
        const auto draft = dialog->draft();
        QVERIFY(!draft.key.empty());
        QVERIFY(std::find(draft.measures.begin(), draft.measures.end(), "revenue") != draft.measures.end());
        QVERIFY(write->isEnabled());
        QVERIFY(dialog->findChild<QLabel *>(QStringLiteral("proposalNotes"))->text().contains(QStringLiteral("partition key")));

        // The user edits: no key is refused, with why; a measure left out stays out.
        auto *key = dialog->findChild<QListWidget *>(QStringLiteral("key"));
        std::vector<QListWidgetItem *> on;
        for (int i = 0; i < key->count(); ++i)
            if (key->item(i)->checkState() == Qt::Checked) {
                on.push_back(key->item(i));
                key->item(i)->setCheckState(Qt::Unchecked);
            }
        QVERIFY(!write->isEnabled());
        QVERIFY2(dialog->statusText().contains(QStringLiteral("key")), qPrintable(dialog->statusText()));
        for (QListWidgetItem *item : on)
            item->setCheckState(Qt::Checked);
        QVERIFY(write->isEnabled());
        auto *measures = dialog->findChild<QListWidget *>(QStringLiteral("measures"));
        for (int i = 0; i < measures->count(); ++i)
            if (measures->item(i)->text() == QStringLiteral("discount"))
                measures->item(i)->setCheckState(Qt::Unchecked);
        dialog->findChild<QLineEdit *>(QStringLiteral("modelName"))->setText(QStringLiteral("my_order_lines"));
        dialog->setFolder(dir.path());

        shoot(&window, dialog, QStringLiteral("new-spec"));
        shootDark(&window, dialog, QStringLiteral("new-spec-dark"));

        QSignalSpy opened(&window, &MainWindow::specLoaded);
        QTest::mouseClick(write, Qt::LeftButton);
        QVERIFY(opened.count() || opened.wait(5000));
        const QString specPath = QDir(dir.path()).filePath(QStringLiteral("my_order_lines.yaml"));
        QCOMPARE(window.specPath(), specPath);
        QVERIFY(QFile::exists(QDir(dir.path()).filePath(QStringLiteral("transforms/my_order_lines.sql"))));
        auto spec = reprint::backfill::loadSpec(specPath.toStdString());
        QVERIFY2(spec.ok(), spec.ok() ? "" : spec.error().toSentence().c_str());
        const auto &measuresWritten = spec->models.at(0).measures;
        QVERIFY(std::find(measuresWritten.begin(), measuresWritten.end(), "discount") == measuresWritten.end());
        QVERIFY(std::find(measuresWritten.begin(), measuresWritten.end(), "revenue") != measuresWritten.end());
        QTRY_COMPARE_WITH_TIMEOUT(window.connectionState(), MainWindow::ConnectionState::Connected, 15000);

        // The spec runs as written.
        const auto status = reprint::test::runReprint({QStringLiteral("status"), QStringLiteral("--spec"), specPath,
                                                       QStringLiteral("--model"), QStringLiteral("my_order_lines")});
        QVERIFY2(status.exitCode == 0, qPrintable(status.err + status.out));
    }
};

QTEST_MAIN(WarehouseDialogsTest)
#include "tst_warehousedialogs.moc"
