#include "calendarlegend.h"

#include "darkpalette.h"

#include <QPainter>
#include <QPainterPath>

namespace reprint::views {

CalendarLegend::CalendarLegend(QWidget *parent)
    : QWidget(parent)
{
    QSizePolicy policy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    policy.setHeightForWidth(true);
    setSizePolicy(policy);
}

void CalendarLegend::setEntries(const QList<model::PartitionCalendarModel::LegendEntry> &entries, const QString &title)
{
    m_entries = entries;
    m_title = title;
    updateGeometry();
    update();
}

int CalendarLegend::heightForWidth(int width) const
{
    return place(width).lines * lineHeight() + 6;
}

QSize CalendarLegend::sizeHint() const
{
    return {600, heightForWidth(600)};
}

QSize CalendarLegend::minimumSizeHint() const
{
    return {200, heightForWidth(width() > 0 ? width() : 600)};
}

void CalendarLegend::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    if (heightForWidth(width()) != height())
        updateGeometry();
}

void CalendarLegend::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    const QPalette pal = palette();
    const QColor text = pal.color(QPalette::WindowText);
    const QColor quiet = pal.color(QPalette::PlaceholderText);
    const int s = swatchSize();
    const Placement placed = place(width());
    std::size_t next = 0;
    auto heading = [&](const QString &label) {
        p.setPen(quiet);
        p.drawText(placed.rects.at(next++), Qt::AlignLeft | Qt::AlignVCenter, label);
    };
    auto item = [&](auto drawSwatch, const QString &label) {
        const QRect r = placed.rects.at(next++);
        drawSwatch(QRect(r.x(), r.y() + (lineHeight() - s) / 2, s, s));
        p.setPen(text);
        p.drawText(r.adjusted(s + 6, 0, 0, 0), Qt::AlignLeft | Qt::AlignVCenter, label);
    };
    heading(m_title);
    for (const auto &e : m_entries)
        item([&](const QRect &r) { p.fillRect(r, e.colour); }, e.label);
    heading(marksHeading());
    const QStringList marks = markLabels();
    for (int i = 0; i < marks.size(); ++i)
        item([&](const QRect &r) { drawMark(p, i, r); }, marks.at(i));
}

void CalendarLegend::drawMark(QPainter &p, int mark, const QRect &r) const
{
    const QPalette pal = palette();
    const QColor text = pal.color(QPalette::WindowText);
    const QColor base = pal.color(QPalette::Base);
    const bool dark = isDark(base);
    switch (mark) {
    case 0: {  // fails a check
        p.fillRect(r, QColor(0xd6, 0x45, 0x45));
        QPainterPath tri;
        const int t = r.width() * 11 / 20;
        tri.moveTo(r.right() + 1 - t, r.top());
        tri.lineTo(r.right() + 1, r.top());
        tri.lineTo(r.right() + 1, r.top() + t);
        tri.closeSubpath();
        p.fillPath(tri, dark ? Qt::white : QColor(25, 25, 28));
        break;
    }
    case 1: {  // no rows
        p.fillRect(r, base);
        QColor h = text;
        h.setAlpha(dark ? 110 : 90);
        p.fillRect(r, QBrush(h, Qt::BDiagPattern));
        h.setAlpha(110);
        p.setPen(h);
        p.drawRect(r.adjusted(0, 0, -1, -1));
        break;
    }
    case 2: {  // not read yet
        QColor c = text;
        c.setAlpha(28);
        p.fillRect(r, c);
        break;
    }
    case 3: {  // future
        QColor c = text;
        c.setAlpha(60);
        p.setPen(c);
        p.drawRect(r.adjusted(0, 0, -1, -1));
        break;
    }
    case 4:  // today
        p.setPen(QPen(QColor(0xf0, 0x8c, 0x00), 2));
        p.drawRect(r.adjusted(1, 1, -1, -1));
        break;
    case 5:  // claimed
        p.setPen(QPen(text, 1, Qt::DashLine));
        p.drawRect(r.adjusted(1, 1, -2, -2));
        break;
    case 6:  // weekend
        p.fillRect(r, dark ? QColor(255, 255, 255, 30) : QColor(0, 40, 120, 28));
        break;
    case 7: {  // in the window
        const QColor highlight = pal.color(QPalette::Highlight);
        QColor fill = highlight;
        fill.setAlpha(70);
        p.fillRect(r, fill);
        p.setPen(QPen(highlight, 2));
        p.drawRect(r.adjusted(1, 1, -1, -1));
        break;
    }
    }
}

CalendarLegend::Placement CalendarLegend::place(int width) const
{
    const QFontMetrics fm(font());
    const int s = swatchSize();
    Placement out;
    int x = 4;
    int y = 3;
    auto heading = [&](const QString &label) {
        const int w = fm.horizontalAdvance(label) + 10;
        out.rects.emplace_back(x, y, w, lineHeight());
        x += w;
    };
    auto item = [&](const QString &label) {
        const int w = s + 6 + fm.horizontalAdvance(label) + 18;
        if (x + w > width && x > 4) {
            x = 4;
            y += lineHeight();
        }
        out.rects.emplace_back(x, y, w, lineHeight());
        x += w;
    };
    heading(m_title);
    for (const auto &e : m_entries)
        item(e.label);
    x = 4;
    y += lineHeight();
    heading(marksHeading());
    for (const QString &label : markLabels())
        item(label);
    out.lines = (y - 3) / lineHeight() + 1;
    return out;
}

QString CalendarLegend::marksHeading()
{
    return tr("Marks:");
}

QStringList CalendarLegend::markLabels()
{
    return {tr("fails a check"), tr("no rows"),  tr("not read yet"), tr("future"),
            tr("today"),         tr("claimed"), tr("weekend"),      tr("in the window")};
}

int CalendarLegend::lineHeight() const
{
    return fontMetrics().height() + 6;
}

int CalendarLegend::swatchSize() const
{
    return fontMetrics().height() - 3;
}

} // namespace reprint::views
