#include "calendarscreen.h"

#include "banner.h"
#include "calendarlegend.h"
#include "calendarview.h"
#include "partitioncalendarmodel.h"
#include "partitiondetail.h"
#include "planbox.h"
#include "scopenotice.h"
#include "startbackfilldialog.h"

#include <QComboBox>
#include <QCryptographicHash>
#include <QDialog>
#include <QDir>
#include <QFile>
#include <QFuture>
#include <QPromise>
#include <QThreadPool>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSplitter>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <memory>

namespace reprint::views {

using model::PartitionCalendarModel;
using Grain = backfill::Grain;
using Metric = PartitionCalendarModel::Metric;

namespace {

QString q(const std::string &s)
{
    return QString::fromStdString(s);
}

// How many partitions one request for the checks covers: each check is a scan of its
// source, cheapest in one pass over a long range; a year a request still shows progress.
int chunkSize(Grain grain)
{
    switch (grain) {
    case Grain::Hour: return 31 * 24;
    case Grain::Day: return 366;
    case Grain::Week: return 106;
    case Grain::Month: return 60;
    }
    return 366;
}

// The width of `text` (a label's, '&' marking the mnemonic) drawn one letter at a time.
int unkernedWidth(const QFontMetrics &metrics, QString text)
{
    text.remove(QLatin1Char('&'));
    int width = 1;
    for (const QChar c : text)
        width += metrics.horizontalAdvance(c);
    return width;
}

QString placeholderFor(Grain grain)
{
    switch (grain) {
    case Grain::Hour: return QStringLiteral("YYYY-MM-DDTHH");
    case Grain::Day: return QStringLiteral("YYYY-MM-DD");
    case Grain::Week: return QStringLiteral("YYYY-Www");
    case Grain::Month: return QStringLiteral("YYYY-MM");
    }
    return {};
}

} // namespace

CalendarScreen::CalendarScreen(model::EngineClient *engine, QWidget *parent)
    : QWidget(parent)
    , m_engine(engine)
    , m_calendar(new PartitionCalendarModel(this))
{
    buildUi();
    connect(m_engine, &model::EngineClient::statusFinished, this, &CalendarScreen::onStatus);
    connect(m_engine, &model::EngineClient::historyFinished, this, &CalendarScreen::onHistory);
    connect(m_engine, &model::EngineClient::failed, this, &CalendarScreen::onFailed);
    connect(m_engine, &model::EngineClient::partitionsChanged, this, &CalendarScreen::onPartitionsChanged);
    connect(m_engine, &model::EngineClient::throughputFinished, this,
            [this](quint64 token, const backfill::Throughput &throughput) {
                if (token != m_throughputToken)
                    return;
                m_throughputToken = 0;
                m_throughput = throughput;
                updatePlan();
            });
    connect(m_calendar, &QAbstractItemModel::dataChanged, this, [this] {
        updateWarning();
        updatePlan();
    });

    QSettings settings;
    const int metric = m_metric->findData(settings.value(QStringLiteral("calendar/metric"), int(Metric::Checks)));
    m_metric->setCurrentIndex(std::max(0, metric));
    m_splitter->restoreState(settings.value(QStringLiteral("calendar/splitter")).toByteArray());
    showModel({});
}

CalendarScreen::~CalendarScreen()
{
    if (m_refreshing && m_engine)
        m_engine->cancel(m_statusToken);
    if (m_partitionWatch && m_engine)
        m_engine->unwatch(m_partitionWatch);
    QSettings().setValue(QStringLiteral("calendar/splitter"), m_splitter->saveState());
}

void CalendarScreen::buildUi()
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(12, 10, 12, 10);
    layout->setSpacing(8);

    layout->addLayout(buildTopBar());
    layout->addWidget(buildErrorBanner());
    layout->addWidget(buildCalendarPane(), 1);
    layout->addLayout(buildWindowFields());
    m_notice = new ScopeNotice(this);
    layout->addWidget(m_notice);
    m_planBox = new PlanBox(this);
    layout->addWidget(m_planBox);
    connectUi();
}

