#pragma once
// The benchmarks' one results file: each bench merges its figures into it.

#include "testsupport.h"

#include <QDateTime>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QString>

#include <thread>

namespace reprint::test {

// Merges `value` under `key` into the results file ($REPRINT_BENCH_RESULTS: bench/results.json
// in the source tree), with when and on what it ran; bench/perf-table.py turns it into the
// README's Performance table.
inline void record(const QString &key, const QJsonValue &value)
{
    const QString path = qEnvironmentVariable("REPRINT_BENCH_RESULTS");
    if (path.isEmpty())
        return;
    QFile f(path);
    QJsonObject all;
    if (f.open(QIODevice::ReadOnly))
        all = QJsonDocument::fromJson(f.readAll()).object();
    f.close();
    all.insert(key, value);
    all.insert(QStringLiteral("machine"),
               QJsonObject{{QStringLiteral("cores"), static_cast<int>(std::thread::hardware_concurrency())},
                           {QStringLiteral("server"), QString::fromStdString(
                                test::query(test::demoCopy("bench_version"), "SHOW server_version")->last().scalar())},
                           {QStringLiteral("measured_at"), QDateTime::currentDateTimeUtc().toString(Qt::ISODate)}});
    if (f.open(QIODevice::WriteOnly | QIODevice::Truncate))
        f.write(QJsonDocument(all).toJson(QJsonDocument::Indented));
}

} // namespace reprint::test
