#pragma once
// A probe of GUI-thread stalls: a 5 ms precise timer on the calling thread records the
// gap between its ticks. A gap well over 5 ms is time the event loop could not run.

#include <QElapsedTimer>
#include <QJsonObject>
#include <QTimer>

#include <algorithm>
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
            m_gaps.push_back(double(now - m_last) / 1e6);
            m_last = now;
        });
    }
    void start()
    {
        m_gaps.clear();
        m_clock.start();
        m_last = 0;
        m_timer.start();
    }
    void stop() { m_timer.stop(); }

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

private:
    QTimer m_timer;
    QElapsedTimer m_clock;
    qint64 m_last = 0;
    std::vector<double> m_gaps;
};

} // namespace reprint::test
