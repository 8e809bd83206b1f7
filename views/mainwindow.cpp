#include "mainwindow.h"

#include "connectiondialog.h"
#include "demopage.h"
#include "modelpage.h"
#include "newspecdialog.h"
#include "placeholderpage.h"

#include "calendarscreen.h"
#include "reviewscreen.h"
#include "runscreen.h"
#include "engineclient.h"
#include "warehouseclient.h"

#include "demolauncher.h"

#include "backfill/migrations.h"
#include "backfill/spec.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QCoreApplication>
#include <QDesktopServices>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListView>
#include <QMenuBar>
#include <QMessageBox>
#include <QPainter>
#include <QProgressBar>
#include <QScrollArea>
#include <QSettings>
#include <QSplitter>
#include <QStackedWidget>
#include <QStatusBar>
#include <QStyledItemDelegate>
#include <QTabWidget>
#include <QTreeWidget>
#include <QUrl>
#include <QVBoxLayout>

#include <algorithm>

namespace reprint::views {

namespace {

using model::SpecModelsModel;

constexpr int kMaxRecentSpecs = 8;
const QString kRecentKey = QStringLiteral("recentSpecs");
const QString kLastSpecKey = QStringLiteral("lastSpec");
const QString kGeometryKey = QStringLiteral("mainWindow/geometry");
const QString kStateKey = QStringLiteral("mainWindow/state");
const QString kSelectedModelsKey = QStringLiteral("selectedModels");  // spec path -> model name

QColor blend(const QColor &a, const QColor &b, qreal t)
{
    return QColor::fromRgbF(a.redF() * (1 - t) + b.redF() * t, a.greenF() * (1 - t) + b.greenF() * t,
                            a.blueF() * (1 - t) + b.blueF() * t);
}

// A sidebar row: the model's name in bold with its checks count on the right, and
// "grain · target" under it in a quieter colour.
class ModelItemDelegate : public QStyledItemDelegate {
public:
    using QStyledItemDelegate::QStyledItemDelegate;

    void paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const override
    {
        QStyleOptionViewItem opt = option;
        initStyleOption(&opt, index);
        opt.text.clear();
        const QWidget *widget = option.widget;
        QStyle *style = widget ? widget->style() : QApplication::style();
        style->drawPrimitive(QStyle::PE_PanelItemViewItem, &opt, painter, widget);

        const bool selected = opt.state & QStyle::State_Selected;
        const QPalette::ColorGroup group = (opt.state & QStyle::State_Active) ? QPalette::Active : QPalette::Inactive;
        const QColor text = opt.palette.color(group, selected ? QPalette::HighlightedText : QPalette::Text);
        const QColor quiet = blend(text, opt.palette.color(group, selected ? QPalette::Highlight : QPalette::Base), 0.4);

        const QRect r = opt.rect.adjusted(kPadX, kPadY, -kPadX, -kPadY);
        QFont nameFont = opt.font;
        nameFont.setBold(true);
        const QFontMetrics nameMetrics(nameFont);
        const QFontMetrics metrics(opt.font);

        const int checks = index.data(SpecModelsModel::ChecksCountRole).toInt();
        const QString checksText = checks == 1 ? QObject::tr("1 check") : QObject::tr("%1 checks").arg(checks);
        const int checksWidth = metrics.horizontalAdvance(checksText);

        painter->save();
        painter->setFont(nameFont);
        painter->setPen(text);
        const QRect nameRect(r.left(), r.top(), r.width() - checksWidth - kPadX, nameMetrics.height());
        painter->drawText(nameRect, Qt::AlignLeft | Qt::AlignVCenter,
                          nameMetrics.elidedText(index.data(SpecModelsModel::NameRole).toString(), Qt::ElideRight,
                                                 nameRect.width()));
        painter->setFont(opt.font);
        painter->setPen(quiet);
        painter->drawText(QRect(r.right() - checksWidth, r.top(), checksWidth + 1, nameMetrics.height()),
                          Qt::AlignRight | Qt::AlignVCenter, checksText);
        const QString second = index.data(SpecModelsModel::GrainRole).toString() + QStringLiteral("  ·  ")
            + index.data(SpecModelsModel::TargetRole).toString();
        const QRect secondRect(r.left(), r.top() + nameMetrics.height() + kLineGap, r.width(), metrics.height());
        painter->drawText(secondRect, Qt::AlignLeft | Qt::AlignVCenter,
                          metrics.elidedText(second, Qt::ElideMiddle, secondRect.width()));
        painter->restore();
    }

