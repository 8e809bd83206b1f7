#pragma once
// The calendar's scope notice (a stacked widget, objectName "scopeNotice", under the window
// fields): either a quiet note on the window's scope ("scopeNote": select a window, or no
// check fails just outside it) or the under-scope warning ("underScopeWarning", a banner)
// that names the failing partitions just outside the window, with Widen. Both share one
// place of a fixed height (two lines of the warning), so that the calendar does not move
// when the warning comes and goes.
//
// It shows what the calendar model holds; it reads nothing itself. Widen emits
// widenClicked(); the screen selects widenFirst()..widenLast().
// Thread affinity: GUI thread.

#include <QStackedWidget>

class QFrame;
class QLabel;
class QPushButton;

namespace reprint::model {
class PartitionCalendarModel;
}

namespace reprint::views {

class ScopeNotice : public QStackedWidget {
    Q_OBJECT

public:
    explicit ScopeNotice(QWidget *parent = nullptr);

    // Checks the partitions just outside the window first..last (ordinals of `calendar`;
    // first < 0: none selected) and shows the warning or the note. `haveModel`: a model is
    // shown (else the note is empty).
    void showWindow(const model::PartitionCalendarModel &calendar, int first, int last, bool haveModel);
    void clearNote();

    // The warning as plain text; empty when it is not shown.
    QString warningText() const;
    // The warning as shown (rich text); empty when it is not shown.
    QString warningHtml() const;
    // The window Widen selects (ordinals), -1 when there is no warning.
    int widenFirst() const { return m_widenFirst; }
    int widenLast() const { return m_widenLast; }

Q_SIGNALS:
    void widenClicked();

private:
    // The note for a window that leaves out no failing partition.
    QString outsideNote(const model::PartitionCalendarModel &calendar, int first, int last) const;

    QFrame *m_warning = nullptr;
    QLabel *m_warningLabel = nullptr;
    QPushButton *m_widen = nullptr;
    QLabel *m_note = nullptr;
    int m_widenFirst = -1;
    int m_widenLast = -1;
};

} // namespace reprint::views
