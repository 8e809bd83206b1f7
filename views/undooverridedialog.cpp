#include "undooverridedialog.h"

#include <QDialogButtonBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace reprint::views {

UndoOverrideDialog::UndoOverrideDialog(qint64 id, const QString &window, QWidget *parent)
    : QDialog(parent)
{
    setObjectName(QStringLiteral("undoOverrideDialog"));
    setAttribute(Qt::WA_DeleteOnClose);
    setWindowTitle(tr("Undo Anyway"));
    auto *layout = new QVBoxLayout(this);
    auto *intro = new QLabel(tr("Undoing now throws away what was written to %1 after backfill %2 was published. "
                                "The reason is stored with the undo.")
                                 .arg(window)
                                 .arg(id),
                             this);
    intro->setWordWrap(true);
    layout->addWidget(intro);
    auto *reason = new QLineEdit(this);
    reason->setObjectName(QStringLiteral("undoOverrideReason"));
    reason->setPlaceholderText(tr("why the later write may be thrown away"));
    layout->addWidget(reason);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    QPushButton *ok = buttons->button(QDialogButtonBox::Ok);
    ok->setText(tr("Continue…"));
    ok->setEnabled(false);
    layout->addWidget(buttons);
    connect(reason, &QLineEdit::textChanged, this, [ok, reason] { ok->setEnabled(!reason->text().trimmed().isEmpty()); });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(buttons, &QDialogButtonBox::accepted, this, [this, reason] {
        const QString r = reason->text().trimmed();
        if (r.isEmpty())
            return;
        accept();
        Q_EMIT reasonGiven(r);
    });
}

} // namespace reprint::views
