#include "scopenotice.h"

#include "banner.h"

#include "partitioncalendarmodel.h"

#include <QFrame>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QRegularExpression>
#include <QStyle>

#include <algorithm>

namespace reprint::views {

ScopeNotice::ScopeNotice(QWidget *parent)
    : QStackedWidget(parent)
{
    setObjectName(QStringLiteral("scopeNotice"));
    m_warning = banner(this, QColor(0xe0, 0xa8, 0x2e), QStringLiteral("underScopeWarning"));
    auto *warningLayout = new QHBoxLayout(m_warning);
    warningLayout->setContentsMargins(10, 6, 10, 6);
    auto *warningIcon = new QLabel(m_warning);
    warningIcon->setPixmap(style()->standardIcon(QStyle::SP_MessageBoxWarning).pixmap(18, 18));
    m_warningLabel = new QLabel(m_warning);
    m_warningLabel->setObjectName(QStringLiteral("underScopeText"));
    m_warningLabel->setWordWrap(true);
    m_widen = new QPushButton(tr("&Widen"), m_warning);
    m_widen->setObjectName(QStringLiteral("widen"));
    warningLayout->addWidget(warningIcon, 0, Qt::AlignTop);
    warningLayout->addWidget(m_warningLabel, 1);
    warningLayout->addWidget(m_widen, 0, Qt::AlignVCenter);
    connect(m_widen, &QPushButton::clicked, this, &ScopeNotice::widenClicked);
    m_note = new QLabel(this);
    m_note->setObjectName(QStringLiteral("scopeNote"));
    m_note->setForegroundRole(QPalette::PlaceholderText);
    m_note->setWordWrap(true);
    m_note->setContentsMargins(12, 0, 12, 0);
    addWidget(m_note);
    addWidget(m_warning);
    setFixedHeight(std::max(m_widen->sizeHint().height(), 2 * fontMetrics().lineSpacing()) + 6 + 6 + 4);
    setCurrentWidget(m_note);
}

void ScopeNotice::clearNote()
{
    m_note->clear();
}

void ScopeNotice::showWindow(const model::PartitionCalendarModel &calendar, int first, int last, bool haveModel)
{
    m_widenFirst = m_widenLast = -1;
    if (first < 0) {
        m_note->setText(!haveModel ? QString()
                                   : tr("Select a window: the partitions just outside it are checked "
                                        "here, so that a backfill leaves out none that fails."));
        setCurrentWidget(m_note);
        return;
    }
    QStringList parts;
    int lo = first;
    int hi = last;
    auto describe = [this, &calendar](int a, int b, const QString &side) {
        const QString names = calendar.namesText(a, b);
        return a == b ? tr("<b>%1</b>, just %2 the window, fails a check").arg(names, side)
                      : tr("<b>%1</b>, just %2 the window, fail checks").arg(names, side);
    };
    int o = first - 1;
    while (o >= 0 && calendar.isFailing(o))
        --o;
    if (o + 1 <= first - 1) {
        lo = o + 1;
        parts << describe(o + 1, first - 1, tr("before"));
    }
    o = last + 1;
    while (o <= calendar.lastPastOrdinal() && calendar.isFailing(o))
        ++o;
    if (last + 1 <= o - 1) {
        hi = o - 1;
        parts << describe(last + 1, o - 1, tr("after"));
    }
    if (parts.isEmpty()) {
        m_note->setText(outsideNote(calendar, first, last));
        setCurrentWidget(m_note);
        return;
    }
    m_widenFirst = lo;
    m_widenLast = hi;
    m_warningLabel->setText(tr("%1. The backfill would leave it out. Widen the window to %2?")
                                .arg(parts.join(QStringLiteral("; ")), calendar.namesText(lo, hi)));
    m_widen->setToolTip(tr("Select %1").arg(calendar.namesText(lo, hi)));
    setCurrentWidget(m_warning);
}

QString ScopeNotice::outsideNote(const model::PartitionCalendarModel &calendar, int first, int last) const
{
    const int before = first - 1;
    const int after = last + 1 <= calendar.lastPastOrdinal() ? last + 1 : -1;
    QStringList outside;
    for (int o : {before, after})
        if (o >= 0)
            outside << QString::fromStdString(calendar.partition(o).name);
    return outside.isEmpty() ? tr("No partition just outside the window to check.")
                             : tr("No check fails just outside the window (%1): it leaves out nothing known to be wrong.")
                                   .arg(outside.join(tr(" and ")));
}

QString ScopeNotice::warningText() const
{
    if (currentWidget() != m_warning)
        return {};
    QString text = m_warningLabel->text();
    return text.remove(QRegularExpression(QStringLiteral("<[^>]*>")));
}

QString ScopeNotice::warningHtml() const
{
    return currentWidget() == m_warning ? m_warningLabel->text() : QString();
}

} // namespace reprint::views
