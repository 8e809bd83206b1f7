#include "planbox.h"

#include "plan.h"

#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QFontDatabase>
#include <QFormLayout>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QToolButton>

namespace reprint::views {

PlanBox::PlanBox(QWidget *parent)
    : QGroupBox(tr("Plan"), parent)
{
    setObjectName(QStringLiteral("plan"));
    auto *planLayout = new QGridLayout(this);
    planLayout->setContentsMargins(10, 6, 10, 8);
    planLayout->setHorizontalSpacing(18);
    planLayout->setVerticalSpacing(4);
    m_summary = planLabel(QStringLiteral("planSummary"));
    m_diff = planLabel(QStringLiteral("planBoundary"));
    m_downstream = planLabel(QStringLiteral("planDownstream"));
    m_conflicts = planLabel(QStringLiteral("planConflicts"));
    auto *form1 = new QFormLayout;
    form1->setVerticalSpacing(4);
    form1->setHorizontalSpacing(12);
    form1->setLabelAlignment(Qt::AlignLeft | Qt::AlignTop);
    form1->addRow(tr("Scope"), m_summary);
    form1->addRow(tr("Boundary"), m_diff);
    auto *form2 = new QFormLayout;
    form2->setVerticalSpacing(4);
    form2->setHorizontalSpacing(12);
    form2->setLabelAlignment(Qt::AlignLeft | Qt::AlignTop);
    form2->addRow(tr("Downstream"), m_downstream);
    form2->addRow(tr("Conflicts"), m_conflicts);
    planLayout->addLayout(form1, 0, 0);
    planLayout->addLayout(form2, 0, 1);
    planLayout->setColumnStretch(0, 3);
    planLayout->setColumnStretch(1, 2);
    planLayout->addLayout(buildCommandRow(), 1, 0, 1, 2);
}

QLabel *PlanBox::planLabel(const QString &name)
{
    auto *l = new QLabel(this);
    l->setObjectName(name);
    l->setWordWrap(true);
    l->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // Two lines each, whatever the window: the plan box keeps its height as the
    // plan's text changes, so the calendar above it does not move under the mouse.
    l->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    l->setMinimumHeight(2 * l->fontMetrics().lineSpacing());
    return l;
}

// The command line with Copy, Cascade downstream and Start backfill….
QLayout *PlanBox::buildCommandRow()
{
    auto *commandRow = new QHBoxLayout;
    commandRow->setSpacing(6);
    m_command = new QLineEdit(this);
    m_command->setObjectName(QStringLiteral("command"));
    m_command->setReadOnly(true);
    m_command->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_command->setPlaceholderText(tr("Select a window to see the command"));
    m_copy = new QToolButton(this);
    m_copy->setObjectName(QStringLiteral("copyCommand"));
    m_copy->setText(tr("Copy"));
    m_copy->setToolTip(tr("Copy the command line"));
    m_cascade = new QCheckBox(tr("Cascade downstream"), this);
    m_cascade->setObjectName(QStringLiteral("cascade"));
    m_start = new QPushButton(tr("Start backfill…"), this);
    m_start->setObjectName(QStringLiteral("startBackfill"));
    m_start->setDefault(true);
    commandRow->addWidget(new QLabel(tr("Command"), this));
    commandRow->addWidget(m_command, 1);
    commandRow->addWidget(m_copy);
    commandRow->addSpacing(8);
    commandRow->addWidget(m_cascade);
    commandRow->addWidget(m_start);
    connect(m_copy, &QToolButton::clicked, this, [this] {
        QApplication::clipboard()->setText(m_command->text());
        m_copy->setText(tr("Copied"));
    });
    connect(m_cascade, &QCheckBox::toggled, this, &PlanBox::cascadeToggled);
    connect(m_start, &QPushButton::clicked, this, &PlanBox::startClicked);
    return commandRow;
}

bool PlanBox::cascade() const
{
    return m_cascade->isChecked();
}

void PlanBox::showPlan(const model::Plan &plan)
{
    m_copy->setText(tr("Copy"));
    if (!plan.isValid()) {
        const QString none = tr("Select partitions in the calendar: click, then shift-click or drag.");
        m_summary->setText(none);
        m_diff->setText(QStringLiteral("–"));
        m_downstream->setText(QStringLiteral("–"));
        m_conflicts->setText(QStringLiteral("–"));
        m_command->clear();
        m_copy->setEnabled(false);
        m_start->setEnabled(false);
        return;
    }
    const QLocale locale;
    QString summary = model::partitionsText(plan.partitions)
        + (plan.partitions == 1 ? tr(", %1").arg(plan.from) : tr(", %1 .. %2").arg(plan.from, plan.to));
    QString rows = tr("≈ %1 rows").arg(locale.toString(plan.rows));
    if (plan.partitionsWithoutStatus > 0)
        rows += tr(" (%1 not read yet)").arg(model::partitionsText(plan.partitionsWithoutStatus));
    const QString time = plan.estimateText();
    m_summary->setText(summary + QStringLiteral("<br>") + rows + QStringLiteral(" · ") + time);
    m_summary->setTextFormat(Qt::RichText);
    m_diff->setText(tr("row-level diff of %1; %2 must not change")
                        .arg(plan.diffPartitions.join(tr(" and ")), plan.outsidePartitions.join(tr(" and "))));
    QStringList downstream;
    for (const auto &d : plan.downstream)
        downstream << tr("%1 %2 (%3)")
                          .arg(d.model, d.from == d.to ? d.from : d.from + QStringLiteral(" .. ") + d.to,
                               model::partitionsText(d.partitions));
    m_downstream->setText(downstream.isEmpty() ? tr("none")
                                               : downstream.join(QStringLiteral("; "))
                              + (plan.cascade ? tr(" (staged too)") : tr(" (only with Cascade)")));
    if (plan.conflicts.isEmpty()) {
        m_conflicts->setText(tr("none"));
        m_conflicts->setStyleSheet({});
    } else {
        m_conflicts->setText(plan.conflicts.join(QStringLiteral("; ")));
        m_conflicts->setStyleSheet(QStringLiteral("color: #d64545;"));
    }
    m_command->setText(plan.command());
    m_command->setCursorPosition(0);
    m_copy->setEnabled(true);
    m_start->setEnabled(plan.conflicts.isEmpty());
    m_start->setToolTip(plan.conflicts.isEmpty() ? tr("Stage and validate %1 .. %2; nothing is published").arg(plan.from, plan.to)
                                                 : tr("The window is claimed: free it first"));
}

} // namespace reprint::views
