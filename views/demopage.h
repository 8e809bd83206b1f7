#pragma once
// The Model tab's page while the demo warehouse starts (objectName "demoPage"): what is
// starting, and each step the launcher reports with the time it began ("demoSteps"), or
// that it did not start and why.
//
// It shows what model::DemoLauncher reports to the main window; it starts nothing.
// Thread affinity: GUI thread.

#include <QWidget>

class QLabel;
class QTreeWidget;

namespace reprint::views {

class DemoPage : public QWidget {
    Q_OBJECT

public:
    explicit DemoPage(QWidget *parent = nullptr);

    // Adds `step`, begun `elapsedSeconds` after the start (< 0: no time, e.g. why it
    // failed); returns the time as shown.
    QString addStep(const QString &step, double elapsedSeconds);
    int stepCount() const;
    // Each step as "time  step", in order.
    QStringList steps() const;
    // The heading says that the demo warehouse did not start.
    void showFailed();

private:
    QLabel *m_heading = nullptr;
    QTreeWidget *m_steps = nullptr;
};

} // namespace reprint::views
