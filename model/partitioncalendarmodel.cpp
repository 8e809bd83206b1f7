#include "partitioncalendarmodel.h"

#include <QLocale>
#include <QStringList>

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>
#include <unordered_set>

namespace reprint::model {

using backfill::Grain;
using backfill::Partition;
using backfill::StatusRow;

namespace {

QString q(const std::string &s)
{
    return QString::fromStdString(s);
}

double parseNumber(const std::string &text)
{
    if (text.empty())
        return std::numeric_limits<double>::quiet_NaN();
    bool ok = false;
    const double v = QString::fromStdString(text).toDouble(&ok);
    return ok ? v : std::numeric_limits<double>::quiet_NaN();
}

// Whether two reads of a partition found the same totals (rows and every measure).
bool sameTotals(const StatusRow &a, const StatusRow &b)
{
    return a.rows == b.rows && a.measures == b.measures;
}

QColor mix(const QColor &a, const QColor &b, double t)
{
    t = std::clamp(t, 0.0, 1.0);
    return QColor::fromRgbF(float(a.redF() * (1 - t) + b.redF() * t), float(a.greenF() * (1 - t) + b.greenF() * t),
                            float(a.blueF() * (1 - t) + b.blueF() * t));
}

// Colours chosen to read on light and dark backgrounds alike, and to stay apart for the
// common kinds of colour blindness (green/red differ in lightness as well as hue).
const QColor kOk(0x4f, 0xa8, 0x6b);
const QColor kMismatch(0xd6, 0x45, 0x45);
const QColor kUnknown(0xe0, 0xa8, 0x2e);
const QColor kNoChecks(0x8f, 0xa7, 0xbf);
const QColor kNeutral(0xa9, 0xaf, 0xb8);
const QColor kLow(0xe0, 0x6c, 0x2c);
const QColor kTypical(0xc9, 0xd8, 0xc5);
const QColor kHigh(0x3a, 0x7b, 0xc8);
const QColor kScaleLow(0xd4, 0xe4, 0xf4);
const QColor kScaleHigh(0x1f, 0x5f, 0xa8);
const QColor kFresh(0x3d, 0xa8, 0x8e);
const QColor kStale(0x9a, 0x6b, 0x3c);
const QColor kRunning(0xe0, 0xa8, 0x2e);
const QColor kStaged(0x8e, 0x6b, 0xc8);
const QColor kPublished(0x3a, 0x7b, 0xc8);

QString number(double v)
{
    if (std::isnan(v))
        return QStringLiteral("–");
    if (v == std::floor(v) && std::abs(v) < 1e15)
        return QLocale::system().toString(qlonglong(v));
    return QLocale::system().toString(v, 'f', 2);
}

QString numberText(const std::string &text)
{
    const double v = parseNumber(text);
    return std::isnan(v) ? (text.empty() ? QStringLiteral("–") : q(text)) : number(v);
}

} // namespace

PartitionCalendarModel::PartitionCalendarModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

PartitionCalendarModel::~PartitionCalendarModel() = default;

void PartitionCalendarModel::setModel(const backfill::Model &model, int firstYear, int lastYear)
{
    beginResetModel();
    m_model = model;
    m_hasModel = true;
    m_firstYear = std::min(firstYear, lastYear);
    m_lastYear = std::max(firstYear, lastYear);
    if (!m_now.isValid())
        m_now = QDateTime::currentDateTimeUtc();
    m_statusTime = {};
    if (m_metric == Metric::Measure && std::find(model.measures.begin(), model.measures.end(),
                                                 m_metricMeasure.toStdString()) == model.measures.end()
        && m_metricMeasure != QLatin1String("rows"))
        m_metricMeasure = QStringLiteral("rows");
    m_cells.clear();
    layout();
    recomputeMetric();
    endResetModel();
}

void PartitionCalendarModel::setYears(int firstYear, int lastYear)
{
    if (!m_hasModel)
        return;
    beginResetModel();
    m_firstYear = std::min(firstYear, lastYear);
    m_lastYear = std::max(firstYear, lastYear);
    layout();
    recomputeMetric();
    endResetModel();
}

void PartitionCalendarModel::setNow(const QDateTime &now)
{
    m_now = now;
    if (!m_hasModel)
        return;
    beginResetModel();
    layout();
    recomputeMetric();
    endResetModel();
}

void PartitionCalendarModel::updateDerived(Cell &c) const
{
    c.measureValues.clear();
    c.loadedAt = {};
    c.health = Health::NotLoaded;
    c.claimState = c.published.isEmpty() ? ClaimState::None : ClaimState::Published;
    if (!c.status)
        return;
    const StatusRow &s = *c.status;
    for (const auto &[name, value] : s.measures)
        c.measureValues.push_back(parseNumber(value));
    if (!s.loadedAt.empty())
        c.loadedAt = QDateTime::fromString(q(s.loadedAt), Qt::ISODate);
    if (!s.checksRead && !m_model.checks.empty()) {
        c.health = Health::Unknown;  // the totals came first; the checks follow
    } else if (s.checks.empty()) {
        c.health = Health::NoChecks;
    } else {
        c.health = Health::Ok;
        for (const auto &[name, state] : s.checks) {
            if (state == "mismatch")
                c.health = Health::Mismatch;
            else if (state != "ok" && c.health != Health::Mismatch)
                c.health = Health::Unknown;
        }
    }
    if (!s.claimedBy.empty()) {
        const bool held = s.claimedBy.find(", staged)") != std::string::npos
            || s.claimedBy.find(", failed)") != std::string::npos;
        c.claimState = held ? ClaimState::Staged : ClaimState::Running;
    }
}

void PartitionCalendarModel::setStatus(const StatusRows &rows)
{
    if (!m_hasModel || m_cells.empty())
        return;
    std::unordered_map<qint64, std::size_t> byStart;
    byStart.reserve(m_cells.size());
    for (std::size_t i = 0; i < m_cells.size(); ++i)
        byStart.emplace(m_cells[i].partition.start.toSecsSinceEpoch(), i);
    int firstRow = std::numeric_limits<int>::max();
    int lastRow = -1;
    for (const StatusRow &r : rows) {
        auto it = byStart.find(r.partition.start.toSecsSinceEpoch());
        if (it == byStart.end())
            continue;
        Cell &c = m_cells[it->second];
        const bool keepVerdicts = !r.checksRead && c.status && c.status->checksRead && sameTotals(*c.status, r);
        if (keepVerdicts) {
            // The totals the verdicts were made on have not changed: they stay until the
            // checks are read again.
            StatusRow kept = r;
            kept.checksRead = true;
            kept.checks = c.status->checks;
            kept.checkValues = c.status->checkValues;
            c.status = std::move(kept);
        } else {
            c.status = r;
        }
        updateDerived(c);
        firstRow = std::min(firstRow, c.row);
        lastRow = std::max(lastRow, c.row);
    }
    m_statusTime = QDateTime::currentDateTimeUtc();
    if (lastRow < 0)
        return;
    recomputeMetric();
    // The metric's scale (median, min..max) may move with any new value: every cell's
    // colour may change.
    Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, columnCount() - 1));
}

