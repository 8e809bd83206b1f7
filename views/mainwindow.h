#pragma once
// The review window: the spec's models in a sidebar, the selected model's page in the
// centre (its definition, then the calendar, run and review pages), and the warehouse
// connection's state in the status bar. While the demo warehouse starts, the Model tab
// lists its steps with their times (followDemo()). Help: the user guide, the keyboard
// shortcuts, and About (this build's version, the warehouse's Reprint schema version).
//
// The title is the spec's file name; the platform adds the application's name.
//
// Thread affinity: GUI thread. The window never waits on the database: it owns a
// WarehouseClient whose answers arrive as queued signals.
//
// Secrets: the conninfo given to openSpec() may hold a password. It is passed to the
// WarehouseClient and nowhere else: titles, the status bar and dialogs show only the
// client's description ("user@database via host") or a redacted conninfo.

#include "specmodelsmodel.h"

#include <QMainWindow>
#include <QPointer>
#include <QString>

class QLabel;
class QListView;
class QMenu;
class QMessageBox;
class QProgressBar;
class QStackedWidget;
class QTabWidget;

namespace reprint::model {
class DemoLauncher;
class EngineClient;
class WarehouseClient;
struct DatabaseError;
}

namespace reprint::views {

class CalendarScreen;
class DemoPage;
class ModelPage;
class ReviewScreen;
class RunScreen;

class MainWindow : public QMainWindow {
    Q_OBJECT

public:
    using ConnectionState = model::SpecModelsModel::ConnectionState;

    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;

    // Loads the spec at `path`, shows its models and connects to `conninfo` (else the
    // spec's warehouse:, else libpq's PG* environment). Returns false, with the loader's
    // "file:line:col: message" in *error, when the spec cannot be loaded; the window then
    // keeps what it showed and shows no dialog (the caller decides how to report it).
    bool openSpec(const QString &path, const QString &conninfo = {}, QString *error = nullptr);

    // The spec opened last (QSettings), or empty.
    static QString lastSpec();

    // A busy indicator with `message` in the status bar (e.g. while the demo starts),
    // until clearBusy() or the next openSpec().
    void showBusy(const QString &message);
    void clearBusy();
    // Shows the steps of `demo` starting (named, with the seconds since it began) in the
    // Model tab and the status bar, until it started (then openSpec() shows the calendar)
    // or failed. The launcher must outlive the window or be destroyed first.
    void followDemo(model::DemoLauncher *demo);
    void showDemoProgress(const QString &step, double elapsedSeconds);
    // The demo steps shown so far, "12.3 s  seeding the demo shop at scale 1".
    QStringList demoSteps() const;

    // Where the user guide (docs/user-guide.md) is: $REPRINT_USER_GUIDE, next to the
    // installed program (share/doc/reprint), or the source tree this was built from;
    // empty when none exists.
    static QString userGuidePath();
    // Help › User Guide (F1): opens the guide with the desktop's viewer
    // (QDesktopServices), or says where it is when it cannot.
    void showUserGuide();
    // Help › Keyboard Shortcuts: a dialog (objectName "shortcuts").
    void showShortcuts();
    // Help › About Reprint: a dialog (objectName "about") with the version of this build and
    // the Reprint schema version of the warehouse, read when it opens.
    void showAbout();

    model::SpecModelsModel *specModels() const { return m_specModels; }
    ConnectionState connectionState() const { return m_specModels->connectionState(); }
    QString specPath() const { return m_specPath; }
    // The engine door that the model's pages share (owned by the window).
    model::EngineClient *engineClient() const { return m_engine; }
    CalendarScreen *calendarScreen() const { return m_calendar; }
    ReviewScreen *reviewScreen() const { return m_review; }
    RunScreen *runScreen() const { return m_run; }
    // Shows the Review tab with the stored review of backfill `backfillId`.
    void openReview(qint64 backfillId);

Q_SIGNALS:
    void specLoaded(const QString &path);
    // Connecting, then Connected or Failed once the warehouse answered.
    void connectionStateChanged(reprint::model::SpecModelsModel::ConnectionState state);

protected:
    void closeEvent(QCloseEvent *event) override;

private:
    void buildMenus();
    void buildCentre();
    QWidget *buildSidebar(QWidget *parent);
    void buildStatusBar();
    void chooseSpec();
    void openRecent(const QString &path);
    void rebuildRecentMenu();
    void rememberSpec(const QString &path);
    void connectWarehouse();
    // File › Connect to Warehouse… and File › New Spec… (connectiondialog.h, newspecdialog.h).
    // The connection chosen there is used by the spec open now and every spec opened
    // after it (as reprint --db is), and by New Spec….
    void chooseWarehouse();
    void newSpec();
    void setConnectionState(ConnectionState state, const QString &text);
    void showConnectionFailure(const model::DatabaseError &error);
    void showModel(const QModelIndex &index);
    void buildHelpMenu();

    model::SpecModelsModel *m_specModels = nullptr;
    model::WarehouseClient *m_client = nullptr;
    model::EngineClient *m_engine = nullptr;
    CalendarScreen *m_calendar = nullptr;
    ReviewScreen *m_review = nullptr;
    RunScreen *m_run = nullptr;
    QString m_specPath;
    QString m_conninfo;  // as given; may hold a password: never displayed
    QString m_chosenConninfo;  // from Connect to Warehouse…; may hold a password: never displayed
    quint64 m_openToken = 0;

    QListView *m_modelList = nullptr;
    QTabWidget *m_tabs = nullptr;
    QStackedWidget *m_modelStack = nullptr;
    ModelPage *m_modelPage = nullptr;
    QLabel *m_connectionDot = nullptr;
    QLabel *m_connectionText = nullptr;
    QLabel *m_busyText = nullptr;
    QProgressBar *m_busyBar = nullptr;
    QMenu *m_recentMenu = nullptr;
    DemoPage *m_demoPage = nullptr;
    quint64 m_schemaToken = 0;
    QPointer<QLabel> m_aboutSchema;
    QPointer<QMessageBox> m_failureBox;
};

} // namespace reprint::views
