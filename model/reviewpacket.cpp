#include "reviewpacket.h"

#include "reviewmodel.h"
#include "reviewrules.h"

#include <QBuffer>
#include <QCoreApplication>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>
#include <QPageLayout>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QSaveFile>
#include <QTextDocument>

#include <algorithm>
#include <cmath>
#include <limits>

namespace reprint::model {

namespace {

using Field = ReviewModel::Field;

QString q(const std::string &s)
{
    return QString::fromStdString(s);
}

QString esc(const QString &s)
{
    return s.toHtmlEscaped();
}

QString tr(const char *text)
{
    return QCoreApplication::translate("reprint::model::ReviewPacket", text);
}

QString orDash(const std::string &s)
{
    return s.empty() ? QStringLiteral("—") : esc(q(s));
}

QString csvField(const QString &s)
{
    if (!s.contains(QLatin1Char(',')) && !s.contains(QLatin1Char('"')) && !s.contains(QLatin1Char('\n')))
        return s;
    return QLatin1Char('"') + QString(s).replace(QLatin1Char('"'), QStringLiteral("\"\"")) + QLatin1Char('"');
}

const char *markClass(RuleMark m)
{
    switch (m) {
    case RuleMark::Good:
        return "good";
    case RuleMark::Warn:
        return "warn";
    case RuleMark::Bad:
        return "bad";
    case RuleMark::Pending:
        return "pending";
    }
    return "pending";
}

const char *verdictClass(backfill::Verdict v)
{
    switch (v) {
    case backfill::Verdict::Unchanged:
        return "unchanged";
    case backfill::Verdict::Expected:
        return "expected";
    case backfill::Verdict::Unexpected:
        return "unexpected";
    case backfill::Verdict::MismatchSource:
        return "mismatch";
    }
    return "unchanged";
}

// One changed row of a stored sample: its key and the columns that differ, old -> new.
QString sampleRowsHtml(const std::string &sampleJson, int limit)
{
    const QJsonArray rows = QJsonDocument::fromJson(QByteArray::fromStdString(sampleJson)).array();
    if (rows.isEmpty())
        return {};
    QString out = QStringLiteral("<table class='diff'><tr><th>%1</th><th>%2</th><th>%3</th></tr>")
                      .arg(tr("change"), tr("key"), tr("what moved (old → new)"));
    int shown = 0;
    for (const QJsonValue &v : rows) {
        if (shown++ >= limit)
            break;
        const QJsonObject o = v.toObject();
        const QJsonObject oldRow = o.value(QStringLiteral("old")).toObject();
        const QJsonObject newRow = o.value(QStringLiteral("new")).toObject();
        QStringList moved;
        QStringList keys = oldRow.keys() + newRow.keys();
        keys.removeDuplicates();
        for (const QString &k : keys) {
            const QJsonValue a = oldRow.value(k), b = newRow.value(k);
            if (a == b)
                continue;
            auto text = [](const QJsonValue &x) {
                return x.isUndefined() || x.isNull() ? QStringLiteral("∅") : x.isString() ? x.toString() : x.toVariant().toString();
            };
            moved << QStringLiteral("<b>%1</b> %2 → %3").arg(esc(k), esc(text(a)), esc(text(b)));
        }
        const QString key = QString::fromUtf8(QJsonDocument(o.value(QStringLiteral("key")).toObject()).toJson(QJsonDocument::Compact));
        out += QStringLiteral("<tr><td>%1</td><td class='mono'>%2</td><td>%3</td></tr>")
                   .arg(esc(o.value(QStringLiteral("change")).toString()), esc(key), moved.join(QStringLiteral("; ")));
    }
    out += QStringLiteral("</table>");
    if (rows.size() > limit)
        out += QStringLiteral("<p class='small'>%1</p>").arg(tr("…and %1 more in the stored sample.").arg(rows.size() - limit));
    return out;
}

} // namespace

ReviewPacket::ReviewPacket(backfill::ReviewPacketData data, QDateTime generatedAt)
    : m_data(std::move(data))
    , m_generatedAt(std::move(generatedAt))
    , m_model(std::make_unique<ReviewModel>())
{
    m_model->setReview(m_data.review);
    const auto &measures = m_data.review.partitions.empty() ? std::vector<backfill::MeasureTotals>()
                                                            : m_data.review.partitions.front().measures;
    m_chartMeasure = measures.size() > 1 ? q(measures[1].measure) : QStringLiteral("rows");
}

ReviewPacket::~ReviewPacket() = default;

namespace {

// The chart's series, shared by the bars and the legend.
const QColor kOldColour(0x8a, 0x8f, 0x98);
const QColor kNewColour(0x2f, 0x6f, 0xd6);
const QColor kSourceColour(0xd6, 0x3b, 0x3b);

QVariant chartValue(const ReviewModel &model, int measure, int row, Field f)
{
    return model.index(row, model.columnFor(measure, f)).data(ReviewModel::ValueRole);
}

// Where the chart draws: the plot area, one slot per partition, and the value scale.
struct ChartFrame {
    QRectF plot;
    double slot = 0;
    double lo = 0;
    double hi = 1;

