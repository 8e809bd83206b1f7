#include "calendarview.h"
#include "darkpalette.h"

#include "partitioncalendarmodel.h"

#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QScrollBar>

#include <algorithm>

namespace reprint::views {

using model::PartitionCalendarModel;
using Grain = backfill::Grain;

namespace {

QColor withAlpha(QColor c, int alpha)
{
    c.setAlpha(alpha);
    return c;
}

const QColor kTodayRing(0xf0, 0x8c, 0x00);

} // namespace

CalendarView::CalendarView(QWidget *parent)
    : QAbstractItemView(parent)
{
    setSelectionMode(QAbstractItemView::ContiguousSelection);
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    setMouseTracking(true);
    viewport()->setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOn);
    setAttribute(Qt::WA_OpaquePaintEvent);
    viewport()->setAttribute(Qt::WA_OpaquePaintEvent);
}

CalendarView::~CalendarView() = default;

void CalendarView::setCalendarModel(PartitionCalendarModel *calendar)
{
    if (m_calendar)
        disconnect(m_calendar, nullptr, this, nullptr);
    m_calendar = calendar;
    setModel(calendar);
    m_anchor = m_current = m_first = m_last = m_hover = -1;
    if (!calendar)
        return;
    connect(calendar, &QAbstractItemModel::modelAboutToBeReset, this, [this] {
        // Ordinals do not survive a reset; remember the range by name.
        setProperty("_first", m_first >= 0 ? m_calendar->data(m_calendar->indexOfOrdinal(m_first),
                                                               PartitionCalendarModel::PartitionNameRole)
                                           : QVariant());
        setProperty("_last", m_last >= 0 ? m_calendar->data(m_calendar->indexOfOrdinal(m_last),
                                                             PartitionCalendarModel::PartitionNameRole)
                                         : QVariant());
    });
    connect(calendar, &QAbstractItemModel::modelReset, this, [this] {
        const int first = m_calendar->ordinalOfName(property("_first").toString());
        const int last = m_calendar->ordinalOfName(property("_last").toString());
        m_anchor = m_current = m_first = m_last = m_hover = -1;
        relayout();
        if (first >= 0 && last >= 0)
            selectRange(first, last);
        else
            Q_EMIT rangeSelected(-1, -1);
        viewport()->update();
    });
    relayout();
}

void CalendarView::relayout()
{
    m_rowTop.clear();
    m_groupStart.clear();
    if (!m_calendar) {
        m_contentHeight = m_contentWidth = 0;
        return;
    }
    const QFontMetrics fm(font());
    const int rows = m_calendar->rowCount();
    const int cols = m_calendar->columnCount();
    int widest = fm.horizontalAdvance(QStringLiteral("0000"));
    for (int r = 0; r < rows; ++r)
        widest = std::max(widest, fm.horizontalAdvance(m_calendar->headerData(r, Qt::Vertical).toString()));
    m_labelWidth = widest + 20;
    m_headerHeight = fm.height() + 10;
    m_groupHeight = fm.height() + 18;

    const Grain grain = m_calendar->hasModel() ? m_calendar->grain() : Grain::Day;
    int minW = 12, maxW = 34;
    if (grain == Grain::Week)
        minW = 14, maxW = 26;
    else if (grain == Grain::Month)
        minW = 30, maxW = 72;
    m_gap = grain == Grain::Hour ? 1 : 2;
    const int avail = viewport()->width() - m_labelWidth - 12;
    m_cellW = cols > 0 ? std::clamp(avail / cols, minW, maxW) : minW;
    switch (grain) {
    case Grain::Day: m_cellH = std::clamp(m_cellW, 16, 24); break;
    case Grain::Hour: m_cellH = std::max(14, fm.height() + 1); break;
    case Grain::Week: m_cellH = 24; break;
    case Grain::Month: m_cellH = 28; break;
    }

    int y = m_headerHeight;
    int group = std::numeric_limits<int>::min();
    m_rowTop.resize(std::size_t(rows));
    m_groupStart.resize(std::size_t(rows));
    for (int r = 0; r < rows; ++r) {
        const int g = m_calendar->headerData(r, Qt::Vertical, PartitionCalendarModel::GroupRole).toInt();
        // Years head their rows when a year spans several rows (day and hour grain).
        const bool heading = g != group && (grain == Grain::Day || grain == Grain::Hour);
        m_groupStart[std::size_t(r)] = heading;
        if (heading)
            y += m_groupHeight;
        group = g;
        m_rowTop[std::size_t(r)] = y;
        y += m_cellH + m_gap;
    }
    m_contentHeight = y + 10;
    m_contentWidth = m_labelWidth + cols * m_cellW + 12;
    updateGeometries();
}

