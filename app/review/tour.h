#pragma once
// The screenshot tour (`reprint-review --demo --screenshots DIR`): plays the demo story
// through the window's real screens and writes one PNG per step:
//   01-calendar   the calendar with the failing days
//   02-scoped     the honest window 2026-03-09 … 2026-03-14 selected
//   03-run        the backfill staging
//   04-review     its old/new totals table, chart and rules
//   05-inspector  the boundary inspector on 2026-03-09 (the slipped evening rows)
//   06-published  after Approve & Publish, the review read back as published
//   07-history    the model's history
//   08-cascade    the same window backfilled with --cascade: a tab per model, Approve
//                 off until each model's review was opened
//   09-abandon-confirm  Abandon's confirmation, saying what is dropped
//   10-abandoned  the cascade abandoned, read back
// Each step waits for the signal that says its screen has loaded (never a fixed sleep
// alone); a step that does not happen within its time ends the tour with an error.
//
// Thread affinity: the GUI thread. Needs a demo warehouse where that window is free
// (a fresh --dir).

#include <QDir>
#include <QObject>
#include <QString>
#include <QTimer>

#include <functional>

namespace reprint::views {
class MainWindow;
}

namespace reprint::app {

class Tour : public QObject {
    Q_OBJECT

public:
    Tour(views::MainWindow *window, const QString &dir, QObject *parent = nullptr);
    // Starts once the window is connected to the demo warehouse.
    void start();

Q_SIGNALS:
    // 0 when every screenshot was written; else 1 (could not write) or 2 (a step failed),
    // with what went wrong.
    void finished(int code, const QString &message);

private:
    // Begins step `name`: connections made with the returned context last until the next step.
    QObject *begin(const QString &name, int timeoutMs);
    void calendar();
    void scoped();
    void run();
    void review();
    void inspector();
    void publish();
    void history();
    void cascade();
    void cascadeReview();
    void abandon();
    bool shot(const QString &file);
    // Lets the layout settle, shoots `file`, then goes on with `next`.
    void shootThen(const QString &file, std::function<void()> next);
    // The same once `ready()` holds (checked every 100 ms, within the step's time): for
    // screens whose loaded signal may already have passed.
    void shootWhen(std::function<bool()> ready, const QString &file, std::function<void()> next);
    void fail(int code, const QString &message);

    views::MainWindow *m_window;
    QDir m_dir;
    QString m_step;
    // What the current step waits for, when it can tell why it never came (else empty).
    std::function<QString()> m_stuck;
    QTimer m_timeout;
    QObject *m_context = nullptr;
    qint64 m_backfillId = 0;
    qint64 m_cascadeId = 0;
    bool m_done = false;
    bool m_runShot = false;
};

} // namespace reprint::app