    QSize sizeHint(const QStyleOptionViewItem &option, const QModelIndex &) const override
    {
        QFont nameFont = option.font;
        nameFont.setBold(true);
        const int height = QFontMetrics(nameFont).height() + kLineGap + option.fontMetrics.height() + 2 * kPadY;
        return {200, height};
    }

private:
    static constexpr int kPadX = 10;
    static constexpr int kPadY = 7;
    static constexpr int kLineGap = 3;
};

// A label that elides its text to its width instead of widening the window; text()
// stays the whole text, and the tooltip shows it.
class ElidingLabel : public QLabel {
public:
    using QLabel::QLabel;

    QSize minimumSizeHint() const override { return {fontMetrics().averageCharWidth() * 12, QLabel::minimumSizeHint().height()}; }

protected:
    void paintEvent(QPaintEvent *) override
    {
        QPainter painter(this);
        const QRect r = contentsRect();
        painter.setPen(palette().color(foregroundRole()));
        painter.drawText(r, Qt::AlignLeft | Qt::AlignVCenter, fontMetrics().elidedText(text(), Qt::ElideRight, r.width()));
    }
};

} // namespace

MainWindow::MainWindow(QWidget *parent)
    : QMainWindow(parent)
    , m_specModels(new model::SpecModelsModel(this))
    , m_client(new model::WarehouseClient(this))
    , m_engine(new model::EngineClient(this))
{
    buildMenus();
    buildCentre();
    buildStatusBar();

    connect(m_client, &model::WarehouseClient::opened, this, [this](quint64 token, const QString &description) {
        if (token != m_openToken)
            return;
        setConnectionState(ConnectionState::Connected, tr("Connected as %1").arg(description));
    });
    connect(m_client, &model::WarehouseClient::failed, this,
            [this](quint64 token, const model::DatabaseError &error) {
                if (token != m_openToken)
                    return;
                setConnectionState(ConnectionState::Failed, tr("Connection failed: %1").arg(error.sentence()));
                showConnectionFailure(error);
            });

    QSettings settings;
    if (!restoreGeometry(settings.value(kGeometryKey).toByteArray()))
        resize(1280, 800);
    restoreState(settings.value(kStateKey).toByteArray());
}

MainWindow::~MainWindow()
{
    // The screens talk to m_engine until they are gone; it is a child of this window and
    // would otherwise be destroyed first (children go in the order they were made).
    delete m_tabs;
}

void MainWindow::buildMenus()
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    QAction *open = file->addAction(tr("&Open Spec…"), this, &MainWindow::chooseSpec);
    open->setShortcut(QKeySequence::Open);
    QAction *connectTo = file->addAction(tr("&Connect to Warehouse…"), this, &MainWindow::chooseWarehouse);
    connectTo->setObjectName(QStringLiteral("connectAction"));
    QAction *newSpec = file->addAction(tr("&New Spec…"), this, &MainWindow::newSpec);
    newSpec->setObjectName(QStringLiteral("newSpecAction"));
    newSpec->setShortcut(QKeySequence::New);
    m_recentMenu = file->addMenu(tr("Recent &Specs"));
    connect(m_recentMenu, &QMenu::aboutToShow, this, &MainWindow::rebuildRecentMenu);
    rebuildRecentMenu();
    file->addSeparator();
    QAction *quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);
    quit->setMenuRole(QAction::QuitRole);
    buildHelpMenu();
}

