#pragma once
// The dialog that asks for an approval note before a publish (objectName "approveDialog"),
// or, to publish despite a failed validation, for a note and a typed reason
// ("overrideDialog"). It says what the publish replaces and, for a cascade, every backfill
// the one transaction publishes. Its OK button is on only once the note (and the reason)
// is filled in; accepting it emits approved() and closes it. It publishes nothing itself.
//
// Owned by its parent (the review screen); it deletes itself when closed.
// Thread affinity: GUI thread.

#include "backfill/review.h"

#include <QDialog>

class QLineEdit;

namespace reprint::views {

class ApproveDialog : public QDialog {
    Q_OBJECT

public:
    // `review` is the stored review of backfill `id`, as the screen shows it.
    ApproveDialog(qint64 id, const backfill::Review &review, bool overriding, QWidget *parent);

Q_SIGNALS:
    // The note, and the reason (empty unless overriding), trimmed and not empty.
    void approved(const QString &note, const QString &reason);

private:
    QString introText(qint64 id, const backfill::Review &review, bool overriding) const;

    QLineEdit *m_note = nullptr;
    QLineEdit *m_reason = nullptr;  // overriding only
};

} // namespace reprint::views