// The top bar: what is shown, how it is coloured, which year, and the refresh.
QLayout *CalendarScreen::buildTopBar()
{
    auto *top = new QHBoxLayout;
    top->setSpacing(8);
    m_title = new QLabel(this);
    m_title->setObjectName(QStringLiteral("calendarTitle"));
    QFont titleFont = m_title->font();
    titleFont.setBold(true);
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.15);
    m_title->setFont(titleFont);
    m_title->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_title->setMinimumWidth(120);
    top->addWidget(m_title, 2);
    top->addSpacing(8);
    auto *colourBy = new QLabel(tr("Colour by"), this);
    m_metric = new QComboBox(this);
    m_metric->setObjectName(QStringLiteral("metric"));
    m_metric->addItem(tr("Check status"), int(Metric::Checks));
    m_metric->addItem(tr("Rows vs weekday median"), int(Metric::RowsVsMedian));
    m_metric->addItem(tr("Measure value"), int(Metric::Measure));
    m_metric->addItem(tr("Time since loaded"), int(Metric::Freshness));
    m_metric->addItem(tr("Claims"), int(Metric::Claims));
    colourBy->setBuddy(m_metric);
    m_measure = new QComboBox(this);
    m_measure->setObjectName(QStringLiteral("measure"));
    top->addWidget(colourBy);
    top->addWidget(m_metric);
    top->addWidget(m_measure);
    m_year = new QComboBox(this);
    m_year->setObjectName(QStringLiteral("year"));
    m_year->setToolTip(tr("Jump to a year"));
    m_earlier = new QToolButton(this);
    m_earlier->setObjectName(QStringLiteral("earlierYear"));
    m_earlier->setText(tr("Earlier…"));
    m_earlier->setToolTip(tr("Show (and read) one more year before the first one shown"));
    auto *yearLabel = new QLabel(tr("&Year"), this);
    yearLabel->setBuddy(m_year);
    top->addSpacing(8);
    top->addWidget(yearLabel);
    top->addWidget(m_year);
    top->addWidget(m_earlier);
    top->addSpacing(8);
    m_progress = new QProgressBar(this);
    m_progress->setObjectName(QStringLiteral("refreshProgress"));
    m_progress->setMaximumWidth(120);
    m_progress->setMaximumHeight(16);
    m_progress->setTextVisible(false);
    m_progress->hide();
    m_cancel = new QToolButton(this);
    m_cancel->setObjectName(QStringLiteral("cancelRefresh"));
    m_cancel->setText(tr("Cancel"));
    m_cancel->hide();
    m_refreshButton = new QToolButton(this);
    m_refreshButton->setObjectName(QStringLiteral("refresh"));
    m_refreshButton->setText(tr("Refresh"));
    m_refreshButton->setShortcut(QKeySequence::Refresh);
    m_refreshButton->setToolTip(tr("Read every partition's statistics again (%1)")
                                    .arg(QKeySequence(QKeySequence::Refresh).toString(QKeySequence::NativeText)));
    m_statusLine = new QLabel(this);
    m_statusLine->setObjectName(QStringLiteral("refreshStatus"));
    m_statusLine->setForegroundRole(QPalette::PlaceholderText);
    m_statusLine->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_statusLine->setMinimumWidth(60);
    m_statusLine->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    top->addWidget(m_statusLine, 3);
    top->addWidget(m_progress);
    top->addWidget(m_cancel);
    top->addWidget(m_refreshButton);
    return top;
}

// What went wrong with the last refresh, and a Retry.
QWidget *CalendarScreen::buildErrorBanner()
{
    m_errorBanner = banner(this, QColor(0xd6, 0x45, 0x45), QStringLiteral("refreshError"));
    auto *errorLayout = new QHBoxLayout(m_errorBanner);
    errorLayout->setContentsMargins(10, 6, 10, 6);
    m_errorLabel = new QLabel(m_errorBanner);
    m_errorLabel->setWordWrap(true);
    m_errorLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_retry = new QPushButton(tr("Retry"), m_errorBanner);
    m_retry->setObjectName(QStringLiteral("retry"));
    errorLayout->addWidget(m_errorLabel, 1);
    errorLayout->addWidget(m_retry, 0, Qt::AlignVCenter);
    m_errorBanner->hide();
    return m_errorBanner;
}

