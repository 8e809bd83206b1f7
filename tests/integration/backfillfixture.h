#pragma once
// Shared by the backfill integration tests: the demo spec, independent SQL computations
// of what the target should hold, per-day hashes, and CLI helpers.

#include "testsupport.h"

#include "warehouse/connection.h"
#include "warehouse/iothread.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <atomic>
#include <map>
#include <thread>
#include <vector>
#include <string>

namespace reprint::test {


inline QString demoSpec()
{
    return QDir(qEnvironmentVariable("REPRINT_TEST_DEMO_DIR")).filePath(QStringLiteral("demo.yaml"));
}

inline std::string scalar(const std::string &conninfo, const std::string &sql, warehouse::Params params = {})
{
    auto r = query(conninfo, sql, std::move(params));
    if (!r) {
        qWarning("query failed: %s", r.error().message.c_str());
        return "<error>";
    }
    return r->last().scalar("<null>");
}

// Each day's rows and revenue of the target, as one text block.
inline std::string targetPerDay(const std::string &db)
{
    return scalar(db, "SELECT string_agg(d::text || ' ' || n || ' ' || s, E'\\n' ORDER BY d) FROM ("
                      "SELECT order_date AS d, count(*) AS n, sum(revenue) AS s FROM analytics.fct_order_lines GROUP BY 1) x");
}

// The same, computed independently from the raw tables.
inline std::string truthPerDay(const std::string &db)
{
    return scalar(db, "SELECT string_agg(d::text || ' ' || n || ' ' || s, E'\\n' ORDER BY d) FROM ("
                      "SELECT (o.ordered_at AT TIME ZONE 'UTC')::date AS d, count(*) AS n, "
                      "sum(round(l.quantity * l.unit_price * (1 - l.discount), 2)) AS s "
                      "FROM raw.order_lines l JOIN raw.orders o USING (order_id) "
                      "WHERE o.ordered_at >= '2025-07-01 00:00+00' AND o.ordered_at < '2026-07-01 00:00+00' GROUP BY 1) x");
}

// md5 of each day's ordered rows: a partition outside the window must keep its hash.
inline std::map<std::string, std::string> dayHashes(const std::string &db)
{
    std::map<std::string, std::string> out;
    auto r = query(db, "SELECT order_date::text, md5(string_agg(t::text, '|' ORDER BY order_line_id)) "
                             "FROM analytics.fct_order_lines t GROUP BY 1");
    if (r)
        for (const auto &row : r->last().rows)
            out[*row[0]] = *row[1];
    return out;
}

inline QJsonObject json(const ProcessResult &p)
{
    return QJsonDocument::fromJson(p.out.toUtf8()).object();
}

inline long long backfillIdFrom(const ProcessResult &p)
{
    const auto m = QRegularExpression(QStringLiteral("backfill (\\d+) staged")).match(p.err);
    return m.hasMatch() ? m.captured(1).toLongLong() : 0;
}

inline QStringList base(const QString &command, const std::string &db, const QString &spec = demoSpec())
{
    return {command, QStringLiteral("--spec"), spec, QStringLiteral("--db"), QString::fromStdString(db)};
}

// A copy of the demo spec directory (transforms and checks included) whose spec text is
// passed through `edit`. Returns the copy's spec path.
template <typename Edit>
inline QString specCopy(QTemporaryDir &dir, Edit edit)
{
    const QDir demo(qEnvironmentVariable("REPRINT_TEST_DEMO_DIR"));
    QDir(dir.path()).mkpath(QStringLiteral("transforms"));
    QDir(dir.path()).mkpath(QStringLiteral("checks"));
    for (const QString &sub : {QStringLiteral("transforms"), QStringLiteral("checks")})
        for (const QString &f : QDir(demo.filePath(sub)).entryList(QDir::Files))
            QFile::copy(demo.filePath(sub + QLatin1Char('/') + f), dir.filePath(sub + QLatin1Char('/') + f));
    QFile in(demoSpec());
    in.open(QIODevice::ReadOnly);
    QString yaml = QString::fromUtf8(in.readAll());
    edit(yaml);
    QFile out(dir.filePath(QStringLiteral("spec.yaml")));
    out.open(QIODevice::WriteOnly);
    out.write(yaml.toUtf8());
    return out.fileName();
}

// A copy of the demo spec directory whose fct transform is `transformSql`.
inline QString specWithTransform(QTemporaryDir &dir, const QString &transformSql)
{
    QFile t(QDir(dir.path()).filePath(QStringLiteral("custom_fct.sql")));
    t.open(QIODevice::WriteOnly);
    t.write(transformSql.toUtf8());
    t.close();
    return specCopy(dir, [](QString &yaml) {
        yaml.replace(QStringLiteral("transforms/fct_order_lines.sql"), QStringLiteral("custom_fct.sql"));
    });
}

// A copy of the demo spec whose models publish with `strategy` (replace, swap, auto).
inline QString specPublishing(QTemporaryDir &dir, const QString &strategy)
{
    return specCopy(dir, [&](QString &yaml) {
        yaml.replace(QRegularExpression(QStringLiteral("publish: auto\\b")), QStringLiteral("publish: ") + strategy);
    });
}

inline QString fctTransform()
{
    QFile f(QDir(qEnvironmentVariable("REPRINT_TEST_DEMO_DIR")).filePath(QStringLiteral("transforms/fct_order_lines.sql")));
    f.open(QIODevice::ReadOnly);
    return QString::fromUtf8(f.readAll());
}


// A copy of the demo spec whose fct transform sleeps `seconds` per partition: slow enough
// to cancel, kill or watch mid-stage.
inline QString slowSpec(QTemporaryDir &dir, double seconds)
{
    QString transform = fctTransform().trimmed();
    transform.remove(QRegularExpression(QStringLiteral(";\\s*$")));
    return specWithTransform(dir, QStringLiteral("SELECT t.* FROM (\n%1\n) AS t CROSS JOIN (SELECT pg_sleep(%2)) AS slow\n")
                                      .arg(transform)
                                      .arg(seconds));
}

// A transaction kept open on a connection of its own, holding whatever its statement locked.
class HeldTransaction {
public:
    HeldTransaction(const std::string &db, const std::string &sql)
    {
        auto conn = m_io.spawn(warehouse::Connection::connect(db)).get();
        if (!conn)
            return;
        m_conn = *conn;
        auto r = m_io.spawn([](warehouse::ConnectionPtr c, std::string q) -> warehouse::Task<warehouse::Result<warehouse::Reply>> {
            auto begun = co_await c->execute("BEGIN");
            if (!begun)
                co_return begun;
            co_return co_await c->execute(q);
        }(m_conn, sql)).get();
        m_ok = r.ok();
    }
    ~HeldTransaction() { end(); }
    bool ok() const { return m_ok; }
    void end()
    {
        if (!m_conn)
            return;
        m_io.spawn([](warehouse::ConnectionPtr c) -> warehouse::Task<int> {
            (void)co_await c->execute("COMMIT");
            c->close();
            co_return 0;
        }(m_conn)).get();
        m_conn.reset();
    }

private:
    warehouse::IoThread m_io;
    warehouse::ConnectionPtr m_conn;
    bool m_ok = false;
};

// Runs `sql` over and over on a connection of its own while `during()` runs (and a moment
// after), and returns every answer: what a reader saw meanwhile.
template <typename During>
std::vector<std::string> readWhile(const std::string &db, const std::string &sql, During during)
{
    std::atomic<bool> stop{false};
    std::vector<std::string> seen;
    std::thread reader([&] {
        warehouse::IoThread io;
        auto conn = io.spawn(warehouse::Connection::connect(db)).get();
        if (!conn)
            return;
        while (!stop) {
            auto r = io.spawn([](warehouse::ConnectionPtr c, std::string q) -> warehouse::Task<warehouse::Result<warehouse::Reply>> {
                co_return co_await c->query(q);
            }(*conn, sql)).get();
            if (r)
                seen.push_back(r->last().scalar());
        }
        io.spawn([](warehouse::ConnectionPtr c) -> warehouse::Task<int> {
            c->close();
            co_return 0;
        }(*conn)).get();
    });
    during();
    QTest::qWait(50);
    stop = true;
    reader.join();
    return seen;
}

} // namespace reprint::test
