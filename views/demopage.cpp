#include "demopage.h"

#include "paddedrowdelegate.h"

#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace reprint::views {

DemoPage::DemoPage(QWidget *parent)
    : QWidget(parent)
{
    setObjectName(QStringLiteral("demoPage"));
    auto *demoLayout = new QVBoxLayout(this);
    demoLayout->setContentsMargins(24, 20, 24, 20);
    demoLayout->setSpacing(8);
    m_heading = new QLabel(tr("Starting the demo warehouse"), this);
    QFont bigFont = m_heading->font();
    bigFont.setPointSizeF(bigFont.pointSizeF() * 1.5);
    bigFont.setBold(true);
    m_heading->setFont(bigFont);
    auto *demoNote = new QLabel(tr("A private PostgreSQL cluster with a seeded shop: the first start creates and seeds it "
                                   "(a minute or two at scale 1); later starts reuse it."),
                                this);
    demoNote->setWordWrap(true);
    demoNote->setForegroundRole(QPalette::PlaceholderText);
    m_steps = new QTreeWidget(this);
    m_steps->setObjectName(QStringLiteral("demoSteps"));
    m_steps->setRootIsDecorated(false);
    m_steps->setHeaderLabels({tr("At"), tr("Step")});
    m_steps->setSelectionMode(QAbstractItemView::NoSelection);
    m_steps->setFocusPolicy(Qt::NoFocus);
    m_steps->setItemDelegate(new PaddedRowDelegate(m_steps));
    m_steps->setColumnWidth(0, fontMetrics().horizontalAdvance(QStringLiteral("0000.0 s")) + 24);
    m_steps->header()->setStretchLastSection(true);
    m_steps->setWordWrap(true);
    demoLayout->addWidget(m_heading);
    demoLayout->addWidget(demoNote);
    demoLayout->addWidget(m_steps, 1);
}

QString DemoPage::addStep(const QString &step, double elapsedSeconds)
{
    const QLocale locale;
    const QString time = elapsedSeconds < 0 ? QString() : tr("%1 s").arg(locale.toString(elapsedSeconds, 'f', 1));
    auto *item = new QTreeWidgetItem(m_steps, {time, step});
    item->setTextAlignment(0, Qt::AlignRight | Qt::AlignVCenter);
    item->setToolTip(1, step);
    m_steps->scrollToItem(item);
    return time;
}

int DemoPage::stepCount() const
{
    return m_steps->topLevelItemCount();
}

QStringList DemoPage::steps() const
{
    QStringList out;
    for (int i = 0; i < m_steps->topLevelItemCount(); ++i)
        out << m_steps->topLevelItem(i)->text(0) + QStringLiteral("  ") + m_steps->topLevelItem(i)->text(1);
    return out;
}

void DemoPage::showFailed()
{
    m_heading->setText(tr("The demo warehouse did not start"));
}

} // namespace reprint::views