void MainWindow::buildHelpMenu()
{
    QMenu *help = menuBar()->addMenu(tr("&Help"));
    help->setObjectName(QStringLiteral("helpMenu"));
    QAction *guide = help->addAction(tr("&User Guide"), this, &MainWindow::showUserGuide);
    guide->setObjectName(QStringLiteral("userGuideAction"));
    guide->setShortcut(QKeySequence::HelpContents);
    QAction *keys = help->addAction(tr("&Keyboard Shortcuts"), this, &MainWindow::showShortcuts);
    keys->setObjectName(QStringLiteral("shortcutsAction"));
    help->addSeparator();
    QAction *about = help->addAction(tr("&About Reprint"), this, &MainWindow::showAbout);
    about->setObjectName(QStringLiteral("aboutAction"));
    about->setMenuRole(QAction::AboutRole);
    connect(m_engine, &model::EngineClient::schemaVersionsFinished, this,
            [this](quint64 token, const backfill::SchemaVersions &v) {
                if (token != m_schemaToken || !m_aboutSchema)
                    return;
                m_aboutSchema->setText(
                    v.warehouse == 0 ? tr("The warehouse has no Reprint schema yet (this build's is version %1; "
                                          "<tt>reprint init</tt> creates it).").arg(v.build)
                    : v.warehouse == v.build ? tr("Reprint schema version %1 in the warehouse (the version this build "
                                                  "knows).").arg(v.warehouse)
                                             : tr("Reprint schema version %1 in the warehouse; this build knows "
                                                  "version %2.").arg(v.warehouse).arg(v.build));
            });
    connect(m_engine, &model::EngineClient::failed, this, [this](quint64 token, const model::DatabaseError &error) {
        if (token == m_schemaToken && m_aboutSchema)
            m_aboutSchema->setText(tr("The warehouse's schema version could not be read: %1").arg(error.sentence().toHtmlEscaped()));
    });
}

QString MainWindow::userGuidePath()
{
    QStringList candidates;
    const QString fromEnv = qEnvironmentVariable("REPRINT_USER_GUIDE");
    if (!fromEnv.isEmpty())
        candidates << fromEnv;
    const QDir bin(QCoreApplication::applicationDirPath());
    candidates << bin.filePath(QStringLiteral("../share/doc/reprint/user-guide.md"))
               << QStringLiteral(REPRINT_DOCS_DIR "/user-guide.md");
    for (const QString &path : candidates)
        if (QFileInfo(path).isFile())
            return QFileInfo(path).absoluteFilePath();
    return {};
}

