#pragma once
// What a running backfill achieved over time, as a table the Run screen's chart reads
// through QVXYModelMapper (the chart never queries): column 0 seconds since the run
// started, 1 rows staged per second over the trailing kWindowSeconds, 2 partitions done
// (staged or failed).
//
// addSample() takes cumulative figures; rows are only ever appended (rowsInserted),
// never changed. A sample closer than the current spacing to the previous one is dropped,
// and the spacing doubles each time the series grows by kRowsPerSpacing rows, so an
// hour-long run stays a few thousand points. clear() resets (another backfill).
//
// Work comes in segments: a run, and each resume after an idle gap (or the moment a run
// already under way was first seen). beginSegment() starts one: no rate reaches back
// across its start, the chart drops to 0 over the gap, and averageRate() counts only the
// time inside segments.
//
// The model holds values only. Thread affinity: GUI thread.

#include <QAbstractTableModel>

#include <vector>

namespace reprint::model {

class ThroughputSeriesModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column { ElapsedColumn, RateColumn, DoneColumn, ColumnCount };
    static constexpr double kWindowSeconds = 3.0;
    static constexpr double kInitialSpacing = 0.5;
    static constexpr int kRowsPerSpacing = 600;

    explicit ThroughputSeriesModel(QObject *parent = nullptr);

    // Appends a sample at `elapsedSeconds` (not before the last one) with `rowsStaged` and
    // `partitionsDone` so far. Returns false when it was dropped.
    bool addSample(double elapsedSeconds, qint64 rowsStaged, int partitionsDone);
    void clear();
    // Starts a segment at `elapsedSeconds` (not before the last sample) with the figures
    // so far. After samples with a rate, appends two at rate 0: at the last sample and at
    // the segment's start.
    void beginSegment(double elapsedSeconds, qint64 rowsStaged, int partitionsDone);
    // Rows staged per second over the time inside segments (0 before two samples).
    double averageRate() const;

    double lastElapsed() const { return m_samples.empty() ? 0 : m_samples.back().elapsed; }
    double lastRate() const { return m_samples.empty() ? 0 : m_samples.back().rate; }
    double maxRate() const { return m_maxRate; }
    int maxDone() const { return m_samples.empty() ? 0 : m_samples.back().done; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Sample {
        double elapsed = 0;
        qint64 rows = 0;
        int done = 0;
        double rate = 0;
    };
    void append(const Sample &s);
    std::vector<Sample> m_samples;
    Sample m_segment;             // where the current segment started (elapsed, rows)
    double m_closedSeconds = 0;   // time inside the segments before it
    qint64 m_closedRows = 0;      // and the rows they staged
    double m_spacing = kInitialSpacing;
    double m_maxRate = 0;
};

} // namespace reprint::model
