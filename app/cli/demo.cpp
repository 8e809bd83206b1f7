// reprint demo [--dir D] [--scale N] [--share] [--stop]: the embedded demo warehouse.
#include "commands.h"
#include "commandtable.h"
#include "output.h"

#include "backfill/demo.h"
#include "warehouse/localcluster.h"

#include <QCommandLineParser>
#include <QDir>
#include <QElapsedTimer>
#include <QTextStream>

#include <unistd.h>

namespace reprint::cli {

namespace {

QTextStream &err()
{
    static QTextStream s(stderr);
    return s;
}

QString usage()
{
    return QStringLiteral("usage: reprint ") + findCommand(QStringLiteral("demo"))->synopsis + QLatin1Char('\n');
}

// demo's options, in `parser`. An exit code when the line is not one to run (an error, or
// --help, which it prints).
std::optional<int> parseDemoLine(QCommandLineParser &parser, const QStringList &args)
{
    parser.setApplicationDescription(QStringLiteral("Start (or stop) the embedded demo warehouse."));
    parser.addOption(QCommandLineOption(QStringLiteral("dir"),
                                        QStringLiteral("Where the cluster and the demo spec live (default: %1).")
                                            .arg(QString::fromStdString(backfill::defaultDemoDir())),
                                        QStringLiteral("D")));
    parser.addOption(QCommandLineOption(QStringLiteral("scale"), QStringLiteral("Size of a new seed; 1 is about 2.1 million order lines."),
                                        QStringLiteral("N"), QStringLiteral("1")));
    parser.addOption(QCommandLineOption(QStringLiteral("stop"), QStringLiteral("Stop the demo cluster (its data is kept).")));
    parser.addOption(QCommandLineOption(QStringLiteral("share"),
                                        QStringLiteral("Use the demo cluster even though another running process started it.")));
    parser.addOption(QCommandLineOption(QStringList{QStringLiteral("h"), QStringLiteral("help")}, QStringLiteral("Show this help.")));
    if (!parser.parse(QStringList{QStringLiteral("reprint demo")} + args)) {
        err() << "reprint demo: " << parser.errorText() << "\n" << usage();
        return ExitUsage;
    }
    if (parser.isSet(QStringLiteral("help"))) {
        QTextStream(stdout) << usage() << "\n" << parser.helpText().section(QLatin1Char('\n'), 3);
        return ExitOk;
    }
    if (!parser.positionalArguments().isEmpty()) {
        err() << "reprint demo: unexpected argument '" << parser.positionalArguments().first() << "'\n" << usage();
        return ExitUsage;
    }
    return std::nullopt;
}

// --dir as an absolute path; without it, the default (and why it is not the usual one).
QString demoDirectory(const QCommandLineParser &parser)
{
    QString dir = parser.value(QStringLiteral("dir"));
    if (dir.isEmpty()) {
        std::string why;
        dir = QString::fromStdString(backfill::defaultDemoDir(&why));
        if (!why.empty())
            err() << "demo: " << QString::fromStdString(why) << "\n";
    }
    return QDir(dir).absolutePath();
}

int stopDemo(const QString &dir)
{
    const auto stopped = backfill::stopDemo(dir.toStdString());
    if (!stopped) {
        err() << "reprint demo: " << QString::fromStdString(stopped.error().toSentence()) << "\n";
        return ExitDatabase;
    }
    err() << "demo: stopped the demo cluster in " << dir << " (its data is kept; `reprint demo` starts it again)\n";
    return ExitOk;
}

// Starts (or reuses) the cluster, each step on stderr with the seconds since the start;
// then where it is and what to run next on stdout.
int startDemo(const QString &dir, double scale, bool share)
{
    backfill::DemoOptions options;
    options.dir = dir.toStdString();
    options.scale = scale;
    options.share = share;
    QElapsedTimer clock;
    clock.start();
    const auto started = backfill::startDemo(options, [&](const std::string &line) {
        err() << "demo: " << durationText(static_cast<double>(clock.elapsed()) / 1000.0).rightJustified(5) << " s  "
              << QString::fromStdString(line) << "\n";
        err().flush();
    });
    if (!started) {
        const warehouse::Error &e = started.error();
        err() << "reprint demo: " << QString::fromStdString(e.toSentence()) << "\n";
        return e.kind == warehouse::ErrorKind::Usage ? ExitUsage : ExitDatabase;
    }
    const backfill::DemoInfo &info = *started;
    err() << "demo: cluster ready in " << durationText(info.clusterSeconds) << " s";
    if (!info.reused && info.seedSeconds > 0)
        err() << ", seeded in " << durationText(info.seedSeconds) << " s";
    err() << "\n";
    err().flush();

    const QString spec = QString::fromStdString(info.specPath);
    QTextStream(stdout) << "connection: " << QString::fromStdString(info.conninfo) << "\n"
                        << "spec:       " << spec << "\n"
                        << "next:       reprint status --spec " << spec << " --model fct_order_lines --from 2026-03-01 --to 2026-03-31\n"
                        << "stop with:  reprint demo --dir " << dir << " --stop\n";
    return ExitOk;
}

int runDemo(const QStringList &args)
{
    QCommandLineParser parser;
    if (const auto refused = parseDemoLine(parser, args))
        return *refused;
    bool scaleOk = false;
    const double scale = parser.value(QStringLiteral("scale")).toDouble(&scaleOk);
    if (!scaleOk || !(scale > 0) || scale > 20) {
        err() << "reprint demo: --scale '" << parser.value(QStringLiteral("scale"))
              << "' is not a number above 0 and at most 20 (1 is about 2.1 million order lines; try --scale 0.1)\n";
        return ExitUsage;
    }
    const QString dir = demoDirectory(parser);
    if (parser.isSet(QStringLiteral("stop")))
        return stopDemo(dir);
    return startDemo(dir, scale, parser.isSet(QStringLiteral("share")));
}

} // namespace

int demoCommand(const QStringList &args)
{
    const int code = runDemo(args);
    err().flush();
    return code;
}

} // namespace reprint::cli