void MainWindow::showUserGuide()
{
    const QString path = userGuidePath();
    if (!path.isEmpty() && QDesktopServices::openUrl(QUrl::fromLocalFile(path))) {
        statusBar()->showMessage(tr("Opened the user guide: %1").arg(path), 8000);
        return;
    }
    auto *box = new QMessageBox(QMessageBox::Information, tr("User guide"),
                                path.isEmpty() ? tr("The user guide is not installed with this build.")
                                               : tr("The user guide is at %1; no program to open it was found.").arg(path),
                                QMessageBox::Close, this);
    box->setObjectName(QStringLiteral("userGuideWhere"));
    box->setInformativeText(tr("It is docs/user-guide.md in Reprint's source: the whole story, screen by screen."));
    box->setTextInteractionFlags(Qt::TextSelectableByMouse);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

void MainWindow::showShortcuts()
{
    if (auto *open = findChild<QDialog *>(QStringLiteral("shortcuts"))) {
        open->raise();
        return;
    }
    auto *dialog = new QDialog(this);
    dialog->setObjectName(QStringLiteral("shortcuts"));
    dialog->setWindowTitle(tr("Keyboard shortcuts"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    auto *layout = new QVBoxLayout(dialog);
    auto *tree = new QTreeWidget(dialog);
    tree->setObjectName(QStringLiteral("shortcutList"));
    tree->setRootIsDecorated(false);
    tree->setHeaderLabels({tr("Keys"), tr("What they do")});
    tree->setSelectionMode(QAbstractItemView::NoSelection);
    auto add = [tree](const QString &group, const QString &keys, const QString &what) {
        auto *item = new QTreeWidgetItem(tree, {keys, what});
        item->setToolTip(1, group);
    };
    auto section = [tree](const QString &title) {
        auto *item = new QTreeWidgetItem(tree, {title});
        QFont f = item->font(0);
        f.setBold(true);
        item->setFont(0, f);
        item->setFirstColumnSpanned(true);
    };
    section(tr("Menus"));
    std::function<void(QMenu *)> walk = [&](QMenu *menu) {
        for (QAction *a : menu->actions()) {
            if (a->menu())
                walk(a->menu());
            else if (!a->shortcut().isEmpty())
                add(tr("Menus"), a->shortcut().toString(QKeySequence::NativeText), QString(a->text()).remove(QLatin1Char('&')));
        }
    };
    for (QAction *a : menuBar()->actions())
        if (a->menu())
            walk(a->menu());
    const auto native = [](QKeySequence::StandardKey k) { return QKeySequence(k).toString(QKeySequence::NativeText); };
    section(tr("Calendar"));
    add(tr("Calendar"), tr("Arrow keys"), tr("Move between partitions (Up/Down: the row above or below)"));
    add(tr("Calendar"), tr("Shift+Arrow keys"), tr("Grow or shrink the window from where it began"));
    add(tr("Calendar"), tr("Click, Shift+click, drag"), tr("Select a partition, a window"));
    add(tr("Calendar"), tr("Esc"), tr("Clear the window"));
    add(tr("Calendar"), native(QKeySequence::Refresh), tr("Read every partition's statistics again"));
    add(tr("Calendar"), tr("Alt+F"), tr("Select failing: the smallest window over every failing partition"));
    add(tr("Calendar"), tr("Alt+W"), tr("Widen the window over the failing partitions just outside it"));
    add(tr("Calendar"), tr("Alt+T, Alt+Y"), tr("Type the window's end; jump to a year"));
    section(tr("Dialogs"));
    add(tr("Dialogs"), tr("Enter"), tr("The default button (never Start when a warning shows)"));
    add(tr("Dialogs"), tr("Esc"), tr("Cancel"));
    tree->resizeColumnToContents(0);
    tree->setColumnWidth(0, tree->columnWidth(0) + 24);
    tree->setMinimumSize(560, 380);
    layout->addWidget(tree);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, dialog);
    connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::reject);
    layout->addWidget(buttons);
    dialog->open();
}

void MainWindow::showAbout()
{
    if (auto *open = findChild<QDialog *>(QStringLiteral("about"))) {
        open->raise();
        return;
    }
    auto *dialog = new QDialog(this);
    dialog->setObjectName(QStringLiteral("about"));
    dialog->setWindowTitle(tr("About Reprint"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    auto *layout = new QVBoxLayout(dialog);
    layout->setSpacing(10);
    auto *text = new QLabel(dialog);
    text->setObjectName(QStringLiteral("aboutText"));
    text->setWordWrap(true);
    text->setTextInteractionFlags(Qt::TextSelectableByMouse);
    text->setText(tr("<h3 style='margin:0'>Reprint %1</h3>"
                     "<p>Runs and reviews backfills on a PostgreSQL warehouse: scoped to partitions, the model's "
                     "own transform, idempotent, isolated by a claim, validated before publish.</p>"
                     "<p>Built with Qt %2 (running on Qt %3). This build's Reprint schema is version %4.</p>")
                      .arg(QStringLiteral(REPRINT_VERSION), QStringLiteral(QT_VERSION_STR), QString::fromLatin1(qVersion()))
                      .arg(backfill::latestSchemaVersion()));
    text->setMinimumWidth(460);
    m_aboutSchema = new QLabel(dialog);
    m_aboutSchema->setObjectName(QStringLiteral("aboutSchema"));
    m_aboutSchema->setWordWrap(true);
    m_aboutSchema->setTextInteractionFlags(Qt::TextSelectableByMouse);
    if (m_engine->hasSpec()) {
        m_aboutSchema->setText(tr("Reading the warehouse's Reprint schema version…"));
        m_schemaToken = m_engine->schemaVersions();
    } else {
        m_aboutSchema->setText(tr("No warehouse is open: open a spec to see its Reprint schema version."));
    }
    layout->addWidget(text);
    layout->addWidget(m_aboutSchema);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, dialog);
    connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::reject);
    layout->addWidget(buttons);
    dialog->open();
}

void MainWindow::followDemo(model::DemoLauncher *demo)
{
    connect(demo, &model::DemoLauncher::progressed, this, &MainWindow::showDemoProgress);
    connect(demo, &model::DemoLauncher::failed, this, [this](const QString &message) {
        clearBusy();
        if (m_demoPage)
            m_demoPage->showFailed();
        showDemoProgress(message, -1);
    });
}

void MainWindow::showDemoProgress(const QString &step, double elapsedSeconds)
{
    if (m_demoPage->stepCount() == 0) {
        m_modelStack->setCurrentWidget(m_demoPage);
        m_tabs->setCurrentIndex(0);
    }
    const QString time = m_demoPage->addStep(step, elapsedSeconds);
    if (elapsedSeconds >= 0)
        showBusy(tr("Starting the demo warehouse (%1): %2").arg(time, step));
}

QStringList MainWindow::demoSteps() const
{
    return m_demoPage->steps();
}

// The sidebar: the spec's models, one row each.
QWidget *MainWindow::buildSidebar(QWidget *parent)
{
    auto *sidebar = new QWidget(parent);
    auto *sidebarLayout = new QVBoxLayout(sidebar);
    sidebarLayout->setContentsMargins(0, 0, 0, 0);
    sidebarLayout->setSpacing(0);
    auto *sidebarTitle = new QLabel(tr("Models"), sidebar);
    QFont titleFont = sidebarTitle->font();
    titleFont.setBold(true);
    sidebarTitle->setFont(titleFont);
    sidebarTitle->setContentsMargins(10, 8, 10, 6);
    m_modelList = new QListView(sidebar);
    m_modelList->setObjectName(QStringLiteral("modelList"));
    m_modelList->setModel(m_specModels);
    m_modelList->setItemDelegate(new ModelItemDelegate(m_modelList));
    m_modelList->setSelectionMode(QAbstractItemView::SingleSelection);
    m_modelList->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_modelList->setUniformItemSizes(true);
    m_modelList->setFrameShape(QFrame::NoFrame);
    sidebarLayout->addWidget(sidebarTitle);
    sidebarLayout->addWidget(m_modelList, 1);
    sidebar->setMinimumWidth(220);
    return sidebar;
}

void MainWindow::buildCentre()
{
    auto *splitter = new QSplitter(Qt::Horizontal, this);
    splitter->setObjectName(QStringLiteral("mainSplitter"));
    splitter->setChildrenCollapsible(false);

    QWidget *sidebar = buildSidebar(splitter);

    m_tabs = new QTabWidget(splitter);
    m_tabs->setObjectName(QStringLiteral("modelTabs"));
    m_tabs->setDocumentMode(true);

    m_modelStack = new QStackedWidget;
    auto *empty = placeholderPage(tr("No spec open"),
                                  tr("Open a spec file (File › Open Spec…) to list its models. A spec names each "
                                     "model's target table, partitioning, measures and checks."));
    empty->setObjectName(QStringLiteral("emptyPage"));
    m_modelStack->addWidget(empty);

    m_modelPage = new ModelPage;
    m_modelStack->addWidget(m_modelPage);

    // While the demo warehouse starts: its steps, each with the time it began.
    m_demoPage = new DemoPage;
    m_modelStack->addWidget(m_demoPage);
    m_tabs->addTab(m_modelStack, tr("Model"));
    m_calendar = new CalendarScreen(m_engine);
    m_calendar->setObjectName(QStringLiteral("calendarScreen"));
    m_tabs->addTab(m_calendar, tr("Calendar"));
    m_run = new RunScreen(m_engine);
    m_run->setObjectName(QStringLiteral("runScreen"));
    m_tabs->addTab(m_run, tr("Run"));
    m_review = new ReviewScreen(m_engine);
    m_review->setObjectName(QStringLiteral("reviewScreen"));
    m_tabs->addTab(m_review, tr("Review"));

    m_tabs->setCurrentWidget(m_calendar);

    splitter->addWidget(sidebar);
    splitter->addWidget(m_tabs);
    splitter->setStretchFactor(0, 0);
    splitter->setStretchFactor(1, 1);
    splitter->setSizes({280, 1000});
    setCentralWidget(splitter);

    connect(m_modelList->selectionModel(), &QItemSelectionModel::currentChanged, this,
            [this](const QModelIndex &current) { showModel(current); });
    connect(m_calendar, &CalendarScreen::backfillRequested, this, [this] { m_tabs->setCurrentIndex(2); });
    connect(m_calendar, &CalendarScreen::backfillRequested, m_run, &RunScreen::start);
    connect(m_run, &RunScreen::reviewRequested, this, &MainWindow::openReview);
    connect(m_run, &RunScreen::inFlightFound, this, [this] { m_tabs->setCurrentWidget(m_run); });
    connect(m_modelList->selectionModel(), &QItemSelectionModel::currentChanged, this, [this](const QModelIndex &current) {
        m_run->followLatestInFlight(current.data(SpecModelsModel::NameRole).toString());
    });
    connect(m_specModels, &QAbstractItemModel::modelReset, this, [this] {
        const QString remembered = QSettings().value(kSelectedModelsKey).toMap().value(m_specModels->specPath()).toString();
        int row = 0;
        for (int r = 0; r < m_specModels->rowCount(); ++r)
            if (m_specModels->index(r).data(SpecModelsModel::NameRole).toString() == remembered)
                row = r;
        if (m_specModels->rowCount() > 0)
            m_modelList->setCurrentIndex(m_specModels->index(row));
        else
            showModel({});
    });
}

void MainWindow::buildStatusBar()
{
    m_busyBar = new QProgressBar(this);
    m_busyBar->setRange(0, 0);
    m_busyBar->setMaximumWidth(140);
    m_busyBar->setMaximumHeight(14);
    m_busyBar->setTextVisible(false);
    m_busyBar->hide();
    m_busyText = new ElidingLabel(this);
    m_busyText->setObjectName(QStringLiteral("busyText"));
    m_busyText->hide();
    statusBar()->addWidget(m_busyBar);
    statusBar()->addWidget(m_busyText, 1);

    m_connectionDot = new QLabel(this);
    m_connectionDot->setObjectName(QStringLiteral("connectionDot"));
    m_connectionText = new ElidingLabel(this);
    m_connectionText->setObjectName(QStringLiteral("connectionStatus"));
    m_connectionText->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Preferred);
    auto *connection = new QWidget(this);
    auto *layout = new QHBoxLayout(connection);
    layout->setContentsMargins(6, 0, 6, 0);
    layout->setSpacing(6);
    layout->addWidget(m_connectionDot);
    layout->addWidget(m_connectionText, 1);
    connection->setMaximumWidth(760);
    statusBar()->addPermanentWidget(connection, 2);
    setConnectionState(ConnectionState::Disconnected, tr("Not connected"));
}