    double x(int row) const { return plot.left() + slot * (row + 0.5); }
    double y(double v) const { return plot.bottom() - (v - lo) / (hi - lo) * plot.height(); }
};

// The plot area for `n` partitions, scaled from zero to the largest old, new or source
// value of the measure.
ChartFrame chartFrame(const ReviewModel &model, int measure, int n, const QSize &size, const QFontMetrics &fm)
{
    double lo = std::numeric_limits<double>::max(), hi = std::numeric_limits<double>::lowest();
    for (int r = 0; r < n; ++r)
        for (Field f : {Field::Old, Field::New, Field::Source})
            if (const QVariant v = chartValue(model, measure, r, f); v.isValid()) {
                lo = std::min(lo, v.toDouble());
                hi = std::max(hi, v.toDouble());
            }
    if (lo > hi)
        lo = hi = 0;
    lo = std::min(lo, 0.0);
    if (hi <= lo)
        hi = lo + 1;
    ChartFrame frame;
    frame.plot = QRectF(fm.horizontalAdvance(QStringLiteral("0000000000")) + 8, fm.height() * 2.2, size.width() - fm.horizontalAdvance(QStringLiteral("0000000000")) - 24,
                        size.height() - fm.height() * 5.2);
    frame.slot = frame.plot.width() / n;
    frame.lo = lo;
    frame.hi = hi;
    return frame;
}

// The window shaded, the axes, and the value grid with its labels.
void drawWindowAndAxes(QPainter &p, const ChartFrame &frame, const QFontMetrics &fm, const backfill::Review &review, int n)
{
    const QRectF &plot = frame.plot;
    int first = -1, last = -1;
    for (int r = 0; r < n; ++r)
        if (review.partitions[std::size_t(r)].inScope) {
            first = first < 0 ? r : first;
            last = r;
        }
    if (first >= 0)
        p.fillRect(QRectF(plot.left() + frame.slot * first, plot.top(), frame.slot * (last - first + 1), plot.height()), QColor(0x2f, 0x6f, 0xd6, 28));
    p.setPen(QColor(0xbb, 0xbb, 0xbb));
    p.drawLine(plot.bottomLeft(), plot.bottomRight());
    p.drawLine(plot.bottomLeft(), plot.topLeft());
    const QLocale locale;
    p.setPen(Qt::black);
    for (int i = 0; i <= 4; ++i) {
        const double v = frame.lo + (frame.hi - frame.lo) * i / 4;
        p.setPen(QColor(0xee, 0xee, 0xee));
        p.drawLine(QPointF(plot.left(), frame.y(v)), QPointF(plot.right(), frame.y(v)));
        p.setPen(Qt::black);
        p.drawText(QRectF(0, frame.y(v) - fm.height() / 2.0, plot.left() - 6, fm.height()), Qt::AlignRight | Qt::AlignVCenter,
                   locale.toString(v, 'f', 0));
    }
}

// Per partition: the old and new bars, the source as a ring, and the partition's name
// (every few, when there are many).
void drawPartitions(QPainter &p, const ChartFrame &frame, const QFontMetrics &fm, const ReviewModel &model, int measure,
                    const backfill::Review &review, int n)
{
    const double slot = frame.slot;
    const double lo = frame.lo;
    const double bar = std::min(slot * 0.34, 40.0);
    for (int r = 0; r < n; ++r) {
        const double x = frame.x(r);
        if (const QVariant v = chartValue(model, measure, r, Field::Old); v.isValid())
            p.fillRect(QRectF(x - bar, frame.y(v.toDouble()), bar, frame.y(lo) - frame.y(v.toDouble())), kOldColour);
        if (const QVariant v = chartValue(model, measure, r, Field::New); v.isValid())
            p.fillRect(QRectF(x, frame.y(v.toDouble()), bar, frame.y(lo) - frame.y(v.toDouble())), kNewColour);
        if (const QVariant v = chartValue(model, measure, r, Field::Source); v.isValid()) {
            p.setPen(QPen(kSourceColour, 2));
            p.setBrush(Qt::white);
            p.drawEllipse(QPointF(x, frame.y(v.toDouble())), 4, 4);
        }
        p.setPen(Qt::black);
        const QString name = q(review.partitions[std::size_t(r)].partition);
        if (n <= 16 || r % ((n + 15) / 16) == 0)
            p.drawText(QRectF(x - slot, frame.plot.bottom() + 4, slot * 2, fm.height()), Qt::AlignHCenter | Qt::AlignTop,
                       name.size() > 5 && n > 8 ? name.mid(5) : name);
    }
}

void drawTitleAndLegend(QPainter &p, const QFont &font, const QFontMetrics &fm, const ChartFrame &frame,
                        const QSize &size, const QString &measure)
{
    const QRectF &plot = frame.plot;
    QFont bold = font;
    bold.setBold(true);
    p.setFont(bold);
    p.drawText(QRectF(plot.left(), 0, plot.width(), fm.height() * 1.6), Qt::AlignLeft | Qt::AlignVCenter,
               tr("%1: old vs new per partition (the window shaded)").arg(measure));
    p.setFont(font);
    double lx = plot.left();
    const double ly = size.height() - fm.height() * 1.6;
    auto legend = [&](const QColor &c, const QString &label, bool marker) {
        if (marker) {
            p.setPen(QPen(c, 2));
            p.setBrush(Qt::white);
            p.drawEllipse(QPointF(lx + 6, ly + fm.height() / 2.0), 4, 4);
        } else {
            p.fillRect(QRectF(lx, ly + 2, 12, fm.height() - 4), c);
        }
        p.setPen(Qt::black);
        p.drawText(QPointF(lx + 18, ly + fm.ascent()), label);
        lx += 18 + fm.horizontalAdvance(label) + 24;
    };
    legend(kOldColour, tr("old (target before)"), false);
    legend(kNewColour, tr("new (staged)"), false);
    legend(kSourceColour, tr("source (check)"), true);
}

} // namespace

QImage ReviewPacket::chart(const QSize &size) const
{
    const ReviewModel &model = *m_model;
    const int measure = std::max(0, int(model.measures().indexOf(m_chartMeasure)));
    const int n = model.partitionCount();
    QImage image(size, QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::white);
    if (n == 0)
        return image;
    QPainter p(&image);
    p.setRenderHint(QPainter::Antialiasing);
    QFont font = p.font();
    font.setPixelSize(std::max(10, size.height() / 28));
    p.setFont(font);
    const QFontMetrics fm(font);
    const ChartFrame frame = chartFrame(model, measure, n, size, fm);
    drawWindowAndAxes(p, frame, fm, m_data.review, n);
    drawPartitions(p, frame, fm, model, measure, m_data.review, n);
    drawTitleAndLegend(p, font, fm, frame, size, m_chartMeasure);
    p.end();
    return image;
}

QString ReviewPacket::html(const QString &chartSource) const
{
    const backfill::Review &r = m_data.review;
    const QString window = r.from == r.to ? q(r.from) : q(r.from) + QStringLiteral(" … ") + q(r.to);

    QString out;
    out += QStringLiteral("<!DOCTYPE html>\n<html><head><meta charset='utf-8'><title>%1</title>\n")
               .arg(esc(tr("Review of backfill %1 (%2, %3)").arg(r.backfillId).arg(q(r.model), window)));
    out += QStringLiteral(
        "<style>\n"
        "body { font-family: 'DejaVu Sans', Arial, sans-serif; font-size: 10pt; color: #1d2330; margin: 24px; }\n"
        "h1 { font-size: 16pt; margin: 0 0 4px 0; } h2 { font-size: 12pt; margin: 18px 0 6px 0; border-bottom: 1px solid #ccd; }\n"
        "h3 { font-size: 10.5pt; margin: 12px 0 4px 0; }\n"
        "table { border-collapse: collapse; margin: 4px 0 8px 0; } td, th { border: 1px solid #d5d9e0; padding: 3px 6px; }\n"
        "th { background: #eef1f6; text-align: left; } td.num { text-align: right; font-variant-numeric: tabular-nums; }\n"
        "tr.outside td { color: #5a6170; background: #f7f7f9; } tr.totals td { font-weight: bold; background: #eef1f6; }\n"
        ".good { color: #1f7a45; } .warn { color: #9a5c00; } .bad { color: #b42323; } .pending { color: #777; }\n"
        ".unchanged { color: #5a6170; } .expected { color: #1f7a45; } .unexpected { color: #9a5c00; font-weight: bold; }\n"
        ".mismatch { color: #b42323; font-weight: bold; } .mono { font-family: 'DejaVu Sans Mono', monospace; font-size: 9pt; }\n"
        ".small { font-size: 8.5pt; color: #5a6170; } table.meta td:first-child { color: #5a6170; width: 150px; }\n"
        "</style></head><body>\n");
    out += QStringLiteral("<h1>%1</h1>\n").arg(esc(tr("Review of backfill %1: %2, window %3").arg(r.backfillId).arg(q(r.model), window)));
    out += QStringLiteral("<p class='small'>%1</p>\n")
               .arg(esc(tr("Reprint review packet, generated %1 UTC from the review stored in the warehouse.")
                            .arg(m_generatedAt.toUTC().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss")))));
    if (r.cascade.size() > 1) {
        QStringList members;
        for (const auto &m : r.cascade)
            members << tr("backfill %1 (%2, %3 … %4, validation %5)")
                           .arg(m.id)
                           .arg(q(m.model), q(m.from), q(m.to), m.validation.empty() ? tr("none") : q(m.validation));
        out += QStringLiteral("<p><b>%1</b> %2</p>\n")
                   .arg(esc(tr("A cascade of %1 backfills, published together in one transaction:").arg(r.cascade.size())),
                        esc(members.join(QStringLiteral("; "))));
    }
    for (const std::string &stale : r.staleDownstream)
        out += QStringLiteral("<p class='warn'>%1</p>\n")
                   .arg(esc(tr("Stale after publish: downstream %1 reads this window and is not part of this backfill.").arg(q(stale))));
    out += section(chartSource);
    for (const backfill::ReviewPacketData &member : m_data.cascade) {
        const ReviewPacket part(member, m_generatedAt);
        const backfill::Review &mr = member.review;
        out += QStringLiteral("<h1>%1</h1>\n")
                   .arg(esc(tr("Downstream in the cascade: backfill %1, %2, window %3 … %4").arg(mr.backfillId).arg(q(mr.model), q(mr.from), q(mr.to))));
        // The PDF names its charts as resources; the HTML file embeds each.
        out += part.section(chartSource.startsWith(QLatin1String("data:")) ? part.chartDataUri()
                                                                         : QStringLiteral("chart-%1.png").arg(mr.backfillId));
    }
    out += QStringLiteral("</body></html>\n");
    return out;
}

QString ReviewPacket::chartDataUri() const
{
    QByteArray png;
    QBuffer buffer(&png);
    buffer.open(QIODevice::WriteOnly);
    chart(QSize(1800, 640)).save(&buffer, "PNG");
    return QStringLiteral("data:image/png;base64,") + QString::fromLatin1(png.toBase64());
}

namespace {

QString windowText(const backfill::Review &r)
{
    return r.from == r.to ? q(r.from) : q(r.from) + QStringLiteral(" … ") + q(r.to);
}

// Who did what, when.
QString backfillHtml(const backfill::Review &r, const backfill::ReviewFacts &f)
{
    const QString window = windowText(r);
    QString out;
    const QString validation = r.validation.empty() ? tr("not validated") : q(r.validation);
    out += QStringLiteral("<h2>%1</h2><table class='meta'>\n").arg(tr("Backfill"));
    const QList<QPair<QString, QString>> meta = {
        {tr("Backfill"), QString::number(r.backfillId)},
        {tr("Model"), esc(q(r.model))},
        {tr("Window"), esc(window)},
        {tr("Status"), esc(QLatin1String(backfill::toString(r.status)))},
        {tr("Validation"), esc(validation) + (r.validationMessage.empty() ? QString() : QStringLiteral(": ") + esc(q(r.validationMessage)))},
        {tr("Operator (staged by)"), orDash(f.operatorName)},
        {tr("Approver"), orDash(f.approver)},
        {tr("Approval note"), orDash(f.note)},
        {tr("Override reason"), orDash(f.overrideReason)},
        {tr("Created"), orDash(f.createdAt)},
        {tr("Validated"), orDash(f.validatedAt)},
        {tr("Published"), orDash(f.publishedAt)},
        {tr("Undone"), orDash(f.undoneAt)},
    };
    for (const auto &[k, v] : meta)
        out += QStringLiteral("<tr><td>%1</td><td>%2</td></tr>\n").arg(esc(k), v);
    out += QStringLiteral("</table>\n");
    return out;
}

QString rulesHtml(const backfill::Review &r, const backfill::ReviewFacts &f)
{
    QString out;
    out += QStringLiteral("<h2>%1</h2><table>\n").arg(tr("The five rules, checked"));
    for (const RuleCheck &rule : rulesOf(r, &f))
        out += QStringLiteral("<tr><td class='%1'><b>%2 %3</b></td><td>%4</td></tr>\n")
                   .arg(QLatin1String(markClass(rule.mark)), glyphOf(rule.mark), esc(rule.name), esc(rule.evidence));
    out += QStringLiteral("</table>\n");
    return out;
}

// One measure's table: a row per partition, the same cells as the review screen.
QString measureTotalsHtml(const ReviewModel &model, const QStringList &measures, int m)
{
    const QList<Field> fields = {Field::Old, Field::New, Field::Delta, Field::DeltaPercent, Field::Source, Field::Verdict};
    QString out;
    out += QStringLiteral("<h3>%1</h3><table>\n<tr><th>%2</th><th>%3</th>").arg(esc(measures[m]), tr("Partition"), tr("Where"));
    for (Field fl : fields)
        out += QStringLiteral("<th>%1</th>").arg(esc(model.headerData(model.columnFor(m, fl), Qt::Horizontal).toString().section(QLatin1Char('\n'), 1)));
    out += QStringLiteral("</tr>\n");
    for (int row = 0; row < model.rowCount(); ++row) {
        const auto place = ReviewModel::Place(model.index(row, 0).data(ReviewModel::PlaceRole).toInt());
        const char *cls = place == ReviewModel::Place::Totals ? "totals" : place == ReviewModel::Place::Outside ? "outside" : "window";
        out += QStringLiteral("<tr class='%1'><td>%2</td><td>%3</td>")
                   .arg(QLatin1String(cls), esc(model.index(row, 0).data().toString()), esc(model.index(row, 1).data().toString()));
        for (Field fl : fields) {
            const QModelIndex cell = model.index(row, model.columnFor(m, fl));
            if (fl == Field::Verdict) {
                const QVariant v = cell.data(ReviewModel::VerdictRole);
                const QString text = cell.data().toString();
                out += v.isValid() && !text.isEmpty()
                           ? QStringLiteral("<td class='%1'>%2</td>").arg(QLatin1String(verdictClass(backfill::Verdict(v.toInt()))), esc(text))
                           : QStringLiteral("<td>%1</td>").arg(esc(text));
            } else {
                out += QStringLiteral("<td class='num'>%1</td>").arg(esc(cell.data().toString()));
            }
        }
        out += QStringLiteral("</tr>\n");
    }
    out += QStringLiteral("</table>\n");
    return out;
}

// The totals, one table per measure.
QString totalsHtml(const ReviewModel &model)
{
    QString out;
    out += QStringLiteral("<h2>%1</h2>\n").arg(tr("Totals per partition, old and new"));
    const QStringList measures = model.measures();
    for (int m = 0; m < measures.size(); ++m)
        out += measureTotalsHtml(model, measures, m);
    return out;
}

// The boundary partitions' row diffs.
QString boundaryDiffsHtml(const std::vector<backfill::RowDiff> &boundaryDiffs)
{
    QString out;
    out += QStringLiteral("<h2>%1</h2>\n").arg(tr("Row diffs of the boundary partitions"));
    if (boundaryDiffs.empty())
        out += QStringLiteral("<p>%1</p>\n").arg(tr("No row diff is stored for this backfill."));
    for (const backfill::RowDiff &d : boundaryDiffs) {
        out += QStringLiteral("<h3>%1</h3><p>%2</p>\n")
                   .arg(esc(q(d.partition)),
                        esc(tr("%1 added, %2 removed, %3 changed, by key.").arg(d.added).arg(d.removed).arg(d.changed)));
        if (!d.columnChanges.empty()) {
            QStringList cols;
            for (const auto &c : d.columnChanges)
                cols << QStringLiteral("%1: %2").arg(q(c.column)).arg(c.count);
            out += QStringLiteral("<p class='small'>%1 %2</p>\n").arg(esc(tr("Changes per column:")), esc(cols.join(QStringLiteral(", "))));
        }
        out += sampleRowsHtml(d.sampleJson, 10);
    }
    return out;
}

} // namespace

QString ReviewPacket::section(const QString &chartSource) const
{
    const backfill::Review &r = m_data.review;
    QString out;
    out += backfillHtml(r, m_data.facts);
    out += rulesHtml(r, m_data.facts);
    // The chart.
    out += QStringLiteral("<h2>%1</h2><p><img src='%2' width='900' alt='%3'></p>\n")
               .arg(tr("Old vs new"), chartSource, esc(tr("chart of %1, old vs new per partition").arg(m_chartMeasure)));
    out += totalsHtml(*m_model);
    out += boundaryDiffsHtml(m_data.boundaryDiffs);
    return out;
}

QString ReviewPacket::csv() const
{
    // Raw values (ValueRole), never the locale's formatting.
    const ReviewModel &model = *m_model;
    QStringList lines{QStringLiteral("backfill,model,partition,start,place,measure,old,new,delta,delta_pct,source,verdict")};
    const QStringList measures = model.measures();
    for (int row = 0; row < model.partitionCount(); ++row) {
        const backfill::PartitionReview &p = m_data.review.partitions[std::size_t(row)];
        for (int m = 0; m < measures.size(); ++m) {
            auto raw = [&](Field f) {
                const QVariant v = model.index(row, model.columnFor(m, f)).data(ReviewModel::ValueRole);
                return v.isValid() ? QString::number(v.toDouble(), 'g', 17) : QString();
            };
            const backfill::MeasureTotals &t = p.measures[std::size_t(m)];
            lines << QStringList{QString::number(m_data.review.backfillId), csvField(q(m_data.review.model)), q(p.partition), q(p.start),
                                 csvField(model.index(row, 1).data().toString()), csvField(measures[m]),
                                 q(t.oldValue.value_or("")), q(t.newValue.value_or("")), raw(Field::Delta), raw(Field::DeltaPercent),
                                 q(t.source.value_or("")), QLatin1String(backfill::toString(t.verdict))}
                         .join(QLatin1Char(','));
        }
    }
    QString out = lines.join(QLatin1Char('\n')) + QLatin1Char('\n');
    for (const backfill::ReviewPacketData &member : m_data.cascade)
        out += ReviewPacket(member, m_generatedAt).csv().section(QLatin1Char('\n'), 1);  // without its header line
    return out;
}

void ReviewPacket::writePdf(QIODevice *device) const
{
    QPdfWriter writer(device);
    writer.setPageLayout(QPageLayout(QPageSize(QPageSize::A4), QPageLayout::Landscape, QMarginsF(12, 12, 12, 12), QPageLayout::Millimeter));
    writer.setResolution(96);
    writer.setTitle(tr("Review of backfill %1").arg(m_data.review.backfillId));
    writer.setCreator(QStringLiteral("Reprint"));
    QTextDocument doc;
    // No ligatures: text copied out of the PDF (or read by pdftotext) stays plain ("fi", not "ﬁ").
    QFont font = doc.defaultFont();
    font.setStyleStrategy(QFont::PreferNoShaping);
    doc.setDefaultFont(font);
    doc.addResource(QTextDocument::ImageResource, QUrl(QStringLiteral("chart.png")), chart(QSize(1800, 640)));
    for (const backfill::ReviewPacketData &member : m_data.cascade)
        doc.addResource(QTextDocument::ImageResource, QUrl(QStringLiteral("chart-%1.png").arg(member.review.backfillId)),
                        ReviewPacket(member, m_generatedAt).chart(QSize(1800, 640)));
    doc.setHtml(html(QStringLiteral("chart.png")));
    doc.print(&writer);
}

QString ReviewPacket::unsupported(const QString &path)
{
    const QString ext = QFileInfo(path).suffix().toLower();
    for (const char *known : {"html", "htm", "pdf", "csv"})
        if (ext == QLatin1String(known))
            return {};
    return tr("cannot tell what to write to %1: the name must end in .html, .pdf or .csv").arg(path);
}

bool ReviewPacket::write(const QString &path, QString *error) const
{
    const QString ext = QFileInfo(path).suffix().toLower();
    if (const QString why = unsupported(path); !why.isEmpty()) {
        *error = why;
        return false;
    }
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        *error = tr("cannot write %1: %2. Choose a folder you can write to.").arg(path, file.errorString());
        return false;
    }
    if (ext == QLatin1String("pdf")) {
        writePdf(&file);
    } else if (ext == QLatin1String("csv")) {
        file.write(csv().toUtf8());
    } else {
        file.write(html(chartDataUri()).toUtf8());
    }
    if (!file.commit()) {
        *error = tr("cannot write %1: %2. Choose a folder you can write to.").arg(path, file.errorString());
        return false;
    }
    return true;
}

} // namespace reprint::model
