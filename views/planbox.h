#pragma once
// The calendar's plan box (a group box, objectName "plan"): what a backfill of the selected
// window would do (its scope, rows and estimate, the boundary partitions, the downstream
// models, the claims in its way), the command line that does the same with Copy, the
// "Cascade downstream" box and Start backfill…. Each label keeps two lines, top-aligned, so
// the box keeps its height as the plan's text changes and the calendar above never moves.
//
// It shows the plan it is given (model::Plan, made by the calendar screen); it reads
// nothing and starts nothing: Start emits startClicked().
// Thread affinity: GUI thread.

#include <QGroupBox>

class QCheckBox;
class QLabel;
class QLayout;
class QLineEdit;
class QPushButton;
class QToolButton;

namespace reprint::model {
struct Plan;
}

namespace reprint::views {

class PlanBox : public QGroupBox {
    Q_OBJECT

public:
    explicit PlanBox(QWidget *parent = nullptr);

    // An invalid plan (no window selected) shows how to select one; Start is off then, and
    // while the plan has conflicts.
    void showPlan(const model::Plan &plan);
    // "Cascade downstream" is ticked.
    bool cascade() const;

Q_SIGNALS:
    void cascadeToggled(bool on);
    void startClicked();

private:
    QLabel *planLabel(const QString &name);
    QLayout *buildCommandRow();

    QLabel *m_summary = nullptr;
    QLabel *m_diff = nullptr;
    QLabel *m_downstream = nullptr;
    QLabel *m_conflicts = nullptr;
    QLineEdit *m_command = nullptr;
    QToolButton *m_copy = nullptr;
    QCheckBox *m_cascade = nullptr;
    QPushButton *m_start = nullptr;
};

} // namespace reprint::views
