// The engine's subcommands: init, status, run, backfill, diff, publish, abandon, cancel,
// report, undo, history. engineCommand() takes the steps every one shares (the line parsed
// against the command table, the spec loaded, the engine opened, the ID read) and calls
// the handler the table names; a handler reads its own options, runs one engine coroutine
// on an io_context on this thread and prints the result as a table, JSON or CSV.
#include "commands.h"
#include "commandtable.h"
#include "output.h"

#include "backfill/engine.h"
#include "backfill/reviewfacts.h"
#include "reviewpacket.h"
#include "backfill/spec.h"
#include "warehouse/iothread.h"

#include <QCommandLineParser>
#include <QLocale>
#include <QRegularExpression>
#include <QTextStream>

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>

#include <chrono>
#include <csignal>
#include <limits>
#include <thread>
#include <unistd.h>

namespace reprint::cli {

using backfill::Engine;
using warehouse::Error;
using warehouse::ErrorKind;

namespace {

QTextStream &err()
{
    static QTextStream s(stderr);
    return s;
}

// --timings: where the time went, one phase a line, with its share of the whole.
void printTimings(const backfill::Timings &timings)
{
    double total = 0;
    for (const backfill::PhaseTime &t : timings)
        total += t.ms;
    err() << "timings (ms, share of " << durationText(total) << " ms):\n";
    for (const backfill::PhaseTime &t : timings)
        err() << "  " << durationText(t.ms).rightJustified(9) << "  "
              << QString::number(total > 0 ? 100 * t.ms / total : 0, 'f', 1).rightJustified(5) << " %  "
              << QString::fromStdString(t.phase) << "\n";
    err().flush();
}

int exitCodeFor(const Error &e)
{
    // The engine's own kinds first (backfill/errors.h), then the warehouse's.
    if (e.kind == backfill::EngineKind::Spec)
        return ExitUsage;
    if (e.kind == backfill::EngineKind::Validation)
        return ExitValidation;
    if (e.kind == backfill::EngineKind::Conflict || e.kind == backfill::EngineKind::Drift)
        return ExitConflict;
    switch (e.kind) {
    case ErrorKind::Usage:
    case ErrorKind::Syntax:
        return ExitUsage;
    case ErrorKind::SerializationFailure:
    case ErrorKind::DeadlockDetected:
    case ErrorKind::TransactionRollback:
    case ErrorKind::LockNotAvailable:
        return ExitConflict;
    case ErrorKind::Cancelled:
        return ExitCancelled;
    case ErrorKind::Connection:
    case ErrorKind::Permission:
    case ErrorKind::UniqueViolation:
    case ErrorKind::Data:
    case ErrorKind::Internal:
    case ErrorKind::LayerAbove:
        return ExitDatabase;
    }
    return ExitDatabase;
}

// The spec path as given on the command line: every command a message suggests names it.
std::string g_specPath;

int fail(const Error &e)
{
    err() << "reprint: " << QString::fromStdString(backfill::completeCommands(e.message, g_specPath));
    if (!e.detail.empty())
        err() << " (" << QString::fromStdString(e.detail) << ")";
    err() << "\n";
    if (!e.hint.empty())
        err() << "  " << QString::fromStdString(backfill::completeCommands(e.hint, g_specPath)) << "\n";
    err().flush();
    return exitCodeFor(e);
}

int usageError(const QString &message, const QString &hint = {})
{
    return fail(Error::make(ErrorKind::Usage, message.toStdString(), hint.toStdString()));
}

// A backfill ID as the user typed it: a whole number from 1 (IDs are bigint serials).
bool parseBackfillId(const QString &text, long long *id)
{
    bool ok = false;
    *id = text.toLongLong(&ok);
    return ok && *id > 0;
}

// `word` as a POSIX shell reads it back: as is when it is plain, else single-quoted.
QString shellWord(const QString &word)
{
    static const QRegularExpression plain(QStringLiteral("^[A-Za-z0-9/._+=:,@%-]+$"));
    if (plain.match(word).hasMatch())
        return word;
    QString quoted = word;
    quoted.replace(QLatin1String("'"), QLatin1String("'\\''"));
    return QLatin1Char('\'') + quoted + QLatin1Char('\'');
}

QString idRange()
{
    return QStringLiteral("backfill IDs are whole numbers from 1 to %1").arg(std::numeric_limits<long long>::max());
}

// Runs `task` on an io_context on this thread. SIGINT/SIGTERM cancel through `cancel`
// (on a separate thread: PQcancel blocks); a second signal exits at once with 5.
template <typename T>
T runWithSignals(warehouse::Task<T> task, const backfill::CancelTokenPtr &cancel)
{
    boost::asio::io_context io;
    boost::asio::signal_set signals(io, SIGINT, SIGTERM);
    int received = 0;
    std::function<void(const boost::system::error_code &, int)> onSignal = [&](const boost::system::error_code &ec, int) {
        if (ec)
            return;
        if (++received > 1) {
            static const char msg[] = "reprint: interrupted again; exiting now (nothing is half-published)\n";
            (void)!::write(2, msg, sizeof msg - 1);
            ::_exit(ExitCancelled);
        }
        err() << "reprint: cancelling (press Ctrl-C again to exit at once)...\n";
        err().flush();
        std::thread([cancel] { cancel->cancel(); }).detach();
        signals.async_wait(onSignal);
    };
    signals.async_wait(onSignal);
    std::optional<T> out;
    warehouse::asio::co_spawn(io, std::move(task), [&](std::exception_ptr e, T value) {
        signals.cancel();
        if (e)
            std::rethrow_exception(e);
        out.emplace(std::move(value));
    });
    io.run();
    return std::move(*out);
}

} // namespace

// Asks whoever stages backfill `id` to cancel it, then waits (up to 30 s) until the
// warehouse shows it stopped. `holder` gets the process asked.
warehouse::Task<warehouse::Result<backfill::BackfillProgress>> cancelAndWait(backfill::Engine &engine, long long id, std::string *holder)
{
    auto asked = co_await engine.requestCancel(id);
    if (!asked)
        co_return asked.error();
    *holder = *asked;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    boost::asio::steady_timer timer(co_await boost::asio::this_coro::executor);
    for (;;) {
        auto p = co_await engine.progress(id);
        if (!p)
            co_return p.error();
        if (!backfill::isUnderway(p->backfill.status))
            co_return *p;
        if (std::chrono::steady_clock::now() > deadline)
            co_return Error::make(backfill::EngineKind::Conflict,
                                  "asked " + *asked + " to cancel backfill " + std::to_string(id) + ", but it is still staging after 30 s",
                                  "It stops at its next statement boundary; `reprint history` shows when. If that process hangs, "
                                  "stop it there (Ctrl-C or kill); its lease then lapses and the backfill can be resumed.");
        timer.expires_after(std::chrono::milliseconds(200));
        boost::system::error_code ec;
        co_await timer.async_wait(boost::asio::redirect_error(boost::asio::use_awaitable, ec));
    }
}

// One engine command line, parsed and checked by the steps every command shares: what a
// handler needs to run it.
struct Invocation {
    const CommandHelp &command;
    const QCommandLineParser &parser;
    Engine &engine;
    Output &out;
    Format format;
    long long id;            // the backfill ID, when the command takes one
    std::string model;       // --model, empty when not given
    backfill::CancelTokenPtr cancel;