void CalendarView::updateGeometries()
{
    const QSize vp = viewport()->size();
    verticalScrollBar()->setRange(0, std::max(0, m_contentHeight - vp.height()));
    verticalScrollBar()->setPageStep(vp.height());
    verticalScrollBar()->setSingleStep(m_cellH + m_gap);
    horizontalScrollBar()->setRange(0, std::max(0, m_contentWidth - vp.width()));
    horizontalScrollBar()->setPageStep(vp.width());
    horizontalScrollBar()->setSingleStep(m_cellW);
    QAbstractItemView::updateGeometries();
}

void CalendarView::resizeEvent(QResizeEvent *event)
{
    QAbstractItemView::resizeEvent(event);
    relayout();
    if (m_pendingScroll.isValid())
        scrollTo(m_pendingScroll, m_pendingHint);
}

int CalendarView::horizontalOffset() const
{
    return horizontalScrollBar()->value();
}

int CalendarView::verticalOffset() const
{
    return verticalScrollBar()->value();
}

bool CalendarView::isIndexHidden(const QModelIndex &) const
{
    return false;
}

QSize CalendarView::sizeHint() const
{
    return {m_contentWidth > 0 ? m_contentWidth + 20 : 640, 480};
}

int CalendarView::rowAtY(int contentY) const
{
    if (m_rowTop.empty())
        return -1;
    auto it = std::upper_bound(m_rowTop.begin(), m_rowTop.end(), contentY);
    if (it == m_rowTop.begin())
        return -1;
    const int r = int(it - m_rowTop.begin()) - 1;
    return contentY < m_rowTop[std::size_t(r)] + m_cellH ? r : -1;
}

int CalendarView::ordinalAtPoint(const QPoint &p) const
{
    if (!m_calendar || p.y() < m_headerHeight)
        return -1;
    const int row = rowAtY(p.y() + verticalOffset());
    const int x = p.x() + horizontalOffset() - m_labelWidth;
    if (row < 0 || x < 0)
        return -1;
    const int col = x / m_cellW;
    if (x - col * m_cellW >= m_cellW - m_gap + 1)
        return -1;
    return m_calendar->ordinalAt(row, col);
}

QRect CalendarView::cellRect(int ordinal) const
{
    if (!m_calendar || ordinal < 0 || ordinal >= m_calendar->partitionCount())
        return {};
    const QModelIndex idx = m_calendar->indexOfOrdinal(ordinal);
    return visualRect(idx);
}

QRect CalendarView::visualRect(const QModelIndex &index) const
{
    if (!index.isValid() || std::size_t(index.row()) >= m_rowTop.size())
        return {};
    return QRect(m_labelWidth + index.column() * m_cellW - horizontalOffset(),
                 m_rowTop[std::size_t(index.row())] - verticalOffset(), m_cellW - m_gap, m_cellH);
}

void CalendarView::scrollTo(const QModelIndex &index, ScrollHint hint)
{
    if (!index.isValid() || std::size_t(index.row()) >= m_rowTop.size())
        return;
    if (!m_painted) {
        m_pendingScroll = index;
        m_pendingHint = hint;
    }
    const int top = m_rowTop[std::size_t(index.row())];
    const int visibleTop = verticalOffset() + m_headerHeight;
    const int visibleBottom = verticalOffset() + viewport()->height();
    if (hint == PositionAtTop || (hint == EnsureVisible && top < visibleTop))
        verticalScrollBar()->setValue(top - m_headerHeight - (m_groupStart[std::size_t(index.row())] ? m_groupHeight : 0));
    else if (hint == PositionAtCenter)
        verticalScrollBar()->setValue(top - viewport()->height() / 2);
    else if (hint == PositionAtBottom || (hint == EnsureVisible && top + m_cellH > visibleBottom))
        verticalScrollBar()->setValue(top + m_cellH + m_gap - viewport()->height());
    const int left = m_labelWidth + index.column() * m_cellW;
    if (left < horizontalOffset() + m_labelWidth)
        horizontalScrollBar()->setValue(left - m_labelWidth);
    else if (left + m_cellW > horizontalOffset() + viewport()->width())
        horizontalScrollBar()->setValue(left + m_cellW - viewport()->width());
}