void PartitionCalendarModel::setHistory(const HistoryRows &rows)
{
    if (!m_hasModel || m_cells.empty())
        return;
    for (Cell &c : m_cells)
        c.published.clear();
    for (const backfill::HistoryRow &h : rows) {
        if (h.model != m_model.name || h.status != backfill::BackfillStatus::Published)
            continue;
        const QString text = h.kind == "run" ? tr("published by run %1").arg(h.id)
                                             : tr("published by backfill %1").arg(h.id);
        for (Cell &c : m_cells)
            if (c.partition.start >= h.windowStart && c.partition.start < h.windowEnd)
                c.published = text;
    }
    for (Cell &c : m_cells)
        updateDerived(c);
    recomputeMetric();
    Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, columnCount() - 1));
}

void PartitionCalendarModel::clearStatus()
{
    for (Cell &c : m_cells) {
        c.status.reset();
        c.published.clear();
        updateDerived(c);
    }
    m_statusTime = {};
    recomputeMetric();
    if (!m_cells.empty())
        Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, columnCount() - 1));
}

CalendarCache PartitionCalendarModel::statusSnapshot() const
{
    CalendarCache out;
    out.time = m_statusTime;
    for (const Cell &c : m_cells)
        if (c.status)
            out.rows.push_back(*c.status);
    return out;
}