bool MainWindow::openSpec(const QString &path, const QString &conninfo, QString *error)
{
    const bool wasDemo = m_modelStack->currentWidget() == m_demoPage;
    // The engine gets the spec first: loading the sidebar selects a model, which shows
    // its calendar.
    if (auto spec = backfill::loadSpec(path.toStdString()))
        m_engine->setSpec(*spec, conninfo.isEmpty() ? QString::fromStdString(spec->warehouse) : conninfo);
    QString why;
    if (!m_specModels->load(path, &why)) {
        if (error)
            *error = why;
        return false;
    }
    clearBusy();
    m_specPath = m_specModels->specPath().isEmpty() ? QFileInfo(path).absoluteFilePath() : m_specModels->specPath();
    m_conninfo = conninfo.isEmpty() ? m_specModels->warehouse() : conninfo;
    // The platform adds the application's display name ("demo.yaml — Reprint").
    setWindowTitle(QFileInfo(m_specPath).fileName());
    if (wasDemo)
        m_tabs->setCurrentWidget(m_calendar);
    rememberSpec(m_specPath);
    Q_EMIT specLoaded(m_specPath);
    connectWarehouse();
    return true;
}

void MainWindow::openReview(qint64 backfillId)
{
    m_tabs->setCurrentWidget(m_review);
    m_review->openBackfill(backfillId);
}