// The calendar and its legend on the left, the detail pane on the right.
QWidget *CalendarScreen::buildCalendarPane()
{
    m_splitter = new QSplitter(Qt::Horizontal, this);
    m_splitter->setObjectName(QStringLiteral("calendarSplitter"));
    m_splitter->setChildrenCollapsible(false);
    auto *left = new QWidget(m_splitter);
    auto *leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    leftLayout->setSpacing(4);
    m_view = new CalendarView(left);
    m_view->setObjectName(QStringLiteral("calendar"));
    m_view->setCalendarModel(m_calendar);
    m_legend = new CalendarLegend(left);
    m_legend->setObjectName(QStringLiteral("legend"));
    leftLayout->addWidget(m_view, 1);
    leftLayout->addWidget(m_legend);

    m_detail = new PartitionDetail(m_splitter);
    m_splitter->addWidget(left);
    m_splitter->addWidget(m_detail);
    m_splitter->setStretchFactor(0, 1);
    m_splitter->setStretchFactor(1, 0);
    m_splitter->setSizes({720, 280});
    return m_splitter;
}

// The window as text, both ways, and Select failing.
QLayout *CalendarScreen::buildWindowFields()
{
    auto *scope = new QHBoxLayout;
    scope->setSpacing(8);
    auto *fromLabel = new QLabel(tr("&From"), this);
    m_from = new QLineEdit(this);
    m_from->setObjectName(QStringLiteral("from"));
    fromLabel->setBuddy(m_from);
    auto *toLabel = new QLabel(tr("&To"), this);
    m_to = new QLineEdit(this);
    m_to->setObjectName(QStringLiteral("to"));
    toLabel->setBuddy(m_to);
    for (QLineEdit *e : {m_from, m_to}) {
        e->setMaximumWidth(170);
        e->setClearButtonEnabled(true);
        connect(e, &QLineEdit::editingFinished, this, &CalendarScreen::applyFields);
    }
    m_selectFailing = new QPushButton(tr("Select &failing"), this);
    m_selectFailing->setObjectName(QStringLiteral("selectFailing"));
    m_selectFailing->setToolTip(tr("Select the smallest window that covers every partition failing a check"));
    scope->addWidget(new QLabel(tr("Window"), this));
    scope->addSpacing(4);
    scope->addWidget(fromLabel);
    scope->addWidget(m_from);
    scope->addWidget(toLabel);
    scope->addWidget(m_to);
    scope->addWidget(m_selectFailing);
    m_windowError = new QLabel(this);
    m_windowError->setObjectName(QStringLiteral("windowError"));
    m_windowError->setStyleSheet(QStringLiteral("color: #d64545;"));
    m_windowError->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    scope->addSpacing(8);
    scope->addWidget(m_windowError, 1);
    // A mnemonic label is measured kerned but drawn in pieces (the underlined letter on
    // its own): "To" needs the unkerned width, or it shows as "Tc".
    for (QLabel *l : {fromLabel, toLabel})
        l->setMinimumWidth(std::max(l->sizeHint().width(), unkernedWidth(l->fontMetrics(), l->text())));
    return scope;
}

// The plan of the selected window, its command line and Start backfill.
void CalendarScreen::connectUi()
{
    connect(m_view, &CalendarView::rangeSelected, this, &CalendarScreen::onRangeSelected);
    connect(m_view, &CalendarView::partitionHovered, this, [this](int o) {
        updateDetail(o >= 0 ? o : m_view->selectionLast());
    });
    connect(m_view, &CalendarView::yearInViewChanged, this, [this](int year) {
        const QSignalBlocker block(m_year);
        m_year->setCurrentIndex(m_year->findData(year));
    });
    connect(m_year, &QComboBox::activated, this, [this](int i) { m_view->scrollToYear(m_year->itemData(i).toInt()); });
    connect(m_earlier, &QToolButton::clicked, this, [this] {
        m_announcedText.clear();
        const int oldFirst = m_calendar->firstYear();
        setYears(oldFirst - 1, m_calendar->lastYear());
        int lastOrdinal = -1;
        for (int o = 0; o < m_calendar->partitionCount(); ++o)
            if (m_calendar->partition(o).start.date().year() < oldFirst)
                lastOrdinal = o;
        m_view->scrollToYear(oldFirst - 1);
        if (lastOrdinal >= 0)
            startChunks(0, std::min(lastOrdinal, m_calendar->lastPastOrdinal()));
    });
    connect(m_metric, &QComboBox::activated, this, &CalendarScreen::metricChosen);
    connect(m_measure, &QComboBox::activated, this, &CalendarScreen::metricChosen);
    connect(m_refreshButton, &QToolButton::clicked, this, &CalendarScreen::refresh);
    connect(m_cancel, &QToolButton::clicked, this, &CalendarScreen::cancelRefresh);
    connect(m_retry, &QPushButton::clicked, this, &CalendarScreen::refresh);
    connect(m_selectFailing, &QPushButton::clicked, this, [this] {
        if (!selectFailing())
            m_statusLine->setText(tr("No partition shown fails a check."));
    });
    connect(m_notice, &ScopeNotice::widenClicked, this, &CalendarScreen::widen);
    connect(m_planBox, &PlanBox::cascadeToggled, this, &CalendarScreen::updatePlan);
    connect(m_planBox, &PlanBox::startClicked, this, &CalendarScreen::confirmStart);
}

