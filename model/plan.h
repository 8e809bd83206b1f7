#pragma once
// What a backfill of a window will do, worked out before it starts: for the calendar's
// plan panel and for the request it hands to the Run screen.
//
// A Plan is a value, computed on the GUI thread from what the calendar already holds
// (the engine's status of each partition and the model's history); it runs no query.
// Estimates: rows are the partitions' current rows; time is rows divided by a measured
// throughput: the model's past backfills and runs, partition by partition (the rows and
// seconds reprint.backfill_partitions recorded as each staged; backfill::Throughput,
// read by the screen), else the model's recent scheduled runs in the history (rows
// published per second between a run's creation and its publish, at the history's
// one-second resolution). Without either the time is unknown (seconds < 0), never
// guessed. The time is for one partition after another (the Run screen's default).

#include "engineclient.h"

#include "backfill/calendarfacts.h"
#include "backfill/engine.h"
#include "backfill/spec.h"

#include <QList>
#include <QString>
#include <QStringList>

namespace reprint::model {

class PartitionCalendarModel;

struct Plan {
    struct Downstream {
        QString model;
        QString from;
        QString to;
        int partitions = 0;
        // Staged with the window (Cascade on, not left out, nor downstream of one left
        // out); otherwise stale once the window is published.
        bool staged = false;
        bool leftOut = false;  // the user left it out of the cascade
    };

    QString specPath;
    QString model;
    QString from;          // partition names, inclusive
    QString to;
    bool cascade = false;
    QStringList leaveOut;  // with cascade: downstream models the user leaves out
    int partitions = 0;
    qint64 rows = 0;               // the window's rows now (partitions with statistics)
    int partitionsWithoutStatus = 0;
    double rowsPerSecond = 0;      // 0: nothing to measure
    int runsMeasured = 0;          // scheduled runs of the history measured
    int backfillsMeasured = 0;     // past backfills (and runs) measured partition by partition
    int partitionsMeasured = 0;
    double seconds = -1;           // estimated staging time; < 0: unknown
    QStringList diffPartitions;    // first and last: row-level diff
    QStringList outsidePartitions; // just outside: validated to stay unchanged
    QList<Downstream> downstream;  // every model downstream, transitively, in the order a cascade stages them
    QStringList conflicts;         // "2026-03-11 .. 2026-03-12: backfill 7 (alice, staged)"

    bool isValid() const { return partitions > 0; }
    // The terminal command that does the same, quoted for a POSIX shell. Never holds a
    // connection string (it may hold a password): the spec's warehouse: or PG* apply.
    QString command() const;
    backfill::BackfillRequest request() const;
    // The estimate in words: "≈ 4 s to stage (52,000 rows/s per partition, measured over
    // 18 partitions of 3 past backfills)", or why it is unknown.
    QString estimateText() const;

    // The plan for partitions first..last (ordinals of `calendar`). `past`: the model's
    // past throughput, when read (EngineClient::throughput).
    static Plan make(const backfill::Spec &spec, const PartitionCalendarModel &calendar, int first, int last,
                     const HistoryRows &history, bool cascade, const backfill::Throughput &past = {},
                     const QStringList &leaveOut = {});
    // The downstream models a publish of this window leaves stale.
    QList<Downstream> staleDownstream() const;
};

// "1 partition", "6 partitions": how many partitions, in the locale's digits.
QString partitionsText(int n);

// `text` quoted for a POSIX shell when it needs to be.
QString shellQuoted(const QString &text);

} // namespace reprint::model