QString MainWindow::lastSpec()
{
    return QSettings().value(kLastSpecKey).toString();
}

void MainWindow::showBusy(const QString &message)
{
    m_busyText->setText(message);
    m_busyText->setToolTip(message);
    m_busyText->show();
    m_busyBar->show();
}

void MainWindow::clearBusy()
{
    m_busyText->clear();
    m_busyText->hide();
    m_busyBar->hide();
}

void MainWindow::connectWarehouse()
{
    if (m_failureBox)
        m_failureBox->close();
    const QString shown = model::WarehouseClient::displayConninfo(m_conninfo);
    setConnectionState(ConnectionState::Connecting, shown.isEmpty()
                                                        ? tr("Connecting with the PG* environment…")
                                                        : tr("Connecting to %1…").arg(shown));
    m_openToken = m_client->open(m_conninfo);
}

void MainWindow::chooseWarehouse()
{
    auto *dialog = new ConnectionDialog(m_chosenConninfo.isEmpty() ? m_conninfo : m_chosenConninfo, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this, [this, dialog] {
        m_chosenConninfo = dialog->conninfo();
        if (!m_specPath.isEmpty()) {
            openSpec(m_specPath, m_chosenConninfo);
            return;
        }
        m_conninfo = m_chosenConninfo;
        connectWarehouse();
    });
    dialog->open();
}