void PartitionCalendarModel::applyCache(const CalendarCache &cache)
{
    if (!m_hasModel)
        return;
    // Statistics read since the cache was written are newer: the cache fills the rest.
    std::unordered_set<qint64> shown;
    for (const Cell &c : m_cells)
        if (c.status)
            shown.insert(c.partition.start.toSecsSinceEpoch());
    StatusRows older;
    for (const StatusRow &r : cache.rows)
        if (!shown.count(r.partition.start.toSecsSinceEpoch()))
            older.push_back(r);
    const bool anyShown = !shown.empty();
    const QDateTime shownTime = m_statusTime;
    setStatus(older);
    m_statusTime = anyShown ? shownTime : cache.time;
}

void PartitionCalendarModel::setMetric(Metric metric, const QString &measure)
{
    m_metric = metric;
    m_metricMeasure = measure.isEmpty() ? QStringLiteral("rows") : measure;
    recomputeMetric();
    if (!m_cells.empty())
        Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, columnCount() - 1));
}

double PartitionCalendarModel::medianRatio(int ordinal) const
{
    const Cell &c = m_cells[std::size_t(ordinal)];
    if (!c.status)
        return std::numeric_limits<double>::quiet_NaN();
    // The same weekday (day grain) or the same hour of the same weekday (hour grain);
    // week and month partitions compare with the ones just before them.
    const int step = m_model.grain == Grain::Day ? 7 : m_model.grain == Grain::Hour ? 168 : 1;
    std::vector<double> previous;
    for (int o = ordinal - step; o >= 0 && previous.size() < 8; o -= step) {
        const Cell &p = m_cells[std::size_t(o)];
        if (p.status && p.status->rows > 0)
            previous.push_back(double(p.status->rows));
    }
    if (previous.size() < 3)
        return std::numeric_limits<double>::quiet_NaN();
    std::sort(previous.begin(), previous.end());
    const std::size_t n = previous.size();
    const double median = n % 2 ? previous[n / 2] : (previous[n / 2 - 1] + previous[n / 2]) / 2;
    return median > 0 ? double(c.status->rows) / median : std::numeric_limits<double>::quiet_NaN();
}

// The declared measure the Measure metric colours by; -1 for the row count.
int PartitionCalendarModel::metricMeasureIndex() const
{
    if (m_metric != Metric::Measure || m_metricMeasure == QLatin1String("rows"))
        return -1;
    const auto it = std::find(m_model.measures.begin(), m_model.measures.end(), m_metricMeasure.toStdString());
    return it == m_model.measures.end() ? -1 : int(it - m_model.measures.begin());
}

// The metric's value for one cell; NaN when it has none.
double PartitionCalendarModel::metricValue(const Cell &c, int ordinal, int measureIndex) const
{
    double v = std::numeric_limits<double>::quiet_NaN();
    switch (m_metric) {
    case Metric::Checks: v = double(int(c.health)); break;
    case Metric::RowsVsMedian: v = medianRatio(ordinal); break;
    case Metric::Measure:
        if (measureIndex < 0)
            v = double(c.status->rows);
        else if (std::size_t(measureIndex) < c.measureValues.size())
            v = c.measureValues[std::size_t(measureIndex)];
        break;
    case Metric::Freshness:
        if (c.loadedAt.isValid())
            v = std::max<qint64>(0, c.loadedAt.secsTo(m_now)) / 3600.0;
        break;
    case Metric::Claims: v = double(int(c.claimState)); break;
    }
    return v;
}

