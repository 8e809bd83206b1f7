#include "runscreen.h"

#include "placeholderpage.h"

#include "backfill/window.h"

#include "backfillprogressmodel.h"
#include "engineclient.h"
#include "reviewmodel.h"
#include "runlogmodel.h"
#include "throughputseriesmodel.h"

#include <QAction>
#include <QApplication>
#include <QBoxLayout>
#include <QChart>
#include <QChartView>
#include <QClipboard>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QEvent>
#include <QFormLayout>
#include <QFrame>
#include <QGroupBox>
#include <QHeaderView>
#include <QLabel>
#include <QLineSeries>
#include <QMessageBox>
#include <QMetaMethod>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QScrollBar>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStackedWidget>
#include <QTableView>
#include <QTimeZone>
#include <QVXYModelMapper>
#include <QValueAxis>

#include <algorithm>
#include <cmath>
#include <map>

namespace reprint::views {

using model::BackfillProgressModel;
using model::RunLogModel;
using Level = model::RunLogModel::Level;

namespace {

constexpr int kTickMs = 250;
constexpr int kPollMs = 5000;
constexpr int kMinIntervalMs = 100;
constexpr double kEtaSmoothing = 0.15;  // per tick: settles over a couple of seconds

QString durationText(double seconds)
{
    const qint64 s = std::max<qint64>(0, qRound64(seconds));
    if (s >= 3600)
        return QStringLiteral("%1:%2:%3").arg(s / 3600).arg((s / 60) % 60, 2, 10, QLatin1Char('0')).arg(s % 60, 2, 10, QLatin1Char('0'));
    return QStringLiteral("%1:%2").arg(s / 60).arg(s % 60, 2, 10, QLatin1Char('0'));
}

QString relativeText(qint64 seconds)
{
    const qint64 s = std::abs(seconds);
    if (s < 2)
        return QObject::tr("just now");
    QString amount;
    if (s < 60)
        amount = QObject::tr("%1 s").arg(s);
    else if (s < 3600)
        amount = QObject::tr("%1 min %2 s").arg(s / 60).arg(s % 60);
    else
        amount = QObject::tr("%1 h %2 min").arg(s / 3600).arg((s / 60) % 60);
    return seconds >= 0 ? QObject::tr("in %1").arg(amount) : QObject::tr("%1 ago").arg(amount);
}

// A timestamptz as PostgreSQL prints it ("2026-03-15 10:11:12.345+00", "...+05:30"), or
// ISO 8601. Invalid for "infinity" and anything else.
QDateTime parseTimestamp(const std::string &text)
{
    const QString t = QString::fromStdString(text).trimmed();
    static const QRegularExpression pg(
        QStringLiteral("^(\\d{4}-\\d\\d-\\d\\d)[ T](\\d\\d:\\d\\d:\\d\\d)(\\.\\d+)?(Z|([+-])(\\d\\d)(?::?(\\d\\d))?)?$"));
    const auto m = pg.match(t);
    if (!m.hasMatch())
        return {};
    QDateTime dt = QDateTime::fromString(m.captured(1) + QLatin1Char('T') + m.captured(2), Qt::ISODate);
    if (!m.captured(3).isEmpty())
        dt = dt.addMSecs(qRound(m.captured(3).toDouble() * 1000));
    int offset = 0;
    if (!m.captured(5).isEmpty())
        offset = (m.captured(6).toInt() * 3600 + m.captured(7).toInt() * 60) * (m.captured(5) == QLatin1String("-") ? -1 : 1);
    dt.setTimeZone(QTimeZone(offset));
    return dt.toUTC();
}

QString localTime(const QDateTime &dt)
{
    return dt.toLocalTime().toString(QStringLiteral("HH:mm:ss"));
}

// No partition of `s` is queued or staging any more (or the backfill is no longer running).
bool allPartitionsDone(const reprint::backfill::BackfillProgress &s)
{
    if (!backfill::isUnderway(s.backfill.status))
        return true;
    return !s.partitions.empty()
           && std::all_of(s.partitions.begin(), s.partitions.end(), [](const auto &p) { return p.state == backfill::PartitionStage::Staged || p.state == backfill::PartitionStage::Failed; });
}

double niceCeiling(double v)
{
    if (v <= 0)
        return 1;
    const double magnitude = std::pow(10.0, std::floor(std::log10(v)));
    for (double step : {1.0, 2.0, 2.5, 5.0, 10.0})
        if (v <= step * magnitude)
            return step * magnitude;
    return 10 * magnitude;
}

QColor phaseColour(RunScreen::Phase phase)
{
    using P = RunScreen::Phase;
    switch (phase) {
    case P::Claiming:
    case P::Staging:
    case P::Validating: return {0x3b, 0x82, 0xd6};
    case P::Cancelling:
    case P::Stalled:
    case P::ValidationFailed: return {0xc7, 0x86, 0x12};
    case P::Staged:
    case P::Published: return {0x2f, 0x95, 0x4d};
    case P::Cancelled:
    case P::Undone:
    case P::Abandoned:
    case P::Idle: return {0x7a, 0x7f, 0x87};
    case P::Failed: return {0xc9, 0x3c, 0x3c};
    }
    return {};
}

QLabel *statValue(QWidget *parent, const char *name)
{
    auto *label = new QLabel(QStringLiteral("—"), parent);
    label->setObjectName(QLatin1String(name));
    QFont f = label->font();
    f.setPointSizeF(f.pointSizeF() * 1.35);
    f.setBold(true);
    label->setFont(f);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    return label;
}

QWidget *statTile(const QString &caption, QLabel *value, QWidget *parent)
{
    auto *tile = new QWidget(parent);
    auto *layout = new QVBoxLayout(tile);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    auto *label = new QLabel(caption, tile);
    label->setForegroundRole(QPalette::PlaceholderText);
    layout->addWidget(label);
    layout->addWidget(value);
    return tile;
}

QLabel *claimValue(QWidget *parent, const char *name)
{
    auto *label = new QLabel(QStringLiteral("—"), parent);
    label->setObjectName(QLatin1String(name));
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    return label;
}

backfill::Verdict worstVerdict(const backfill::PartitionReview &p)
{
    backfill::Verdict worst = backfill::Verdict::Unchanged;
    for (const backfill::MeasureTotals &m : p.measures)
        worst = std::max(worst, m.verdict);  // verdicts are ordered best to worst
    return worst;
}

} // namespace

RunScreen::RunScreen(model::EngineClient *engine, QWidget *parent)
    : QWidget(parent)
    , m_engine(engine)
    , m_progress(new BackfillProgressModel(this))
    , m_series(new model::ThroughputSeriesModel(this))
    , m_log(new RunLogModel(this))
    , m_logFilter(new QSortFilterProxyModel(this))
{
    m_logFilter->setSourceModel(m_log);
    m_logFilter->setFilterKeyColumn(RunLogModel::LevelColumn);
    m_logFilter->setFilterRegularExpression(RunLogModel::levelFilter(Level::Info));
    buildUi();

    m_tick.setInterval(kTickMs);
    connect(&m_tick, &QTimer::timeout, this, &RunScreen::tick);
    connect(m_progress, &BackfillProgressModel::progressApplied, this, &RunScreen::refreshStats);
    connect(m_series, &QAbstractItemModel::rowsInserted, this, &RunScreen::updateAxes);
    connect(m_series, &QAbstractItemModel::modelReset, this, &RunScreen::updateAxes);

    connect(m_engine, &model::EngineClient::backfillProgressed, this, &RunScreen::onProgressed);
    connect(m_engine, &model::EngineClient::backfillFinished, this, &RunScreen::onFinished);
    connect(m_engine, &model::EngineClient::failed, this, &RunScreen::onFailed);
    connect(m_engine, &model::EngineClient::cancelRequested, this, [this](quint64 token, const QString &holder) {
        if (token != m_remoteCancelToken)
            return;
        m_remoteCancelToken = 0;
        m_log->append(Level::Info, tr("Asked %1 to cancel; waiting for the warehouse to confirm").arg(holder));
    });
    connect(m_engine, &model::EngineClient::abandonFinished, this, [this](quint64 token) {
        if (token != m_abandonToken)
            return;
        m_abandonToken = 0;
        m_log->append(Level::Info, tr("Abandoned backfill %1: its staged rows are dropped and the window is free").arg(m_id));
        refollow();
        refreshControls();
    });
    connect(m_engine, &model::EngineClient::historyFinished, this, &RunScreen::onHistory);
    connect(m_engine, &model::EngineClient::reviewFinished, this, &RunScreen::onReview);
    connect(m_engine, &model::EngineClient::progressChanged, this,
            [this](quint64 token, const backfill::BackfillProgress &snapshot) {
                if (token == m_watchToken)
                    applySnapshot(snapshot);
            });
}

RunScreen::~RunScreen()
{
    if (m_watchToken && m_engine)
        m_engine->unwatch(m_watchToken);
}

void RunScreen::buildUi()
{
    m_pages = new QStackedWidget(this);
    auto *outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    outer->addWidget(m_pages);

    QWidget *empty = placeholderPage(tr("No backfill on this screen yet"),
                                     tr("Choose a window on the Calendar and press Start backfill to stage it here, partition "
                                        "by partition. A backfill of the selected model that is running anywhere (another "
                                        "window, or `reprint backfill` in a terminal) shows here as soon as you open the model."));
    empty->setObjectName(QStringLiteral("runEmptyPage"));
    m_pages->addWidget(empty);
    m_pages->addWidget(buildRunPage());
    m_pages->setCurrentIndex(0);
}

QWidget *RunScreen::buildRunPage()
{
    auto *page = new QWidget;
    page->setObjectName(QStringLiteral("runPage"));
    auto *layout = new QVBoxLayout(page);
    layout->setContentsMargins(16, 12, 16, 10);
    layout->setSpacing(8);

    layout->addLayout(buildRunHeader(page));

    m_banner = new QLabel(page);
    m_banner->setObjectName(QStringLiteral("runBanner"));
    m_banner->setWordWrap(true);
    m_banner->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_banner->hide();
    layout->addWidget(m_banner);

    // Overall progress.
    m_bar = new QProgressBar(page);
    m_bar->setObjectName(QStringLiteral("runProgress"));
    m_bar->setRange(0, 1);
    m_bar->setValue(0);
    m_bar->setTextVisible(false);
    m_bar->setFixedHeight(10);
    layout->addWidget(m_bar);
    auto *stats = new QHBoxLayout;
    stats->setSpacing(36);
    m_doneValue = statValue(page, "doneValue");
    m_rowsValue = statValue(page, "rowsValue");
    m_rateValue = statValue(page, "rateValue");
    m_elapsedValue = statValue(page, "elapsedValue");
    m_etaValue = statValue(page, "etaValue");
    stats->addWidget(statTile(tr("Partitions done"), m_doneValue, page));
    stats->addWidget(statTile(tr("Rows staged"), m_rowsValue, page));
    stats->addWidget(statTile(tr("Throughput"), m_rateValue, page));
    stats->addWidget(statTile(tr("Elapsed"), m_elapsedValue, page));
    stats->addWidget(statTile(tr("Time left"), m_etaValue, page));
    stats->addStretch(1);
    layout->addLayout(stats);

    // Partitions | chart and claim, over the log.
    auto *vertical = new QSplitter(Qt::Vertical, page);
    vertical->setObjectName(QStringLiteral("runSplitter"));
    vertical->setChildrenCollapsible(false);
    auto *horizontal = new QSplitter(Qt::Horizontal, vertical);
    horizontal->setChildrenCollapsible(false);

    QTableView *table = buildPartitionTable(horizontal);
    auto *side = new QWidget(horizontal);
    auto *sideLayout = new QVBoxLayout(side);
    sideLayout->setContentsMargins(0, 0, 0, 0);
    sideLayout->setSpacing(8);
    sideLayout->addWidget(buildThroughputChart(side), 1);
    sideLayout->addWidget(buildClaimPanel(side));
    horizontal->addWidget(table);
    horizontal->addWidget(side);
    horizontal->setStretchFactor(0, 3);
    horizontal->setStretchFactor(1, 2);
    horizontal->setSizes({600, 340});

    QWidget *logPane = buildLogPane(vertical);
    vertical->addWidget(horizontal);
    vertical->addWidget(logPane);
    vertical->setStretchFactor(0, 3);
    vertical->setStretchFactor(1, 1);
    vertical->setSizes({420, 170});
    layout->addWidget(vertical, 1);
    return page;
}

// The title, phase chip and the backfill's buttons.
QLayout *RunScreen::buildRunHeader(QWidget *page)
{
    auto *header = new QHBoxLayout;
    header->setSpacing(10);
    auto *titles = new QVBoxLayout;
    titles->setSpacing(2);
    auto *titleRow = new QHBoxLayout;
    titleRow->setSpacing(10);
    m_title = new QLabel(page);
    m_title->setObjectName(QStringLiteral("runTitle"));
    QFont titleFont = m_title->font();
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.3);
    titleFont.setBold(true);
    m_title->setFont(titleFont);
    m_phaseChip = new QLabel(page);
    m_phaseChip->setObjectName(QStringLiteral("runPhase"));
    titleRow->addWidget(m_title);
    titleRow->addWidget(m_phaseChip);
    titleRow->addStretch(1);
    m_subtitle = new QLabel(page);
    m_subtitle->setObjectName(QStringLiteral("runSubtitle"));
    m_subtitle->setForegroundRole(QPalette::PlaceholderText);
    m_subtitle->setTextInteractionFlags(Qt::TextSelectableByMouse);
    titles->addLayout(titleRow);
    titles->addWidget(m_subtitle);
    header->addLayout(titles, 1);

