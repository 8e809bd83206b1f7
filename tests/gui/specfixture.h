#pragma once
// A small valid spec with its SQL files, written into a temporary directory, for the
// tests that need a spec but not a warehouse.

#include <QDir>
#include <QFile>
#include <QString>
#include <QTemporaryDir>

namespace reprint::test {

inline bool writeFile(const QString &path, const QByteArray &text)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(text) == text.size();
}

// Two models: fct_order_lines (day, UTC, two measures, two checks) and
// agg_monthly_revenue (month, Europe/Berlin, no checks), warehouse `conninfo`.
inline QString writeSmallSpec(const QTemporaryDir &dir, const QString &conninfo)
{
    const QString spec = dir.filePath(QStringLiteral("shop.yaml"));
    writeFile(dir.filePath(QStringLiteral("transforms/fct_order_lines.sql")),
              "SELECT l.id AS order_line_id, o.ordered_at::date AS order_date, l.amount AS revenue, l.qty AS quantity\n"
              "FROM raw.order_lines l JOIN raw.orders o ON o.id = l.order_id\n"
              "WHERE o.ordered_at >= :start AND o.ordered_at < :end\n");
    writeFile(dir.filePath(QStringLiteral("transforms/check_revenue.sql")),
              "SELECT date_trunc('day', ordered_at) AS partition, sum(total) AS value\n"
              "FROM raw.orders WHERE ordered_at >= :start AND ordered_at < :end GROUP BY 1\n");
    writeFile(dir.filePath(QStringLiteral("transforms/check_rows.sql")),
              "SELECT date_trunc('day', o.ordered_at) AS partition, count(*) AS value\n"
              "FROM raw.order_lines l JOIN raw.orders o ON o.id = l.order_id\n"
              "WHERE o.ordered_at >= :start AND o.ordered_at < :end GROUP BY 1\n");
    writeFile(dir.filePath(QStringLiteral("transforms/agg_monthly_revenue.sql")),
              "SELECT date_trunc('month', order_date) AS month, sum(revenue) AS revenue\n"
              "FROM analytics.fct_order_lines WHERE order_date >= :start AND order_date < :end GROUP BY 1\n");
    const QByteArray yaml = "warehouse: \"" + conninfo.toUtf8() + "\"\n"
        "models:\n"
        "  - name: fct_order_lines\n"
        "    target: analytics.fct_order_lines\n"
        "    partition: { column: order_date, grain: day, timezone: UTC }\n"
        "    key: [order_line_id]\n"
        "    measures: [revenue, quantity]\n"
        "    transform: transforms/fct_order_lines.sql\n"
        "    depends_on: [raw.order_lines]\n"
        "    checks:\n"
        "      - name: revenue matches source\n"
        "        measure: revenue\n"
        "        source: transforms/check_revenue.sql\n"
        "        tolerance: 0.001\n"
        "      - name: rows match source\n"
        "        measure: rows\n"
        "        source: transforms/check_rows.sql\n"
        "  - name: agg_monthly_revenue\n"
        "    target: analytics.agg_monthly_revenue\n"
        "    partition: { column: month, grain: month, timezone: Europe/Berlin }\n"
        "    key: [month]\n"
        "    measures: [revenue]\n"
        "    transform: transforms/agg_monthly_revenue.sql\n"
        "    depends_on: [fct_order_lines]\n";
    writeFile(spec, yaml);
    return spec;
}

} // namespace reprint::test