QString CalendarScreen::settingsKey() const
{
    return QStringLiteral("calendar/window/%1/%2")
        .arg(QString::fromLatin1(QCryptographicHash::hash(m_specPath.toUtf8(), QCryptographicHash::Sha1).toHex().left(12)),
             m_modelName);
}

void CalendarScreen::showModel(const QString &name)
{
    if (m_refreshing)
        cancelRefresh();
    m_error.clear();
    m_errorBanner->hide();
    m_history.clear();
    if (m_partitionWatch)
        m_engine->unwatch(m_partitionWatch);
    m_partitionWatch = 0;
    m_announcedFirst = m_announcedLast = -1;
    m_announcedText.clear();
    m_throughput = {};
    m_throughputToken = 0;
    m_windowError->clear();
    const backfill::Model *model = m_engine->hasSpec() ? m_engine->spec().model(name.toStdString()) : nullptr;
    m_modelName = model ? name : QString();
    m_specPath = m_engine->hasSpec() ? q(m_engine->spec().path) : QString();
    const bool enabled = model != nullptr;
    for (QWidget *w : std::initializer_list<QWidget *>{m_metric, m_measure, m_year, m_earlier, m_refreshButton, m_from,
                                                       m_to, m_selectFailing})
        w->setEnabled(enabled);
    ++m_shown;  // a cache still being read is not shown, a refresh not yet started does not start
    if (!model) {
        m_title->setText(tr("No model"));
        m_calendar->setModel(backfill::Model{}, QDate::currentDate().year(), QDate::currentDate().year());
        m_notice->clearNote();
        updateYears();
        updatePlan();
        updateDetail(-1);
        updateStatusLine();
        return;
    }
    m_partitionWatch = m_engine->watchPartitions();
    m_throughputToken = m_engine->throughput(name);
    m_title->setText(name);
    m_title->setToolTip(tr("%1: one partition per %2 (%3)")
                            .arg(name, QString::fromLatin1(backfill::toString(model->grain)), q(model->timezone)));
    m_measure->clear();
    m_measure->addItem(tr("rows"), QStringLiteral("rows"));
    for (const std::string &m : model->measures)
        m_measure->addItem(q(m), q(m));
    const int wantedMeasure = m_measure->findData(QSettings().value(QStringLiteral("calendar/measure")).toString());
    m_measure->setCurrentIndex(std::max(0, wantedMeasure));
    m_from->setPlaceholderText(placeholderFor(model->grain));
    m_to->setPlaceholderText(placeholderFor(model->grain));

    const int year = QDate::currentDate().year();
    int firstYear = year - 1;
    if (model->grain == Grain::Hour)
        firstYear = year;
    else if (model->grain == Grain::Week || model->grain == Grain::Month)
        firstYear = year - 4;
    m_calendar->setModel(*model, firstYear, year);
    m_calendar->setMetric(Metric(m_metric->currentData().toInt()), m_measure->currentData().toString());
    m_legend->setEntries(m_calendar->legend(), m_metric->currentText());
    m_measure->setVisible(m_calendar->metric() == Metric::Measure);
    loadCache();
    updateYears();

    const QStringList window = QSettings().value(settingsKey()).toString().split(QStringLiteral(".."));
    if (window.size() != 2 || !selectWindow(window.at(0), window.at(1)))
        onRangeSelected(-1, -1);
    // Open on the newest year with data, or the current one.
    const int last = m_calendar->lastPastOrdinal();
    if (m_view->hasRange())
        m_view->scrollTo(m_calendar->indexOfOrdinal(m_view->selectionFirst()), QAbstractItemView::PositionAtCenter);
    else if (last >= 0)
        m_view->scrollTo(m_calendar->indexOfOrdinal(last), QAbstractItemView::PositionAtCenter);
    // The warehouse is read once the calendar is on screen: the refresh's start (the I/O
    // thread's work, the server's first reads) took the CPU from the first paint, doubling
    // it (bench_calendar: a year of hours, 22 ms of the GUI thread's CPU in 50 ms).
    QTimer::singleShot(0, this, [this, shown = m_shown] {
        if (shown == m_shown && !m_refreshing)
            refresh();
    });
}

