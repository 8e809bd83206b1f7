#include "approvedialog.h"

#include "reviewrules.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace reprint::views {

namespace {

QString q(const std::string &s)
{
    return QString::fromStdString(s);
}

} // namespace

ApproveDialog::ApproveDialog(qint64 id, const backfill::Review &review, bool overriding, QWidget *parent)
    : QDialog(parent)
{
    setObjectName(overriding ? QStringLiteral("overrideDialog") : QStringLiteral("approveDialog"));
    setAttribute(Qt::WA_DeleteOnClose);
    setWindowTitle(overriding ? tr("Override Failed Validation") : tr("Approve and Publish"));
    setMinimumWidth(520);
    auto *layout = new QVBoxLayout(this);
    auto *intro = new QLabel(this);
    intro->setWordWrap(true);
    intro->setText(introText(id, review, overriding));
    layout->addWidget(intro);
    auto *form = new QFormLayout;
    m_note = new QLineEdit(this);
    m_note->setObjectName(QStringLiteral("approvalNote"));
    m_note->setPlaceholderText(tr("why this is right, e.g. the ticket it fixes"));
    form->addRow(tr("Approval note:"), m_note);
    if (overriding) {
        m_reason = new QLineEdit(this);
        m_reason->setObjectName(QStringLiteral("overrideReason"));
        m_reason->setPlaceholderText(tr("why publishing despite the failed checks is right"));
        form->addRow(tr("Override reason:"), m_reason);
    }
    layout->addLayout(form);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    QPushButton *ok = buttons->button(QDialogButtonBox::Ok);
    ok->setText(overriding ? tr("Continue…") : tr("Publish"));
    ok->setEnabled(false);
    layout->addWidget(buttons);
    auto check = [this, ok] {
        ok->setEnabled(!m_note->text().trimmed().isEmpty() && (!m_reason || !m_reason->text().trimmed().isEmpty()));
    };
    connect(m_note, &QLineEdit::textChanged, this, check);
    if (m_reason)
        connect(m_reason, &QLineEdit::textChanged, this, check);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(buttons, &QDialogButtonBox::accepted, this, [this] {
        const QString n = m_note->text().trimmed();
        const QString r = m_reason ? m_reason->text().trimmed() : QString();
        if (n.isEmpty() || (m_reason && r.isEmpty()))
            return;
        accept();
        Q_EMIT approved(n, r);
    });
}

QString ApproveDialog::introText(qint64 id, const backfill::Review &review, bool overriding) const
{
    const QString window = model::windowText(review.from, review.to);
    QString text = overriding ? tr("Backfill %1 (%2, %3) failed validation:\n\n%4\n\nPublishing it anyway replaces "
                                   "the window with rows that disagree with their checks. The reason is stored with "
                                   "the publish, for whoever reads the history.")
                                    .arg(id)
                                    .arg(q(review.model), window, q(review.validationMessage))
                              : tr("Publishing replaces %1 of %2 with the staged rows in one transaction. "
                                   "The replaced rows are archived, so the publish can be undone.")
                                    .arg(window, q(review.model));
    if (review.cascade.size() > 1) {
        QStringList lines;
        for (const backfill::CascadeMember &m : review.cascade)
            lines << tr("• backfill %1: %2, %3 (validation %4)")
                         .arg(m.id)
                         .arg(q(m.model), model::windowText(m.from, m.to), m.validation.empty() ? tr("none") : q(m.validation));
        text += QStringLiteral("\n\n")
                + tr("This publishes %1 backfills in that one transaction, each as its review showed it:").arg(review.cascade.size())
                + QLatin1Char('\n') + lines.join(QLatin1Char('\n'));
    }
    return text;
}

} // namespace reprint::views
