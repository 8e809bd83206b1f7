#pragma once
// The confirmation of Start backfill… (objectName "confirmBackfill"): the window and its
// partitions, the rows, the estimate, the boundary partitions, the downstream models with
// their windows, the command line it is the same as and, when the window leaves out
// failing partitions just outside it, the under-scope warning with Widen (then Cancel, not
// Start, is the default button). In a cascade each downstream model has a box: unticked,
// it is left out (and stale), and the plan is worked out again through `replan`.
//
// Accepting it emits startRequested() with the plan as shown; Widen emits widenRequested()
// and closes it. It starts nothing itself and reads nothing: the plan comes from the
// calendar screen. Owned by its parent; it deletes itself when closed.
// Thread affinity: GUI thread.

#include "plan.h"

#include <QDialog>

#include <functional>

class QCheckBox;
class QFormLayout;
class QLabel;
class QVBoxLayout;

namespace reprint::views {

class StartBackfillDialog : public QDialog {
    Q_OBJECT

public:
    // The same plan with the downstream models named left out of its cascade.
    using Replan = std::function<model::Plan(const QStringList &leaveOut)>;

    // `warning`: the under-scope warning (rich text), empty when there is none; `widenTo`:
    // the window Widen selects ("2026-03-09 .. 2026-03-14"), with a warning only.
    StartBackfillDialog(const model::Plan &plan, Replan replan, const QString &warning, const QString &widenTo,
                        QWidget *parent);

Q_SIGNALS:
    void startRequested(const reprint::backfill::BackfillRequest &request);
    void widenRequested();

private:
    QLabel *value(const QString &name, const QString &text);
    void addDownstream(QFormLayout *form);
    void replanDownstream();
    QString downstreamText(const model::Plan::Downstream &d, bool cascade) const;
    void addWarning(QVBoxLayout *layout, const QString &warning);
    void addButtons(QVBoxLayout *layout, bool warned, const QString &widenTo);

    model::Plan m_plan;
    Replan m_replan;
    QLabel *m_command = nullptr;
    QList<QCheckBox *> m_boxes;  // a cascade's downstream models, in the plan's order
};

} // namespace reprint::views