    m_cancel = new QPushButton(tr("Cancel…"), page);
    m_cancel->setObjectName(QStringLiteral("cancelButton"));
    m_resume = new QPushButton(tr("Resume"), page);
    m_resume->setObjectName(QStringLiteral("resumeButton"));
    m_resume->setToolTip(tr("Stage what is not staged yet, keeping this backfill's id and claim."));
    m_retry = new QPushButton(tr("Retry failed"), page);
    m_retry->setObjectName(QStringLiteral("retryButton"));
    m_retry->setToolTip(tr("Stage only the partitions that failed, keeping this backfill's id."));
    m_review = new QPushButton(tr("Review"), page);
    m_review->setObjectName(QStringLiteral("reviewButton"));
    m_review->setToolTip(tr("Old vs new totals per partition and measure, before anything is published."));
    m_abandon = new QPushButton(tr("Abandon…"), page);
    m_abandon->setObjectName(QStringLiteral("abandonButton"));
    m_abandon->setToolTip(tr("Drop what was staged and free the window; nothing is published."));
    for (QPushButton *b : {m_cancel, m_resume, m_retry, m_abandon, m_review}) {
        b->setEnabled(false);
        header->addWidget(b, 0, Qt::AlignTop);
    }
    connect(m_cancel, &QPushButton::clicked, this, &RunScreen::askCancel);
    connect(m_resume, &QPushButton::clicked, this, [this] { resume(false); });
    connect(m_retry, &QPushButton::clicked, this, [this] { resume(true); });
    connect(m_review, &QPushButton::clicked, this, &RunScreen::openReview);
    connect(m_abandon, &QPushButton::clicked, this, &RunScreen::askAbandon);
    return header;
}

// One row per partition of the window: its state, rows, time, rate and verdict.
QTableView *RunScreen::buildPartitionTable(QWidget *parent)
{
    m_table = new QTableView(parent);
    m_table->setObjectName(QStringLiteral("partitionTable"));
    m_table->setModel(m_progress);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setAlternatingRowColors(true);
    // Rows told apart by their alternating colours, not a grid: a grid is one line per
    // column the height of every repainted row band (see applyChartTheme).
    m_table->setShowGrid(false);
    m_table->setWordWrap(false);
    m_table->setTextElideMode(Qt::ElideRight);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 10);
    m_table->horizontalHeader()->setHighlightSections(false);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->horizontalHeader()->setMinimumSectionSize(40);
    m_table->setColumnWidth(BackfillProgressModel::PartitionColumn, 112);
    m_table->setColumnWidth(BackfillProgressModel::StateColumn, 74);
    m_table->setColumnWidth(BackfillProgressModel::RowsColumn, 64);
    m_table->setColumnWidth(BackfillProgressModel::SecondsColumn, 62);
    m_table->setColumnWidth(BackfillProgressModel::RateColumn, 66);
    m_table->setColumnWidth(BackfillProgressModel::VerdictColumn, 104);
    m_table->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    return m_table;
}

