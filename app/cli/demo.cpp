// reprint demo [--dir D] [--scale N] [--share] [--stop]: the embedded demo warehouse.
#include "commands.h"
#include "commandtable.h"

#include "backfill/demo.h"
#include "warehouse/localcluster.h"

#include <QCommandLineParser>
#include <QDir>
#include <QElapsedTimer>
#include <QTextStream>

#include <unistd.h>

namespace reprint::cli {

namespace {

} // namespace

int demoCommand(const QStringList &args)
{
    QTextStream err(stderr);
    QTextStream out(stdout);
    const QString usage = QStringLiteral("usage: reprint ") + findCommand(QStringLiteral("demo"))->synopsis + QLatin1Char('\n');

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Start (or stop) the embedded demo warehouse."));
    const QCommandLineOption dirOption(QStringLiteral("dir"),
                                       QStringLiteral("Where the cluster and the demo spec live (default: %1).")
                                           .arg(QString::fromStdString(backfill::defaultDemoDir())),
                                       QStringLiteral("D"));
    const QCommandLineOption scaleOption(QStringLiteral("scale"),
                                         QStringLiteral("Size of a new seed; 1 is about 2.1 million order lines."),
                                         QStringLiteral("N"), QStringLiteral("1"));
    const QCommandLineOption stopOption(QStringLiteral("stop"), QStringLiteral("Stop the demo cluster (its data is kept)."));
    const QCommandLineOption shareOption(QStringLiteral("share"),
                                         QStringLiteral("Use the demo cluster even though another running process started it."));
    const QCommandLineOption helpOption(QStringList{QStringLiteral("h"), QStringLiteral("help")},
                                        QStringLiteral("Show this help."));
    parser.addOption(dirOption);
    parser.addOption(scaleOption);
    parser.addOption(stopOption);
    parser.addOption(shareOption);
    parser.addOption(helpOption);
    if (!parser.parse(QStringList{QStringLiteral("reprint demo")} + args)) {
        err << "reprint demo: " << parser.errorText() << "\n" << usage;
        return ExitUsage;
    }
    if (parser.isSet(helpOption)) {
        out << usage << "\n" << parser.helpText().section(QLatin1Char('\n'), 3);
        return ExitOk;
    }
    if (!parser.positionalArguments().isEmpty()) {
        err << "reprint demo: unexpected argument '" << parser.positionalArguments().first()
            << "'\n" << usage;
        return ExitUsage;
    }

    bool scaleOk = false;
    const double scale = parser.value(scaleOption).toDouble(&scaleOk);
    if (!scaleOk || !(scale > 0) || scale > 20) {
        err << "reprint demo: --scale '" << parser.value(scaleOption)
            << "' is not a number above 0 and at most 20 (1 is about 2.1 million order lines; try --scale 0.1)\n";
        return ExitUsage;
    }

    QString dir = parser.value(dirOption);
    if (dir.isEmpty()) {
        std::string why;
        dir = QString::fromStdString(backfill::defaultDemoDir(&why));
        if (!why.empty())
            err << "demo: " << QString::fromStdString(why) << "\n";
    }
    dir = QDir(dir).absolutePath();

    if (parser.isSet(stopOption)) {
        const auto stopped = backfill::stopDemo(dir.toStdString());
        if (!stopped) {
            err << "reprint demo: " << QString::fromStdString(stopped.error().toSentence()) << "\n";
            return ExitDatabase;
        }
        err << "demo: stopped the demo cluster in " << dir << " (its data is kept; `reprint demo` starts it again)\n";
        return ExitOk;
    }

    backfill::DemoOptions options;
    options.dir = dir.toStdString();
    options.scale = scale;
    options.share = parser.isSet(shareOption);
    QElapsedTimer clock;
    clock.start();
    const auto started = backfill::startDemo(options, [&](const std::string &line) {
        err << "demo: " << QString::number(static_cast<double>(clock.elapsed()) / 1000.0, 'f', 1).rightJustified(5)
            << " s  " << QString::fromStdString(line) << "\n";
        err.flush();
    });
    if (!started) {
        const warehouse::Error &e = started.error();
        err << "reprint demo: " << QString::fromStdString(e.toSentence()) << "\n";
        return e.kind == warehouse::ErrorKind::Usage ? ExitUsage : ExitDatabase;
    }
    const backfill::DemoInfo &info = *started;
    err << "demo: cluster ready in " << QString::number(info.clusterSeconds, 'f', 1) << " s";
    if (!info.reused && info.seedSeconds > 0)
        err << ", seeded in " << QString::number(info.seedSeconds, 'f', 1) << " s";
    err << "\n";
    err.flush();

    const QString spec = QString::fromStdString(info.specPath);
    out << "connection: " << QString::fromStdString(info.conninfo) << "\n"
        << "spec:       " << spec << "\n"
        << "next:       reprint status --spec " << spec
        << " --model fct_order_lines --from 2026-03-01 --to 2026-03-31\n"
        << "stop with:  reprint demo --dir " << dir << " --stop\n";
    return ExitOk;
}

} // namespace reprint::cli
