#include "partitiondetail.h"

#include "partitioncalendarmodel.h"

#include <QLabel>
#include <QLocale>

namespace reprint::views {

using model::PartitionCalendarModel;

PartitionDetail::PartitionDetail(QWidget *parent)
    : QScrollArea(parent)
{
    setObjectName(QStringLiteral("detailPane"));
    setWidgetResizable(true);
    setFrameShape(QFrame::StyledPanel);
    m_label = new QLabel(this);
    m_label->setObjectName(QStringLiteral("detail"));
    m_label->setWordWrap(true);
    m_label->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    m_label->setTextFormat(Qt::RichText);
    m_label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_label->setContentsMargins(10, 8, 10, 8);
    setWidget(m_label);
    setMinimumWidth(240);
}

void PartitionDetail::showHint(const QString &text)
{
    m_label->setText(text);
}

void PartitionDetail::showPartition(const model::PartitionCalendarModel &calendar, int ordinal, bool refreshing,
                                    const QString &metricName)
{
    const QModelIndex idx = calendar.indexOfOrdinal(ordinal);
    const backfill::Partition &p = calendar.partition(ordinal);
    const QLocale locale;
    const QString zone = QString::fromStdString(calendar.model().timezone);
    auto instant = [](const QDateTime &t) { return t.toString(QStringLiteral("yyyy-MM-dd HH:mm")); };
    QString html = QStringLiteral("<h3 style='margin:0'>%1</h3>").arg(QString::fromStdString(p.name).toHtmlEscaped());
    html += QStringLiteral("<table cellspacing='0' cellpadding='1'>");
    const QString quiet = palette().color(QPalette::PlaceholderText).name();
    auto row = [&html, &quiet](const QString &k, const QString &v) {
        html += QStringLiteral("<tr><td style='padding-right:10px; color:%1'>%2</td><td>%3</td></tr>").arg(quiet, k, v);
    };
    row(zone, QStringLiteral("%1 – %2").arg(instant(p.start), instant(p.end)));
    if (zone != QLatin1String("UTC"))
        row(tr("UTC"), QStringLiteral("%1 – %2").arg(instant(p.start.toUTC()), instant(p.end.toUTC())));
    const backfill::StatusRow *s = calendar.status(ordinal);
    if (calendar.isFuture(ordinal)) {
        row(tr("State"), tr("in the future"));
    } else if (!s) {
        row(tr("State"), refreshing ? tr("reading…") : tr("not read yet"));
    } else {
        row(tr("Rows"), s->rows == 0 ? tr("<b>none</b> (empty partition)") : locale.toString(qlonglong(s->rows)));
        for (const QVariant &v : idx.data(PartitionCalendarModel::MeasuresRole).toList()) {
            const QVariantMap m = v.toMap();
            row(m.value(QStringLiteral("name")).toString().toHtmlEscaped(), m.value(QStringLiteral("value")).toString());
        }
        const QDateTime loaded = idx.data(PartitionCalendarModel::LoadedAtRole).toDateTime();
        row(tr("Loaded"), loaded.isValid() ? loaded.toUTC().toString(QStringLiteral("yyyy-MM-dd HH:mm 'UTC'"))
                                           : tr("unknown"));
        const QString claim = idx.data(PartitionCalendarModel::ClaimRole).toString();
        row(tr("Claim"), claim.isEmpty() ? tr("none") : claim.toHtmlEscaped());
        const QString metric = idx.data(PartitionCalendarModel::MetricTextRole).toString();
        if (!metric.isEmpty())
            row(metricName, metric.toHtmlEscaped());
    }
    html += QStringLiteral("</table>");
    html += checksHtml(idx);
    m_label->setText(html);
}

QString PartitionDetail::checksHtml(const QModelIndex &index)
{
    const QVariantList checks = index.data(PartitionCalendarModel::ChecksRole).toList();
    if (checks.isEmpty())
        return {};
    QString html = QStringLiteral("<p style='margin-top:8px; margin-bottom:2px'><b>%1</b></p>").arg(tr("Checks"));
    for (const QVariant &v : checks) {
        const QVariantMap c = v.toMap();
        const QString state = c.value(QStringLiteral("state")).toString();
        const QString mark = state == QLatin1String("ok")         ? QStringLiteral("<span style='color:#4fa86b'>✓</span>")
            : state == QLatin1String("mismatch") ? QStringLiteral("<span style='color:#d64545'><b>✗</b></span>")
                                                 : QStringLiteral("<span style='color:#e0a82e'>?</span>");
        html += QStringLiteral("<p style='margin:0'>%1 %2<br>").arg(mark, c.value(QStringLiteral("name")).toString().toHtmlEscaped());
        const QString source = c.value(QStringLiteral("source")).toString();
        html += QStringLiteral("&nbsp;&nbsp;&nbsp;&nbsp;") + (state == QLatin1String("checking")
                ? tr("%1; reading the source…").arg(c.value(QStringLiteral("value")).toString())
                : source.isEmpty()
                ? tr("%1; source: no value").arg(c.value(QStringLiteral("value")).toString())
                : tr("%1 vs source %2").arg(c.value(QStringLiteral("value")).toString(), source));
        if (state == QLatin1String("mismatch") && c.contains(QStringLiteral("difference")))
            html += QStringLiteral("<br>&nbsp;&nbsp;&nbsp;&nbsp;<b>%1</b>")
                        .arg(tr("difference %1").arg(c.value(QStringLiteral("difference")).toString()));
        html += QStringLiteral("</p>");
    }
    return html;
}

} // namespace reprint::views