// Rows per second and partitions done over the elapsed time, from the throughput series.
QChartView *RunScreen::buildThroughputChart(QWidget *parent)
{
    m_chart = new QChart;
    m_chart->setMargins(QMargins(4, 4, 4, 4));
    m_chart->legend()->setAlignment(Qt::AlignBottom);
    m_chart->setAnimationOptions(QChart::NoAnimation);
    // Axis labels in the locale's numbers, with thousands separators (800,000 rows/s).
    QLocale grouped;
    grouped.setNumberOptions(grouped.numberOptions() & ~QLocale::OmitGroupSeparator);
    m_chart->setLocalizeNumbers(true);
    m_chart->setLocale(grouped);
    m_rateSeries = new QLineSeries(m_chart);
    m_rateSeries->setName(tr("rows/s"));
    m_doneSeries = new QLineSeries(m_chart);
    m_doneSeries->setName(tr("partitions done"));
    m_chart->addSeries(m_rateSeries);
    m_chart->addSeries(m_doneSeries);
    m_axisX = new QValueAxis(m_chart);
    m_axisX->setLabelFormat(QStringLiteral("%.0f s"));
    m_axisRate = new QValueAxis(m_chart);
    m_axisRate->setLabelFormat(QStringLiteral("%.0f"));
    m_axisRate->setTitleText(tr("rows/s"));
    m_axisDone = new QValueAxis(m_chart);
    m_axisDone->setLabelFormat(QStringLiteral("%.0f"));
    m_axisDone->setTitleText(tr("partitions"));
    m_chart->addAxis(m_axisX, Qt::AlignBottom);
    m_chart->addAxis(m_axisRate, Qt::AlignLeft);
    m_chart->addAxis(m_axisDone, Qt::AlignRight);
    m_rateSeries->attachAxis(m_axisX);
    m_rateSeries->attachAxis(m_axisRate);
    m_doneSeries->attachAxis(m_axisX);
    m_doneSeries->attachAxis(m_axisDone);
    auto *rateMapper = new QVXYModelMapper(this);
    rateMapper->setXColumn(model::ThroughputSeriesModel::ElapsedColumn);
    rateMapper->setYColumn(model::ThroughputSeriesModel::RateColumn);
    rateMapper->setSeries(m_rateSeries);
    rateMapper->setModel(m_series);
    auto *doneMapper = new QVXYModelMapper(this);
    doneMapper->setXColumn(model::ThroughputSeriesModel::ElapsedColumn);
    doneMapper->setYColumn(model::ThroughputSeriesModel::DoneColumn);
    doneMapper->setSeries(m_doneSeries);
    doneMapper->setModel(m_series);
    m_chartView = new QChartView(m_chart, parent);
    m_chartView->setObjectName(QStringLiteral("throughputChart"));
    m_chartView->setRenderHint(QPainter::Antialiasing);
    m_chartView->setMinimumHeight(180);
    applyChartTheme();
    updateAxes();
    return m_chartView;
}

// Who holds the claim on the window, its lease and heartbeat, and the lock waits.
QGroupBox *RunScreen::buildClaimPanel(QWidget *parent)
{
    auto *claim = new QGroupBox(tr("Claim on the window"), parent);
    claim->setObjectName(QStringLiteral("claimPanel"));
    auto *form = new QFormLayout(claim);
    form->setLabelAlignment(Qt::AlignLeft);
    form->setFieldGrowthPolicy(QFormLayout::ExpandingFieldsGrow);
    form->setVerticalSpacing(4);
    m_claimHolder = claimValue(claim, "claimHolder");
    m_claimLease = claimValue(claim, "claimLease");
    m_claimHeartbeat = claimValue(claim, "claimHeartbeat");
    m_claimWaits = claimValue(claim, "claimWaits");
    for (QLabel *l : {m_claimHolder, m_claimLease, m_claimHeartbeat})
        l->setWordWrap(false);
    form->addRow(tr("Held by"), m_claimHolder);
    form->addRow(tr("Lease expires"), m_claimLease);
    form->addRow(tr("Last heartbeat"), m_claimHeartbeat);
    form->addRow(tr("Lock waits"), m_claimWaits);
    return claim;
}

// The run's log, filtered by level, following its tail.
QWidget *RunScreen::buildLogPane(QWidget *parent)
{
    auto *logPane = new QWidget(parent);
    auto *logLayout = new QVBoxLayout(logPane);
    logLayout->setContentsMargins(0, 4, 0, 0);
    logLayout->setSpacing(4);
    auto *logBar = new QHBoxLayout;
    auto *logTitle = new QLabel(tr("Log"), logPane);
    QFont bold = logTitle->font();
    bold.setBold(true);
    logTitle->setFont(bold);
    m_logLevel = new QComboBox(logPane);
    m_logLevel->setObjectName(QStringLiteral("logLevel"));
    m_logLevel->addItem(tr("All levels"), int(Level::Debug));
    m_logLevel->addItem(tr("Info and above"), int(Level::Info));
    m_logLevel->addItem(tr("Notices and above"), int(Level::Notice));
    m_logLevel->addItem(tr("Warnings and errors"), int(Level::Warning));
    m_logLevel->addItem(tr("Errors only"), int(Level::Error));
    m_logLevel->setCurrentIndex(1);
    connect(m_logLevel, &QComboBox::currentIndexChanged, this, [this] {
        m_logFilter->setFilterRegularExpression(RunLogModel::levelFilter(Level(m_logLevel->currentData().toInt())));
    });
    auto *copy = new QPushButton(tr("Copy"), logPane);
    copy->setObjectName(QStringLiteral("copyLogButton"));
    copy->setToolTip(tr("Copy the selected lines (all shown lines when none is selected)."));
    connect(copy, &QPushButton::clicked, this, &RunScreen::copyLog);
    logBar->addWidget(logTitle);
    logBar->addStretch(1);
    logBar->addWidget(m_logLevel);
    logBar->addWidget(copy);
    m_logView = new QTableView(logPane);
    m_logView->setObjectName(QStringLiteral("logView"));
    m_logView->setModel(m_logFilter);
    m_logView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_logView->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_logView->setShowGrid(false);
    m_logView->setWordWrap(false);
    m_logView->verticalHeader()->hide();
    m_logView->verticalHeader()->setDefaultSectionSize(m_logView->fontMetrics().height() + 4);
    m_logView->horizontalHeader()->hide();
    m_logView->horizontalHeader()->setStretchLastSection(true);
    m_logView->setColumnWidth(RunLogModel::TimeColumn, m_logView->fontMetrics().horizontalAdvance(QStringLiteral("00:00:00.000")) + 24);
    m_logView->setColumnWidth(RunLogModel::LevelColumn, m_logView->fontMetrics().horizontalAdvance(QStringLiteral("WARNING")) + 20);
    auto *copyAction = new QAction(tr("Copy"), m_logView);
    copyAction->setShortcut(QKeySequence::Copy);
    copyAction->setShortcutContext(Qt::WidgetShortcut);
    connect(copyAction, &QAction::triggered, this, &RunScreen::copyLog);
    m_logView->addAction(copyAction);
    m_logView->setContextMenuPolicy(Qt::ActionsContextMenu);
    // Follow the tail unless the user scrolled up to read.
    connect(m_logFilter, &QAbstractItemModel::rowsInserted, this, [this] {
        QScrollBar *bar = m_logView->verticalScrollBar();
        if (bar->value() >= bar->maximum() - 2 * m_logView->verticalHeader()->defaultSectionSize())
            QTimer::singleShot(0, m_logView, &QTableView::scrollToBottom);
    });
    logLayout->addLayout(logBar);
    logLayout->addWidget(m_logView, 1);
    return logPane;
}

