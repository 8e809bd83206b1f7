#pragma once
// The `reprint` subcommands. Each takes the arguments after the subcommand name and
// returns the process exit code of the contract (design.md): 0 ok, 1 usage or spec
// error, 2 database or connection error, 3 validation failed, 4 conflict, 5 cancelled.
// Messages go to stderr and say what to do next; results go to stdout.

#include <QStringList>

namespace reprint::cli {

enum Exit { ExitOk = 0, ExitUsage = 1, ExitDatabase = 2, ExitValidation = 3, ExitConflict = 4, ExitCancelled = 5 };

int demoCommand(const QStringList &args);
int engineCommand(const QString &command, const QStringList &args);

} // namespace reprint::cli