    bool isSet(const char *name) const { return parser.isSet(QLatin1String(name)); }
    QString value(const char *name) const { return parser.value(QLatin1String(name)); }
    // "usage: reprint SYNOPSIS", the hint of most usage errors.
    QString usage() const { return QStringLiteral("usage: reprint ") + command.synopsis; }
    // Runs `task` here, Ctrl-C cancelling it through `cancel`.
    template <typename T>
    T run(warehouse::Task<T> task) const
    {
        return runWithSignals(std::move(task), cancel);
    }
};

namespace {

// A command the table does not list (or one that does not run on the engine): the usage
// error, with the nearest command and the same line corrected when it looks like a typo.
int unknownCommand(const QString &command, const QStringList &arguments)
{
    const QString nearest = nearestCommand(command);
    if (nearest.isEmpty())
        return usageError(QStringLiteral("unknown command '%1'").arg(command), QStringLiteral("Run `reprint --help` for the commands."));
    // The same line with the command corrected, so that the hint runs as printed.
    QString again = QStringLiteral("reprint ") + nearest;
    for (const QString &a : arguments)
        again += QLatin1Char(' ') + shellWord(a);
    return usageError(QStringLiteral("unknown command '%1'; did you mean `reprint %2`?").arg(command, nearest),
                      QStringLiteral("Run `%1`, or `reprint --help` for the commands.").arg(again));
}

// Parses the line into `parser`, which knows every option of every command (from the
// command table); the command then refuses those it does not take. An exit code when
// the line is not one to run (an error, or --help, which it prints).
std::optional<int> parseLine(QCommandLineParser &parser, const CommandHelp &cmd, const QStringList &arguments)
{
    parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    for (const OptionHelp &o : allEngineOptions())
        parser.addOption(QCommandLineOption(o.names, o.text, o.valueName, o.defaultValue));
    if (!parser.parse(QStringList{QStringLiteral("reprint ") + cmd.name} + arguments)) {
        // `diff -5` reads as an option named 5.
        const QStringList unknown = parser.unknownOptionNames();
        static const QRegularExpression digits(QStringLiteral("^\\d+$"));
        if (cmd.needsId && !unknown.isEmpty() && digits.match(unknown.first()).hasMatch())
            return usageError(QStringLiteral("%1: '-%2' is not a backfill ID: %3").arg(cmd.name, unknown.first(), idRange()),
                              QStringLiteral("`reprint history` lists the IDs."));
        return usageError(parser.errorText(), QStringLiteral("usage: reprint ") + cmd.synopsis);
    }
    if (parser.isSet(QStringLiteral("help"))) {
        QTextStream(stdout) << commandHelp(cmd);
        return ExitOk;
    }
    for (const QString &name : parser.optionNames())
        if (!acceptsOption(cmd, name))
            return usageError(QStringLiteral("%1 does not take --%2").arg(cmd.name, name),
                              QStringLiteral("usage: reprint %1; `reprint %2 --help` explains its options.").arg(cmd.synopsis, cmd.name));
    return std::nullopt;
}

// The engine's options from the environment: REPRINT_LEASE_SECONDS, a shorter claim lease
// (for tests, and for operators who want a dead process's claim to lapse sooner than the
// default two minutes); REPRINT_LOCK_TIMEOUT_MS, how long a publish or undo waits for a
// lock before it gives up (default 5 s).
backfill::EngineOptions engineOptions()
{
    backfill::EngineOptions options;
    if (const int lease = qEnvironmentVariableIntValue("REPRINT_LEASE_SECONDS"); lease > 0) {
        options.leaseSeconds = lease;
        options.heartbeatSeconds = std::max(1, lease / 3);
    }
    if (const int ms = qEnvironmentVariableIntValue("REPRINT_LOCK_TIMEOUT_MS"); ms > 0)
        options.lockTimeoutMs = ms;
    return options;
}

// The positional arguments: the one backfill ID of a command that takes one (into `id`),
// none for the others. An exit code when they are wrong.
std::optional<int> readId(const QCommandLineParser &parser, const CommandHelp &cmd, long long *id)
{
    const QStringList pos = parser.positionalArguments();
    if (!cmd.needsId) {
        if (pos.isEmpty())
            return std::nullopt;
        return usageError(QStringLiteral("unexpected argument '%1'").arg(pos.first()), QStringLiteral("usage: reprint ") + cmd.synopsis);
    }
    if (pos.size() != 1)
        return usageError(pos.isEmpty() ? QStringLiteral("%1 needs one backfill ID").arg(cmd.name)
                                        : QStringLiteral("%1 takes one backfill ID, not %2 (%3)").arg(cmd.name).arg(pos.size()).arg(pos.join(QStringLiteral(", "))),
                          QStringLiteral("usage: reprint ") + cmd.synopsis + QStringLiteral("; `reprint history` lists the IDs."));
    if (!parseBackfillId(pos.first(), id))
        return usageError(QStringLiteral("%1: '%2' is not a backfill ID: %3").arg(cmd.name, pos.first(), idRange()),
                          QStringLiteral("`reprint history` lists the IDs."));
    return std::nullopt;
}

// --override REASON, where a command takes it: the reason must say something.
std::optional<int> checkOverride(const Invocation &call)
{
    if (call.isSet("override") && call.value("override").trimmed().isEmpty())
        return usageError(QStringLiteral("--override needs a reason"));
    return std::nullopt;
}

} // namespace

int engineCommand(const QString &command, const QStringList &arguments)
{
    const CommandHelp *cmd = findCommand(command);
    if (!cmd || !cmd->engine())
        return unknownCommand(command, arguments);
    QCommandLineParser parser;
    if (const auto refused = parseLine(parser, *cmd, arguments))
        return *refused;

    Format fmt;
    if (!parseFormat(parser.value(QStringLiteral("format")), &fmt))
        return usageError(QStringLiteral("--format '%1' is not one of table, json, csv").arg(parser.value(QStringLiteral("format"))));
    if (!parser.isSet(QStringLiteral("spec")))
        return usageError(QStringLiteral("%1 needs --spec FILE").arg(command), QStringLiteral("usage: reprint ") + cmd->synopsis);
    g_specPath = parser.value(QStringLiteral("spec")).toStdString();
    auto loaded = backfill::loadSpec(g_specPath);
    if (!loaded)
        return fail(loaded.error());
    const std::string conninfo = parser.isSet(QStringLiteral("db")) ? parser.value(QStringLiteral("db")).toStdString() : loaded->warehouse;
    Engine engine(*loaded, conninfo, engineOptions());

    long long id = 0;
    if (const auto refused = readId(parser, *cmd, &id))
        return *refused;
    if (cmd->needsModel && !parser.isSet(QStringLiteral("model")))
        return usageError(QStringLiteral("%1 needs --model M").arg(command), QStringLiteral("usage: reprint ") + cmd->synopsis);
    Output out(fmt, g_specPath);
    const Invocation call{*cmd, parser, engine, out, fmt, id, parser.value(QStringLiteral("model")).toStdString(),
                          std::make_shared<backfill::CancelToken>()};
    return cmd->run(call);
}

int initCommand(const Invocation &call)
{
    auto r = call.run(call.engine.init());
    if (!r)
        return fail(r.error());
    err() << "reprint: the warehouse's Reprint schema is at version " << *r << "\n";
    return ExitOk;
}

int statusCommand(const Invocation &call)
{
    const bool latest = !call.isSet("from") && !call.isSet("to");
    auto r = call.run(call.engine.status(call.model, call.value("from").toStdString(), call.value("to").toStdString(), call.cancel));
    if (!r)
        return fail(r.error());
    if (latest && !r->empty())
        err() << "reprint: no --from/--to given: showing the latest " << r->size() << " partitions, "
              << QString::fromStdString(r->front().partition.name) << " .. " << QString::fromStdString(r->back().partition.name)
              << " (the newest that holds rows is the last)\n";
    call.out.status(**call.engine.model(call.model), *r);
    return ExitOk;
}

int runCommand(const Invocation &call)
{
    if (!call.isSet("partition"))
        return usageError(QStringLiteral("run needs --partition P"), call.usage());
    auto r = call.run(call.engine.run(call.model, call.value("partition").toStdString(), call.cancel));
    if (!r)
        return fail(r.error());
    call.out.run(*r);
    return ExitOk;
}

namespace {

// The backfill to start or resume, from --resume/--retry-failed, --model/--from/--to,
// --cascade/--leave-out and --parallel. An exit code when they do not make one.
std::optional<int> readBackfillRequest(const Invocation &call, backfill::BackfillRequest *req)
{
    if (call.isSet("resume")) {
        if (!parseBackfillId(call.value("resume"), &req->resumeId))
            return usageError(QStringLiteral("--resume '%1' is not a backfill ID: %2").arg(call.value("resume"), idRange()),
                              QStringLiteral("`reprint history` lists the IDs."));
        req->retryFailed = call.isSet("retry-failed");
    } else if (call.isSet("retry-failed")) {
        return usageError(QStringLiteral("--retry-failed needs --resume ID"));
    } else if (!call.isSet("model") || !call.isSet("from") || !call.isSet("to")) {
        return usageError(QStringLiteral("backfill needs --model M --from P --to P (or --resume ID)"), call.usage());
    }
    req->model = call.model;
    req->from = call.value("from").toStdString();
    req->to = call.value("to").toStdString();
    req->cascade = call.isSet("cascade");
    for (const QString &name : call.parser.values(QStringLiteral("leave-out")))
        req->leaveOut.push_back(name.toStdString());
    bool ok = false;
    req->parallel = call.value("parallel").toInt(&ok);
    if (ok && req->parallel >= 1)
        return std::nullopt;
    const auto m = call.engine.model(call.model);
    return usageError(QStringLiteral("--parallel '%1' is not a number of staging connections from 1 to %2")
                          .arg(call.value("parallel"))
                          .arg(std::numeric_limits<int>::max()),
                      m ? QStringLiteral("%1 stages on at most %2 connections (max_parallel in the spec); e.g. --parallel %2.")
                              .arg(QString::fromStdString((*m)->name))
                              .arg((*m)->maxParallel)
                        : QStringLiteral("A model stages on at most its max_parallel connections (4 unless the spec says "
                                         "otherwise); e.g. --parallel 2."));
}

// On a terminal, the partition staging now (overwritten in place) and the engine's notes.
void printProgress(const backfill::BackfillEvent &e)
{
    if (e.phase == "staging" && !e.partition.partition.empty())
        err() << "\r\033[K" << QString::fromStdString(e.partition.partition) << " " << backfill::toString(e.partition.state) << "  ("
              << e.done << "/" << e.total << " done)";
    else if (!e.message.empty())
        err() << "\r\033[K" << QString::fromStdString(e.message) << "\n";
    err().flush();
}

// A staged backfill: what happened on stderr, its review on stdout, what to do next.
int reportBackfill(const Invocation &call, const backfill::BackfillRequest &req, const backfill::BackfillOutcome &r)
{
    if (!r.takeover.empty())
        err() << "reprint: " << QString::fromStdString(r.takeover) << "\n";
    if (r.validationPassed)
        err() << "reprint: backfill " << r.id << " staged and validated\n";
    else
        err() << "reprint: backfill " << r.id << " staged; validation failed: " << QString::fromStdString(r.review.validationMessage) << "\n";
    for (const backfill::Review &member : r.cascade)
        err() << "reprint: its cascade staged " << QString::fromStdString(member.model) << " " << QString::fromStdString(member.from)
              << ".." << QString::fromStdString(member.to) << " as backfill " << member.backfillId << " (validation "
              << QString::fromStdString(member.validation) << "); publishing " << r.id << " publishes it too\n";
    call.out.review(r.review, r.cascade);
    if (call.isSet("timings"))
        printTimings(r.timings);
    for (const std::string &s : r.staleDownstream)
        err() << "reprint: warning: downstream " << QString::fromStdString(s) << " will be stale after publishing; "
              << (req.cascade ? "it was left out of the cascade: backfill it once this one is published.\n"
                              : "backfill it too, or use --cascade.\n");
    if (!r.validationPassed) {
        const std::string next = "Backfill " + std::to_string(r.id) + " keeps its claim: publish it with `reprint publish "
                                 + std::to_string(r.id) + " --approve NOTE --override REASON`, or free the window with `reprint abandon "
                                 + std::to_string(r.id) + "`.";
        err() << "  " << QString::fromStdString(backfill::completeCommands(next, g_specPath)) << "\n";
        err().flush();
        return ExitValidation;
    }
    err() << "  Review it, then: reprint publish --spec " << call.value("spec") << " " << r.id << " --approve \"NOTE\"\n";
    err().flush();
    return ExitOk;
}

} // namespace

int backfillCommand(const Invocation &call)
{
    backfill::BackfillRequest req;
    if (const auto refused = readBackfillRequest(call, &req))
        return *refused;
    const bool tty = ::isatty(2) && call.format == Format::Table;
    auto progress = [tty](const backfill::BackfillEvent &e) {
        if (tty)
            printProgress(e);
    };
    auto r = call.run(call.engine.backfill(req, progress, call.cancel));
    if (tty)
        err() << "\r\033[K";
    if (!r)
        return fail(r.error());
    return reportBackfill(call, req, *r);
}

namespace {

// A page of a row-level diff: --limit N|all and --offset N.
struct RowPage {
    std::optional<long long> size = 20;  // no size: every row
    long long skip = 0;
};

std::optional<int> readRowPage(const Invocation &call, RowPage *page)
{
    if (call.isSet("limit") && call.value("limit") == QLatin1String("all")) {
        page->size.reset();
    } else if (call.isSet("limit")) {
        bool ok = false;
        page->size = call.value("limit").toLongLong(&ok);
        if (!ok || *page->size < 1 || *page->size > std::numeric_limits<int>::max())
            return usageError(QStringLiteral("--limit '%1' is not a number of rows from 1 to %2, or all")
                                  .arg(call.value("limit"))
                                  .arg(std::numeric_limits<int>::max()),
                              QStringLiteral("e.g. --limit 100, or --limit all for every row."));
    }
    if (call.isSet("offset")) {
        bool ok = false;
        page->skip = call.value("offset").toLongLong(&ok);
        if (!ok || page->skip < 0)
            return usageError(QStringLiteral("--offset '%1' is not a number of rows to skip (0 or more)").arg(call.value("offset")),
                              QStringLiteral("e.g. --offset 20 for the rows after the first 20."));
    }
    return std::nullopt;
}

// On stderr, under a table or CSV page that does not hold every row: which rows it shows,
// and the command for the next page (or why there is none).
void printPageNote(const Invocation &call, const RowPage &page, long long shown, long long total, bool kept, int take,
                   const std::string &again, const std::string &sized)
{
    const QLocale numbers(QLocale::English);
    const QString of = QStringLiteral(" of %1 changed/added/removed").arg(numbers.toString(total));
    const long long skip = page.skip;
    if (shown == 0)
        err() << "reprint: no rows to show from row " << numbers.toString(skip + 1) << of << ": only the first "
              << numbers.toString(skip) << " were kept (backfill " << call.id << "'s stage is gone)\n";
    else if (skip + shown < total && (!kept || shown == take))
        err() << "reprint: showing rows " << numbers.toString(skip + 1) << "-" << numbers.toString(skip + shown) << of << "; "
              << QString::fromStdString(backfill::completeCommands(
                     "`" + again + " --offset " + std::to_string(skip + shown) + sized + "` for the next", g_specPath))
              << " (--limit all for every row)\n";
    else
        err() << "reprint: showing rows " << numbers.toString(skip + 1) << "-" << numbers.toString(skip + shown) << of
              << (kept && skip + shown < total ? QStringLiteral("; only these were kept (backfill %1's stage is gone)").arg(call.id) : QString())
              << "\n";
}

// diff ID --rows P: the row-level diff of partition P, a page at a time.
int rowDiffCommand(const Invocation &call)
{
    RowPage page;
    if (const auto refused = readRowPage(call, &page))
        return *refused;
    const std::string partitionName = call.value("rows").toStdString();
    auto r = call.run(call.engine.rowDiff(call.id, partitionName));
    if (!r)
        return fail(r.error());
    const long long total = r->added + r->removed + r->changed;
    const std::string again = "reprint diff " + std::to_string(call.id) + " --rows " + r->partition;
    const std::string sized = page.size && *page.size != 20 ? " --limit " + std::to_string(*page.size) : "";
    if (page.skip > 0 && page.skip >= total)
        return fail(Error::make(ErrorKind::Usage,
                                "--offset " + std::to_string(page.skip) + " is past the last of the "
                                    + QLocale(QLocale::English).toString(total).toStdString() + " changed/added/removed rows of " + r->partition,
                                total == 0 ? "Nothing changed in " + r->partition + ": `" + again + "` shows that."
                                           : "The last page: `" + again + " --offset "
                                                 + std::to_string(std::max(0LL, total - page.size.value_or(total))) + sized + "`."));
    const int take = static_cast<int>(std::min<long long>(page.size.value_or(total), std::numeric_limits<int>::max()));
    auto rows = call.run(backfill::rowDiffPage(call.engine, call.id, partitionName, page.skip, take));
    if (!rows)
        return fail(rows.error());
    call.out.rowDiff(*r, *rows, page.skip, page.size);
    const long long shown = static_cast<long long>(rows->rows.size());
    const bool kept = rows->basis == "sample";  // only the stored first rows are left
    if (call.format != Format::Json && shown < total)
        printPageNote(call, page, shown, total, kept, take, again, sized);
    return ExitOk;
}

} // namespace

int diffCommand(const Invocation &call)
{
    if (!call.isSet("rows") && (call.isSet("limit") || call.isSet("offset")))
        return usageError(QStringLiteral("--%1 pages the row-level diff: it needs --rows P").arg(call.isSet("limit") ? "limit" : "offset"),
                          call.usage());
    if (call.isSet("rows"))
        return rowDiffCommand(call);
    auto r = call.run(call.engine.reviewCascade(call.id));
    if (!r)
        return fail(r.error());
    call.out.review(r->front(), std::vector<backfill::Review>(r->begin() + 1, r->end()));
    return ExitOk;
}

int publishCommand(const Invocation &call)
{
    if (!call.isSet("approve") || call.value("approve").trimmed().isEmpty())
        return usageError(QStringLiteral("publish needs --approve NOTE"), QStringLiteral("Say why the review is right: it is stored with the publish."));
    if (const auto refused = checkOverride(call))
        return *refused;
    backfill::PublishRequest req;
    req.id = call.id;
    req.note = call.value("approve").toStdString();
    req.overrideReason = call.value("override").toStdString();
    auto r = call.run(call.engine.publish(req, call.cancel));
    if (!r)
        return fail(r.error());
    call.out.publish(*r);
    if (call.isSet("timings"))
        printTimings(r->timings);
    return ExitOk;
}

int abandonCommand(const Invocation &call)
{
    auto r = call.run(call.engine.abandon(call.id));
    if (!r)
        return fail(r.error());
    err() << "reprint: backfill " << call.id << " abandoned; its staging was dropped and its claim released\n";
    return ExitOk;
}

int reportCommand(const Invocation &call)
{
    const QString path = call.value("out");
    if (path.isEmpty())
        return usageError(QStringLiteral("report needs --out FILE"), call.usage());
    if (const QString why = model::ReviewPacket::unsupported(path); !why.isEmpty())
        return usageError(why, QStringLiteral("e.g. --out review-%1.pdf; nothing was written.").arg(call.id));
    auto r = call.run(backfill::reviewPacketData(call.engine, call.id));
    if (!r)
        return fail(r.error());
    QString error;
    if (!model::ReviewPacket(std::move(*r)).write(path, &error))
        return fail(Error::make(ErrorKind::Usage, error.toStdString()));
    err() << "reprint: wrote the review packet of backfill " << call.id << " to " << path << "\n";
    return ExitOk;
}

int cancelCommand(const Invocation &call)
{
    std::string holder;
    auto r = call.run(cancelAndWait(call.engine, call.id, &holder));
    if (!r)
        return fail(r.error());
    int staged = 0;
    for (const backfill::PartitionState &p : r->partitions)
        staged += p.state == backfill::PartitionStage::Staged ? 1 : 0;
    const std::string id = std::to_string(call.id);
    err() << "reprint: backfill " << call.id << " (" << QString::fromStdString(r->backfill.model) << ") is "
          << QLatin1String(backfill::toString(r->backfill.status)) << " after the cancel asked of " << QString::fromStdString(holder) << "; "
          << staged << " of " << r->partitions.size() << " partitions staged are kept.\n"
          << "  "
          << QString::fromStdString(backfill::completeCommands(
                 "Resume it with `reprint backfill --resume " + id + "`, or abandon it with `reprint abandon " + id + "`.", g_specPath))
          << "\n";
    return ExitOk;
}

int undoCommand(const Invocation &call)
{
    if (const auto refused = checkOverride(call))
        return *refused;
    backfill::UndoRequest req;
    req.id = call.id;
    req.overrideReason = call.value("override").toStdString();
    auto r = call.run(call.engine.undo(req, call.cancel));
    if (!r)
        return fail(r.error());
    err() << "reprint: backfill " << call.id << " undone: " << r->rowsRestored << " archived rows restored in place of "
          << r->rowsRemoved << "\n";
    return ExitOk;
}

int historyCommand(const Invocation &call)
{
    if (call.isSet("prune")) {
        bool ok = false;
        const int days = call.value("retention-days").toInt(&ok);
        if (!ok || days < 0)
            return usageError(QStringLiteral("--retention-days '%1' is not a whole number of days").arg(call.value("retention-days")));
        auto dropped = call.run(call.engine.pruneArchives(days));
        if (!dropped)
            return fail(dropped.error());
        err() << "reprint: dropped " << QString::fromStdString(backfill::counted(*dropped, "archive")) << " older than "
              << QString::fromStdString(backfill::counted(days, "day")) << " (the latest publish of each window keeps its archive)\n";
    }
    auto r = call.run(call.engine.history(call.model));
    if (!r)
        return fail(r.error());
    call.out.history(*r);
    return ExitOk;
}

} // namespace reprint::cli