// The colour of a cell that has a metric value, on the metric's scale.
QColor PartitionCalendarModel::metricColour(const Cell &c) const
{
    switch (m_metric) {
    case Metric::Checks:
        switch (c.health) {
        case Health::Ok: return kOk;
        case Health::Mismatch: return kMismatch;
        case Health::Unknown: return kUnknown;
        case Health::NoChecks: return kNoChecks;
        case Health::NotLoaded: break;
        }
        break;
    case Metric::RowsVsMedian:
        return c.metric < 1 ? mix(kLow, kTypical, (c.metric - 0.5) / 0.5) : mix(kTypical, kHigh, (c.metric - 1) / 0.5);
    case Metric::Measure:
        return mix(kScaleLow, kScaleHigh,
                   m_metricMax > m_metricMin ? (c.metric - m_metricMin) / (m_metricMax - m_metricMin) : 0.5);
    case Metric::Freshness: {
        const double l = std::log1p(m_metricMin);
        const double h = std::log1p(m_metricMax);
        return mix(kFresh, kStale, h > l ? (std::log1p(c.metric) - l) / (h - l) : 0);
    }
    case Metric::Claims:
        switch (c.claimState) {
        case ClaimState::None: return kNeutral;
        case ClaimState::Running: return kRunning;
        case ClaimState::Staged: return kStaged;
        case ClaimState::Published: return kPublished;
        }
        break;
    }
    return QColor();
}

void PartitionCalendarModel::recomputeMetric()
{
    const int measureIndex = metricMeasureIndex();
    double lo = std::numeric_limits<double>::infinity();
    double hi = -lo;
    for (std::size_t i = 0; i < m_cells.size(); ++i) {
        Cell &c = m_cells[i];
        c.hasMetric = false;
        c.metric = 0;
        if (!c.status && m_metric != Metric::Claims)
            continue;
        const double v = metricValue(c, int(i), measureIndex);
        if (std::isnan(v))
            continue;
        c.hasMetric = true;
        c.metric = v;
        if (!(c.status && c.status->rows == 0)) {
            lo = std::min(lo, v);
            hi = std::max(hi, v);
        }
    }
    m_metricMin = std::isfinite(lo) ? lo : 0;
    m_metricMax = std::isfinite(hi) ? hi : 0;

    for (Cell &c : m_cells) {
        c.colour = QColor();
        if (!c.status && !(m_metric == Metric::Claims && c.claimState != ClaimState::None))
            continue;
        c.colour = c.hasMetric ? metricColour(c) : kNeutral;
    }
}

QList<PartitionCalendarModel::LegendEntry> PartitionCalendarModel::legend() const
{
    const QLocale locale;
    switch (m_metric) {
    case Metric::Checks:
        return {{kOk, tr("Checks pass")},
                {kMismatch, tr("A check fails")},
                {kUnknown, tr("No source value")},
                {kNoChecks, tr("No checks")}};
    case Metric::RowsVsMedian:
        return {{kLow, tr("≤ 50 % of median")},
                {kTypical, tr("Typical")},
                {kHigh, tr("≥ 150 % of median")},
                {kNeutral, tr("No baseline")}};
    case Metric::Measure:
        return {{kScaleLow, number(m_metricMin)},
                {mix(kScaleLow, kScaleHigh, 0.5), m_metricMeasure},
                {kScaleHigh, number(m_metricMax)}};
    case Metric::Freshness: {
        auto age = [&locale](double hours) {
            return hours < 48 ? tr("%1 h ago").arg(locale.toString(hours, 'f', 0))
                              : tr("%1 d ago").arg(locale.toString(hours / 24, 'f', 0));
        };
        return {{kFresh, age(m_metricMin)}, {kStale, age(m_metricMax)}, {kNeutral, tr("Load time unknown")}};
    }
    case Metric::Claims:
        return {{kNeutral, tr("Not claimed")},
                {kRunning, tr("Claimed by a running backfill")},
                {kStaged, tr("Claimed, staged")},
                {kPublished, tr("Published by a backfill")}};
    }
    return {};
}

const StatusRow *PartitionCalendarModel::status(int ordinal) const
{
    if (ordinal < 0 || ordinal >= partitionCount())
        return nullptr;
    const auto &s = m_cells[std::size_t(ordinal)].status;
    return s ? &*s : nullptr;
}

int PartitionCalendarModel::ordinalOfName(const QString &name) const
{
    if (!m_hasModel || m_cells.empty())
        return -1;
    auto p = m_model.scheme().parse(name.trimmed().toStdString());
    if (!p)
        return -1;
    auto it = std::lower_bound(m_cells.begin(), m_cells.end(), p->start,
                               [](const Cell &c, const QDateTime &start) { return c.partition.start < start; });
    if (it == m_cells.end() || it->partition.start != p->start)
        return -1;
    return int(it - m_cells.begin());
}

