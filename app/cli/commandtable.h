#pragma once
// The commands of `reprint` and their options, in one table: `reprint --help`, each
// `reprint COMMAND --help`, the options each command accepts, and the suggestion for a
// mistyped command all read it. The man page and the bash completion are generated from
// that help at build time (packaging/manpage.cmake, completion.cmake), so the help keeps
// their shapes: a "commands:" section of two-space-indented entries, an "options:"
// section per command, "common options:" and "exit codes:" lines, description lines
// indented by two spaces, and in prose a flag never followed by a single space and a word
// (the completion would read that word as the flag's value).
//
// Each entry also names the function that runs the command (commands.h), so that the
// help and the dispatch read one table and cannot drift.
//
// Plain values, no state: safe from any thread.

#include <QList>
#include <QString>
#include <QStringList>

namespace reprint::cli {

struct Invocation;
// An engine command, after the steps every one shares (engine.cpp).
using EngineHandler = int (*)(const Invocation &call);
// A command that parses its own arguments (those after its name), as demo does.
using StandaloneHandler = int (*)(const QStringList &args);

struct OptionHelp {
    QStringList names;     // {"parallel"}; {"h", "help"}
    QString valueName;     // "N"; empty for a flag
    QString text;          // what it does for this command
    QString defaultValue;  // the parser's default, if any
};

struct CommandHelp {
    QString name;
    QString synopsis;     // without "reprint ": "diff --spec S ID [--rows P ...]"
    QString summary;      // one line, for `reprint --help`
    QString description;  // a paragraph, for `reprint NAME --help`
    QList<OptionHelp> options;  // every option it accepts, common ones included
    bool needsModel = false;
    bool needsId = false;
    EngineHandler run = nullptr;           // an engine command (app/cli/engine.cpp) ...
    StandaloneHandler runAlone = nullptr;  // ... or one with a parser of its own (demo)
    // Runs on the engine, after the shared steps; demo does not.
    bool engine() const { return run != nullptr; }
};

// Every command, in the order `reprint --help` lists them.
const QList<CommandHelp> &commandTable();
// The command named `name`, or nullptr.
const CommandHelp *findCommand(const QString &name);
// Every option any engine command accepts, each once (the parser knows them all; a
// command refuses the ones it does not list).
QList<OptionHelp> allEngineOptions();
// Whether `command` lists an option named `name` (either of its names).
bool acceptsOption(const CommandHelp &command, const QString &name);

// `reprint --help` and `reprint NAME --help`.
QString mainHelp();
QString commandHelp(const CommandHelp &command);

// Optimal string alignment distance: insertions, deletions, substitutions and swaps of
// two neighbouring letters each cost 1.
int editDistance(const QString &a, const QString &b);
// The command nearest to `typed` by edit distance when it is close enough to be a typo
// (at most 2 edits, and fewer than half its letters); empty when none is.
QString nearestCommand(const QString &typed);

} // namespace reprint::cli
