#pragma once
// The legend under the calendar: the current metric's colours, then the marks that do not
// depend on it (fails a check, no rows, not read yet, future, today, claimed, weekend, in
// the window), drawn as the calendar draws them. Its height is that of its entries wrapped
// at its width, worked out by the layout (heightForWidth), so the calendar above it never
// moves after a paint.
//
// It shows what it is given (PartitionCalendarModel::legend()); it reads nothing itself.
// Thread affinity: GUI thread.

#include "partitioncalendarmodel.h"

#include <QList>
#include <QWidget>

#include <vector>

class QPainter;

namespace reprint::views {

class CalendarLegend : public QWidget {
    Q_OBJECT

public:
    explicit CalendarLegend(QWidget *parent = nullptr);

    // The metric's colours and its name, shown before the marks.
    void setEntries(const QList<model::PartitionCalendarModel::LegendEntry> &entries, const QString &title);

    bool hasHeightForWidth() const override { return true; }
    int heightForWidth(int width) const override;
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void resizeEvent(QResizeEvent *event) override;
    void paintEvent(QPaintEvent *event) override;

private:
    // Where each heading and entry goes at a width: the metric's row, then the marks'
    // row, each wrapped where the next entry would not fit.
    struct Placement {
        std::vector<QRect> rects;
        int lines = 0;
    };
    Placement place(int width) const;
    // The swatch of mark `mark` (an index into markLabels()) in `r`.
    void drawMark(QPainter &p, int mark, const QRect &r) const;

    static QString marksHeading();
    // In the order drawMark() numbers their swatches.
    static QStringList markLabels();

    int lineHeight() const;
    int swatchSize() const;

    QList<model::PartitionCalendarModel::LegendEntry> m_entries;
    QString m_title;
};

} // namespace reprint::views