void RunScreen::applyChartTheme()
{
    const QPalette pal = palette();
    const bool dark = pal.color(QPalette::Window).lightnessF() < 0.5;
    m_chart->setTheme(dark ? QChart::ChartThemeDark : QChart::ChartThemeLight);
    m_chart->setBackgroundBrush(pal.color(QPalette::Base));
    m_chart->setBackgroundRoundness(0);
    m_chart->setPlotAreaBackgroundVisible(false);
    const QColor text = pal.color(QPalette::Text);
    QColor grid = text;
    grid.setAlphaF(0.12);
    for (QValueAxis *axis : {m_axisX, m_axisRate, m_axisDone}) {
        axis->setLabelsColor(text);
        axis->setTitleBrush(text);
        axis->setGridLineColor(grid);
        axis->setLinePenColor(grid);
        axis->setMinorGridLineVisible(false);
    }
    // Horizontal lines only. Qt's raster engine hands every fill of 96 scan lines or more
    // to its own thread pool and waits for it; with a backfill's backends on every core,
    // each such hand-off waited up to a scheduler slice for a core (perf: the GUI thread's
    // waits during a chart repaint were the x grid's and the vertical axes' lines). The
    // time axis keeps its labels and ticks, the vertical axes their labels and titles.
    m_axisX->setGridLineVisible(false);
    m_axisDone->setGridLineVisible(false);
    m_axisRate->setLineVisible(false);
    m_axisDone->setLineVisible(false);
    m_chart->legend()->setLabelColor(text);
    QPen rate(QColor(0x3b, 0x82, 0xd6));
    rate.setWidthF(2);
    m_rateSeries->setPen(rate);
    QPen done(QColor(0x3f, 0xa8, 0x5b));
    done.setWidthF(2);
    m_doneSeries->setPen(done);
    m_chartView->setBackgroundBrush(pal.color(QPalette::Base));
}

void RunScreen::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::PaletteChange && m_chart)
        applyChartTheme();
    QWidget::changeEvent(event);
}

void RunScreen::updateAxes()
{
    // The run's own length, to a nice ceiling, in ticks of 1, 2 or 5 times a power of ten
    // seconds (a 2 s run: 0 to 2.5 s by 0.5 s).
    const double span = niceCeiling(std::max(0.5, m_series->lastElapsed() * 1.05));
    double interval = span;
    for (double step : {1.0, 2.0, 5.0}) {
        const double candidate = step * std::pow(10.0, std::floor(std::log10(span / 5)));
        if (span / candidate <= 5.0001) {
            interval = candidate;
            break;
        }
        interval = candidate * 2;
    }
    m_axisX->setRange(0, span);
    m_axisX->setTickType(QValueAxis::TicksDynamic);
    m_axisX->setTickAnchor(0);
    m_axisX->setTickInterval(interval);
    m_axisX->setLabelFormat(interval < 1 ? QStringLiteral("%.1f s") : QStringLiteral("%.0f s"));
    m_axisRate->setRange(0, niceCeiling(std::max(10.0, m_series->maxRate() * 1.1)));
    m_axisRate->setTickCount(6);
    const int total = std::max({1, m_progress->total(), m_eventTotal});
    m_axisDone->setRange(0, total);
    m_axisDone->setTickCount(std::min(total, 5) + 1);
}

void RunScreen::reset()
{
    if (m_watchToken)
        m_engine->unwatch(m_watchToken);
    m_watchToken = 0;
    m_verdictToken = 0;
    m_id = 0;
    m_last = {};
    m_haveSnapshot = false;
    m_startedHere = false;
    m_cancelRequested = false;
    m_verdictsLoaded = false;
    m_watchFailing = false;
    m_eventTotal = 0;
    m_heldLog.clear();
    m_segmentPending = false;
    m_runError.clear();
    m_validationMessage.clear();
    m_startedAt = {};
    m_finishedAt = {};
    m_observedFrom = {};
    m_observedDone = -1;
    m_etaFinish = 0;
    m_progress->clear();
    m_series->clear();
    m_log->clear();
    setBanner({}, false);
    setPhase(Phase::Idle);
    m_pages->setCurrentIndex(1);
}

void RunScreen::start(const backfill::BackfillRequest &request)
{
    if (m_runToken) {
        m_log->append(Level::Warning, tr("Backfill #%1 is still running on this screen; wait for it or cancel it first.").arg(m_id));
        return;
    }
    const bool resuming = request.resumeId > 0 && request.resumeId == m_id;
    if (!resuming) {
        reset();
        m_request = request;
        showPlannedPartitions(request);
    } else {
        m_request.parallel = request.parallel;
        m_request.retryFailed = request.retryFailed;
        m_request.resumeId = request.resumeId;
        m_cancelRequested = false;
        m_runError.clear();
        m_finishedAt = {};
        m_observedFrom = {};
        m_observedDone = -1;
        m_etaFinish = 0;
        m_verdictsLoaded = false;
        m_progress->setVerdicts({});
        setBanner({}, false);
    }
    m_startedHere = true;
    // A resume continues the run's clock; its throughput leaves the idle gap out.
    if (!resuming || !m_startedAt.isValid())
        m_startedAt = QDateTime::currentDateTimeUtc();
    if (resuming)
        m_series->beginSegment(elapsedSeconds(), m_progress->rowsStaged(), m_progress->stagedCount() + m_progress->failedCount());
    if (request.resumeId > 0)
        m_log->append(Level::Info, request.retryFailed ? tr("Retrying the failed partitions of backfill #%1").arg(request.resumeId)
                                                       : tr("Resuming backfill #%1").arg(request.resumeId));
    else
        m_log->append(Level::Info, (request.parallel > 1 ? tr("Starting a backfill of %1, %2 to %3 (%4 connections)")
                                                              .arg(QString::fromStdString(request.model), QString::fromStdString(request.from),
                                                                   QString::fromStdString(request.to))
                                                              .arg(request.parallel)
                                                         : tr("Starting a backfill of %1, %2 to %3 (one connection)")
                                                              .arg(QString::fromStdString(request.model), QString::fromStdString(request.from),
                                                                   QString::fromStdString(request.to))));
    m_runToken = m_engine->backfill(request);
    setPhase(Phase::Claiming);
    m_tick.start();
    if (request.resumeId > 0 && !resuming)
        attach(request.resumeId);
    refreshHeader();
    refreshStats();
    refreshControls();
}

// The window's partitions, queued, from the moment Start is pressed: the table shows what
// will be staged while the claim is made (the warehouse's snapshot then takes over).
void RunScreen::showPlannedPartitions(const backfill::BackfillRequest &request)
{
    const backfill::Model *model = m_engine->spec().model(request.model);
    if (!model)
        return;
    const auto window = backfill::windowOf(*model, request.from, request.to);
    if (!window)
        return;
    std::vector<backfill::PartitionState> planned;
    for (const auto &[partition, boundary] : backfill::stagingOrder(*window)) {
        backfill::PartitionState state;
        state.partition = partition.name;
        state.boundary = boundary;
        planned.push_back(std::move(state));
    }
    m_progress->setPartitions(planned);
    m_progress->flush();
}

void RunScreen::follow(qint64 backfillId)
{
    if (backfillId <= 0)
        return;
    if (m_runToken && backfillId != m_id) {
        m_log->append(Level::Warning, tr("Not following backfill #%1: backfill #%2 is still running on this screen.").arg(backfillId).arg(m_id));
        return;
    }
    if (backfillId == m_id && m_watchToken)
        return;
    if (backfillId != m_id) {
        reset();
        m_request = {};
    }
    attach(backfillId);
    m_log->append(Level::Info, tr("Following backfill #%1").arg(backfillId));
    m_tick.start();
    refreshHeader();
    refreshControls();
}

void RunScreen::followLatestInFlight(const QString &model)
{
    if (m_runToken || model.isEmpty() || !m_engine->hasSpec())
        return;
    m_historyToken = m_engine->history(model);
}

void RunScreen::onHistory(quint64 token, const std::vector<backfill::HistoryRow> &rows)
{
    if (token != m_historyToken)
        return;
    m_historyToken = 0;
    if (m_runToken)
        return;
    for (auto it = rows.rbegin(); it != rows.rend(); ++it) {
        if (it->kind != "backfill" || it->leaseExpired || !backfill::isUnderway(it->status))
            continue;
        follow(it->id);
        Q_EMIT inFlightFound(it->id);
        return;
    }
}

void RunScreen::attach(qint64 id)
{
    if (m_watchToken)
        m_engine->unwatch(m_watchToken);
    m_id = id;
    m_watchToken = m_engine->watch(id, kPollMs, kMinIntervalMs);
    Q_EMIT followed(id);
}

