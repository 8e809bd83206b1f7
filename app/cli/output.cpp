#include "output.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTextStream>

#include <cmath>

namespace reprint::cli {

namespace {

QString q(const std::string &s)
{
    return QString::fromStdString(s);
}

QString q(const std::optional<std::string> &s)
{
    return s ? QString::fromStdString(*s) : QString();
}

// A text field of JSON output: an empty value is null, in every command's JSON.
QJsonValue textOrNull(const std::string &s)
{
    return s.empty() ? QJsonValue() : QJsonValue(QString::fromStdString(s));
}

int scaleOf(const std::optional<std::string> &v)
{
    if (!v)
        return 0;
    const auto dot = v->find('.');
    return dot == std::string::npos ? 0 : static_cast<int>(v->size() - dot - 1);
}

QJsonValue number(const std::optional<std::string> &v)
{
    if (!v)
        return QJsonValue::Null;
    bool ok = false;
    const double d = QString::fromStdString(*v).toDouble(&ok);
    return ok ? QJsonValue(d) : QJsonValue(QString::fromStdString(*v));
}

QString csvField(const QString &s)
{
    if (!s.contains(QLatin1Char(',')) && !s.contains(QLatin1Char('"')) && !s.contains(QLatin1Char('\n')))
        return s;
    QString e = s;
    e.replace(QLatin1String("\""), QLatin1String("\"\""));
    return QLatin1Char('"') + e + QLatin1Char('"');
}

void printJson(const QJsonValue &v)
{
    QTextStream out(stdout);
    out << (v.isArray() ? QJsonDocument(v.toArray()) : QJsonDocument(v.toObject())).toJson(QJsonDocument::Indented);
}

} // namespace

bool parseFormat(const QString &text, Format *out)
{
    if (text == QLatin1String("table"))
        *out = Format::Table;
    else if (text == QLatin1String("json"))
        *out = Format::Json;
    else if (text == QLatin1String("csv"))
        *out = Format::Csv;
    else
        return false;
    return true;
}

QString durationText(double value)
{
    return QString::number(value, 'f', 1);
}

QString deltaText(const std::optional<std::string> &oldValue, const std::optional<std::string> &newValue)
{
    if (!oldValue && !newValue)
        return QString();
    const long double a = oldValue ? std::strtold(oldValue->c_str(), nullptr) : 0.0L;
    const long double b = newValue ? std::strtold(newValue->c_str(), nullptr) : 0.0L;
    const int scale = std::max(scaleOf(oldValue), scaleOf(newValue));
    const long double d = b - a;
    QString s = QString::number(static_cast<double>(d), 'f', scale);
    if (d > 0)
        s.prepend(QLatin1Char('+'));
    return s;
}

QString deltaPercentText(const std::optional<std::string> &oldValue, const std::optional<std::string> &newValue)
{
    const long double a = oldValue ? std::strtold(oldValue->c_str(), nullptr) : 0.0L;
    const long double b = newValue ? std::strtold(newValue->c_str(), nullptr) : 0.0L;
    if (a == 0)
        return b == 0 ? QStringLiteral("0.00%") : QString();
    const double pct = static_cast<double>((b - a) / std::fabs(a) * 100.0L);
    return (pct > 0 ? QStringLiteral("+") : QString()) + QString::number(pct, 'f', 2) + QLatin1Char('%');
}

void Output::table(const QStringList &headers, const QList<QStringList> &rows, const QList<int> &numeric)
{
    QTextStream out(stdout);
    if (m_format == Format::Csv) {
        QStringList h;
        for (const QString &s : headers)
            h << csvField(s);
        if (!h.isEmpty())
            out << h.join(QLatin1Char(',')) << "\n";
        for (const QStringList &r : rows) {
            QStringList f;
            for (const QString &s : r)
                f << csvField(s);
            out << f.join(QLatin1Char(',')) << "\n";
        }
        return;
    }
    QList<int> width;
    for (const QString &h : headers)
        width << h.size();
    for (const QStringList &r : rows)
        for (int i = 0; i < r.size() && i < width.size(); ++i)
            width[i] = std::max(width[i], static_cast<int>(r[i].size()));
    auto line = [&](const QStringList &cells) {
        QStringList padded;
        for (int i = 0; i < cells.size(); ++i)
            padded << (numeric.contains(i) ? cells[i].rightJustified(width[i]) : cells[i].leftJustified(width[i]));
        QString text = padded.join(QLatin1String("  "));
        while (text.endsWith(QLatin1Char(' ')))
            text.chop(1);
        out << text << "\n";
    };
    line(headers);
    QStringList rule;
    for (int w : width)
        rule << QString(w, QLatin1Char('-'));
    out << rule.join(QLatin1String("  ")) << "\n";
    for (const QStringList &r : rows)
        line(r);
}

void Output::status(const backfill::Model &model, const std::vector<backfill::StatusRow> &rows)
{
    if (m_format == Format::Json) {
        QJsonArray parts;
        for (const auto &r : rows) {
            QJsonObject o, measures, checks;
            o.insert(QStringLiteral("partition"), q(r.partition.name));
            o.insert(QStringLiteral("start"), q(r.partition.startText()));
            o.insert(QStringLiteral("rows"), static_cast<qint64>(r.rows));
            for (const auto &[name, value] : r.measures)
                measures.insert(q(name), number(value.empty() ? std::optional<std::string>() : value));
            for (const auto &[name, state] : r.checks)
                checks.insert(q(name), q(state));
            o.insert(QStringLiteral("measures"), measures);
            o.insert(QStringLiteral("checks"), checks);
            o.insert(QStringLiteral("loaded_at"), r.loadedAt.empty() ? QJsonValue() : QJsonValue(q(r.loadedAt)));
            o.insert(QStringLiteral("claimed_by"), r.claimedBy.empty() ? QJsonValue() : QJsonValue(q(r.claimedBy)));
            parts.append(o);
        }
        printJson(QJsonObject{{QStringLiteral("model"), q(model.name)}, {QStringLiteral("partitions"), parts}});
        return;
    }
    QStringList headers{QStringLiteral("partition"), QStringLiteral("rows")};
    QList<int> numeric{1};
    for (const auto &m : model.measures) {
        numeric << headers.size();
        headers << q(m);
    }
    for (const auto &c : model.checks)
        headers << q(c.name);
    headers << QStringLiteral("loaded_at") << QStringLiteral("claim");
    QList<QStringList> out;
    for (const auto &r : rows) {
        QStringList cells{q(r.partition.name), QString::number(r.rows)};
        for (const auto &[name, value] : r.measures)
            cells << q(value);
        for (const auto &[name, state] : r.checks)
            cells << (state == "mismatch" ? QStringLiteral("MISMATCH") : q(state));
        cells << q(r.loadedAt) << q(r.claimedBy);
        out << cells;
    }
    table(headers, out, numeric);
}

QJsonObject Output::reviewJson(const backfill::Review &review) const
{
    QJsonArray parts;
    for (const auto &p : review.partitions) {
        QJsonObject measures;
        for (const auto &m : p.measures)
            measures.insert(q(m.measure), QJsonObject{{QStringLiteral("old"), number(m.oldValue)},
                                                       {QStringLiteral("new"), number(m.newValue)},
                                                       {QStringLiteral("source"), number(m.source)},
                                                       {QStringLiteral("verdict"), QString::fromLatin1(toString(m.verdict))}});
        parts.append(QJsonObject{{QStringLiteral("partition"), q(p.partition)},
                                 {QStringLiteral("in_scope"), p.inScope},
                                 {QStringLiteral("boundary"), p.boundary},
                                 {QStringLiteral("measures"), measures}});
    }
    return QJsonObject{{QStringLiteral("backfill"), static_cast<qint64>(review.backfillId)},
                       {QStringLiteral("model"), q(review.model)},
                       {QStringLiteral("status"), QLatin1String(backfill::toString(review.status))},
                       {QStringLiteral("validation"), review.validation.empty() ? QJsonValue() : QJsonValue(q(review.validation))},
                       {QStringLiteral("validation_message"),
                        review.validationMessage.empty() ? QJsonValue() : QJsonValue(q(review.validationMessage))},
                       {QStringLiteral("from"), q(review.from)},
                       {QStringLiteral("to"), q(review.to)},
                       {QStringLiteral("float_measures"), [&] {
                            QJsonArray a;
                            for (const std::string &m : review.floatMeasures)
                                a.append(q(m));
                            return a;
                        }()},
                       {QStringLiteral("unexpected_columns"), [&] {
                            QJsonArray a;
                            for (const auto &u : review.unexpectedColumns)
                                a.append(QJsonObject{{QStringLiteral("partition"), q(u.partition)},
                                                     {QStringLiteral("column"), q(u.column)},
                                                     {QStringLiteral("rows"), static_cast<qint64>(u.rows)},
                                                     {QStringLiteral("verdict"), QStringLiteral("unexpected")}});
                            return a;
                        }()},
                       {QStringLiteral("cascade_members"), [&] {
                            QJsonArray a;
                            for (const auto &m : review.cascade)
                                a.append(QJsonObject{{QStringLiteral("backfill"), static_cast<qint64>(m.id)},
                                                     {QStringLiteral("model"), q(m.model)},
                                                     {QStringLiteral("from"), q(m.from)},
                                                     {QStringLiteral("to"), q(m.to)},
                                                     {QStringLiteral("status"), QLatin1String(backfill::toString(m.status))},
                                                     {QStringLiteral("validation"), m.validation.empty() ? QJsonValue() : QJsonValue(q(m.validation))}});
                            return a;
                        }()},
                       {QStringLiteral("stale_downstream"), [&] {
                            QJsonArray a;
                            for (const std::string &d : review.staleDownstream)
                                a.append(q(d));
                            return a;
                        }()},
                       {QStringLiteral("partitions"), parts}};
}

void Output::review(const backfill::Review &review, const std::vector<backfill::Review> &cascade)
{
    if (m_format == Format::Json) {
        QJsonObject root = reviewJson(review);
        if (!cascade.empty()) {
            QJsonArray downstream;
            for (const auto &r : cascade)
                downstream.append(reviewJson(r));
            root.insert(QStringLiteral("cascade"), downstream);
        }
        printJson(root);
        return;
    }
    for (std::size_t i = 0; i <= cascade.size(); ++i) {
        const backfill::Review &r = i == 0 ? review : cascade[i - 1];
        if (m_format == Format::Table)
            QTextStream(stdout) << (i ? "\n" : "") << "backfill " << r.backfillId << "  " << q(r.model) << "  " << q(r.from) << ".."
                                << q(r.to) << "  status " << QLatin1String(backfill::toString(r.status))
                                << (r.validation.empty() ? QString() : QStringLiteral("  validation ") + q(r.validation)) << "\n\n";
        if (m_format == Format::Table && i == 0 && r.cascade.size() > 1) {
            QStringList members;
            for (const auto &m : r.cascade)
                members << QStringLiteral("%1 (backfill %2, validation %3)").arg(q(m.model)).arg(m.id).arg(m.validation.empty() ? QStringLiteral("none") : q(m.validation));
            QTextStream(stdout) << "a cascade of " << r.cascade.size() << " backfills, published together: " << members.join(QStringLiteral(", "))
                                << "\n\n";
        }
        if (m_format == Format::Table)
            for (const std::string &d : r.staleDownstream)
                QTextStream(stdout) << "STALE: downstream " << q(d) << " reads this window and is not in this backfill: it is stale once this "
                                    << "is published (backfill it after this one, or stage it with this window: --cascade)\n\n";
        if (m_format == Format::Table)
            for (const std::string &m : r.floatMeasures)
                QTextStream(stdout) << "measure " << q(m) << " is floating point: its totals are summed exactly (as numeric), "
                                       "so the order rows are read in cannot change them\n\n";
        const QStringList headers{QStringLiteral("model"), QStringLiteral("partition"), QStringLiteral("scope"), QStringLiteral("measure"),
                                  QStringLiteral("old"), QStringLiteral("new"), QStringLiteral("delta"),
                                  QStringLiteral("delta_pct"), QStringLiteral("source"), QStringLiteral("verdict")};
        QList<QStringList> rows;
        for (const auto &p : r.partitions) {
            const QString scope = p.inScope ? (p.boundary ? QStringLiteral("in*") : QStringLiteral("in")) : QStringLiteral("outside");
            for (const auto &m : p.measures) {
                QString verdict = QString::fromLatin1(toString(m.verdict));
                if (m_format == Format::Table && (m.verdict == backfill::Verdict::MismatchSource || m.verdict == backfill::Verdict::Unexpected))
                    verdict = verdict.toUpper();
                rows << QStringList{q(r.model), q(p.partition), scope, q(m.measure), q(m.oldValue), q(m.newValue),
                                    deltaText(m.oldValue, m.newValue), deltaPercentText(m.oldValue, m.newValue), q(m.source), verdict};
            }
        }
        // In a table the model is in the heading above; CSV keeps it per row.
        QStringList h = headers;
        if (m_format == Format::Table) {
            h.removeFirst();
            for (QStringList &row : rows)
                row.removeFirst();
        }
        if (m_format == Format::Csv && i > 0)
            h.clear();
        table(h, rows, m_format == Format::Table ? QList<int>{3, 4, 5, 6, 7} : QList<int>{});
        if (m_format == Format::Table)
            for (const auto &u : r.unexpectedColumns)
                QTextStream(stdout) << "UNEXPECTED: " << q(backfill::counted(u.rows, "row")) << " of " << q(u.partition) << " changed column " << q(u.column)
                                    << ", which no measure covers; read "
                                    << q(backfill::completeCommands("`reprint diff " + std::to_string(r.backfillId) + " --rows " + u.partition + "`",
                                                                    m_specPath))
                                    << " before you approve\n";
    }
    if (m_format == Format::Table)
        QTextStream(stdout) << "\nin* = boundary partition (row-level diff kept); outside = the partition just outside the window\n";
}

void Output::rowDiff(const backfill::RowDiff &diff, const backfill::RowDiffPage &page, long long offset, std::optional<long long> limit)
{
    auto object = [](const std::string &text) -> QJsonValue {
        const QJsonDocument d = QJsonDocument::fromJson(QByteArray::fromStdString(text));
        return d.isObject() ? QJsonValue(d.object()) : QJsonValue();
    };
    QJsonArray sample;
    for (const backfill::RowDiffEntry &e : page.rows)
        sample.append(QJsonObject{{QStringLiteral("change"), q(e.change)},
                                  {QStringLiteral("key"), object(e.key)},
                                  {QStringLiteral("old"), object(e.oldRow)},
                                  {QStringLiteral("new"), object(e.newRow)}});
    if (m_format == Format::Json) {
        QJsonObject cols;
        for (const auto &c : diff.columnChanges)
            cols.insert(q(c.column), static_cast<qint64>(c.count));
        printJson(QJsonObject{{QStringLiteral("backfill"), static_cast<qint64>(diff.backfillId)},
                              {QStringLiteral("partition"), q(diff.partition)},
                              {QStringLiteral("added"), static_cast<qint64>(diff.added)},
                              {QStringLiteral("removed"), static_cast<qint64>(diff.removed)},
                              {QStringLiteral("changed"), static_cast<qint64>(diff.changed)},
                              {QStringLiteral("old_repeats"), static_cast<qint64>(diff.oldRepeats)},
                              {QStringLiteral("new_repeats"), static_cast<qint64>(diff.newRepeats)},
                              {QStringLiteral("column_changes"), cols},
                              {QStringLiteral("total"), static_cast<qint64>(diff.added + diff.removed + diff.changed)},
                              {QStringLiteral("offset"), static_cast<qint64>(offset)},
                              {QStringLiteral("limit"), limit ? QJsonValue(static_cast<qint64>(*limit)) : QJsonValue()},
                              {QStringLiteral("basis"), q(page.basis)},
                              {QStringLiteral("sample"), sample}});
        return;
    }
    if (m_format == Format::Table) {
        QTextStream out(stdout);
        out << "partition " << q(diff.partition) << " of backfill " << diff.backfillId << ": " << diff.added << " added, "
            << diff.removed << " removed, " << diff.changed << " changed\n";
        if (diff.oldRepeats > 0 || diff.newRepeats > 0)
            out << "  the key repeats: " << q(backfill::counted(diff.oldRepeats, "row")) << " in the target and " << diff.newRepeats
                << " in the stage share a key with an earlier row; repeated keys are paired in order, not multiplied\n";
        for (const auto &c : diff.columnChanges)
            if (c.count)
                out << "  " << q(c.column) << ": " << c.count << " changed\n";
        out << "\n";
    }
    QList<QStringList> rows;
    for (const QJsonValue &v : sample) {
        const QJsonObject o = v.toObject();
        const QString change = o.value(QStringLiteral("change")).toString();
        const QString key = QString::fromUtf8(QJsonDocument(o.value(QStringLiteral("key")).toObject()).toJson(QJsonDocument::Compact));
        const QJsonObject oldRow = o.value(QStringLiteral("old")).toObject();
        const QJsonObject newRow = o.value(QStringLiteral("new")).toObject();
        QStringList columns = oldRow.keys();
        for (const QString &k : newRow.keys())
            if (!columns.contains(k))
                columns << k;
        for (const QString &c : columns) {
            const QJsonValue a = oldRow.value(c), b = newRow.value(c);
            if (change == QLatin1String("changed") && a == b)
                continue;
            auto text = [](const QJsonValue &x) {
                return x.isUndefined() ? QString() : x.isString() ? x.toString() : x.isNull() ? QStringLiteral("NULL") : QString::fromUtf8(QJsonDocument(QJsonArray{x}).toJson(QJsonDocument::Compact)).mid(1).chopped(1);
            };
            rows << QStringList{change, key, c, text(a), text(b)};
        }
    }
    table({QStringLiteral("change"), QStringLiteral("key"), QStringLiteral("column"), QStringLiteral("old"), QStringLiteral("new")}, rows);
}

void Output::run(const backfill::RunOutcome &run)
{
    if (m_format == Format::Json) {
        printJson(QJsonObject{{QStringLiteral("run"), static_cast<qint64>(run.id)},
                              {QStringLiteral("partition"), q(run.partition)},
                              {QStringLiteral("rows"), static_cast<qint64>(run.rows)},
                              {QStringLiteral("seconds"), run.seconds}});
        return;
    }
    table({QStringLiteral("run"), QStringLiteral("partition"), QStringLiteral("rows"), QStringLiteral("seconds")},
          {{QString::number(run.id), q(run.partition), QString::number(run.rows), QString::number(run.seconds, 'f', 2)}}, {2, 3});
}

void Output::publish(const backfill::PublishOutcome &p)
{
    const QString lockHeld = durationText(p.lockHeldMs);
    if (m_format == Format::Json) {
        printJson(QJsonObject{{QStringLiteral("backfill"), static_cast<qint64>(p.id)},
                              {QStringLiteral("status"), QStringLiteral("published")},
                              {QStringLiteral("rows_replaced"), static_cast<qint64>(p.rowsReplaced)},
                              {QStringLiteral("rows_inserted"), static_cast<qint64>(p.rowsInserted)},
                              {QStringLiteral("approver"), textOrNull(p.approver)},
                              {QStringLiteral("strategy"), textOrNull(p.strategy)},
                              {QStringLiteral("lock_held_ms"), p.lockHeldMs}});
        return;
    }
    table({QStringLiteral("backfill"), QStringLiteral("status"), QStringLiteral("rows_replaced"), QStringLiteral("rows_inserted"),
           QStringLiteral("approver"), QStringLiteral("strategy"), QStringLiteral("lock_held_ms")},
          {{QString::number(p.id), QStringLiteral("published"), QString::number(p.rowsReplaced), QString::number(p.rowsInserted),
            q(p.approver), q(p.strategy), lockHeld}},
          {2, 3, 6});
}

void Output::history(const std::vector<backfill::HistoryRow> &rows)
{
    if (m_format == Format::Json) {
        QJsonArray arr;
        for (const auto &h : rows)
            arr.append(QJsonObject{{QStringLiteral("id"), static_cast<qint64>(h.id)},
                                   {QStringLiteral("model"), textOrNull(h.model)},
                                   {QStringLiteral("kind"), textOrNull(h.kind)},
                                   {QStringLiteral("status"), QLatin1String(backfill::toString(h.status))},
                                   {QStringLiteral("validation"), textOrNull(h.validation)},
                                   {QStringLiteral("from"), textOrNull(h.from)},
                                   {QStringLiteral("to"), textOrNull(h.to)},
                                   {QStringLiteral("operator"), textOrNull(h.operatorName)},
                                   {QStringLiteral("approver"), textOrNull(h.approver)},
                                   {QStringLiteral("note"), textOrNull(h.note)},
                                   {QStringLiteral("override_reason"), textOrNull(h.overrideReason)},
                                   {QStringLiteral("created_at"), textOrNull(h.createdAt)},
                                   {QStringLiteral("published_at"), textOrNull(h.publishedAt)},
                                   {QStringLiteral("error"), textOrNull(h.error)},
                                   {QStringLiteral("resumable"), h.leaseExpired},
                                   {QStringLiteral("failure"), h.failure ? QJsonValue(QLatin1String(backfill::toString(*h.failure)))
                                                                         : QJsonValue()}});
        printJson(QJsonObject{{QStringLiteral("backfills"), arr}});
        return;
    }
    QList<QStringList> out;
    for (const auto &h : rows)
        out << QStringList{QString::number(h.id), q(h.model), q(h.kind),
                           QLatin1String(backfill::toString(h.status)) + (h.leaseExpired ? QStringLiteral(" (interrupted)") : QString()), q(h.validation),
                           q(h.from) + QStringLiteral("..") + q(h.to), q(h.operatorName), q(h.approver), q(h.createdAt),
                           q(h.publishedAt), q(h.note), q(h.overrideReason), q(h.error)};
    table({QStringLiteral("id"), QStringLiteral("model"), QStringLiteral("kind"), QStringLiteral("status"), QStringLiteral("validation"),
           QStringLiteral("window"), QStringLiteral("operator"), QStringLiteral("approver"), QStringLiteral("created"),
           QStringLiteral("published"), QStringLiteral("note"), QStringLiteral("override"), QStringLiteral("error")},
          out, {0});
}

} // namespace reprint::cli
