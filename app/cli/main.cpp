// reprint: the command-line face of the engine. See design.md, "CLI contract".
#include "commands.h"

#include <QCoreApplication>
#include <QTextStream>

namespace {

const char *kUsage =
    "usage: reprint <command> [options]\n"
    "\n"
    "commands:\n"
    "  init      --spec S                          create or upgrade Reprint's schema\n"
    "  status    --spec S --model M [--from P --to P]\n"
    "  run       --spec S --model M --partition P  the scheduled run of one partition\n"
    "  backfill  --spec S --model M --from P --to P [--parallel N]\n"
    "  diff      --spec S ID [--rows P]\n"
    "  publish   --spec S ID --approve NOTE [--override REASON]\n"
    "  abandon   --spec S ID\n"
    "  undo      --spec S ID [--override REASON]    restore what a publish replaced\n"
    "  history   --spec S [--prune [--retention-days N]]\n"
    "  demo      [--dir D] [--scale N] [--stop]     the embedded demo warehouse\n"
    "\n"
    "common options: --db CONNINFO|URI, --format table|json|csv\n"
    "exit codes: 0 ok, 1 usage/spec, 2 database, 3 validation failed, 4 conflict, 5 cancelled\n";

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("reprint"));
    QCoreApplication::setApplicationVersion(QStringLiteral(REPRINT_VERSION));

    QStringList args = app.arguments();
    args.removeFirst();
    if (args.isEmpty() || args.first() == QLatin1String("--help") || args.first() == QLatin1String("-h")) {
        QTextStream(args.isEmpty() ? stderr : stdout) << kUsage;
        return args.isEmpty() ? reprint::cli::ExitUsage : reprint::cli::ExitOk;
    }
    if (args.first() == QLatin1String("--version")) {
        QTextStream(stdout) << "reprint " << REPRINT_VERSION << "\n";
        return 0;
    }
    const QString command = args.takeFirst();
    if (command == QLatin1String("demo"))
        return reprint::cli::demoCommand(args);
    return reprint::cli::engineCommand(command, args);
}