void RunScreen::refollow()
{
    if (m_id > 0)
        attach(m_id);
}

void RunScreen::onProgressed(quint64 token, const backfill::BackfillEvent &event)
{
    if (token != m_runToken)
        return;
    if (event.total > 0)
        m_eventTotal = event.total;
    // The first id is the backfill's (a cascade's root); its members' events follow it.
    if (event.backfillId > 0 && m_id == 0)
        attach(event.backfillId);
    if (!event.message.empty()) {
        // The engine says "validating" as soon as it stages the last partition; the staged
        // lines come with the next progress snapshot: hold it (and what follows) until then.
        const bool early = event.phase == "validating" && !(m_haveSnapshot && allPartitionsDone(m_last));
        if (early || !m_heldLog.isEmpty())
            m_heldLog << QString::fromStdString(event.message);
        else
            m_log->append(Level::Info, QString::fromStdString(event.message));
    }
    if (m_cancelRequested)
        return;
    if (event.phase == "claiming" && !m_haveSnapshot)
        setPhase(Phase::Claiming);
    else if (event.phase == "staging" && m_phase == Phase::Claiming)
        setPhase(Phase::Staging);
    else if (event.phase == "validating")
        setPhase(Phase::Validating);
    refreshHeader();
}

void RunScreen::onFinished(quint64 token, const backfill::BackfillOutcome &outcome)
{
    if (token != m_runToken)
        return;
    if (outcome.id > 0 && outcome.id != m_id)
        attach(outcome.id);
    if (!outcome.takeover.empty())
        m_log->append(Level::Warning, QString::fromStdString(outcome.takeover));
    for (const std::string &stale : outcome.staleDownstream)
        m_log->append(Level::Notice, tr("Downstream %1 is now stale: backfill it once this one is published.").arg(QString::fromStdString(stale)));
    if (m_cancelRequested)
        m_log->append(Level::Info, tr("The backfill finished before the cancel reached it."));
    applyVerdicts(outcome.review);
    runEnded();
}

void RunScreen::onFailed(quint64 token, const model::DatabaseError &error)
{
    if (token == 0)
        return;
    if (token == m_runToken) {
        const bool cancelled = error.kind == warehouse::ErrorKind::Cancelled;
        m_log->append(cancelled ? Level::Info : Level::Error, error.sentence());
        if (!cancelled || m_id == 0) {
            m_runError = error.sentence();
            if (m_id == 0) {
                // Nothing was claimed: the planned partitions were never queued.
                m_progress->clear();
                setPhase(cancelled ? Phase::Cancelled : Phase::Failed);
                setBanner(m_runError, !cancelled);
            }
        }
        runEnded();
    } else if (token == m_watchToken) {
        if (!m_watchFailing)
            m_log->append(Level::Warning, tr("Cannot read the backfill's progress: %1").arg(error.sentence()));
        m_watchFailing = true;
    } else if (token == m_historyToken) {
        m_historyToken = 0;
    } else if (token == m_verdictToken) {
        m_verdictToken = 0;
        m_log->append(Level::Warning, tr("Cannot read the stored review: %1").arg(error.sentence()));
    } else if (token == m_dialogToken) {
        m_dialogToken = 0;
        QMessageBox::warning(this, tr("Cannot open the review"), error.sentence());
    } else if (token == m_abandonToken) {
        m_abandonToken = 0;
        m_log->append(Level::Error, error.sentence());
        setBanner(tr("Not abandoned: %1").arg(error.sentence()), true);
        refreshControls();
    } else if (token == m_remoteCancelToken) {
        m_remoteCancelToken = 0;
        m_cancelRequested = false;
        m_log->append(Level::Error, error.sentence());
        refreshControls();
    }
}

void RunScreen::runEnded()
{
    m_runToken = 0;
    // The warehouse has the last word: read the backfill back now rather than at the next poll.
    refollow();
    refreshControls();
    if (m_closeWhenStopped && m_closeTarget) {
        m_closeWhenStopped = false;
        QTimer::singleShot(0, m_closeTarget.data(), &QWidget::close);
    }
}

void RunScreen::onReview(quint64 token, const backfill::Review &review)
{
    if (token == m_dialogToken && token != 0) {
        m_dialogToken = 0;
        auto *dialog = new QDialog(this);
        dialog->setObjectName(QStringLiteral("reviewDialog"));
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        dialog->setWindowTitle(tr("Review of backfill #%1 (read-only)").arg(review.backfillId));
        auto *layout = new QVBoxLayout(dialog);
        auto *summary = new QLabel(dialog);
        summary->setWordWrap(true);
        summary->setText(tr("%1, %2 to %3: validation %4. %5")
                             .arg(QString::fromStdString(review.model), QString::fromStdString(review.from),
                                  QString::fromStdString(review.to),
                                  review.validation.empty() ? tr("not done") : QString::fromStdString(review.validation),
                                  QString::fromStdString(review.validationMessage)));
        auto *reviewModel = new model::ReviewModel(dialog);
        reviewModel->setReview(review);
        auto *view = new QTableView(dialog);
        view->setModel(reviewModel);
        view->setEditTriggers(QAbstractItemView::NoEditTriggers);
        view->verticalHeader()->hide();
        view->resizeColumnsToContents();
        auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, dialog);
        connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::reject);
        layout->addWidget(summary);
        layout->addWidget(view, 1);
        layout->addWidget(buttons);
        dialog->resize(1000, 560);
        dialog->show();
        return;
    }
    if (token != m_verdictToken || token == 0)
        return;
    m_verdictToken = 0;
    applyVerdicts(review);
}

void RunScreen::applyVerdicts(const backfill::Review &review)
{
    if (review.backfillId != m_id || review.partitions.empty())
        return;
    QHash<QString, backfill::Verdict> verdicts;
    for (const backfill::PartitionReview &p : review.partitions)
        if (p.inScope)
            verdicts.insert(QString::fromStdString(p.partition), worstVerdict(p));
    m_progress->setVerdicts(verdicts);
    m_progress->setValidating(false);
    m_verdictsLoaded = true;
    m_validationMessage = QString::fromStdString(review.validationMessage);
    if (m_phase == Phase::ValidationFailed && !m_validationMessage.isEmpty())
        setBanner(tr("Validation failed: %1").arg(m_validationMessage), true);
}

RunScreen::Phase RunScreen::phaseOf(const backfill::BackfillProgress &s) const
{
    using backfill::BackfillStatus;
    const BackfillStatus status = s.backfill.status;
    const bool stopped = !backfill::isUnderway(status);
    // A process that is gone cannot confirm a cancel: it is interrupted, at once.
    if (!stopped && s.backfill.leaseExpired && !m_runToken)
        return Phase::Stalled;
    if (m_cancelRequested && !stopped)
        return Phase::Cancelling;
    switch (status) {
    case BackfillStatus::Planned: return s.backfill.leaseExpired && !m_runToken ? Phase::Stalled : Phase::Claiming;
    case BackfillStatus::Staging: {
        if (s.backfill.leaseExpired && !m_runToken)
            return Phase::Stalled;
        const bool allStaged = !s.partitions.empty()
            && std::all_of(s.partitions.begin(), s.partitions.end(), [](const auto &p) { return p.state == backfill::PartitionStage::Staged; });
        return allStaged ? Phase::Validating : Phase::Staging;
    }
    case BackfillStatus::Staged: return s.backfill.validation == "failed" ? Phase::ValidationFailed : Phase::Staged;
    case BackfillStatus::Failed: return s.backfill.failure == backfill::Failure::Cancelled ? Phase::Cancelled : Phase::Failed;
    case BackfillStatus::Published: return Phase::Published;
    case BackfillStatus::Undone: return Phase::Undone;
    case BackfillStatus::Abandoned: return Phase::Abandoned;
    }
    return m_phase;
}

