#include "calendarfacts.h"

#include "migrations.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QTimeZone>

namespace reprint::backfill {

using warehouse::ConnectionPtr;
using warehouse::args;

namespace {

Task<Result<ConnectionPtr>> connectFor(const std::string &conninfo)
{
    return openSession(conninfo, "reprint-review");
}

} // namespace

Task<Status> PartitionListener::open()
{
    close();
    auto conn = co_await connectFor(m_conninfo);
    if (!conn)
        co_return conn.error();
    auto r = co_await (*conn)->execute("LISTEN reprint_partitions");
    if (!r)
        co_return r.error();
    m_conn = *conn;
    co_return warehouse::ok();
}

Task<Result<std::optional<PartitionsChanged>>> PartitionListener::next(std::chrono::milliseconds timeout)
{
    if (!m_conn)
        co_return Error::make(ErrorKind::Connection, "the partition listener is not open");
    auto conn = m_conn;
    while (true) {
        auto n = co_await conn->waitForNotification(timeout);
        if (!n) {
            close();
            co_return n.error();
        }
        if (!*n)
            co_return std::optional<PartitionsChanged>();
        if (auto change = parse((*n)->payload))
            co_return change;
        timeout = std::chrono::milliseconds(0);
    }
}

void PartitionListener::close()
{
    if (m_conn)
        m_conn->close();
    m_conn.reset();
}

std::optional<PartitionsChanged> PartitionListener::parse(const std::string &payload)
{
    const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(payload));
    if (!doc.isObject())
        return std::nullopt;
    const QJsonObject o = doc.object();
    const QString model = o.value(QStringLiteral("model")).toString();
    const QJsonValue start = o.value(QStringLiteral("start"));
    const QJsonValue end = o.value(QStringLiteral("end"));
    if (model.isEmpty() || !start.isDouble() || !end.isDouble() || end.toDouble() <= start.toDouble())
        return std::nullopt;
    PartitionsChanged change;
    change.model = model.toStdString();
    change.start = QDateTime::fromSecsSinceEpoch(qint64(start.toDouble()), QTimeZone::utc());
    change.end = QDateTime::fromSecsSinceEpoch(qint64(end.toDouble()), QTimeZone::utc());
    return change;
}

Task<Result<Throughput>> pastThroughput(const Engine &engine, std::string model)
{
    auto conn = co_await connectFor(engine.conninfo());
    if (!conn)
        co_return conn.error();
    auto schema = co_await requireSchema(**conn);
    if (!schema)
        co_return schema.error();
    auto r = co_await (*conn)->query(
        "WITH recent AS (SELECT b.id, b.kind FROM reprint.backfills b WHERE b.model = $1 AND EXISTS ("
        "SELECT 1 FROM reprint.backfill_partitions p WHERE p.backfill_id = b.id AND p.rows > 0 AND p.seconds > 0) "
        "ORDER BY b.created_at DESC, b.id DESC LIMIT $2) "
        "SELECT count(DISTINCT r.id) FILTER (WHERE r.kind = 'backfill')::text, "
        "count(DISTINCT r.id) FILTER (WHERE r.kind = 'run')::text, count(*)::text, "
        "coalesce(sum(p.rows), 0)::text, coalesce(sum(p.seconds), 0)::text "
        "FROM recent r JOIN reprint.backfill_partitions p ON p.backfill_id = r.id WHERE p.rows > 0 AND p.seconds > 0",
        args(model, std::to_string(kThroughputBackfills)));
    (*conn)->close();
    if (!r)
        co_return r.error();
    Throughput t;
    if (!r->last().rows.empty()) {
        const auto &row = r->last().rows.front();
        t.backfills = std::stoi(row[0].value_or("0"));
        t.runs = std::stoi(row[1].value_or("0"));
        t.partitions = std::stoi(row[2].value_or("0"));
        t.rows = std::stoll(row[3].value_or("0"));
        t.seconds = std::stod(row[4].value_or("0"));
    }
    co_return t;
}

Task<Result<SchemaVersions>> schemaVersions(const Engine &engine)
{
    auto conn = co_await connectFor(engine.conninfo());
    if (!conn)
        co_return conn.error();
    auto v = co_await schemaVersion(**conn);
    (*conn)->close();
    if (!v)
        co_return v.error();
    co_return SchemaVersions{*v, latestSchemaVersion()};
}

} // namespace reprint::backfill