void CalendarView::scrollToYear(int year)
{
    if (!m_calendar)
        return;
    const int row = m_calendar->rowOfYear(year);
    if (row < 0)
        return;
    verticalScrollBar()->setValue(m_rowTop[std::size_t(row)] - m_headerHeight
                                  - (m_groupStart[std::size_t(row)] ? m_groupHeight : 0));
}

int CalendarView::yearInView() const
{
    if (!m_calendar || m_rowTop.empty())
        return 0;
    int row = rowAtY(verticalOffset() + m_headerHeight + m_groupHeight);
    if (row < 0) {
        auto it = std::lower_bound(m_rowTop.begin(), m_rowTop.end(), verticalOffset() + m_headerHeight);
        row = it == m_rowTop.end() ? int(m_rowTop.size()) - 1 : int(it - m_rowTop.begin());
    }
    return m_calendar->headerData(row, Qt::Vertical, PartitionCalendarModel::GroupRole).toInt();
}

void CalendarView::scrollContentsBy(int dx, int dy)
{
    viewport()->update();
    Q_UNUSED(dx);
    Q_UNUSED(dy);
    const int year = yearInView();
    if (year != m_lastYearInView) {
        m_lastYearInView = year;
        Q_EMIT yearInViewChanged(year);
    }
}

QModelIndex CalendarView::indexAt(const QPoint &point) const
{
    const int o = ordinalAtPoint(point);
    return o >= 0 ? m_calendar->indexOfOrdinal(o) : QModelIndex();
}

int CalendarView::clampToPast(int ordinal) const
{
    if (!m_calendar || ordinal < 0)
        return -1;
    return std::min(ordinal, m_calendar->lastPastOrdinal());
}

void CalendarView::selectRange(int first, int last)
{
    if (!m_calendar)
        return;
    int a = clampToPast(first);
    int b = clampToPast(last);
    if (a < 0 || b < 0)
        a = b = -1;
    const int lo = std::min(a, b);
    const int hi = std::max(a, b);
    m_anchor = a;
    m_current = b;
    if (b >= 0)
        selectionModel()->setCurrentIndex(m_calendar->indexOfOrdinal(b), QItemSelectionModel::NoUpdate);
    if (lo == m_first && hi == m_last)
        return;
    m_first = lo;
    m_last = hi;
    syncSelectionModel();
    viewport()->update();
    Q_EMIT rangeSelected(m_first, m_last);
}

void CalendarView::syncSelectionModel()
{
    QItemSelection selection;
    if (m_first >= 0) {
        QModelIndex runStart;
        QModelIndex runEnd;
        for (int o = m_first; o <= m_last; ++o) {
            const QModelIndex idx = m_calendar->indexOfOrdinal(o);
            if (runEnd.isValid() && idx.row() == runEnd.row() && idx.column() == runEnd.column() + 1) {
                runEnd = idx;
                continue;
            }
            if (runStart.isValid())
                selection.select(runStart, runEnd);
            runStart = runEnd = idx;
        }
        if (runStart.isValid())
            selection.select(runStart, runEnd);
    }
    selectionModel()->select(selection, QItemSelectionModel::ClearAndSelect);
}

void CalendarView::setSelection(const QRect &rect, QItemSelectionModel::SelectionFlags command)
{
    if (!m_calendar)
        return;
    int lo = -1, hi = -1;
    const QRect r = rect.normalized();
    for (int o = 0; o < m_calendar->partitionCount(); ++o) {
        if (!cellRect(o).intersects(r))
            continue;
        if (lo < 0)
            lo = o;
        hi = o;
    }
    if (command & QItemSelectionModel::Clear || lo < 0)
        selectRange(lo, hi);
    else
        selectRange(std::min(lo, m_first < 0 ? lo : m_first), std::max(hi, m_last));
}