void RunScreen::applySnapshot(const backfill::BackfillProgress &snapshot)
{
    if (m_watchFailing)
        m_log->append(Level::Info, tr("Reading the backfill's progress again."));
    m_watchFailing = false;
    const bool first = !m_haveSnapshot;
    logChanges(m_last, snapshot, first);
    m_last = snapshot;
    m_haveSnapshot = true;
    m_progress->setPartitions(snapshot.partitions);
    if (!m_startedHere || !m_startedAt.isValid()) {
        const QDateTime created = QDateTime::fromString(QString::fromStdString(snapshot.backfill.createdAt), Qt::ISODate);
        if (created.isValid())
            m_startedAt = created.toUTC();
    }
    const Phase phase = phaseOf(snapshot);
    if (isTerminal(phase))
        m_progress->flush();  // the table shows the partitions of the phase it ends on, not a beat later
    if (!first && !m_runToken && isTerminal(m_phase) && !isTerminal(phase))
        m_segmentPending = true;  // resumed elsewhere after a gap
    if (isTerminal(phase) && !m_finishedAt.isValid()) {
        if (first && !m_startedHere) {
            // Opened after the fact: it ended with its last partition's update.
            QDateTime last = m_startedAt;
            for (const backfill::PartitionState &p : snapshot.partitions) {
                const QDateTime t = QDateTime::fromString(QString::fromStdString(p.updatedAt), Qt::ISODate);
                if (t.isValid() && (!last.isValid() || t > last))
                    last = t.toUTC();
            }
            m_finishedAt = last.isValid() ? last : QDateTime::currentDateTimeUtc();
        } else {
            m_finishedAt = QDateTime::currentDateTimeUtc();
        }
    } else if (!isTerminal(phase)) {
        m_finishedAt = {};
    }
    setPhase(phase);
    m_progress->setValidating(phase == Phase::Validating);
    if ((phase == Phase::Staged || phase == Phase::ValidationFailed || phase == Phase::Published || phase == Phase::Undone)
        && !m_verdictsLoaded && !m_verdictToken && !m_runToken)
        m_verdictToken = m_engine->review(m_id);

    switch (phase) {
    case Phase::Failed:
        setBanner(tr("%1. Retry failed re-stages only the failed partitions once the cause is fixed; Abandon frees the window.")
                      .arg(QString::fromStdString(snapshot.backfill.error).remove(QRegularExpression(QStringLiteral("[.\\s]+$")))),
                  true);
        break;
    case Phase::Cancelled:
        setBanner(tr("Cancelled: %1. The staged partitions are kept; the claim's lease has lapsed, so another backfill may "
                     "take the window. Resume finishes this one (taking the window back), or Abandon frees it.")
                      .arg(QString::fromStdString(snapshot.backfill.error)),
                  false);
        break;
    case Phase::Stalled:
        setBanner(tr("Interrupted: the process that ran this backfill (%1) is gone. Resume stages what is left, keeping "
                     "the id, or Abandon drops what was staged and frees the window.")
                      .arg(snapshot.claimHolder.empty() ? tr("its claim has lapsed") : QString::fromStdString(snapshot.claimHolder)),
                  false);
        break;
    case Phase::ValidationFailed:
        setBanner(m_validationMessage.isEmpty() ? tr("Validation failed: open the review to see which partitions disagree.")
                                                : tr("Validation failed: %1").arg(m_validationMessage),
                  true);
        break;
    default:
        if (m_runError.isEmpty())
            setBanner({}, false);
        break;
    }
    if (!isTerminal(phase) && !m_tick.isActive())
        m_tick.start();
    refreshHeader();
    refreshClaim();
    refreshStats();
    refreshControls();
    Q_EMIT snapshotApplied(m_id);
}

void RunScreen::logChanges(const backfill::BackfillProgress &before, const backfill::BackfillProgress &after, bool first)
{
    const QLocale locale;
    if (first) {
        int staged = 0;
        for (const auto &p : after.partitions)
            staged += p.state == backfill::PartitionStage::Staged;
        m_log->append(Level::Info, tr("Backfill #%1 of %2, %3 to %4, by %5: %6, %7 of %8 partitions staged")
                                       .arg(after.backfill.id)
                                       .arg(QString::fromStdString(after.backfill.model), QString::fromStdString(after.backfill.from),
                                            QString::fromStdString(after.backfill.to),
                                            QString::fromStdString(after.backfill.operatorName),
                                            QLatin1String(backfill::toString(after.backfill.status)))
                                       .arg(staged)
                                       .arg(after.partitions.size()));
    }
    std::map<std::string, const backfill::PartitionState *> old;
    for (const auto &p : before.partitions)
        old[p.partition] = &p;
    for (const auto &p : after.partitions) {
        const auto it = old.find(p.partition);
        const bool seen = it != old.end();
        const backfill::PartitionStage was = seen ? it->second->state : backfill::PartitionStage::Queued;
        if ((seen && p.state == was) || (first && p.state != backfill::PartitionStage::Failed))
            continue;
        const QString name = QString::fromStdString(p.partition);
        if (p.state == backfill::PartitionStage::Staging)
            m_log->append(Level::Debug, tr("%1 staging").arg(name));
        else if (p.state == backfill::PartitionStage::Staged)
            m_log->append(Level::Info, tr("%1 staged: %2 rows in %3 s")
                                           .arg(name, locale.toString(p.rows), locale.toString(p.seconds, 'f', 2)));
        else if (p.state == backfill::PartitionStage::Failed)
            m_log->append(Level::Error, tr("%1 failed: %2").arg(name, QString::fromStdString(p.error)));
        else if (p.state == backfill::PartitionStage::Queued && seen && was == backfill::PartitionStage::Staging)
            m_log->append(Level::Info, tr("%1 stopped before it was staged; it is queued again").arg(name));
    }
    // Held lines wait for every partition's line, also when the first snapshot comes mid-run
    // (the screen attached late): a run past staging counts as done.
    if (!m_heldLog.isEmpty() && allPartitionsDone(after)) {
        for (const QString &line : std::as_const(m_heldLog))
            m_log->append(Level::Info, line);
        m_heldLog.clear();
    }
    if (!first && after.backfill.status != before.backfill.status) {
        const QString status = QLatin1String(backfill::toString(after.backfill.status));
        if (after.backfill.status == backfill::BackfillStatus::Failed)
            m_log->append(Level::Error, tr("Backfill #%1 stopped: %2").arg(m_id).arg(QString::fromStdString(after.backfill.error)));
        else if (after.backfill.status == backfill::BackfillStatus::Staged)
            m_log->append(after.backfill.validation == "failed" ? Level::Warning : Level::Info,
                          tr("Backfill #%1 staged; validation %2").arg(m_id).arg(QString::fromStdString(after.backfill.validation)));
        else
            m_log->append(Level::Info, tr("Backfill #%1 is now %2").arg(m_id).arg(status));
    }
    if (!after.claimHolder.empty() && after.claimHolder != before.claimHolder && !first)
        m_log->append(Level::Info, tr("Claim held by %1").arg(QString::fromStdString(after.claimHolder)));
    std::map<int, double> waited;
    for (const auto &w : before.waits)
        waited[w.pid] = w.seconds;
    for (const auto &w : after.waits)
        if (!waited.count(w.pid))
            m_log->append(Level::Warning, tr("Backend %1 is waiting on a lock held by %2")
                                              .arg(w.pid)
                                              .arg(QString::fromStdString(w.blockers)));
}

void RunScreen::setPhase(Phase phase)
{
    if (phase == m_phase)
        return;
    m_phase = phase;
    const QColor c = phaseColour(phase);
    m_phaseChip->setText(phaseLabel(phase));
    m_phaseChip->setStyleSheet(QStringLiteral("QLabel { background: %1; color: white; border-radius: 9px; padding: 2px 10px; "
                                              "font-weight: 600; }")
                                   .arg(c.name()));
    if (isTerminal(phase)) {
        m_tick.stop();
        m_series->addSample(elapsedSeconds(), m_progress->rowsStaged(), m_progress->stagedCount() + m_progress->failedCount());
    }
    refreshStats();
    refreshControls();
    Q_EMIT phaseChanged(phase);
}

void RunScreen::setBanner(const QString &text, bool error)
{
    if (text.isEmpty()) {
        m_banner->hide();
        m_banner->clear();
        return;
    }
    const QColor accent = error ? QColor(0xd6, 0x45, 0x45) : QColor(0xd9, 0x9a, 0x1e);
    m_banner->setStyleSheet(QStringLiteral("QLabel { border-left: 4px solid %1; background: rgba(%2, %3, %4, 30); padding: 6px 10px; }")
                                .arg(accent.name())
                                .arg(accent.red())
                                .arg(accent.green())
                                .arg(accent.blue()));
    m_banner->setText(text);
    m_banner->show();
}

