#pragma once
// The partition calendar: a PartitionCalendarModel painted cell by cell (only the rows in
// view are painted), with a time-ordered range selection.
//
// Selection: a window is a range of partitions in time order, not a rectangle of cells.
// Click selects one partition; shift-click, drag, and shift with the arrow, Page and
// Home/End keys extend the range from the anchor. Future partitions are never selected.
// The view keeps its selectionModel() in step with the range (the cells of the range,
// row by row), so the usual item-view plumbing sees the same selection.
//
// Marks (colour is never the only signal): a failing partition carries a corner
// triangle; a partition with no rows is hatched; future partitions are outlined only;
// today's partition has an accent ring; weekends sit on a tinted band; a partition
// claimed by a backfill has a dashed inner outline.
//
// Thread affinity: GUI thread. The view does not own its model.

#include <QAbstractItemView>
#include <QBrush>
#include <QFont>
#include <QFontMetrics>
#include <QPersistentModelIndex>
#include <QStaticText>

#include <vector>

class QPainter;

namespace reprint::model {
class PartitionCalendarModel;
}

namespace reprint::views {

class CalendarView : public QAbstractItemView {
    Q_OBJECT

public:
    explicit CalendarView(QWidget *parent = nullptr);
    ~CalendarView() override;

    void setCalendarModel(model::PartitionCalendarModel *calendar);
    model::PartitionCalendarModel *calendarModel() const { return m_calendar; }

    // Selects partitions first..last (ordinals, either order), clamped to the past; -1
    // clears. The anchor becomes `first`; the current cell `last`. Emits rangeSelected
    // when the range changed.
    void selectRange(int first, int last);
    int selectionFirst() const { return m_first; }
    int selectionLast() const { return m_last; }
    bool hasRange() const { return m_first >= 0; }

    // Scrolls so that `year`'s first row is at the top.
    void scrollToYear(int year);
    // The year of the row at the top of the viewport.
    int yearInView() const;
    // The cell of partition `ordinal` in viewport coordinates (empty when none).
    QRect cellRect(int ordinal) const;

    // QAbstractItemView
    QRect visualRect(const QModelIndex &index) const override;
    void scrollTo(const QModelIndex &index, ScrollHint hint = EnsureVisible) override;
    QModelIndex indexAt(const QPoint &point) const override;
    QSize sizeHint() const override;

Q_SIGNALS:
    // The selected range changed: ordinals first <= last, or -1, -1 when cleared.
    void rangeSelected(int first, int last);
    // The pointer moved onto partition `ordinal`, or off every partition (-1).
    void partitionHovered(int ordinal);
    // The year in view changed by scrolling.
    void yearInViewChanged(int year);

protected:
    QModelIndex moveCursor(CursorAction cursorAction, Qt::KeyboardModifiers modifiers) override;
    int horizontalOffset() const override;
    int verticalOffset() const override;
    bool isIndexHidden(const QModelIndex &index) const override;
    void setSelection(const QRect &rect, QItemSelectionModel::SelectionFlags command) override;
    QRegion visualRegionForSelection(const QItemSelection &selection) const override;
    void updateGeometries() override;

    void paintEvent(QPaintEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    void mouseDoubleClickEvent(QMouseEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;
    void leaveEvent(QEvent *event) override;
    void scrollContentsBy(int dx, int dy) override;

private:
    void relayout();
    int rowAtY(int contentY) const;
    int ordinalAtPoint(const QPoint &viewportPoint) const;
    int clampToPast(int ordinal) const;
    int moveFrom(int ordinal, int key, Qt::KeyboardModifiers modifiers) const;
    void syncSelectionModel();
    void setHover(int ordinal);
    // The colours and fonts of one paint, from the palette, the font and the cell size.
    struct Ink {
        QColor base, text, highlight, quiet, weekendTint, weekendText;
        bool dark = false;
        QFont labelFont, cellFont, yearFont;
        bool cellLabels = false;  // the cells are large enough for their day or hour
        QBrush hatch;             // an empty partition
    };
    Ink inkFor() const;
    // Row `row`'s label at `y` (viewport), its year above it where a year starts, and the
    // tint of a weekend row.
    void paintRowHeading(QPainter &p, int row, int y, const Ink &ink) const;
    // Partition `ordinal` in `r`: its colour or state, its label and its marks.
    void paintCell(QPainter &p, const QRect &r, int ordinal, const Ink &ink) const;
    // The column labels, which stay at the top while the rows scroll under them.
    void paintColumnLabels(QPainter &p, const Ink &ink) const;

    model::PartitionCalendarModel *m_calendar = nullptr;
    std::vector<int> m_rowTop;   // content y of each row
    std::vector<bool> m_groupStart;
    int m_contentHeight = 0;
    int m_contentWidth = 0;
    int m_labelWidth = 60;
    int m_headerHeight = 22;
    int m_groupHeight = 30;
    int m_cellW = 18;
    int m_cellH = 18;
    int m_gap = 2;
    int m_anchor = -1;
    int m_current = -1;
    int m_first = -1;
    int m_last = -1;
    int m_hover = -1;
    int m_lastYearInView = 0;
    // A scroll asked for before the view was first painted: its size is not final yet, so
    // the scroll is made again at each resize until then (the screen opens on today).
    QPersistentModelIndex m_pendingScroll;
    ScrollHint m_pendingHint = EnsureVisible;
    bool m_painted = false;
    bool m_dragging = false;
    // The cells' labels (days, hours, weeks, months: 0 to 53) laid out once for the cell
    // font, not at each drawText (a year of hours paints ~700 of them a frame).
    const QStaticText &cellLabel(int label, const Ink &ink) const;
    mutable std::vector<QStaticText> m_cellLabels;
    mutable QFont m_cellLabelsFont;
    mutable bool m_cellLabelsHourly = false;
};

} // namespace reprint::views