int PartitionCalendarModel::ordinalOf(const QModelIndex &index) const
{
    if (!index.isValid() || index.model() != this || index.row() >= rowCount() || index.column() >= m_columns)
        return -1;
    return m_slots[std::size_t(index.row()) * std::size_t(m_columns) + std::size_t(index.column())];
}

int PartitionCalendarModel::ordinalAt(int row, int column) const
{
    if (row < 0 || column < 0 || row >= rowCount() || column >= m_columns)
        return -1;
    return m_slots[std::size_t(row) * std::size_t(m_columns) + std::size_t(column)];
}

PartitionCalendarModel::CellSummary PartitionCalendarModel::summary(int ordinal) const
{
    CellSummary s;
    if (ordinal < 0 || ordinal >= partitionCount())
        return s;
    const Cell &c = m_cells[std::size_t(ordinal)];
    s.colour = c.colour;
    s.health = c.health;
    s.claimState = c.claimState;
    s.hasStatus = c.status.has_value();
    s.empty = c.status && c.status->rows == 0;
    s.future = isFuture(ordinal);
    s.today = c.partition.start <= m_now && m_now < c.partition.end;
    s.weekend = c.weekend;
    s.label = c.label;
    return s;
}

QModelIndex PartitionCalendarModel::indexOfOrdinal(int ordinal) const
{
    if (ordinal < 0 || ordinal >= partitionCount())
        return {};
    const Cell &c = m_cells[std::size_t(ordinal)];
    return index(c.row, c.column);
}

QString PartitionCalendarModel::namesText(int first, int last) const
{
    const QString a = QString::fromStdString(partition(first).name);
    return first == last ? a : a + QStringLiteral(" .. ") + QString::fromStdString(partition(last).name);
}

bool PartitionCalendarModel::isFailing(int ordinal) const
{
    return health(ordinal) == Health::Mismatch;
}

PartitionCalendarModel::Health PartitionCalendarModel::health(int ordinal) const
{
    if (ordinal < 0 || ordinal >= partitionCount())
        return Health::NotLoaded;
    return m_cells[std::size_t(ordinal)].health;
}

std::vector<int> PartitionCalendarModel::failingOrdinals() const
{
    std::vector<int> out;
    for (std::size_t i = 0; i < m_cells.size(); ++i)
        if (m_cells[i].health == Health::Mismatch)
            out.push_back(int(i));
    return out;
}

int PartitionCalendarModel::rowOfYear(int year) const
{
    for (std::size_t r = 0; r < m_rows.size(); ++r)
        if (m_rows[r].group == year)
            return int(r);
    return -1;
}

int PartitionCalendarModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int PartitionCalendarModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() || m_rows.empty() ? 0 : m_columns;
}

Qt::ItemFlags PartitionCalendarModel::flags(const QModelIndex &index) const
{
    const int o = ordinalOf(index);
    if (o < 0)
        return Qt::NoItemFlags;
    if (isFuture(o))
        return Qt::ItemIsEnabled;
    return Qt::ItemIsEnabled | Qt::ItemIsSelectable;
}

QVariantList PartitionCalendarModel::checksOf(const Cell &c) const
{
    QVariantList out;
    if (!c.status)
        return out;
    const StatusRow &s = *c.status;
    for (const backfill::Check &check : m_model.checks) {
        QString state = s.checksRead ? QStringLiteral("unknown") : QStringLiteral("checking");
        std::string source;
        for (const auto &[name, st] : s.checks)
            if (name == check.name)
                state = q(st);
        for (const auto &[name, v] : s.checkValues)
            if (name == check.name)
                source = v;
        double mine = std::numeric_limits<double>::quiet_NaN();
        QString mineText;
        if (check.measure == "rows") {
            mine = double(s.rows);
            mineText = number(mine);
        } else {
            for (std::size_t i = 0; i < s.measures.size(); ++i)
                if (s.measures[i].first == check.measure) {
                    mine = i < c.measureValues.size() ? c.measureValues[i] : mine;
                    mineText = numberText(s.measures[i].second);
                }
        }
        const double src = parseNumber(source);
        QVariantMap m{{QStringLiteral("name"), q(check.name)},
                      {QStringLiteral("measure"), q(check.measure)},
                      {QStringLiteral("state"), state},
                      {QStringLiteral("value"), mineText},
                      {QStringLiteral("source"), source.empty() ? QString() : numberText(source)}};
        if (!std::isnan(mine) && !std::isnan(src)) {
            const double diff = mine - src;
            QString text = (diff > 0 ? QStringLiteral("+") : QString()) + number(diff);
            if (src != 0 && diff != 0)
                text += QStringLiteral(" (%1 %)").arg(QLocale().toString(100.0 * diff / std::abs(src), 'f', 2));
            m.insert(QStringLiteral("difference"), text);
        }
        out.append(m);
    }
    return out;
}

