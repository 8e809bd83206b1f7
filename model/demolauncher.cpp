#include "demolauncher.h"

#include "backfill/demo.h"

#include <QDir>
#include <QElapsedTimer>
#include <QStandardPaths>

#include <mutex>
#include <thread>

namespace reprint::model {

struct DemoLauncher::Private {
    std::thread worker;
    bool running = false;
    // Cleared by the destructor, under the lock, so that the worker stops emitting.
    std::mutex mutex;
    DemoLauncher *target = nullptr;

    template <typename F>
    void post(F emitOnGui)
    {
        std::lock_guard lock(mutex);
        if (target)
            QMetaObject::invokeMethod(target, std::move(emitOnGui), Qt::QueuedConnection);
    }
};

DemoLauncher::DemoLauncher(QObject *parent)
    : QObject(parent)
    , d(std::make_unique<Private>())
{
    d->target = this;
}

DemoLauncher::~DemoLauncher()
{
    {
        std::lock_guard lock(d->mutex);
        d->target = nullptr;
    }
    if (d->worker.joinable())
        d->worker.join();
}

bool DemoLauncher::start(const QString &dir, double scale)
{
    if (d->running)
        return false;
    if (d->worker.joinable())
        d->worker.join(); // the previous run has already reported; this returns at once
    d->running = true;
    backfill::DemoOptions options;
    options.dir = QDir(dir).absolutePath().toStdString();
    options.scale = scale;
    Private *p = d.get();
    d->worker = std::thread([p, options] {
        QElapsedTimer clock;
        clock.start();
        auto progress = [p, &clock](const std::string &line) {
            const QString message = QString::fromStdString(line);
            const double seconds = double(clock.elapsed()) / 1000.0;
            p->post([p, message, seconds] { Q_EMIT p->target->progressed(message, seconds); });
        };
        auto result = backfill::startDemo(options, progress);
        if (result) {
            const QString conninfo = QString::fromStdString(result->conninfo);
            const QString specPath = QString::fromStdString(result->specPath);
            p->post([p, conninfo, specPath] {
                p->running = false;
                Q_EMIT p->target->started(conninfo, specPath);
            });
        } else {
            const QString message = QString::fromStdString(result.error().toSentence());
            p->post([p, message] {
                p->running = false;
                Q_EMIT p->target->failed(message);
            });
        }
    });
    return true;
}

bool DemoLauncher::isRunning() const
{
    return d->running;
}

QString DemoLauncher::defaultDirectory()
{
    return QString::fromStdString(backfill::defaultDemoDir());
}

} // namespace reprint::model