QRegion CalendarView::visualRegionForSelection(const QItemSelection &selection) const
{
    QRegion region;
    for (const QItemSelectionRange &range : selection) {
        const QRect a = visualRect(range.topLeft());
        const QRect b = visualRect(range.bottomRight());
        region += a.united(b).adjusted(-2, -2, 2, 2);
    }
    return region;
}

QModelIndex CalendarView::moveCursor(CursorAction action, Qt::KeyboardModifiers modifiers)
{
    int key = Qt::Key_unknown;
    switch (action) {
    case MoveLeft: case MovePrevious: key = Qt::Key_Left; break;
    case MoveRight: case MoveNext: key = Qt::Key_Right; break;
    case MoveUp: key = Qt::Key_Up; break;
    case MoveDown: key = Qt::Key_Down; break;
    case MovePageUp: key = Qt::Key_PageUp; break;
    case MovePageDown: key = Qt::Key_PageDown; break;
    case MoveHome: key = Qt::Key_Home; break;
    case MoveEnd: key = Qt::Key_End; break;
    }
    const int o = moveFrom(m_current, key, modifiers);
    return o >= 0 ? m_calendar->indexOfOrdinal(o) : QModelIndex();
}

int CalendarView::moveFrom(int ordinal, int key, Qt::KeyboardModifiers modifiers) const
{
    if (!m_calendar || m_calendar->lastPastOrdinal() < 0)
        return -1;
    const int lastPast = m_calendar->lastPastOrdinal();
    if (ordinal < 0)
        return lastPast;
    // The partition in `row` whose column is nearest `column`.
    auto nearestInRow = [this](int row, int column) {
        const int cols = m_calendar->columnCount();
        for (int d = 0; d < cols; ++d) {
            if (int o = m_calendar->ordinalAt(row, column - d); o >= 0)
                return o;
            if (int o = m_calendar->ordinalAt(row, column + d); o >= 0)
                return o;
        }
        return -1;
    };
    const QModelIndex idx = m_calendar->indexOfOrdinal(ordinal);
    const int visibleRows = std::max(1, (viewport()->height() - m_headerHeight) / (m_cellH + m_gap));
    int target = ordinal;
    switch (key) {
    case Qt::Key_Left: target = ordinal - 1; break;
    case Qt::Key_Right: target = ordinal + 1; break;
    case Qt::Key_Up:
    case Qt::Key_Down:
    case Qt::Key_PageUp:
    case Qt::Key_PageDown: {
        const int step = key == Qt::Key_Up ? -1 : key == Qt::Key_Down ? 1 : key == Qt::Key_PageUp ? -visibleRows : visibleRows;
        const int row = std::clamp(idx.row() + step, 0, m_calendar->rowCount() - 1);
        target = nearestInRow(row, idx.column());
        break;
    }
    case Qt::Key_Home:
        target = (modifiers & Qt::ControlModifier) ? 0 : nearestInRow(idx.row(), 0);
        break;
    case Qt::Key_End:
        target = (modifiers & Qt::ControlModifier) ? lastPast : nearestInRow(idx.row(), m_calendar->columnCount() - 1);
        break;
    default: return ordinal;
    }
    return std::clamp(target, 0, lastPast);
}

void CalendarView::keyPressEvent(QKeyEvent *event)
{
    switch (event->key()) {
    case Qt::Key_Left:
    case Qt::Key_Right:
    case Qt::Key_Up:
    case Qt::Key_Down:
    case Qt::Key_PageUp:
    case Qt::Key_PageDown:
    case Qt::Key_Home:
    case Qt::Key_End: {
        if (!m_calendar)
            break;
        const int from = m_current >= 0 ? m_current : m_calendar->lastPastOrdinal();
        const int to = m_current >= 0 ? moveFrom(m_current, event->key(), event->modifiers()) : from;
        if (to < 0)
            break;
        if ((event->modifiers() & Qt::ShiftModifier) && m_anchor >= 0) {
            const int anchor = m_anchor;
            selectRange(anchor, to);
            m_anchor = anchor;
        } else {
            selectRange(to, to);
        }
        scrollTo(m_calendar->indexOfOrdinal(to));
        event->accept();
        return;
    }
    case Qt::Key_Escape:
        if (hasRange()) {
            selectRange(-1, -1);
            event->accept();
            return;
        }
        break;
    default: break;
    }
    QAbstractItemView::keyPressEvent(event);
}

