// reprint: the command-line face of the engine. See design.md, "CLI contract".
#include "commandtable.h"
#include "commands.h"

#include <QCoreApplication>
#include <QDir>
#include <QGuiApplication>
#include <QTextStream>

#include <memory>

#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    // `report` paints (a chart, a PDF): it needs fonts, so a GUI application, on the
    // offscreen platform unless another was asked for. Every other command stays headless.
    const bool paints = argc > 1 && qstrcmp(argv[1], "report") == 0;
    if (paints && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    if (paints && qEnvironmentVariableIsEmpty("XDG_RUNTIME_DIR")) {
        // Qt wants one (and warns without it); a private one of our own, as Qt would make.
        const QByteArray dir = QDir::tempPath().toLocal8Bit() + "/reprint-runtime-" + QByteArray::number(::getuid());
        ::mkdir(dir.constData(), 0700);
        qputenv("XDG_RUNTIME_DIR", dir);
    }
    std::unique_ptr<QCoreApplication> application(paints ? new QGuiApplication(argc, argv) : new QCoreApplication(argc, argv));
    QCoreApplication &app = *application;
    QCoreApplication::setApplicationName(QStringLiteral("reprint"));
    QCoreApplication::setApplicationVersion(QStringLiteral(REPRINT_VERSION));

    QStringList args = app.arguments();
    args.removeFirst();
    if (args.isEmpty() || args.first() == QLatin1String("--help") || args.first() == QLatin1String("-h")) {
        QTextStream(args.isEmpty() ? stderr : stdout) << reprint::cli::mainHelp();
        return args.isEmpty() ? reprint::cli::ExitUsage : reprint::cli::ExitOk;
    }
    if (args.first() == QLatin1String("--version")) {
        QTextStream(stdout) << "reprint " << REPRINT_VERSION << "\n";
        return 0;
    }
    const QString command = args.takeFirst();
    // A command with a parser of its own (demo) runs as the command table says; the others
    // run on the engine, which also refuses an unknown command.
    if (const reprint::cli::CommandHelp *c = reprint::cli::findCommand(command); c && c->runAlone)
        return c->runAlone(args);
    return reprint::cli::engineCommand(command, args);
}