QVariant PartitionCalendarModel::data(const QModelIndex &index, int role) const
{
    const int o = ordinalOf(index);
    if (o < 0)
        return {};
    const Cell &c = m_cells[std::size_t(o)];
    switch (role) {
    case Qt::DisplayRole:
        switch (m_model.grain) {
        case Grain::Day: return c.date.day();
        case Grain::Hour: return QStringLiteral("%1").arg(c.label, 2, 10, QLatin1Char('0'));
        case Grain::Week: return QStringLiteral("W%1").arg(c.column + 1);
        case Grain::Month: return QLocale().monthName(c.date.month(), QLocale::ShortFormat);
        }
        return {};
    case Qt::ToolTipRole: return toolTipOf(o);
    case Qt::AccessibleTextRole: {
        QString text = q(c.partition.name);
        if (c.status)
            text += tr(", %n rows", nullptr, int(std::min<long long>(c.status->rows, 1 << 30)));
        if (c.health == Health::Mismatch)
            text += tr(", a check fails");
        return text;
    }
    case Qt::BackgroundRole: return c.colour.isValid() ? QVariant(c.colour) : QVariant();
    case PartitionNameRole: return q(c.partition.name);
    case OrdinalRole: return o;
    case StartRole: return c.partition.start;
    case EndRole: return c.partition.end;
    case HasStatusRole: return c.status.has_value();
    case RowsRole: return c.status ? QVariant(qlonglong(c.status->rows)) : QVariant();
    case MeasuresRole: {
        QVariantList list;
        if (c.status)
            for (const auto &[name, value] : c.status->measures)
                list.append(QVariantMap{{QStringLiteral("name"), q(name)}, {QStringLiteral("value"), numberText(value)}});
        return list;
    }
    case ChecksRole: return checksOf(c);
    case HealthRole: return int(c.health);
    case LoadedAtRole: return c.loadedAt;
    case ClaimRole:
        if (c.status && !c.status->claimedBy.empty())
            return tr("claimed by %1").arg(q(c.status->claimedBy));
        return c.published;
    case ClaimStateRole: return int(c.claimState);
    case MetricRole: return c.hasMetric ? QVariant(c.metric) : QVariant();
    case MetricTextRole: {
        if (!c.hasMetric)
            return QString();
        switch (m_metric) {
        case Metric::Checks: return QString();
        case Metric::RowsVsMedian:
            return tr("%1 % of the trailing median for this %2")
                .arg(QLocale().toString(c.metric * 100, 'f', 0),
                     m_model.grain == Grain::Day    ? tr("weekday")
                     : m_model.grain == Grain::Hour ? tr("hour of the week")
                                                     : tr("period"));
        case Metric::Measure: return tr("%1: %2").arg(m_metricMeasure, number(c.metric));
        case Metric::Freshness:
            return c.metric < 48 ? tr("loaded %1 h ago").arg(QLocale().toString(c.metric, 'f', 0))
                                 : tr("loaded %1 days ago").arg(QLocale().toString(c.metric / 24, 'f', 0));
        case Metric::Claims: return QString();
        }
        return QString();
    }
    case EmptyRole: return c.status && c.status->rows == 0;
    case FutureRole: return isFuture(o);
    case TodayRole: return c.partition.start <= m_now && m_now < c.partition.end;
    case WeekendRole: return c.weekend;
    default: return {};
    }
}