void CalendarView::mousePressEvent(QMouseEvent *event)
{
    setFocus(Qt::MouseFocusReason);
    if (event->button() != Qt::LeftButton || !m_calendar) {
        QAbstractItemView::mousePressEvent(event);
        return;
    }
    const int o = clampToPast(ordinalAtPoint(event->position().toPoint()));
    if (o < 0 || m_calendar->isFuture(ordinalAtPoint(event->position().toPoint())))
        return;
    if ((event->modifiers() & Qt::ShiftModifier) && m_anchor >= 0) {
        const int anchor = m_anchor;
        selectRange(anchor, o);
        m_anchor = anchor;
    } else {
        selectRange(o, o);
    }
    m_dragging = true;
    event->accept();
}

void CalendarView::mouseMoveEvent(QMouseEvent *event)
{
    const int o = ordinalAtPoint(event->position().toPoint());
    setHover(o);
    if (m_dragging && (event->buttons() & Qt::LeftButton) && o >= 0 && m_anchor >= 0) {
        const int anchor = m_anchor;
        selectRange(anchor, clampToPast(o));
        m_anchor = anchor;
    }
}

void CalendarView::mouseReleaseEvent(QMouseEvent *event)
{
    m_dragging = false;
    event->accept();
}

void CalendarView::mouseDoubleClickEvent(QMouseEvent *event)
{
    mousePressEvent(event);
}

void CalendarView::leaveEvent(QEvent *event)
{
    setHover(-1);
    QAbstractItemView::leaveEvent(event);
}

void CalendarView::setHover(int ordinal)
{
    if (ordinal == m_hover)
        return;
    const QRect old = cellRect(m_hover);
    m_hover = ordinal;
    viewport()->update(old.adjusted(-3, -3, 3, 3));
    viewport()->update(cellRect(m_hover).adjusted(-3, -3, 3, 3));
    Q_EMIT partitionHovered(ordinal);
}

void CalendarView::paintEvent(QPaintEvent *event)
{
    m_painted = true;
    m_pendingScroll = QPersistentModelIndex();
    QPainter p(viewport());
    const Ink ink = inkFor();
    p.fillRect(event->rect(), ink.base);
    if (!m_calendar || m_rowTop.empty()) {
        p.setPen(ink.quiet);
        p.drawText(viewport()->rect(), Qt::AlignCenter, tr("No model selected"));
        return;
    }
    const int dx = horizontalOffset();
    const int dy = verticalOffset();
    const int cols = m_calendar->columnCount();
    const Grain grain = m_calendar->grain();
    const int top = dy + m_headerHeight;
    const int bottom = dy + viewport()->height();
    auto first = std::upper_bound(m_rowTop.begin(), m_rowTop.end(), top - m_cellH - m_groupHeight);
    int row = first == m_rowTop.begin() ? 0 : int(first - m_rowTop.begin()) - 1;
    for (; row < int(m_rowTop.size()) && m_rowTop[std::size_t(row)] - m_groupHeight < bottom; ++row) {
        const int y = m_rowTop[std::size_t(row)] - dy;
        paintRowHeading(p, row, y, ink);
        p.setFont(ink.cellFont);
        for (int col = 0; col < cols; ++col) {
            const int o = m_calendar->ordinalAt(row, col);
            const QRect r(m_labelWidth + col * m_cellW - dx, y, m_cellW - m_gap, m_cellH);
            if (grain == Grain::Day && col % 7 >= 5)
                p.fillRect(r.adjusted(-m_gap / 2 - 1, -m_gap / 2 - 1, m_gap / 2 + 1, m_gap / 2 + 1), ink.weekendTint);
            if (o >= 0)
                paintCell(p, r, o, ink);
        }
    }
    paintColumnLabels(p, ink);
}