bool RunScreen::isTerminal(Phase phase)
{
    switch (phase) {
    case Phase::Idle:
    case Phase::Claiming:
    case Phase::Staging:
    case Phase::Validating:
    case Phase::Cancelling: return false;
    default: return true;
    }
}

QString RunScreen::phaseLabel(Phase phase)
{
    switch (phase) {
    case Phase::Idle: return tr("reading…");
    case Phase::Claiming: return tr("claiming the window");
    case Phase::Staging: return tr("staging");
    case Phase::Validating: return tr("validating");
    case Phase::Cancelling: return tr("cancelling…");
    case Phase::Staged: return tr("staged · validation passed");
    case Phase::ValidationFailed: return tr("staged · validation failed");
    case Phase::Cancelled: return tr("cancelled");
    case Phase::Failed: return tr("failed");
    case Phase::Stalled: return tr("interrupted · resumable");
    case Phase::Published: return tr("published");
    case Phase::Undone: return tr("undone");
    case Phase::Abandoned: return tr("abandoned");
    }
    return {};
}

double RunScreen::elapsedSeconds() const
{
    if (!m_startedAt.isValid())
        return 0;
    const QDateTime end = m_finishedAt.isValid() ? m_finishedAt : QDateTime::currentDateTimeUtc();
    return std::max<qint64>(0, m_startedAt.msecsTo(end)) / 1000.0;
}

QString RunScreen::etaText() const
{
    return m_etaValue->text();
}