void CalendarScreen::setYears(int firstYear, int lastYear)
{
    m_calendar->setYears(firstYear, lastYear);
    updateYears();
}

void CalendarScreen::updateYears()
{
    const QSignalBlocker block(m_year);
    m_year->clear();
    if (!m_calendar->hasModel() || m_modelName.isEmpty())
        return;
    for (int y = m_calendar->firstYear(); y <= m_calendar->lastYear(); ++y)
        m_year->addItem(QString::number(y), y);
    m_year->setCurrentIndex(m_year->findData(m_view->yearInView()));
}

void CalendarScreen::metricChosen()
{
    const auto metric = Metric(m_metric->currentData().toInt());
    m_calendar->setMetric(metric, m_measure->currentData().toString());
    m_measure->setVisible(metric == Metric::Measure);
    m_legend->setEntries(m_calendar->legend(), m_metric->currentText());
    QSettings settings;
    settings.setValue(QStringLiteral("calendar/metric"), int(metric));
    settings.setValue(QStringLiteral("calendar/measure"), m_measure->currentData().toString());
    updateDetail(m_view->selectionLast());
}

// --- refresh ---------------------------------------------------------------------------

void CalendarScreen::refresh()
{
    if (m_modelName.isEmpty())
        return;
    m_announcedText.clear();
    const int last = m_calendar->lastPastOrdinal();
    if (last < 0) {
        finishRefresh(true, {});
        return;
    }
    startChunks(0, last);
}

void CalendarScreen::startChunks(int firstOrdinal, int lastOrdinal)
{
    if (m_refreshing)
        cancelRefresh();
    // The totals of the whole range in one read paint every cell at once; the source
    // checks, many times dearer, follow newest first. A few partitions (a change announced)
    // are read whole in one go.
    constexpr int kReadWhole = 31;
    m_chunks.clear();
    m_chunks.push_back({firstOrdinal, lastOrdinal, backfill::StatusReads::Totals});
    if (!m_calendar->model().checks.empty() && lastOrdinal - firstOrdinal + 1 > kReadWhole) {
        const int size = chunkSize(m_calendar->grain());
        for (int hi = lastOrdinal; hi >= firstOrdinal; hi -= size)
            m_chunks.push_back({std::max(firstOrdinal, hi - size + 1), hi, backfill::StatusReads::TotalsAndChecks});
    } else {
        m_chunks.front().reads = backfill::StatusReads::TotalsAndChecks;  // nothing more to read
    }
    m_chunksDone = 0;
    m_refreshing = true;
    m_refreshStarted = QDateTime::currentDateTimeUtc();
    m_progress->setRange(0, int(m_chunks.size()) + 1);
    m_progress->setValue(0);
    m_progress->show();
    m_cancel->show();
    m_refreshButton->setEnabled(false);
    m_historyPending = true;
    m_historyToken = m_engine->history(m_modelName);
    updateStatusLine();
    requestNextChunk();
}

void CalendarScreen::requestNextChunk()
{
    if (m_chunksDone >= m_chunks.size()) {
        if (!m_historyPending)
            finishRefresh(true, {});
        return;
    }
    const Chunk &chunk = m_chunks[m_chunksDone];
    m_statusToken = m_engine->status(m_modelName, q(m_calendar->partition(chunk.first).name),
                                     q(m_calendar->partition(chunk.last).name), chunk.reads);
}

void CalendarScreen::onStatus(quint64 token, const model::StatusRows &rows)
{
    if (!m_refreshing || token != m_statusToken)
        return;
    m_statusToken = 0;
    m_calendar->setStatus(rows);
    if (m_chunksDone == 0)
        Q_EMIT totalsShown();
    ++m_chunksDone;
    m_progress->setValue(int(m_chunksDone) + (m_historyPending ? 0 : 1));
    updateDetail(m_view->selectionLast());
    requestNextChunk();
}

