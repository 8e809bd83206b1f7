#include "plan.h"

#include "backfill/window.h"
#include "partitioncalendarmodel.h"

#include <QDateTime>
#include <QLocale>
#include <QObject>
#include <QRegularExpression>

#include <algorithm>
#include <cmath>
#include <set>

namespace reprint::model {

namespace {

QString q(const std::string &s)
{
    return QString::fromStdString(s);
}

constexpr int kRunsMeasured = 20;

} // namespace

QString shellQuoted(const QString &text)
{
    static const QRegularExpression plain(QStringLiteral("^[A-Za-z0-9_./:=@%+,-]+$"));
    if (plain.match(text).hasMatch())
        return text;
    QString out = text;
    out.replace(QLatin1Char('\''), QStringLiteral("'\\''"));
    return QLatin1Char('\'') + out + QLatin1Char('\'');
}

QString Plan::command() const
{
    QStringList args{QStringLiteral("reprint"), QStringLiteral("backfill"), QStringLiteral("--spec"), shellQuoted(specPath),
                     QStringLiteral("--model"), shellQuoted(model),         QStringLiteral("--from"), shellQuoted(from),
                     QStringLiteral("--to"),    shellQuoted(to)};
    if (cascade)
        args << QStringLiteral("--cascade");
    if (cascade)
        for (const QString &name : leaveOut)
            args << QStringLiteral("--leave-out") << shellQuoted(name);
    return args.join(QLatin1Char(' '));
}

backfill::BackfillRequest Plan::request() const
{
    backfill::BackfillRequest r;
    r.model = model.toStdString();
    r.from = from.toStdString();
    r.to = to.toStdString();
    r.cascade = cascade;
    if (cascade)
        for (const QString &name : leaveOut)
            r.leaveOut.push_back(name.toStdString());
    return r;
}

QList<Plan::Downstream> Plan::staleDownstream() const
{
    QList<Downstream> out;
    for (const Downstream &d : downstream)
        if (!d.staged)
            out << d;
    return out;
}

QString Plan::estimateText() const
{
    const QLocale locale;
    auto duration = [](double s) {
        if (s < 1)
            return QObject::tr("under a second");
        if (s < 90)
            return QObject::tr("%1 s").arg(std::lround(s));
        if (s < 5400)
            return QObject::tr("%1 min").arg(std::lround(s / 60));
        return QObject::tr("%1 h").arg(QLocale().toString(s / 3600, 'f', 1));
    };
    if (seconds < 0)
        return rows <= 0 && partitionsWithoutStatus > 0
            ? QObject::tr("time unknown until the window's rows are read")
            : QObject::tr("time unknown: no past backfill or run of this model to measure");
    const QString rate = locale.toString(rowsPerSecond, 'f', 0);
    if (backfillsMeasured > 0)
        return QObject::tr("≈ %1 to stage (%2 rows/s per partition, measured over %3 of %4)")
            .arg(duration(seconds), rate,
                 partitionsMeasured == 1 ? QObject::tr("1 partition") : QObject::tr("%1 partitions").arg(locale.toString(partitionsMeasured)),
                 backfillsMeasured == 1 ? QObject::tr("1 past backfill") : QObject::tr("%1 past backfills").arg(backfillsMeasured));
    return QObject::tr("≈ %1 to stage (%2 rows/s over the last %3)")
        .arg(duration(seconds), rate, runsMeasured == 1 ? QObject::tr("1 run") : QObject::tr("%1 runs").arg(runsMeasured));
}

namespace {

// Partitions first..last of `calendar` already claimed, as spans: "2026-03-11 .. 2026-03-12:
// backfill 7 (alice, staged)". Also counts the rows the window holds now.
void readClaims(const PartitionCalendarModel &calendar, int first, int last, Plan &plan)
{
    QString claimText;
    int claimFrom = -1;
    auto closeClaim = [&](int end) {
        if (claimFrom < 0)
            return;
        const QString span = claimFrom == end ? q(calendar.partition(claimFrom).name)
                                              : q(calendar.partition(claimFrom).name) + QStringLiteral(" .. ")
                + q(calendar.partition(end).name);
        plan.conflicts << QStringLiteral("%1: %2").arg(span, claimText);
        claimFrom = -1;
    };
    for (int o = first; o <= last; ++o) {
        const backfill::StatusRow *s = calendar.status(o);
        if (!s) {
            ++plan.partitionsWithoutStatus;
            closeClaim(o - 1);
            continue;
        }
        plan.rows += s->rows;
        const QString holder = q(s->claimedBy);
        if (holder != claimText || holder.isEmpty())
            closeClaim(o - 1);
        if (!holder.isEmpty() && claimFrom < 0) {
            claimFrom = o;
            claimText = holder;
        }
    }
    closeClaim(last);
}

// The staging time: the model's past throughput when measured, else its recent scheduled
// runs in the history.
void estimate(const PartitionCalendarModel &calendar, const HistoryRows &history, const backfill::Throughput &past, Plan &plan)
{
    qint64 rowsRun = 0;
    qint64 secondsRun = 0;
    for (auto it = history.rbegin(); it != history.rend() && plan.runsMeasured < kRunsMeasured; ++it) {
        const backfill::HistoryRow &h = *it;
        if (h.model != calendar.model().name || h.kind != "run" || h.status != backfill::BackfillStatus::Published || h.publishedAt.empty())
            continue;
        const int o = calendar.ordinalOfName(q(h.from));
        const backfill::StatusRow *s = calendar.status(o);
        const QDateTime created = QDateTime::fromString(q(h.createdAt), Qt::ISODate);
        const QDateTime published = QDateTime::fromString(q(h.publishedAt), Qt::ISODate);
        if (!s || !created.isValid() || !published.isValid())
            continue;
        rowsRun += s->rows;
        secondsRun += std::max<qint64>(1, created.secsTo(published));
        ++plan.runsMeasured;
    }
    if (past.isKnown()) {
        plan.backfillsMeasured = past.backfills + past.runs;
        plan.partitionsMeasured = past.partitions;
        plan.rowsPerSecond = past.rowsPerSecond();
    } else if (plan.runsMeasured > 0 && rowsRun > 0) {
        plan.rowsPerSecond = double(rowsRun) / double(secondsRun);
    }
    if (plan.rowsPerSecond > 0 && plan.rows > 0)
        plan.seconds = double(plan.rows) / plan.rowsPerSecond;
}

} // namespace

Plan Plan::make(const backfill::Spec &spec, const PartitionCalendarModel &calendar, int first, int last,
                const HistoryRows &history, bool cascade, const backfill::Throughput &past, const QStringList &leaveOut)
{
    Plan plan;
    if (!calendar.hasModel() || first < 0 || last < first || last >= calendar.partitionCount())
        return plan;
    const backfill::Model &m = calendar.model();
    // The engine's own window and downstream mapping (model/backfill/window.h), so the plan
    // shows what the backfill claims, checks and cascades to.
    const backfill::Window root = backfill::windowSpanning(m, calendar.partition(first).start, calendar.partition(last).end);
    plan.specPath = q(spec.path);
    plan.model = q(m.name);
    plan.cascade = cascade;
    plan.from = q(root.first().name);
    plan.to = q(root.last().name);
    plan.partitions = int(root.partitions.size());
    plan.diffPartitions << plan.from;
    if (root.partitions.size() > 1)
        plan.diffPartitions << plan.to;
    plan.outsidePartitions << q(root.before.name) << q(root.after.name);
    readClaims(calendar, first, last, plan);
    estimate(calendar, history, past, plan);

    std::set<std::string> out;
    for (const QString &name : leaveOut)
        out.insert(name.toStdString());
    for (const backfill::DownstreamWindow &d : backfill::downstreamWindows(spec, root, out)) {
        const bool leftOut = cascade && out.count(d.model->name);
        if (leftOut)
            plan.leaveOut << q(d.model->name);
        plan.downstream.append({q(d.model->name), q(d.window.first().name), q(d.window.last().name),
                                int(d.window.partitions.size()), cascade && d.staged, leftOut});
    }
    return plan;
}

QString partitionsText(int n)
{
    return (n == 1 ? QObject::tr("%1 partition") : QObject::tr("%1 partitions")).arg(QLocale().toString(n));
}

} // namespace reprint::model