void RunScreen::refreshHeader()
{
    const auto &b = m_last.backfill;
    const QString model = !b.model.empty() ? QString::fromStdString(b.model) : QString::fromStdString(m_request.model);
    const QString from = !b.from.empty() ? QString::fromStdString(b.from) : QString::fromStdString(m_request.from);
    const QString to = !b.to.empty() ? QString::fromStdString(b.to) : QString::fromStdString(m_request.to);
    m_title->setText(m_id > 0 ? tr("Backfill #%1 · %2").arg(m_id).arg(model) : tr("New backfill · %1").arg(model));
    QString sub = from == to ? from : tr("%1 to %2").arg(from, to);
    if (!b.operatorName.empty())
        sub += tr("  ·  started by %1").arg(QString::fromStdString(b.operatorName));
    if (m_startedAt.isValid())
        sub += tr(" at %1").arg(m_startedAt.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss")));
    sub += m_startedHere ? tr("  ·  from this window") : tr("  ·  followed from the warehouse");
    m_subtitle->setText(sub);
}

void RunScreen::refreshStats()
{
    const QLocale locale;
    const int total = std::max(m_progress->total(), m_eventTotal);
    const int done = m_progress->stagedCount() + m_progress->failedCount();
    m_bar->setRange(0, std::max(1, total));
    m_bar->setValue(std::min(done, std::max(1, total)));
    QString doneText = tr("%1 of %2").arg(done).arg(total);
    if (m_progress->failedCount() > 0)
        doneText += tr("  (%1 failed)").arg(m_progress->failedCount());
    m_doneValue->setText(doneText);
    m_rowsValue->setText(locale.toString(m_progress->rowsStaged()));
    const double elapsed = elapsedSeconds();
    m_elapsedValue->setText(m_startedAt.isValid() ? durationText(elapsed) : QStringLiteral("—"));
    double rate = m_series->lastRate();
    if (isTerminal(m_phase) || rate <= 0)
        rate = m_series->averageRate() > 0 ? m_series->averageRate() : elapsed > 0 ? double(m_progress->rowsStaged()) / elapsed : 0;
    m_rateValue->setText(rate > 0 ? tr("%1 rows/s").arg(locale.toString(qRound64(rate))) : QStringLiteral("—"));

    // The ETA: remaining partitions at the pace observed on this screen, smoothed so that
    // it settles instead of jumping with every partition.
    const qint64 nowMs = QDateTime::currentMSecsSinceEpoch();
    const double now = nowMs / 1000.0;
    if (!m_observedFrom.isValid() && m_haveSnapshot) {
        m_observedFrom = QDateTime::currentDateTimeUtc();
        m_observedDone = done;
    }
    QString eta;
    if (isTerminal(m_phase))
        eta = m_phase == Phase::Staged || m_phase == Phase::ValidationFailed ? tr("done") : QStringLiteral("—");
    else if (m_phase == Phase::Validating)
        eta = tr("validating…");
    else if (m_phase == Phase::Cancelling)
        eta = QStringLiteral("—");
    else if (m_observedFrom.isValid() && done > m_observedDone && total > done) {
        const double span = m_observedFrom.msecsTo(QDateTime::currentDateTimeUtc()) / 1000.0;
        const double pace = double(done - m_observedDone) / std::max(0.001, span);
        const double predicted = now + double(total - done) / pace;
        m_etaFinish = m_etaFinish <= 0 ? predicted : m_etaFinish + kEtaSmoothing * (predicted - m_etaFinish);
        eta = tr("about %1").arg(durationText(std::max(0.0, m_etaFinish - now)));
    } else if (total > 0 && done >= total) {
        eta = tr("validating…");
    } else {
        eta = tr("estimating…");
    }
    m_etaValue->setText(eta);
}

void RunScreen::refreshClaim()
{
    const QDateTime now = QDateTime::currentDateTimeUtc();
    if (m_last.claimHolder.empty()) {
        m_claimHolder->setText(m_haveSnapshot ? tr("no claim: the window is free") : QStringLiteral("—"));
        m_claimLease->setText(QStringLiteral("—"));
        m_claimHeartbeat->setText(QStringLiteral("—"));
    } else {
        m_claimHolder->setText(QString::fromStdString(m_last.claimHolder)
                               + (m_startedHere && m_runToken ? tr(" · this window") : QString()));
        const QDateTime lease = parseTimestamp(m_last.leaseExpires);
        if (m_last.leaseExpires == "infinity")
            m_claimLease->setText(tr("never (held until published or abandoned)"));
        else if (lease.isValid() && now.secsTo(lease) <= 0)
            m_claimLease->setText(tr("expired at %1").arg(localTime(lease)));
        else if (lease.isValid())
            m_claimLease->setText(tr("%1 (%2)").arg(relativeText(now.secsTo(lease)), localTime(lease)));
        else
            m_claimLease->setText(QString::fromStdString(m_last.leaseExpires));
        const QDateTime beat = parseTimestamp(m_last.heartbeatAt);
        m_claimHeartbeat->setText(beat.isValid() ? tr("%1 (%2)").arg(relativeText(now.secsTo(beat)), localTime(beat))
                                                 : QString::fromStdString(m_last.heartbeatAt));
    }
    if (m_last.waits.empty()) {
        m_claimWaits->setText(tr("none"));
        m_claimWaits->setToolTip({});
    } else {
        QStringList lines;
        for (const backfill::LockWait &w : m_last.waits)
            lines << tr("backend %1 waiting %2 s on %3")
                         .arg(w.pid)
                         .arg(QLocale().toString(w.seconds, 'f', 1))
                         .arg(QString::fromStdString(w.blockers));
        m_claimWaits->setText(lines.join(QLatin1Char('\n')));
        m_claimWaits->setToolTip(lines.join(QLatin1Char('\n')));
    }
}

void RunScreen::refreshControls()
{
    const bool inFlight = m_phase == Phase::Claiming || m_phase == Phase::Staging || m_phase == Phase::Validating;
    const bool elsewhere = !m_runToken && inFlight && !m_last.claimHolder.empty();
    m_cancel->setEnabled((m_runToken != 0 || elsewhere) && !m_cancelRequested && inFlight);
    if (m_runToken)
        m_cancel->setToolTip(tr("Stop staging. Staged partitions are kept; nothing is published."));
    else if (elsewhere)
        m_cancel->setToolTip(tr("This backfill runs in another process (%1): Cancel asks it, through the warehouse, to stop "
                                "as Ctrl+C would there. Staged partitions are kept.")
                                 .arg(QString::fromStdString(m_last.claimHolder)));
    else
        m_cancel->setToolTip(tr("Nothing is staging now."));
    const bool stopped = m_phase == Phase::Stalled || m_phase == Phase::Cancelled || m_phase == Phase::Failed;
    const bool unstaged = m_progress->stagedCount() < m_progress->total();
    m_resume->setEnabled(!m_runToken && m_id > 0 && stopped && unstaged);
    m_retry->setEnabled(!m_runToken && m_id > 0 && stopped && m_progress->failedCount() > 0);
    const bool abandonable = m_phase == Phase::Stalled || m_phase == Phase::Cancelled || m_phase == Phase::Failed
                             || m_phase == Phase::ValidationFailed || m_phase == Phase::Staged;
    m_abandon->setEnabled(!m_runToken && !m_abandonToken && m_id > 0 && abandonable);
    m_review->setEnabled(m_id > 0
                         && (m_phase == Phase::Staged || m_phase == Phase::ValidationFailed || m_phase == Phase::Published
                             || m_phase == Phase::Undone));
    m_review->setDefault(m_review->isEnabled());
}

void RunScreen::tick()
{
    const double elapsed = elapsedSeconds();
    const int done = m_progress->stagedCount() + m_progress->failedCount();
    // Seen under way (followed, or resumed elsewhere): its rate starts from what was seen.
    if (m_haveSnapshot && m_startedAt.isValid() && ((!m_startedHere && m_series->rowCount() == 0) || m_segmentPending)) {
        m_series->beginSegment(elapsed, m_progress->rowsStaged(), done);
        m_segmentPending = false;
    }
    if (m_haveSnapshot && m_startedAt.isValid())
        m_series->addSample(elapsed, m_progress->rowsStaged(), m_progress->stagedCount() + m_progress->failedCount());
    refreshStats();
    refreshClaim();
}

void RunScreen::askCancel()
{
    if (m_cancelRequested || (!m_runToken && m_id <= 0))
        return;
    auto *box = new QMessageBox(QMessageBox::Question, tr("Cancel the backfill?"),
                                m_id > 0 ? tr("Cancel backfill #%1?").arg(m_id) : tr("Cancel this backfill?"), QMessageBox::NoButton,
                                this);
    box->setObjectName(QStringLiteral("cancelConfirmation"));
    box->setInformativeText(tr("Staging stops after the statements running now are cancelled. Partitions already staged "
                               "are kept and nothing is published; the window stays claimed until you resume the backfill "
                               "or abandon it."));
    QPushButton *yes = box->addButton(tr("Cancel backfill"), QMessageBox::DestructiveRole);
    QPushButton *no = box->addButton(tr("Keep running"), QMessageBox::RejectRole);
    box->setDefaultButton(no);
    box->setAttribute(Qt::WA_DeleteOnClose);
    connect(box, &QMessageBox::buttonClicked, this, [this, yes](QAbstractButton *b) {
        if (b == yes)
            sendCancel();
    });
    box->open();
}

void RunScreen::sendCancel()
{
    if (m_cancelRequested || (!m_runToken && m_id <= 0))
        return;
    m_cancelRequested = true;
    if (m_runToken) {
        m_engine->cancel(m_runToken);
        m_log->append(Level::Info, tr("Cancel requested; waiting for the warehouse to confirm"));
    } else {
        // Staging in another process: ask it through the warehouse.
        m_remoteCancelToken = m_engine->requestCancel(m_id);
    }
    setPhase(Phase::Cancelling);
}

void RunScreen::askAbandon()
{
    if (m_runToken || m_abandonToken || m_id <= 0)
        return;
    auto *box = new QMessageBox(QMessageBox::Warning, tr("Abandon the backfill?"),
                                tr("Abandon backfill #%1 of %2 (%3 … %4)?")
                                    .arg(m_id)
                                    .arg(QString::fromStdString(m_last.backfill.model), QString::fromStdString(m_last.backfill.from),
                                         QString::fromStdString(m_last.backfill.to)),
                                QMessageBox::NoButton, this);
    box->setObjectName(QStringLiteral("abandonConfirmation"));
    const int staged = m_progress->stagedCount();
    box->setInformativeText((staged == 1 ? tr("Its staged partition is dropped") : tr("Its %n staged partitions are dropped", "", staged))
                            + tr(" and its claim on the window is released. Nothing is published and the target is not "
                                 "touched. This cannot be undone: to try again, start a new backfill. A cascade's downstream "
                                 "backfills are abandoned with it."));
    QPushButton *yes = box->addButton(tr("Abandon backfill"), QMessageBox::DestructiveRole);
    QPushButton *no = box->addButton(tr("Keep it"), QMessageBox::RejectRole);
    box->setDefaultButton(no);
    box->setAttribute(Qt::WA_DeleteOnClose);
    connect(box, &QMessageBox::buttonClicked, this, [this, yes](QAbstractButton *b) {
        if (b != yes || m_abandonToken)
            return;
        m_abandonToken = m_engine->abandon(m_id);
        m_log->append(Level::Info, tr("Abandoning backfill %1…").arg(m_id));
        refreshControls();
    });
    box->open();
}

void RunScreen::resume(bool retryFailed)
{
    if (m_runToken || m_id <= 0)
        return;
    backfill::BackfillRequest r;
    r.model = m_last.backfill.model;
    r.from = m_last.backfill.from;
    r.to = m_last.backfill.to;
    r.parallel = std::max(1, m_request.parallel);
    r.resumeId = m_id;
    r.retryFailed = retryFailed;
    start(r);
}

void RunScreen::openReview()
{
    if (m_id <= 0)
        return;
    if (isSignalConnected(QMetaMethod::fromSignal(&RunScreen::reviewRequested))) {
        Q_EMIT reviewRequested(m_id);
        return;
    }
    m_dialogToken = m_engine->review(m_id);
}

void RunScreen::copyLog()
{
    QModelIndexList rows = m_logView->selectionModel()->selectedRows(RunLogModel::MessageColumn);
    if (rows.isEmpty())
        for (int r = 0; r < m_logFilter->rowCount(); ++r)
            rows << m_logFilter->index(r, RunLogModel::MessageColumn);
    QApplication::clipboard()->setMimeData(m_logFilter->mimeData(rows));
}

bool RunScreen::confirmClose(QWidget *parent)
{
    if (!m_runToken)
        return true;
    // The count as the header shows it, kept up to date while the question is open.
    auto runningText = [this] {
        return m_id > 0 ? tr("Backfill #%1 is still running from this window (%2 of %3 partitions done).")
                              .arg(m_id)
                              .arg(m_progress->stagedCount() + m_progress->failedCount())
                              .arg(std::max(m_progress->total(), m_eventTotal))
                        : tr("A backfill is starting from this window.");
    };
    QMessageBox box(QMessageBox::Question, tr("A backfill is running"), runningText(), QMessageBox::NoButton, parent ? parent : this);
    box.setObjectName(QStringLiteral("closeConfirmation"));
    connect(this, &RunScreen::snapshotApplied, &box, [&box, runningText] { box.setText(runningText()); });
    box.setInformativeText(
        tr("Cancel it: staging stops, staged partitions are kept, and the window closes once the warehouse confirms.\n\n"
           "Leave it: the window closes now and staging stops with it. Its claim lapses when its lease expires "
           "(a couple of minutes); then %1 finishes it from a terminal.")
            .arg(QString::fromStdString(backfill::completeCommands("`reprint backfill --resume " + std::to_string(m_id) + "`",
                                                                   m_engine->spec().path))));
    QPushButton *cancelRun = box.addButton(tr("Cancel backfill"), QMessageBox::DestructiveRole);
    QPushButton *leave = box.addButton(tr("Leave it and close"), QMessageBox::AcceptRole);
    QPushButton *stay = box.addButton(tr("Keep the window open"), QMessageBox::RejectRole);
    box.setDefaultButton(stay);
    box.exec();
    if (box.clickedButton() == leave) {
        m_log->append(Level::Info, tr("Closing; backfill #%1 is left to resume").arg(m_id));
        return true;
    }
    if (box.clickedButton() == cancelRun) {
        m_closeWhenStopped = true;
        m_closeTarget = parent ? parent->window() : window();
        sendCancel();
    }
    return false;
}

} // namespace reprint::views