void CalendarScreen::onHistory(quint64 token, const model::HistoryRows &rows)
{
    if (token != m_historyToken)
        return;
    m_historyToken = 0;
    m_historyPending = false;
    m_history = rows;
    m_calendar->setHistory(rows);
    if (m_refreshing) {
        m_progress->setValue(m_progress->value() + 1);
        if (m_chunksDone >= m_chunks.size())
            finishRefresh(true, {});
    }
}

void CalendarScreen::onFailed(quint64 token, const model::DatabaseError &error)
{
    if (token == m_historyToken && token != 0) {
        m_historyToken = 0;
        m_historyPending = false;
        if (m_refreshing && m_statusToken == 0 && m_chunksDone >= m_chunks.size())
            finishRefresh(false, error.sentence());
        return;
    }
    if (!m_refreshing || token != m_statusToken)
        return;
    m_statusToken = 0;
    if (error.kind == warehouse::ErrorKind::Cancelled)
        finishRefresh(false, {});
    else
        finishRefresh(false, error.sentence());
}

void CalendarScreen::cancelRefresh()
{
    if (!m_refreshing)
        return;
    if (m_statusToken)
        m_engine->cancel(m_statusToken);
    // The answer to the cancelled request is dropped when it comes.
    m_statusToken = 0;
    m_historyToken = 0;
    m_historyPending = false;
    finishRefresh(false, {});
    m_statusLine->setText(tr("Refresh cancelled. %1").arg(m_statusLine->text()));
}

void CalendarScreen::finishRefresh(bool ok, const QString &message)
{
    const bool wasRefreshing = m_refreshing;
    m_refreshing = false;
    m_progress->hide();
    m_cancel->hide();
    m_refreshButton->setEnabled(!m_modelName.isEmpty());
    m_error = message;
    if (!message.isEmpty()) {
        const QDateTime shown = m_calendar->statusTime();
        m_errorLabel->setText(
            tr("<b>Could not refresh the statistics.</b> %1<br>%2")
                .arg(message.toHtmlEscaped(),
                     shown.isValid() ? tr("The calendar keeps the statistics read at %1.")
                                           .arg(QLocale().toString(shown.toLocalTime(), QLocale::ShortFormat))
                                     : tr("No statistics have been read yet.")));
        m_errorBanner->show();
    } else {
        m_errorBanner->hide();
    }
    if (ok && wasRefreshing)
        saveCache();
    updateStatusLine();
    updateWarning();
    updatePlan();
    if (wasRefreshing)
        Q_EMIT refreshFinished(ok);
    if (m_announcedFirst >= 0)
        QTimer::singleShot(0, this, &CalendarScreen::startAnnounced);
}

void CalendarScreen::onPartitionsChanged(quint64 token, const QString &model, const QDateTime &start,
                                         const QDateTime &end)
{
    if (token != m_partitionWatch || model != m_modelName || !m_calendar->hasModel())
        return;
    int first = -1;
    int last = -1;
    for (int o = 0; o <= m_calendar->lastPastOrdinal(); ++o) {
        const backfill::Partition &p = m_calendar->partition(o);
        if (p.end > start && p.start < end) {
            if (first < 0)
                first = o;
            last = o;
        }
    }
    if (first < 0)
        return;
    m_announcedFirst = m_announcedFirst < 0 ? first : std::min(m_announcedFirst, first);
    m_announcedLast = std::max(m_announcedLast, last);
    Q_EMIT changeAnnounced(q(m_calendar->partition(first).name), q(m_calendar->partition(last).name));
    // A finished backfill measures the model's throughput anew.
    m_throughputToken = m_engine->throughput(m_modelName);
    if (!m_refreshing)
        startAnnounced();
}

void CalendarScreen::startAnnounced()
{
    if (m_announcedFirst < 0 || m_refreshing || m_modelName.isEmpty())
        return;
    const int first = m_announcedFirst;
    const int last = std::min(m_announcedLast, m_calendar->lastPastOrdinal());
    m_announcedFirst = m_announcedLast = -1;
    if (last < first)
        return;
    startChunks(first, last);
    m_announcedText = m_calendar->namesText(first, last);
    updateStatusLine();
}