void MainWindow::newSpec()
{
    auto *dialog = new NewSpecDialog(m_chosenConninfo.isEmpty() ? m_conninfo : m_chosenConninfo, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &NewSpecDialog::specWritten, this, [this](const QString &path) {
        QString error;
        if (!openSpec(path, m_chosenConninfo.isEmpty() ? m_conninfo : m_chosenConninfo, &error))
            QMessageBox::warning(this, tr("Cannot open the spec"), tr("%1\n\nFix the spec file and open it again.").arg(error));
    });
    dialog->open();
}

void MainWindow::setConnectionState(ConnectionState state, const QString &text)
{
    QColor colour;
    switch (state) {
    case ConnectionState::Disconnected: colour = QColor(0x8e, 0x93, 0x9b); break;
    case ConnectionState::Connecting: colour = QColor(0xd9, 0x9a, 0x1e); break;
    case ConnectionState::Connected: colour = QColor(0x3f, 0xa8, 0x5b); break;
    case ConnectionState::Failed: colour = QColor(0xd6, 0x45, 0x45); break;
    }
    m_connectionDot->setText(QStringLiteral("<span style=\"color:%1\">●</span>").arg(colour.name()));
    m_connectionText->setText(text);
    m_connectionText->setToolTip(text);
    const bool changed = state != m_specModels->connectionState();
    m_specModels->setConnectionState(state);
    if (changed)
        Q_EMIT connectionStateChanged(state);
}

