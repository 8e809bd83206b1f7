#pragma once
// The review's old/new chart: one chart per chosen measure, side by side in equal shares of
// the width, each plotting the measure's old, new and source value per partition over the
// partitions' dates, with the window shaded; the legend on the last chart only.
//
// The charts read the review model (not owned) through QVXYModelMapper: they never query,
// and follow the model as its review changes. The widget's objectName is "reviewChart", each
// chart view's "reviewChart_<measure>".
//
// Thread affinity: GUI thread.

#include <QList>
#include <QStringList>
#include <QWidget>

class QChart;
class QChartView;
class QDateTimeAxis;
class QValueAxis;

namespace reprint::model {
class ReviewModel;
}

namespace reprint::views {

class ReviewChart : public QWidget {
    Q_OBJECT

public:
    explicit ReviewChart(model::ReviewModel *model, QWidget *parent = nullptr);

    // Replaces the charts with one per name in `measures` (measures of the model), in order.
    void setMeasures(const QStringList &measures);
    QList<QChartView *> chartViews() const { return m_views; }

private:
    class ChartValues;
    // What one measure's chart spans: its dates (ms since the epoch), the window's first
    // and last partition, and its values.
    struct Extent {
        qint64 minX = 0, maxX = 0, first = 0, last = 0, step = 0;
        double minY = 0, maxY = 0;
        bool haveWindow = false;
    };
    Extent extentOf(int measure) const;
    void fillChart(QChart *chart, int measure, bool legend);
    QDateTimeAxis *dateAxis(const Extent &extent) const;
    QValueAxis *valueAxis(const Extent &extent, const QString &measureName) const;
    void shadeWindow(QChart *chart, const Extent &extent, QDateTimeAxis *axisX, QValueAxis *axisY) const;
    void addSeries(QChart *chart, int measure, QDateTimeAxis *axisX, QValueAxis *axisY);

    model::ReviewModel *m_model;
    ChartValues *m_values;
    QStringList m_measures;
    QList<QChartView *> m_views;
};

} // namespace reprint::views
