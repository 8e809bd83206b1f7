#include "reviewchart.h"

#include "reviewcolours.h"

#include "reviewmodel.h"

#include <QAreaSeries>
#include <QChart>
#include <QChartView>
#include <QDateTime>
#include <QDateTimeAxis>
#include <QHBoxLayout>
#include <QIdentityProxyModel>
#include <QLegend>
#include <QLineSeries>
#include <QScatterSeries>
#include <QVXYModelMapper>
#include <QValueAxis>

#include <algorithm>
#include <cmath>
#include <limits>

namespace reprint::views {

using model::ReviewModel;
using Field = ReviewModel::Field;

// The chart reads the review model's numbers, not its formatted text.
class ReviewChart::ChartValues : public QIdentityProxyModel {
public:
    using QIdentityProxyModel::QIdentityProxyModel;
    QVariant data(const QModelIndex &index, int role) const override
    {
        if (role == Qt::DisplayRole) {
            const QVariant v = QIdentityProxyModel::data(index, ReviewModel::ValueRole);
            return v.isValid() ? v : QVariant(qreal(std::nan("")));
        }
        return QIdentityProxyModel::data(index, role);
    }
};

namespace {

// The locale's numbers with thousands separators, even where it would omit them (C).
QLocale groupedLocale()
{
    QLocale l;
    l.setNumberOptions(l.numberOptions() & ~QLocale::OmitGroupSeparator);
    return l;
}

} // namespace

ReviewChart::ReviewChart(model::ReviewModel *model, QWidget *parent)
    : QWidget(parent)
    , m_model(model)
    , m_values(new ChartValues(this))
{
    m_values->setSourceModel(m_model);
    setObjectName(QStringLiteral("reviewChart"));
    setMinimumHeight(200);
    auto *row = new QHBoxLayout(this);
    row->setContentsMargins(0, 0, 0, 0);
    row->setSpacing(4);
}

void ReviewChart::setMeasures(const QStringList &measures)
{
    m_measures = measures;
    for (QChartView *v : std::as_const(m_views))
        delete v;
    m_views.clear();
    const QStringList all = m_model->measures();
    for (int i = 0; i < m_measures.size(); ++i) {
        auto *chart = new QChart;
        chart->setAnimationOptions(QChart::NoAnimation);
        chart->setMargins(QMargins(4, 4, 4, 4));
        chart->setBackgroundRoundness(0);
        chart->setLocalizeNumbers(true);
        chart->setLocale(groupedLocale());
        auto *view = new QChartView(chart, this);
        view->setObjectName(QStringLiteral("reviewChart_%1").arg(m_measures.at(i)));
        view->setRenderHint(QPainter::Antialiasing);
        view->setMinimumWidth(160);
        // Equal shares of the width, whatever size the chart's scene had before.
        view->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Expanding);
        fillChart(chart, int(all.indexOf(m_measures.at(i))), i == m_measures.size() - 1);
        static_cast<QHBoxLayout *>(layout())->addWidget(view, 1);
        view->show();
        m_views << view;
    }
}

// One measure's old, new and source per partition, the window shaded; the legend on the
// last chart only.
void ReviewChart::fillChart(QChart *chart, int measure, bool legend)
{
    const QPalette pal = palette();
    chart->setBackgroundBrush(pal.color(QPalette::Base));
    chart->setPlotAreaBackgroundVisible(false);
    // Beside a lone chart; above the last of several, so that their plots are as wide.
    chart->legend()->setAlignment(m_measures.size() > 1 ? Qt::AlignTop : Qt::AlignRight);
    chart->legend()->setVisible(legend);
    chart->legend()->setLabelColor(pal.color(QPalette::Text));
    chart->setTitleBrush(pal.color(QPalette::Text));
    if (measure < 0 || m_model->partitionCount() == 0)
        return;

    const Extent extent = extentOf(measure);
    QDateTimeAxis *axisX = dateAxis(extent);
    QValueAxis *axisY = valueAxis(extent, m_model->measures().value(measure));
    chart->addAxis(axisX, Qt::AlignBottom);
    chart->addAxis(axisY, Qt::AlignLeft);
    if (extent.haveWindow)
        shadeWindow(chart, extent, axisX, axisY);
    addSeries(chart, measure, axisX, axisY);
}

ReviewChart::Extent ReviewChart::extentOf(int measure) const
{
    const int n = m_model->partitionCount();
    Extent e;
    double minY = std::numeric_limits<double>::max(), maxY = std::numeric_limits<double>::lowest();
    for (int r = 0; r < n; ++r) {
        const qint64 x = qint64(m_model->index(r, 0).data(ReviewModel::ValueRole).toDouble());
        e.minX = r == 0 ? x : std::min(e.minX, x);
        e.maxX = r == 0 ? x : std::max(e.maxX, x);
        for (Field f : {Field::Old, Field::New, Field::Source}) {
            const QVariant v = m_model->index(r, m_model->columnFor(measure, f)).data(ReviewModel::ValueRole);
            if (v.isValid()) {
                minY = std::min(minY, v.toDouble());
                maxY = std::max(maxY, v.toDouble());
            }
        }
        if (ReviewModel::Place(m_model->index(r, 0).data(ReviewModel::PlaceRole).toInt()) != ReviewModel::Place::Outside) {
            if (!e.haveWindow)
                e.first = x;
            e.last = x;
            e.haveWindow = true;
        }
    }
    if (minY > maxY)
        minY = maxY = 0;
    e.minY = minY;
    e.maxY = maxY;
    e.step = n > 1 ? (e.maxX - e.minX) / (n - 1) : 86400000;
    return e;
}

