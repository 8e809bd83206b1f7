#pragma once
// Shared by the review tests: the demo spec, backfills set up through the CLI on a copy
// of the demo warehouse, and a spec copy with four-eyes approval.

#include "testsupport.h"

#include "backfill/spec.h"

#include <QDir>
#include <QFile>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

namespace reprint::test {

inline QString demoSpec()
{
    return QDir(qEnvironmentVariable("REPRINT_TEST_DEMO_DIR")).filePath(QStringLiteral("demo.yaml"));
}

// Runs `reprint backfill` of fct_order_lines over from..to on `db`; returns its id (0 on
// failure) and the exit code in *exitCode.
inline qint64 stageBackfill(const std::string &db, const QString &from, const QString &to, int *exitCode = nullptr,
                            const QString &spec = demoSpec())
{
    const ProcessResult p = runReprint({QStringLiteral("backfill"), QStringLiteral("--spec"), spec, QStringLiteral("--db"),
                                        QString::fromStdString(db), QStringLiteral("--model"), QStringLiteral("fct_order_lines"),
                                        QStringLiteral("--from"), from, QStringLiteral("--to"), to});
    if (exitCode)
        *exitCode = p.exitCode;
    const auto m = QRegularExpression(QStringLiteral("backfill (\\d+) (staged|failed|validated)")).match(p.err);
    if (!m.hasMatch())
        qWarning("reprint backfill said: %s", qPrintable(p.err));
    return m.hasMatch() ? m.captured(1).toLongLong() : 0;
}

inline backfill::Spec loadDemoSpec(const QString &path = demoSpec())
{
    auto spec = backfill::loadSpec(path.toStdString());
    if (!spec)
        qWarning("spec: %s", spec.error().message.c_str());
    return spec ? *spec : backfill::Spec{};
}

// A copy of the demo spec (with its SQL files) in `dir`, its text passed through `edit`.
template <typename Edit>
inline QString editedDemoSpec(const QTemporaryDir &dir, Edit edit)
{
    const QDir demo(qEnvironmentVariable("REPRINT_TEST_DEMO_DIR"));
    for (const QString &sub : {QStringLiteral("transforms"), QStringLiteral("checks")}) {
        QDir(dir.path()).mkpath(sub);
        for (const QString &f : QDir(demo.filePath(sub)).entryList(QDir::Files))
            QFile::copy(demo.filePath(sub + QLatin1Char('/') + f), dir.filePath(sub + QLatin1Char('/') + f));
    }
    QFile in(demoSpec());
    if (!in.open(QIODevice::ReadOnly))
        return {};
    QString text = QString::fromUtf8(in.readAll());
    edit(text);
    const QString path = dir.filePath(QStringLiteral("demo.yaml"));
    QFile out(path);
    if (!out.open(QIODevice::WriteOnly))
        return {};
    out.write(text.toUtf8());
    return path;
}

// ... where fct_order_lines needs four eyes.
inline QString fourEyesSpec(const QTemporaryDir &dir)
{
    return editedDemoSpec(dir, [](QString &text) {
        text.replace(QStringLiteral("  - name: fct_order_lines\n"), QStringLiteral("  - name: fct_order_lines\n    approval: four_eyes\n"));
    });
}

// ... where every model publishes by delete + insert (readers never wait; writers do).
inline QString replaceSpec(const QTemporaryDir &dir)
{
    return editedDemoSpec(dir, [](QString &text) { text.replace(QStringLiteral("publish: auto"), QStringLiteral("publish: replace")); });
}

inline std::string scalar(const std::string &db, const std::string &sql, warehouse::Params params = {})
{
    auto r = query(db, sql, std::move(params));
    if (!r) {
        qWarning("query failed: %s", r.error().message.c_str());
        return "<error>";
    }
    return r->last().scalar("<null>");
}

} // namespace reprint::test