CalendarView::Ink CalendarView::inkFor() const
{
    const QPalette pal = palette();
    Ink ink;
    ink.base = pal.color(QPalette::Base);
    ink.text = pal.color(QPalette::Text);
    ink.highlight = pal.color(QPalette::Highlight);
    ink.quiet = pal.color(QPalette::PlaceholderText);
    ink.dark = isDark(ink.base);
    ink.weekendTint = ink.dark ? QColor(255, 255, 255, 16) : QColor(0, 40, 120, 14);
    ink.weekendText = ink.dark ? QColor(0x8f, 0xb4, 0xf0) : QColor(0x2f, 0x5f, 0xb0);
    ink.labelFont = font();
    ink.cellFont = font();
    ink.cellFont.setPixelSize(std::max(8, std::min(m_cellH, m_cellW) * 9 / 20));
    ink.yearFont = font();
    ink.yearFont.setBold(true);
    ink.yearFont.setPointSizeF(ink.yearFont.pointSizeF() * 1.15);
    ink.cellLabels = m_cellW >= 16 && m_cellH >= 14;
    ink.hatch = QBrush(withAlpha(ink.text, ink.dark ? 80 : 60), Qt::BDiagPattern);
    return ink;
}

void CalendarView::paintRowHeading(QPainter &p, int row, int y, const Ink &ink) const
{
    const int dx = horizontalOffset();
    if (m_groupStart[std::size_t(row)]) {
        p.setFont(ink.yearFont);
        p.setPen(ink.text);
        const int year = m_calendar->headerData(row, Qt::Vertical, PartitionCalendarModel::GroupRole).toInt();
        p.drawText(QRect(8 - dx, y - m_groupHeight, 200, m_groupHeight - 4), Qt::AlignLeft | Qt::AlignBottom,
                   QString::number(year));
    }
    const bool weekendRow = m_calendar->headerData(row, Qt::Vertical, PartitionCalendarModel::WeekendRole).toBool();
    p.setFont(ink.labelFont);
    p.setPen(weekendRow ? ink.weekendText : ink.quiet);
    p.drawText(QRect(8 - dx, y, m_labelWidth - 14, m_cellH), Qt::AlignRight | Qt::AlignVCenter,
               m_calendar->headerData(row, Qt::Vertical).toString());
    if (weekendRow)
        p.fillRect(QRect(m_labelWidth - dx - 2, y - m_gap / 2, m_calendar->columnCount() * m_cellW + 2, m_cellH + m_gap),
                   ink.weekendTint);
}

