#pragma once
// The `reprint` subcommands. Each returns the process exit code of the contract
// (design.md): 0 ok, 1 usage or spec error, 2 database or connection error, 3 validation
// failed, 4 conflict, 5 cancelled. Messages go to stderr and say what to do next; results
// go to stdout.
//
// The command table (commandtable.h) names the function that runs each command, so that
// a command's help and what runs it cannot part: main() dispatches through it.

#include <QStringList>

namespace reprint::cli {

enum Exit { ExitOk = 0, ExitUsage = 1, ExitDatabase = 2, ExitValidation = 3, ExitConflict = 4, ExitCancelled = 5 };

// A command with a parser of its own: the arguments after the subcommand name.
int demoCommand(const QStringList &args);

// The engine commands: engineCommand() parses the line against the command's options in
// the table, loads the spec, opens the engine and reads the backfill ID (when the command
// takes one), then calls the command's handler with that Invocation (engine.cpp). An
// unknown command is a usage error that suggests the nearest one.
int engineCommand(const QString &command, const QStringList &args);

struct Invocation;
int initCommand(const Invocation &call);
int statusCommand(const Invocation &call);
int runCommand(const Invocation &call);
int backfillCommand(const Invocation &call);
int diffCommand(const Invocation &call);
int publishCommand(const Invocation &call);
int abandonCommand(const Invocation &call);
int cancelCommand(const Invocation &call);
int reportCommand(const Invocation &call);
int undoCommand(const Invocation &call);
int historyCommand(const Invocation &call);

} // namespace reprint::cli
