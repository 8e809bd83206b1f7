#pragma once
// Starts the embedded demo warehouse (backfill::startDemo) without blocking the GUI.
//
// Thread affinity: lives on the thread that created it (the GUI thread); start() must be
// called there and every signal is emitted there. startDemo() runs on a worker thread
// owned by this object; its progress lines arrive as progressed(), then exactly one of
// started() or failed().
//
// Destruction waits for a running startDemo() to return: initdb, pg_ctl and the seed are
// subprocesses and one transaction, and cannot be abandoned half way without leaving a
// cluster behind. Hide the window first; nothing is emitted after destruction begins.

#include <QObject>
#include <QString>

#include <memory>

namespace reprint::model {

class DemoLauncher : public QObject {
    Q_OBJECT

public:
    explicit DemoLauncher(QObject *parent = nullptr);
    ~DemoLauncher() override;

    // Starts (or reuses) the demo cluster in `dir`, seeded at `scale`. Returns false,
    // doing nothing, while an earlier start is still running.
    bool start(const QString &dir, double scale);
    bool isRunning() const;

    // Where the demo lives when no directory is given: the app's local data folder.
    static QString defaultDirectory();

Q_SIGNALS:
    // A named step of the start ("seeding the demo shop at scale 1", "raw.orders: 120,000
    // rows"), with the seconds since start() was called.
    void progressed(const QString &message, double elapsedSeconds);
    // `conninfo` has no password (the demo trusts its private socket).
    void started(const QString &conninfo, const QString &specPath);
    void failed(const QString &message);

private:
    struct Private;
    std::unique_ptr<Private> d;
};

} // namespace reprint::model