void CalendarScreen::updateStatusLine()
{
    if (m_modelName.isEmpty()) {
        m_statusLine->clear();
        return;
    }
    const QDateTime t = m_calendar->statusTime();
    const QString when = t.isValid() ? QLocale().toString(t.toLocalTime(), QLocale::ShortFormat) : QString();
    QString text;
    if (m_refreshing && !m_announcedText.isEmpty())
        text = tr("Re-reading %1 after a change in the warehouse…").arg(m_announcedText);
    else if (m_refreshing)
        text = t.isValid() ? tr("Reading statistics… (shown: %1)").arg(when) : tr("Reading statistics…");
    else if (t.isValid() && !m_announcedText.isEmpty())
        text = tr("Statistics of %1 (%2 re-read after a change in the warehouse)").arg(when, m_announcedText);
    else
        text = t.isValid() ? tr("Statistics of %1").arg(when) : tr("No statistics yet");
    m_statusLine->setText(text);
    m_statusLine->setToolTip(text);
}

// --- cache -----------------------------------------------------------------------------

// The file is read and written on a pool thread (a year of hourly partitions is several
// MB of JSON); what was read crosses back as a value, to the screen's thread.

void CalendarScreen::saveCache() const
{
    if (m_modelName.isEmpty())
        return;
    QThreadPool::globalInstance()->start(
        [path = model::calendarCachePath(m_specPath, m_modelName), model = m_calendar->model(),
         cache = m_calendar->statusSnapshot()] { model::writeCalendarCache(path, model, cache); });
}

void CalendarScreen::loadCache()
{
    const quint64 generation = m_shown;
    auto promise = std::make_shared<QPromise<std::optional<model::CalendarCache>>>();
    QFuture<std::optional<model::CalendarCache>> read = promise->future();
    promise->start();
    QThreadPool::globalInstance()->start(
        [promise, path = model::calendarCachePath(m_specPath, m_modelName), model = m_calendar->model()] {
            promise->addResult(model::readCalendarCache(path, model));
            promise->finish();
        });
    read.then(this, [this, generation](const std::optional<model::CalendarCache> &cache) {
        // Another model (or none) is shown since: this one's cache is not for it.
        if (generation != m_shown || !cache || m_modelName.isEmpty())
            return;
        m_calendar->applyCache(*cache);
        updateDetail(m_view->selectionLast());
        updateStatusLine();
        Q_EMIT cacheShown();
    });
}

// --- scope -----------------------------------------------------------------------------

bool CalendarScreen::selectWindow(const QString &from, const QString &to)
{
    const int a = m_calendar->ordinalOfName(from);
    const int b = m_calendar->ordinalOfName(to);
    if (a < 0 || b < 0 || m_calendar->isFuture(a) || m_calendar->isFuture(b))
        return false;
    m_view->selectRange(std::min(a, b), std::max(a, b));
    m_view->scrollTo(m_calendar->indexOfOrdinal(std::min(a, b)));
    return true;
}

bool CalendarScreen::selectFailing()
{
    const std::vector<int> failing = m_calendar->failingOrdinals();
    if (failing.empty())
        return false;
    m_view->selectRange(failing.front(), failing.back());
    m_view->scrollTo(m_calendar->indexOfOrdinal(failing.front()));
    m_view->setFocus();
    return true;
}

void CalendarScreen::widen()
{
    if (m_notice->widenFirst() < 0)
        return;
    m_view->selectRange(m_notice->widenFirst(), m_notice->widenLast());
}

void CalendarScreen::applyFields()
{
    const QString from = m_from->text().trimmed();
    const QString to = m_to->text().trimmed().isEmpty() ? from : m_to->text().trimmed();
    if (from.isEmpty()) {
        if (m_to->text().trimmed().isEmpty())
            m_view->selectRange(-1, -1);
        return;
    }
    auto check = [this](QLineEdit *edit, const QString &text) {
        QString why;
        if (const int o = m_calendar->ordinalOfName(text); o < 0) {
            auto parsed = m_calendar->model().scheme().parse(text.toStdString());
            why = parsed ? tr("%1 is not shown in the calendar (years %2 to %3).")
                               .arg(text)
                               .arg(m_calendar->firstYear())
                               .arg(m_calendar->lastYear())
                         : q(parsed.error().message);
        } else if (m_calendar->isFuture(o)) {
            why = tr("%1 is in the future.").arg(text);
        }
        QPalette pal = edit->palette();
        pal.setColor(QPalette::Text, why.isEmpty() ? palette().color(QPalette::Text) : QColor(0xd6, 0x45, 0x45));
        edit->setPalette(pal);
        edit->setToolTip(why);
        return why.isEmpty();
    };
    const bool okFrom = check(m_from, from);
    const bool okTo = check(m_to, to);
    QStringList why;
    for (QLineEdit *e : {m_from, m_to})
        if (!e->toolTip().isEmpty() && !why.contains(e->toolTip()))
            why << e->toolTip();
    m_windowError->setText(why.join(QLatin1Char(' ')));
    m_windowError->setToolTip(m_windowError->text());
    if (okFrom && okTo)
        selectWindow(from, to);
}