void MainWindow::showConnectionFailure(const model::DatabaseError &error)
{
    if (m_failureBox)
        m_failureBox->close();
    auto *box = new QMessageBox(QMessageBox::Warning, tr("Cannot connect to the warehouse"),
                                tr("Reprint could not connect to the warehouse for %1.")
                                    .arg(QFileInfo(m_specPath).fileName()),
                                QMessageBox::Retry | QMessageBox::Close, this);
    box->setObjectName(QStringLiteral("connectionFailure"));
    QString text = error.sentence();
    if (error.hint.isEmpty())
        text += QLatin1Char(' ')
            + tr("Check the connection string given with --db or in the spec's warehouse: setting, or the "
                 "PG* environment variables.");
    text += QStringLiteral("\n\n")
        + tr("The models are shown from the spec; the calendar, run and review pages need the connection.");
    box->setInformativeText(text);
    if (!error.sqlstate.isEmpty())
        box->setDetailedText(tr("Kind: %1\nSQLSTATE: %2").arg(error.kindName(), error.sqlstate));
    box->setDefaultButton(QMessageBox::Retry);
    box->setAttribute(Qt::WA_DeleteOnClose);
    connect(box, &QMessageBox::finished, this, [this](int result) {
        if (result == QMessageBox::Retry)
            connectWarehouse();
    });
    m_failureBox = box;
    box->open();
}

void MainWindow::showModel(const QModelIndex &index)
{
    if (!index.isValid()) {
        m_modelStack->setCurrentIndex(0);
        m_calendar->showModel({});
        return;
    }
    m_modelStack->setCurrentIndex(1);
    const QString name = index.data(SpecModelsModel::NameRole).toString();
    m_calendar->showModel(name);
    QSettings settings;
    QVariantMap selected = settings.value(kSelectedModelsKey).toMap();
    selected.insert(m_specModels->specPath(), name);
    settings.setValue(kSelectedModelsKey, selected);
    m_modelPage->showModel(index);
}

void MainWindow::chooseSpec()
{
    const QString start = m_specPath.isEmpty() ? QString() : QFileInfo(m_specPath).absolutePath();
    const QString path = QFileDialog::getOpenFileName(this, tr("Open Spec"), start,
                                                      tr("Reprint specs (*.yaml *.yml);;All files (*)"));
    if (!path.isEmpty())
        openRecent(path);
}

void MainWindow::openRecent(const QString &path)
{
    QString error;
    if (openSpec(path, m_chosenConninfo, &error))
        return;
    QMessageBox::warning(this, tr("Cannot open the spec"),
                         tr("%1\n\nFix the spec file and open it again.").arg(error));
}

void MainWindow::rebuildRecentMenu()
{
    m_recentMenu->clear();
    const QStringList recent = QSettings().value(kRecentKey).toStringList();
    int n = 0;
    for (const QString &path : recent) {
        ++n;
        QAction *a = m_recentMenu->addAction(QStringLiteral("&%1 %2").arg(n).arg(QFileInfo(path).fileName()),
                                             this, [this, path] { openRecent(path); });
        a->setToolTip(path);
        a->setStatusTip(path);
    }
    if (recent.isEmpty()) {
        m_recentMenu->addAction(tr("No recent specs"))->setEnabled(false);
        return;
    }
    m_recentMenu->addSeparator();
    m_recentMenu->addAction(tr("Clear Recent Specs"), this, [] { QSettings().remove(kRecentKey); });
}

void MainWindow::rememberSpec(const QString &path)
{
    QSettings settings;
    QStringList recent = settings.value(kRecentKey).toStringList();
    recent.removeAll(path);
    recent.prepend(path);
    while (recent.size() > kMaxRecentSpecs)
        recent.removeLast();
    settings.setValue(kRecentKey, recent);
    settings.setValue(kLastSpecKey, path);
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    if (m_run && !m_run->confirmClose(this)) {
        event->ignore();
        return;
    }
    QSettings settings;
    settings.setValue(kGeometryKey, saveGeometry());
    settings.setValue(kStateKey, saveState());
    QMainWindow::closeEvent(event);
}

} // namespace reprint::views
