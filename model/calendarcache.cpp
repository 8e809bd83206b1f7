#include "calendarcache.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>
#include <QStandardPaths>

namespace reprint::model {

namespace {

QString q(const std::string &s) { return QString::fromStdString(s); }

using Pairs = std::vector<std::pair<std::string, std::string>>;

QJsonArray pairsJson(const Pairs &v)
{
    QJsonArray a;
    for (const auto &[k, val] : v)
        a.append(QJsonArray{q(k), q(val)});
    return a;
}

Pairs pairsOf(const QJsonValue &v)
{
    Pairs out;
    for (const QJsonValue &e : v.toArray()) {
        const QJsonArray a = e.toArray();
        out.emplace_back(a.at(0).toString().toStdString(), a.at(1).toString().toStdString());
    }
    return out;
}

bool isOf(const QJsonObject &json, const backfill::Model &model)
{
    return json.value(QStringLiteral("model")).toString() == q(model.name)
        && json.value(QStringLiteral("grain")).toString() == QString::fromLatin1(backfill::toString(model.grain))
        && json.value(QStringLiteral("timezone")).toString() == q(model.timezone);
}

} // namespace

QByteArray calendarCacheJson(const backfill::Model &model, const CalendarCache &cache)
{
    QJsonArray parts;
    for (const backfill::StatusRow &s : cache.rows)
        parts.append(QJsonObject{
            {QStringLiteral("start"), s.partition.start.toSecsSinceEpoch()},
            {QStringLiteral("rows"), s.rows},
            {QStringLiteral("measures"), pairsJson(s.measures)},
            {QStringLiteral("checksRead"), s.checksRead},
            {QStringLiteral("checks"), pairsJson(s.checks)},
            {QStringLiteral("checkValues"), pairsJson(s.checkValues)},
            {QStringLiteral("loadedAt"), q(s.loadedAt)},
            {QStringLiteral("claimedBy"), q(s.claimedBy)},
        });
    const QJsonObject json{{QStringLiteral("model"), q(model.name)},
                           {QStringLiteral("grain"), QString::fromLatin1(backfill::toString(model.grain))},
                           {QStringLiteral("timezone"), q(model.timezone)},
                           {QStringLiteral("time"), cache.time.toString(Qt::ISODateWithMs)},
                           {QStringLiteral("partitions"), parts}};
    return QJsonDocument(json).toJson(QJsonDocument::Compact);
}

std::optional<CalendarCache> calendarCacheFromJson(const QByteArray &text, const backfill::Model &model)
{
    const QJsonDocument doc = QJsonDocument::fromJson(text);
    if (!doc.isObject() || !isOf(doc.object(), model))
        return std::nullopt;
    const QJsonObject json = doc.object();
    const backfill::PartitionScheme scheme = model.scheme();
    const QTimeZone zone = scheme.timezone();
    CalendarCache out;
    out.time = QDateTime::fromString(json.value(QStringLiteral("time")).toString(), Qt::ISODateWithMs);
    for (const QJsonValue &v : json.value(QStringLiteral("partitions")).toArray()) {
        const QJsonObject o = v.toObject();
        backfill::StatusRow r;
        r.partition = scheme.containing(
            QDateTime::fromSecsSinceEpoch(qint64(o.value(QStringLiteral("start")).toDouble()), zone));
        r.rows = qint64(o.value(QStringLiteral("rows")).toDouble());
        r.measures = pairsOf(o.value(QStringLiteral("measures")));
        r.checksRead = o.value(QStringLiteral("checksRead")).toBool(true);
        r.checks = pairsOf(o.value(QStringLiteral("checks")));
        r.checkValues = pairsOf(o.value(QStringLiteral("checkValues")));
        r.loadedAt = o.value(QStringLiteral("loadedAt")).toString().toStdString();
        r.claimedBy = o.value(QStringLiteral("claimedBy")).toString().toStdString();
        out.rows.push_back(std::move(r));
    }
    return out;
}

QString calendarCachePath(const QString &specPath, const QString &model)
{
    const QString dir = QStandardPaths::writableLocation(QStandardPaths::CacheLocation);
    const QByteArray key = (specPath + QLatin1Char('\n') + model).toUtf8();
    return dir + QStringLiteral("/calendar/")
        + QString::fromLatin1(QCryptographicHash::hash(key, QCryptographicHash::Sha1).toHex()) + QStringLiteral(".json");
}

std::optional<CalendarCache> readCalendarCache(const QString &path, const backfill::Model &model)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return std::nullopt;
    return calendarCacheFromJson(file.readAll(), model);
}

bool writeCalendarCache(const QString &path, const backfill::Model &model, const CalendarCache &cache)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return false;
    file.write(calendarCacheJson(model, cache));
    return file.commit();
}

} // namespace reprint::model