QVariant PartitionCalendarModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation == Qt::Vertical) {
        if (section < 0 || section >= rowCount())
            return {};
        const RowInfo &r = m_rows[std::size_t(section)];
        switch (role) {
        case Qt::DisplayRole: return r.label;
        case GroupRole: return r.group;
        case WeekendRole: return r.weekend;
        default: return {};
        }
    }
    if (section < 0 || section >= columnCount())
        return {};
    switch (role) {
    case Qt::DisplayRole:
        switch (m_model.grain) {
        case Grain::Day: return QLocale().dayName(section % 7 + 1, QLocale::ShortFormat).left(1);
        case Grain::Hour:
            return section < 24 ? QStringLiteral("%1").arg(section, 2, 10, QLatin1Char('0')) : tr("2nd");
        case Grain::Week: return QString::number(section + 1);
        case Grain::Month: return QLocale().monthName(section + 1, QLocale::ShortFormat);
        }
        return {};
    case WeekendRole: return m_model.grain == Grain::Day && section % 7 >= 5;
    default: return {};
    }
}

QHash<int, QByteArray> PartitionCalendarModel::roleNames() const
{
    QHash<int, QByteArray> names = QAbstractTableModel::roleNames();
    names.insert(PartitionNameRole, "partitionName");
    names.insert(OrdinalRole, "ordinal");
    names.insert(StartRole, "start");
    names.insert(EndRole, "end");
    names.insert(HasStatusRole, "hasStatus");
    names.insert(RowsRole, "rows");
    names.insert(MeasuresRole, "measures");
    names.insert(ChecksRole, "checks");
    names.insert(HealthRole, "health");
    names.insert(LoadedAtRole, "loadedAt");
    names.insert(ClaimRole, "claim");
    names.insert(ClaimStateRole, "claimState");
    names.insert(MetricRole, "metric");
    names.insert(MetricTextRole, "metricText");
    names.insert(EmptyRole, "empty");
    names.insert(FutureRole, "future");
    names.insert(TodayRole, "today");
    names.insert(WeekendRole, "weekend");
    return names;
}

QColor PartitionCalendarModel::colourOf(int ordinal) const
{
    if (ordinal < 0 || ordinal >= partitionCount())
        return {};
    return m_cells[std::size_t(ordinal)].colour;
}

QString PartitionCalendarModel::toolTipOf(int ordinal) const
{
    if (ordinal < 0 || ordinal >= partitionCount())
        return {};
    const Cell &c = m_cells[std::size_t(ordinal)];
    const QModelIndex idx = indexOfOrdinal(ordinal);
    QString html = QStringLiteral("<b>%1</b>").arg(q(c.partition.name).toHtmlEscaped());
    html += QStringLiteral("<br>%1 – %2").arg(c.partition.start.toString(Qt::ISODate), c.partition.end.toString(Qt::ISODate));
    if (isFuture(ordinal))
        return html + QStringLiteral("<br>") + tr("In the future");
    if (!c.status)
        return html + QStringLiteral("<br>") + tr("No statistics yet");
    html += QStringLiteral("<br>") + (c.status->rows == 0 ? tr("No rows") : tr("Rows: %1").arg(number(double(c.status->rows))));
    for (const QVariant &v : data(idx, MeasuresRole).toList()) {
        const QVariantMap m = v.toMap();
        html += QStringLiteral("<br>%1: %2").arg(m.value(QStringLiteral("name")).toString().toHtmlEscaped(),
                                                 m.value(QStringLiteral("value")).toString());
    }
    for (const QVariant &v : checksOf(c)) {
        const QVariantMap m = v.toMap();
        const QString state = m.value(QStringLiteral("state")).toString();
        const QString mark = state == QLatin1String("ok") ? QStringLiteral("✓") : state == QLatin1String("mismatch") ? QStringLiteral("✗") : state == QLatin1String("checking") ? QStringLiteral("…") : QStringLiteral("?");
        html += QStringLiteral("<br>%1 %2").arg(mark, m.value(QStringLiteral("name")).toString().toHtmlEscaped());
        if (m.contains(QStringLiteral("difference")) && state == QLatin1String("mismatch"))
            html += QStringLiteral(" (%1)").arg(m.value(QStringLiteral("difference")).toString());
    }
    const QString claim = data(idx, ClaimRole).toString();
    if (!claim.isEmpty())
        html += QStringLiteral("<br>") + claim.toHtmlEscaped();
    return html;
}

} // namespace reprint::model
