#pragma once
// The dialog that asks why an undo may throw away what was written to the window after
// the publish (objectName "undoOverrideDialog"): the drift guard refused the undo, and the
// user chose Undo anyway. Its OK button is on only once a reason is typed; accepting it
// emits reasonGiven() and closes it. It undoes nothing itself: the screen confirms once
// more, then undoes with the reason.
//
// Owned by its parent (the review screen); it deletes itself when closed.
// Thread affinity: GUI thread.

#include <QDialog>

namespace reprint::views {

class UndoOverrideDialog : public QDialog {
    Q_OBJECT

public:
    // `window` is the backfill's window as shown ("2026-03-10 … 2026-03-14").
    UndoOverrideDialog(qint64 id, const QString &window, QWidget *parent);

Q_SIGNALS:
    // The reason, trimmed and not empty.
    void reasonGiven(const QString &reason);
};

} // namespace reprint::views