void CalendarScreen::onRangeSelected(int first, int last)
{
    const QSignalBlocker a(m_from);
    const QSignalBlocker b(m_to);
    if (first < 0) {
        m_from->clear();
        m_to->clear();
    } else {
        m_from->setText(q(m_calendar->partition(first).name));
        m_to->setText(q(m_calendar->partition(last).name));
    }
    for (QLineEdit *e : {m_from, m_to}) {
        e->setPalette(palette());
        e->setToolTip({});
    }
    m_windowError->clear();
    m_windowError->setToolTip({});
    if (!m_modelName.isEmpty()) {
        if (first >= 0)
            QSettings().setValue(settingsKey(), m_from->text() + QStringLiteral("..") + m_to->text());
        else
            QSettings().remove(settingsKey());
    }
    updateWarning();
    updatePlan();
    updateDetail(last);
    Q_EMIT windowSelected(m_from->text(), m_to->text());
}

void CalendarScreen::updateWarning()
{
    m_notice->showWindow(*m_calendar, m_view->selectionFirst(), m_view->selectionLast(), !m_modelName.isEmpty());
}

QString CalendarScreen::warningText() const
{
    return m_notice->warningText();
}

QString CalendarScreen::errorText() const
{
    return m_errorBanner->isHidden() ? QString() : m_error;
}

QString CalendarScreen::windowErrorText() const
{
    return m_windowError->text();
}

void CalendarScreen::updatePlan()
{
    const int first = m_view->selectionFirst();
    const int last = m_view->selectionLast();
    m_plan = m_engine->hasSpec() && first >= 0
        ? model::Plan::make(m_engine->spec(), *m_calendar, first, last, m_history, m_planBox->cascade(), m_throughput)
        : model::Plan{};
    m_planBox->showPlan(m_plan);
}

void CalendarScreen::confirmStart()
{
    if (!m_plan.isValid() || !m_plan.conflicts.isEmpty())
        return;
    if (auto *old = findChild<QDialog *>(QStringLiteral("confirmBackfill")))
        old->close();
    // The plan the dialog starts: the one shown, less the downstream models left out in it.
    auto replan = [this, first = m_view->selectionFirst(), last = m_view->selectionLast()](const QStringList &leaveOut) {
        return model::Plan::make(m_engine->spec(), *m_calendar, first, last, m_history, true, m_throughput, leaveOut);
    };
    const bool warned = !warningText().isEmpty();
    auto *dialog = new StartBackfillDialog(m_plan, replan, warned ? m_notice->warningHtml() : QString(),
                                           warned ? m_calendar->namesText(m_notice->widenFirst(), m_notice->widenLast()) : QString(),
                                           this);
    connect(dialog, &StartBackfillDialog::widenRequested, this, &CalendarScreen::widen);
    connect(dialog, &StartBackfillDialog::startRequested, this, &CalendarScreen::backfillRequested);
    dialog->open();
    Q_EMIT confirmationShown();
}

void CalendarScreen::updateDetail(int ordinal)
{
    if (m_modelName.isEmpty() || ordinal < 0 || ordinal >= m_calendar->partitionCount()) {
        const bool noModels = !m_engine || !m_engine->hasSpec() || m_engine->spec().models.empty();
        m_detail->showHint(m_modelName.isEmpty()
                               ? (noModels ? tr("Open a spec (File › Open Spec…): its models are listed in the sidebar, "
                                                "and the calendar shows the partitions of the one you select.")
                                           : tr("Select a model in the sidebar."))
                               : tr("<p>Point at a partition to see its rows, measures and checks.</p>"
                                    "<p>Click to select it; shift-click, drag or shift+arrow keys select a window.</p>"));
        return;
    }
    m_detail->showPartition(*m_calendar, ordinal, m_refreshing, m_metric->currentText());
}

} // namespace reprint::views
