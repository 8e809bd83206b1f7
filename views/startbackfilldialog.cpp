#include "startbackfilldialog.h"

#include "banner.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QFontDatabase>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QStyle>
#include <QVBoxLayout>

namespace reprint::views {

StartBackfillDialog::StartBackfillDialog(const model::Plan &plan, Replan replan, const QString &warning,
                                         const QString &widenTo, QWidget *parent)
    : QDialog(parent)
    , m_plan(plan)
    , m_replan(std::move(replan))
{
    const QLocale locale;
    setObjectName(QStringLiteral("confirmBackfill"));
    setAttribute(Qt::WA_DeleteOnClose);
    setWindowTitle(tr("Start backfill of %1").arg(m_plan.model));
    auto *layout = new QVBoxLayout(this);
    layout->setSpacing(10);
    const QString window = m_plan.from == m_plan.to ? m_plan.from : tr("%1 .. %2").arg(m_plan.from, m_plan.to);
    auto *heading = new QLabel(tr("<b>Stage and validate %1, %2?</b><br>Nothing is published: the backfill waits for "
                                  "its review and your approval.")
                                   .arg(m_plan.model.toHtmlEscaped(), window),
                               this);
    heading->setWordWrap(true);
    layout->addWidget(heading);

    auto *form = new QFormLayout;
    form->setHorizontalSpacing(14);
    form->setVerticalSpacing(6);
    form->addRow(tr("Window"), value(QStringLiteral("confirmWindow"),
                                     tr("%1 (%2)").arg(window, model::partitionsText(m_plan.partitions))));
    QString rows = tr("≈ %1 rows now").arg(locale.toString(m_plan.rows));
    if (m_plan.partitionsWithoutStatus > 0)
        rows += tr(" (%1 not read yet)").arg(model::partitionsText(m_plan.partitionsWithoutStatus));
    form->addRow(tr("Rows"), value(QStringLiteral("confirmRows"), rows));
    form->addRow(tr("Time"), value(QStringLiteral("confirmTime"), m_plan.estimateText()));
    form->addRow(tr("Boundary"), value(QStringLiteral("confirmBoundary"),
                                       tr("row-level diff of %1; %2 must not change")
                                           .arg(m_plan.diffPartitions.join(tr(" and ")), m_plan.outsidePartitions.join(tr(" and ")))));
    m_command = value(QStringLiteral("confirmCommand"), m_plan.command());
    addDownstream(form);
    m_command->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    form->addRow(tr("Same as"), m_command);
    layout->addLayout(form);

    if (!warning.isEmpty())
        addWarning(layout, warning);
    addButtons(layout, !warning.isEmpty(), widenTo);
}

// A value of the form: selectable, wrapped text.
QLabel *StartBackfillDialog::value(const QString &name, const QString &text)
{
    auto *l = new QLabel(text, this);
    l->setObjectName(name);
    l->setWordWrap(true);
    l->setTextInteractionFlags(Qt::TextSelectableByMouse);
    l->setMinimumWidth(420);
    return l;
}

QString StartBackfillDialog::downstreamText(const model::Plan::Downstream &d, bool cascade) const
{
    return tr("%1, %2 (%3): %4")
        .arg(d.model, d.from == d.to ? d.from : tr("%1 .. %2").arg(d.from, d.to), model::partitionsText(d.partitions),
             d.staged      ? tr("staged and validated too, published together")
                 : !cascade ? tr("not staged (Cascade is off): stale once this is published")
                 : d.leftOut ? tr("left out: stale once this is published")
                             : tr("not staged: it reads a model left out, so it is stale too"));
}

void StartBackfillDialog::addDownstream(QFormLayout *form)
{
    if (m_plan.downstream.isEmpty() || !m_plan.cascade) {
        QStringList downstream;
        for (const auto &d : m_plan.downstream)
            downstream << downstreamText(d, m_plan.cascade);
        form->addRow(tr("Downstream"), value(QStringLiteral("confirmDownstream"),
                                             downstream.isEmpty() ? tr("none") : downstream.join(QLatin1Char('\n'))));
        return;
    }
    // A cascade: one box per downstream model; unticked, it is left out (and stale).
    auto *box = new QWidget(this);
    box->setObjectName(QStringLiteral("confirmDownstream"));
    auto *boxLayout = new QVBoxLayout(box);
    boxLayout->setContentsMargins(0, 0, 0, 0);
    boxLayout->setSpacing(2);
    for (const auto &d : m_plan.downstream) {
        auto *check = new QCheckBox(downstreamText(d, true), box);
        check->setObjectName(QStringLiteral("stage_") + d.model);
        check->setChecked(d.staged);
        boxLayout->addWidget(check);
        m_boxes << check;
    }
    for (QCheckBox *check : std::as_const(m_boxes))
        connect(check, &QCheckBox::toggled, this, &StartBackfillDialog::replanDownstream);
    form->addRow(tr("Downstream"), box);
}

void StartBackfillDialog::replanDownstream()
{
    QStringList leaveOut;
    for (QCheckBox *check : std::as_const(m_boxes))
        if (!check->isChecked() && check->isEnabled())
            leaveOut << check->objectName().mid(6);
    m_plan = m_replan(leaveOut);
    for (int i = 0; i < m_boxes.size() && i < m_plan.downstream.size(); ++i) {
        const auto &d = m_plan.downstream.at(i);
        const QSignalBlocker block(m_boxes[i]);
        m_boxes[i]->setText(downstreamText(d, true));
        m_boxes[i]->setChecked(d.staged);
        // A model that reads one left out cannot be staged on its own.
        m_boxes[i]->setEnabled(d.staged || d.leftOut);
    }
    m_command->setText(m_plan.command());
}

void StartBackfillDialog::addWarning(QVBoxLayout *layout, const QString &warning)
{
    auto *note = banner(this, QColor(0xe0, 0xa8, 0x2e), QStringLiteral("confirmWarning"));
    auto *bannerLayout = new QHBoxLayout(note);
    bannerLayout->setContentsMargins(10, 6, 10, 6);
    auto *icon = new QLabel(note);
    icon->setPixmap(style()->standardIcon(QStyle::SP_MessageBoxWarning).pixmap(18, 18));
    auto *text = new QLabel(note);
    text->setObjectName(QStringLiteral("confirmWarningText"));
    text->setWordWrap(true);
    text->setText(warning);
    bannerLayout->addWidget(icon, 0, Qt::AlignTop);
    bannerLayout->addWidget(text, 1);
    layout->addWidget(note);
}

void StartBackfillDialog::addButtons(QVBoxLayout *layout, bool warned, const QString &widenTo)
{
    auto *buttons = new QDialogButtonBox(this);
    QPushButton *start = buttons->addButton(!warned ? tr("Start backfill") : tr("Start anyway"), QDialogButtonBox::AcceptRole);
    start->setObjectName(QStringLiteral("confirmStart"));
    QPushButton *cancel = buttons->addButton(QDialogButtonBox::Cancel);
    cancel->setObjectName(QStringLiteral("confirmCancel"));
    if (warned) {
        QPushButton *widenButton = buttons->addButton(tr("Widen to %1").arg(widenTo), QDialogButtonBox::ResetRole);
        widenButton->setObjectName(QStringLiteral("confirmWiden"));
        connect(widenButton, &QPushButton::clicked, this, [this] {
            Q_EMIT widenRequested();
            reject();
        });
    }
    // With the warning shown, Enter does not start what it warns about.
    (!warned ? start : cancel)->setDefault(true);
    (!warned ? start : cancel)->setFocus();
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(this, &QDialog::accepted, this, [this] { Q_EMIT startRequested(m_plan.request()); });
    layout->addWidget(buttons);
}

} // namespace reprint::views
