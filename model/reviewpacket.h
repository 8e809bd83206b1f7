#pragma once
// The review packet: a stored review as one document to file with a change record or
// send to whoever approves. HTML (self-contained: inline CSS, the chart as an embedded
// PNG), PDF, or CSV. It holds the window, who staged, approved and when, the five rules
// with their evidence, the old/new totals of every partition and measure (the same cells
// as the review screen's table: ReviewModel formats them), a chart of old vs new per
// partition with the source as markers and the window shaded, and the boundary
// partitions' row diffs.
//
// Thread affinity: the GUI thread (it paints the chart with QPainter: a QGuiApplication
// must exist). Nothing here touches the database; backfill::reviewPacketData() reads it.

#include "backfill/reviewfacts.h"

#include <QDateTime>
#include <QImage>
#include <QString>

#include <memory>

namespace reprint::model {

class ReviewPacket {
public:
    explicit ReviewPacket(backfill::ReviewPacketData data, QDateTime generatedAt = QDateTime::currentDateTimeUtc());
    ~ReviewPacket();

    // `chartSource`: what the chart's <img src> says (a data: URI for the file, a resource
    // name for the PDF).
    QString html(const QString &chartSource) const;
    // One row per partition and measure: backfill, model, partition, start, place,
    // measure, old, new, delta, delta_pct, source, verdict.
    QString csv() const;
    QImage chart(const QSize &size) const;

    // Writes the packet to `path` by its extension (.html/.htm, .pdf, .csv), all at once
    // (a temporary file renamed into place: never half a file). False with a sentence in
    // `error` that names the path and what to do.
    bool write(const QString &path, QString *error) const;

    // Why nothing can be written to `path` (its extension is not one of the packet's
    // kinds), as a sentence; empty when it can.
    static QString unsupported(const QString &path);

private:
    void writePdf(class QIODevice *device) const;
    // The backfill's own part (facts, rules, chart, totals, row diffs), for the packet of
    // a backfill or a cascade's member.
    QString section(const QString &chartSource) const;
    // The chart as an embeddable data: URI.
    QString chartDataUri() const;

    backfill::ReviewPacketData m_data;
    QDateTime m_generatedAt;
    std::unique_ptr<class ReviewModel> m_model;  // formats every cell, as the review screen does
    QString m_chartMeasure;                      // the first declared measure, else rows
};

} // namespace reprint::model