QDateTimeAxis *ReviewChart::dateAxis(const Extent &extent) const
{
    const int n = m_model->partitionCount();
    const QPalette pal = palette();
    auto *axisX = new QDateTimeAxis;
    axisX->setFormat(QStringLiteral("MMM d"));
    // Ticks on whole partitions: the range is n + 1 steps; narrower charts (several side by
    // side) get fewer.
    const int limit = m_measures.size() > 1 ? 5 : 13;
    int intervals = std::min(limit, n + 1);
    for (int d = intervals; d > 1; --d)
        if ((n + 1) % d == 0) {
            intervals = d;
            break;
        }
    axisX->setTickCount(intervals + 1);
    axisX->setRange(QDateTime::fromMSecsSinceEpoch(extent.minX - extent.step),
                    QDateTime::fromMSecsSinceEpoch(extent.maxX + extent.step));
    axisX->setLabelsColor(pal.color(QPalette::Text));
    axisX->setGridLineColor(pal.color(QPalette::Mid));
    return axisX;
}

QValueAxis *ReviewChart::valueAxis(const Extent &extent, const QString &measureName) const
{
    const QPalette pal = palette();
    const double minY = extent.minY, maxY = extent.maxY;
    const double pad = std::max((maxY - minY) * 0.12, std::abs(maxY) * 0.02 + 1e-9);
    const double lowY = std::max(0.0, minY - pad) == 0.0 && minY >= 0 && minY - pad < 0 ? 0.0 : minY - pad;
    const double highY = maxY + pad;
    auto *axisY = new QValueAxis;
    axisY->setRange(lowY, highY);
    axisY->applyNiceNumbers();
    // As many decimals as the ticks' spacing needs (a flat count of 1 is not "1 1 1 1").
    const double spacing = (axisY->max() - axisY->min()) / std::max(1, axisY->tickCount() - 1);
    const int decimals = spacing > 0 ? std::clamp(int(-std::floor(std::log10(spacing))), 0, 6) : 0;
    axisY->setLabelFormat(QStringLiteral("%.%1f").arg(decimals));
    axisY->setLabelsColor(pal.color(QPalette::Text));
    axisY->setGridLineColor(pal.color(QPalette::Mid));
    axisY->setTitleText(measureName);
    axisY->setTitleBrush(pal.color(QPalette::Text));
    return axisY;
}

// The window, shaded: from half a step before its first partition to half a step after
// its last.
void ReviewChart::shadeWindow(QChart *chart, const Extent &extent, QDateTimeAxis *axisX, QValueAxis *axisY) const
{
    auto *upper = new QLineSeries(chart);
    auto *lower = new QLineSeries(chart);
    upper->append(double(extent.first - extent.step / 2), axisY->max());
    upper->append(double(extent.last + extent.step / 2), axisY->max());
    lower->append(double(extent.first - extent.step / 2), axisY->min());
    lower->append(double(extent.last + extent.step / 2), axisY->min());
    auto *area = new QAreaSeries(upper, lower);
    area->setName(tr("window"));
    QColor shade = palette().color(QPalette::Highlight);
    shade.setAlpha(28);
    area->setBrush(shade);
    area->setPen(Qt::NoPen);
    chart->addSeries(area);
    area->attachAxis(axisX);
    area->attachAxis(axisY);
}

void ReviewChart::addSeries(QChart *chart, int measure, QDateTimeAxis *axisX, QValueAxis *axisY)
{
    const int n = m_model->partitionCount();
    auto mapped = [&](QXYSeries *series, Field field) {
        auto *mapper = new QVXYModelMapper(series);
        mapper->setXColumn(0);
        mapper->setYColumn(m_model->columnFor(measure, field));
        mapper->setFirstRow(0);
        mapper->setRowCount(n);
        mapper->setSeries(series);
        mapper->setModel(m_values);
    };
    auto *oldSeries = new QLineSeries;
    oldSeries->setName(tr("old"));
    QPen oldPen(palette().color(QPalette::PlaceholderText), 2, Qt::DashLine);
    oldSeries->setPen(oldPen);
    oldSeries->setPointsVisible(true);
    auto *newSeries = new QLineSeries;
    newSeries->setName(tr("new"));
    newSeries->setPen(QPen(QColor(0x2f, 0x7e, 0xd8), 2.5));
    newSeries->setPointsVisible(true);
    auto *sourceSeries = new QScatterSeries;
    sourceSeries->setName(tr("source"));
    sourceSeries->setMarkerShape(QScatterSeries::MarkerShapeRectangle);
    sourceSeries->setMarkerSize(9);
    sourceSeries->setColor(kWarn);
    sourceSeries->setBorderColor(kWarn.darker(130));
    for (QXYSeries *s : {static_cast<QXYSeries *>(oldSeries), static_cast<QXYSeries *>(newSeries),
                         static_cast<QXYSeries *>(sourceSeries)}) {
        chart->addSeries(s);
        s->attachAxis(axisX);
        s->attachAxis(axisY);
    }
    mapped(oldSeries, Field::Old);
    mapped(newSeries, Field::New);
    mapped(sourceSeries, Field::Source);
}

} // namespace reprint::views