void CalendarView::paintCell(QPainter &p, const QRect &r, int o, const Ink &ink) const
{
    const QColor &text = ink.text;
    const PartitionCalendarModel::CellSummary s = m_calendar->summary(o);
    QColor fill;
    QColor pen = text;  // the label's ink
    if (s.future) {
        p.setPen(withAlpha(text, 45));
        p.setBrush(Qt::NoBrush);
        p.drawRect(r.adjusted(0, 0, -1, -1));
        pen = withAlpha(text, 80);
    } else if (!s.hasStatus && !s.colour.isValid()) {
        fill = withAlpha(text, 28);
        p.fillRect(r, fill);
        pen = ink.quiet;
    } else if (s.empty) {
        p.fillRect(r, ink.base);
        p.fillRect(r, ink.hatch);
        p.setPen(withAlpha(text, 110));
        p.setBrush(Qt::NoBrush);
        p.drawRect(r.adjusted(0, 0, -1, -1));
        pen = ink.quiet;
    } else {
        fill = s.colour.isValid() ? s.colour : withAlpha(text, 28);
        p.fillRect(r, fill);
        pen = isDark(fill) ? QColor(255, 255, 255, 235) : QColor(20, 22, 26, 220);
    }
    if (ink.cellLabels) {
        const QStaticText &label = cellLabel(s.label, ink);
        const QSizeF size = label.size();
        if (size.width() <= r.width() - 2) {
            p.setPen(pen);
            p.drawStaticText(QPointF(r.x() + (r.width() - size.width()) / 2, r.y() + (r.height() - size.height()) / 2),
                             label);
        }
    }
    if (s.health == PartitionCalendarModel::Health::Mismatch) {
        const int t = std::max(5, std::min(r.width(), r.height()) * 11 / 20);
        QPainterPath tri;
        tri.moveTo(r.right() + 1 - t, r.top());
        tri.lineTo(r.right() + 1, r.top());
        tri.lineTo(r.right() + 1, r.top() + t);
        tri.closeSubpath();
        p.setRenderHint(QPainter::Antialiasing, true);
        p.fillPath(tri, ink.dark ? QColor(255, 255, 255) : QColor(25, 25, 28));
        p.setRenderHint(QPainter::Antialiasing, false);
    }
    if (s.claimState == PartitionCalendarModel::ClaimState::Running
        || s.claimState == PartitionCalendarModel::ClaimState::Staged) {
        p.setPen(QPen(pen, 1, Qt::DashLine));
        p.setBrush(Qt::NoBrush);
        p.drawRect(r.adjusted(2, 2, -3, -3));
    }
    if (o >= m_first && o <= m_last && m_first >= 0) {
        p.fillRect(r, withAlpha(ink.highlight, 70));
        p.setPen(QPen(ink.highlight, 2));
        p.setBrush(Qt::NoBrush);
        p.drawRect(r.adjusted(1, 1, -1, -1));
    }
    if (s.today) {
        p.setPen(QPen(kTodayRing, 2));
        p.setBrush(Qt::NoBrush);
        p.drawRect(r.adjusted(-1, -1, 0, 0));
    }
    if (o == m_hover) {
        p.setPen(QPen(text, 1));
        p.setBrush(Qt::NoBrush);
        p.drawRect(r.adjusted(-2, -2, 1, 1));
    }
    if (o == m_current && hasFocus()) {
        p.setPen(QPen(text, 1, Qt::DotLine));
        p.setBrush(Qt::NoBrush);
        p.drawRect(r.adjusted(-2, -2, 1, 1));
    }
}

const QStaticText &CalendarView::cellLabel(int label, const Ink &ink) const
{
    const bool hourly = m_calendar->grain() == Grain::Hour;
    if (m_cellLabelsFont != ink.cellFont || m_cellLabelsHourly != hourly) {
        m_cellLabels.clear();
        m_cellLabelsFont = ink.cellFont;
        m_cellLabelsHourly = hourly;
    }
    const std::size_t at = std::size_t(std::max(0, label));
    if (at >= m_cellLabels.size())
        m_cellLabels.resize(at + 1);
    QStaticText &text = m_cellLabels[at];
    if (text.text().isEmpty()) {
        text.setTextFormat(Qt::PlainText);
        text.setText(hourly ? QStringLiteral("%1").arg(label, 2, 10, QLatin1Char('0')) : QString::number(label));
        text.prepare(QTransform(), ink.cellFont);
    }
    return text;
}

void CalendarView::paintColumnLabels(QPainter &p, const Ink &ink) const
{
    const int dx = horizontalOffset();
    const Grain grain = m_calendar->grain();
    const QRect header(0, 0, viewport()->width(), m_headerHeight);
    p.fillRect(header, ink.base);
    p.setPen(withAlpha(ink.text, 40));
    p.drawLine(header.bottomLeft(), header.bottomRight());
    p.setFont(ink.labelFont);
    const QFontMetrics fm(ink.labelFont);
    for (int col = 0; col < m_calendar->columnCount(); ++col) {
        const QString label = m_calendar->headerData(col, Qt::Horizontal).toString();
        const bool weekend = m_calendar->headerData(col, Qt::Horizontal, PartitionCalendarModel::WeekendRole).toBool();
        // Hours and weeks label every few columns when the cells are narrow.
        const int every = fm.horizontalAdvance(label) + 4 > m_cellW ? (grain == Grain::Hour ? 3 : 4) : 1;
        if (col % every != 0)
            continue;
        p.setPen(weekend ? ink.weekendText : ink.quiet);
        p.drawText(QRect(m_labelWidth + col * m_cellW - dx - 8, 0, m_cellW - m_gap + 16, m_headerHeight - 2),
                   Qt::AlignHCenter | Qt::AlignVCenter, label);
    }
}

} // namespace reprint::views
