#pragma once
// A probe of GUI-thread stalls: a 5 ms precise timer on the calling thread records the
// gap between its ticks. A gap well over 5 ms is time the event loop could not run.
// Under an EventClock application, report() also names the events inside the long gaps
// and how long the thread was on a CPU during each.
//
// Wait for what is measured in an event loop (QEventLoop::exec), as the application does:
// QTest::qWait and QTRY_* sleep 10 ms at a time between their passes, which the probe
// would count as stalls.

#include "eventclock.h"

#include <QElapsedTimer>
#include <QJsonObject>
#include <QStringList>
#include <QTimer>

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

namespace reprint::test {

class StallProbe {
public:
    StallProbe()
    {
        m_timer.setTimerType(Qt::PreciseTimer);
        m_timer.setInterval(5);
        QObject::connect(&m_timer, &QTimer::timeout, &m_timer, [this] {
            const qint64 now = m_clock.nsecsElapsed();
            const qint64 cpu = threadCpuNs();
            const Switches sw = threadSwitches();
            m_gaps.push_back(double(now - m_last) / 1e6);
            m_ticks.push_back({now, cpu - m_lastCpu, sw.voluntary - m_lastSwitches.voluntary,
                               sw.involuntary - m_lastSwitches.involuntary, sw.majorFaults - m_lastSwitches.majorFaults});
            m_last = now;
            m_lastCpu = cpu;
            m_lastSwitches = sw;
        });
    }
    void start()
    {
        m_gaps.clear();
        m_ticks.clear();
        m_clock.start();
        m_last = 0;
        m_lastCpu = threadCpuNs();
        m_lastSwitches = threadSwitches();
        if (EventClock *events = EventClock::instance())
            events->start(m_clock);
        m_timer.start();
    }
    void stop()
    {
        m_timer.stop();
        if (EventClock *events = EventClock::instance())
            events->stop();
    }

    double longestMs() const { return m_gaps.empty() ? 0 : *std::max_element(m_gaps.begin(), m_gaps.end()); }
    // The gap that `fraction` of the gaps do not exceed (0.99: the 99th percentile).
    double percentileMs(double fraction) const
    {
        if (m_gaps.empty())
            return 0;
        std::vector<double> sorted = m_gaps;
        std::sort(sorted.begin(), sorted.end());
        return sorted[std::min(sorted.size() - 1, std::size_t(fraction * double(sorted.size())))];
    }
    int over(double ms) const { return int(std::count_if(m_gaps.begin(), m_gaps.end(), [ms](double g) { return g > ms; })); }
    qint64 ticks() const { return qint64(m_gaps.size()); }

    QJsonObject json() const
    {
        return QJsonObject{{QStringLiteral("longest_stall_ms"), longestMs()},
                           {QStringLiteral("p99_gap_ms"), percentileMs(0.99)},
                           {QStringLiteral("gaps_over_16_ms"), over(16.7)},
                           {QStringLiteral("probe_ticks"), ticks()}};
    }

    // Prints each gap over `overMs` (the longest `maxGaps`, in time order) with the GUI
    // thread's CPU time in it and the events that ran in it, longest first; then where the
    // thread's event time went over the whole probe, by event type and receiver.
    void report(double overMs, int maxGaps = 12) const
    {
        const EventClock *clock = EventClock::instance();
        std::vector<std::size_t> longest;
        for (std::size_t i = 0; i < m_gaps.size(); ++i)
            if (m_gaps[i] > overMs)
                longest.push_back(i);
        std::sort(longest.begin(), longest.end(), [this](std::size_t a, std::size_t b) { return m_gaps[a] > m_gaps[b]; });
        if (longest.size() > std::size_t(maxGaps))
            longest.resize(std::size_t(maxGaps));
        std::sort(longest.begin(), longest.end());
        for (std::size_t i : longest) {
            const qint64 end = m_ticks[i].endNs;
            const qint64 begin = end - qint64(m_gaps[i] * 1e6);
            QStringList parts;
            if (clock) {
                std::vector<const TimedEvent *> inside;
                for (const TimedEvent &e : clock->events())
                    if (e.startNs < end && e.startNs + e.wallNs > begin)
                        inside.push_back(&e);
                std::sort(inside.begin(), inside.end(), [](auto *a, auto *b) { return a->wallNs > b->wallNs; });
                for (std::size_t k = 0; k < std::min<std::size_t>(4, inside.size()); ++k)
                    parts << QStringLiteral("%1 to %2 (%3) %4 ms, cpu %5")
                                 .arg(eventTypeName(inside[k]->type), QLatin1String(inside[k]->receiver), inside[k]->name)
                                 .arg(inside[k]->wallNs / 1e6, 0, 'f', 1)
                                 .arg(inside[k]->cpuNs / 1e6, 0, 'f', 1);
            }
            qInfo("  gap %.1f ms ending at %.3f s, GUI thread on a CPU %.1f ms of it (%ld waits, %ld preemptions, %ld major "
                  "faults)%s%s",
                  m_gaps[i], end / 1e9, m_ticks[i].cpuNs / 1e6, m_ticks[i].voluntary, m_ticks[i].involuntary,
                  m_ticks[i].majorFaults, parts.isEmpty() ? "" : ": ", qPrintable(parts.join(QStringLiteral("; "))));
        }
        if (!clock)
            return;
        struct Sum {
            qint64 wallNs = 0, cpuNs = 0, longestNs = 0;
            int count = 0;
        };
        std::map<std::pair<QString, QString>, Sum> sums;
        for (const TimedEvent &e : clock->events()) {
            Sum &s = sums[{eventTypeName(e.type), QLatin1String(e.receiver)}];
            s.wallNs += e.wallNs;
            s.cpuNs += e.cpuNs;
            s.longestNs = std::max(s.longestNs, e.wallNs);
            ++s.count;
        }
        std::vector<std::pair<std::pair<QString, QString>, Sum>> sorted(sums.begin(), sums.end());
        std::sort(sorted.begin(), sorted.end(), [](const auto &a, const auto &b) { return a.second.wallNs > b.second.wallNs; });
        qInfo("  events of 0.5 ms or more, by type and receiver (total, cpu, count, longest):");
        for (std::size_t k = 0; k < std::min<std::size_t>(10, sorted.size()); ++k)
            qInfo("    %s to %s: %.1f ms, cpu %.1f ms, %d, longest %.1f ms", qPrintable(sorted[k].first.first),
                  qPrintable(sorted[k].first.second), sorted[k].second.wallNs / 1e6, sorted[k].second.cpuNs / 1e6,
                  sorted[k].second.count, sorted[k].second.longestNs / 1e6);
    }

private:
    struct Tick {
        qint64 endNs = 0;
        qint64 cpuNs = 0;  // the GUI thread's CPU time since the previous tick
        long voluntary = 0, involuntary = 0, majorFaults = 0;  // since the previous tick
    };
    QTimer m_timer;
    QElapsedTimer m_clock;
    qint64 m_last = 0;
    qint64 m_lastCpu = 0;
    Switches m_lastSwitches;
    std::vector<double> m_gaps;
    std::vector<Tick> m_ticks;
};

} // namespace reprint::test
