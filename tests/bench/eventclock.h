#pragma once
// What the GUI thread did with its time: an application that times every event it
// delivers at the top of the stack (an event delivered inside another one counts in the
// one that caused it), by its type and receiver, in wall time and in the thread's CPU
// time. Wall time well over CPU time is time the thread was not running (another process
// had the core). StallProbe names the events inside each long gap from it.
//
// Thread affinity: the GUI thread (the events of other threads are not timed).

#include <QApplication>
#include <QElapsedTimer>
#include <QEvent>
#include <QMetaEnum>
#include <QString>
#include <QThread>

#include <ctime>
#include <sys/resource.h>
#include <vector>

namespace reprint::test {

// The calling thread's CPU time in nanoseconds.
inline qint64 threadCpuNs()
{
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return qint64(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// The calling thread's context switches: voluntary (it waited: a lock, I/O, its event
// loop's poll) and involuntary (the scheduler gave its core to another), and its major
// page faults (a read from disk).
struct Switches {
    long voluntary = 0, involuntary = 0, majorFaults = 0;
};
inline Switches threadSwitches()
{
    rusage usage{};
    getrusage(RUSAGE_THREAD, &usage);
    return {usage.ru_nvcsw, usage.ru_nivcsw, usage.ru_majflt};
}

struct TimedEvent {
    qint64 startNs = 0;  // on EventClock::clock()
    qint64 wallNs = 0;
    qint64 cpuNs = 0;
    QEvent::Type type = QEvent::None;
    const char *receiver = nullptr;  // the receiver's class name (static storage)
    QString name;                    // the receiver's object name, or its parent's class
};

inline QString eventTypeName(QEvent::Type type)
{
    const char *key = QMetaEnum::fromType<QEvent::Type>().valueToKey(type);
    return key ? QString::fromLatin1(key) : QString::number(int(type));
}

class EventClock : public QApplication {
public:
    using QApplication::QApplication;

    static EventClock *instance() { return dynamic_cast<EventClock *>(QCoreApplication::instance()); }

    // Starts timing (and forgets what was timed); events of at least `minimumNs` are kept.
    void start(const QElapsedTimer &clock, qint64 minimumNs = 500000)
    {
        m_clock = clock;
        m_minimumNs = minimumNs;
        m_events.clear();
        m_recording = true;
    }
    void stop() { m_recording = false; }
    const std::vector<TimedEvent> &events() const { return m_events; }

    bool notify(QObject *receiver, QEvent *event) override
    {
        if (!m_recording || m_depth > 0 || QThread::currentThread() != thread())
            return QApplication::notify(receiver, event);
        TimedEvent timed;
        timed.type = event->type();
        timed.receiver = receiver->metaObject()->className();
        timed.name = receiver->objectName();
        if (timed.name.isEmpty() && receiver->parent())
            timed.name = QString::fromLatin1(receiver->parent()->metaObject()->className());
        const qint64 cpu = threadCpuNs();
        timed.startNs = m_clock.nsecsElapsed();
        ++m_depth;
        const bool result = QApplication::notify(receiver, event);
        --m_depth;
        timed.wallNs = m_clock.nsecsElapsed() - timed.startNs;
        timed.cpuNs = threadCpuNs() - cpu;
        if (timed.wallNs >= m_minimumNs)
            m_events.push_back(std::move(timed));
        return result;
    }

private:
    QElapsedTimer m_clock;
    qint64 m_minimumNs = 0;
    std::vector<TimedEvent> m_events;
    bool m_recording = false;
    int m_depth = 0;
};

} // namespace reprint::test
