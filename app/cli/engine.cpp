// The engine's subcommands: init, status, run, backfill, diff, publish, abandon, history.
// Each parses its flags, loads the spec, runs one engine coroutine on an io_context on
// this thread, and prints the result as a table, JSON or CSV.
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
    err() << "timings (ms, share of " << QString::number(total, 'f', 1) << " ms):\n";
    for (const backfill::PhaseTime &t : timings)
        err() << "  " << QString::number(t.ms, 'f', 1).rightJustified(9) << "  "
              << QString::number(total > 0 ? 100 * t.ms / total : 0, 'f', 1).rightJustified(5) << " %  "
              << QString::fromStdString(t.phase) << "\n";
    err().flush();
}

int exitCodeFor(const Error &e)
{
    switch (e.kind) {
    case ErrorKind::Usage:
    case ErrorKind::Spec:
    case ErrorKind::Syntax:
        return ExitUsage;
    case ErrorKind::Validation:
        return ExitValidation;
    case ErrorKind::Conflict:
    case ErrorKind::Drift:
        return ExitConflict;
    case ErrorKind::Cancelled:
        return ExitCancelled;
    case ErrorKind::Connection:
    case ErrorKind::Permission:
    case ErrorKind::Data:
    case ErrorKind::Internal:
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
        if (p->backfill.status != "staging" && p->backfill.status != "planned")
            co_return *p;
        if (std::chrono::steady_clock::now() > deadline)
            co_return Error::make(ErrorKind::Conflict,
                                  "asked " + *asked + " to cancel backfill " + std::to_string(id) + ", but it is still staging after 30 s",
                                  "It stops at its next statement boundary; `reprint history` shows when. If that process hangs, "
                                  "stop it there (Ctrl-C or kill); its lease then lapses and the backfill can be resumed.");
        timer.expires_after(std::chrono::milliseconds(200));
        boost::system::error_code ec;
        co_await timer.async_wait(boost::asio::redirect_error(boost::asio::use_awaitable, ec));
    }
}

int engineCommand(const QString &command, const QStringList &arguments)
{
    const CommandHelp *cmd = findCommand(command);
    if (!cmd || !cmd->engine) {
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

    QCommandLineParser parser;
    parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    // Every option of every command, from the command table; the command then refuses
    // those it does not take.
    for (const OptionHelp &o : allEngineOptions())
        parser.addOption(QCommandLineOption(o.names, o.text, o.valueName, o.defaultValue));
    const QCommandLineOption spec(QStringLiteral("spec"));
    const QCommandLineOption db(QStringLiteral("db"));
    const QCommandLineOption format(QStringLiteral("format"));
    const QCommandLineOption model(QStringLiteral("model"));
    const QCommandLineOption from(QStringLiteral("from"));
    const QCommandLineOption to(QStringLiteral("to"));
    const QCommandLineOption partition(QStringLiteral("partition"));
    const QCommandLineOption parallel(QStringLiteral("parallel"));
    const QCommandLineOption rows(QStringLiteral("rows"));
    const QCommandLineOption limit(QStringLiteral("limit"));
    const QCommandLineOption offset(QStringLiteral("offset"));
    const QCommandLineOption approve(QStringLiteral("approve"));
    const QCommandLineOption override_(QStringLiteral("override"));
    const QCommandLineOption refresh(QStringLiteral("refresh"));
    const QCommandLineOption cascadeOption(QStringLiteral("cascade"));
    const QCommandLineOption leaveOutOption(QStringLiteral("leave-out"));
    const QCommandLineOption resume(QStringLiteral("resume"));
    const QCommandLineOption retryFailed(QStringLiteral("retry-failed"));
    const QCommandLineOption prune(QStringLiteral("prune"));
    const QCommandLineOption retention(QStringLiteral("retention-days"));
    const QCommandLineOption outOption(QStringLiteral("out"));
    const QCommandLineOption timingsOption(QStringLiteral("timings"));
    if (!parser.parse(QStringList{QStringLiteral("reprint ") + command} + arguments)) {
        // `diff -5` reads as an option named 5.
        const QStringList unknown = parser.unknownOptionNames();
        static const QRegularExpression digits(QStringLiteral("^\\d+$"));
        if (cmd->needsId && !unknown.isEmpty() && digits.match(unknown.first()).hasMatch())
            return usageError(QStringLiteral("%1: '-%2' is not a backfill ID: %3").arg(command, unknown.first(), idRange()),
                              QStringLiteral("`reprint history` lists the IDs."));
        return usageError(parser.errorText(), QStringLiteral("usage: reprint ") + cmd->synopsis);
    }
    if (parser.isSet(QStringLiteral("help"))) {
        QTextStream(stdout) << commandHelp(*cmd);
        return ExitOk;
    }
    for (const QString &name : parser.optionNames())
        if (!acceptsOption(*cmd, name))
            return usageError(QStringLiteral("%1 does not take --%2").arg(command, name),
                              QStringLiteral("usage: reprint %1; `reprint %2 --help` explains its options.").arg(cmd->synopsis, command));

    Format fmt;
    if (!parseFormat(parser.value(format), &fmt))
        return usageError(QStringLiteral("--format '%1' is not one of table, json, csv").arg(parser.value(format)));
    if (!parser.isSet(spec))
        return usageError(QStringLiteral("%1 needs --spec FILE").arg(command), QStringLiteral("usage: reprint ") + cmd->synopsis);
    g_specPath = parser.value(spec).toStdString();
    auto loaded = backfill::loadSpec(parser.value(spec).toStdString());
    if (!loaded)
        return fail(loaded.error());
    const std::string conninfo = parser.isSet(db) ? parser.value(db).toStdString() : loaded->warehouse;
    backfill::EngineOptions options;
    // A shorter claim lease, for tests and for operators who want a dead process's claim
    // to lapse sooner than the default two minutes.
    if (const int lease = qEnvironmentVariableIntValue("REPRINT_LEASE_SECONDS"); lease > 0) {
        options.leaseSeconds = lease;
        options.heartbeatSeconds = std::max(1, lease / 3);
    }
    // How long a publish or undo waits for a lock before it gives up (default 5 s).
    if (const int ms = qEnvironmentVariableIntValue("REPRINT_LOCK_TIMEOUT_MS"); ms > 0)
        options.lockTimeoutMs = ms;
    Engine engine(*loaded, conninfo, options);

    long long id = 0;
    if (cmd->needsId) {
        const QStringList pos = parser.positionalArguments();
        if (pos.size() != 1)
            return usageError(pos.isEmpty() ? QStringLiteral("%1 needs one backfill ID").arg(command)
                                            : QStringLiteral("%1 takes one backfill ID, not %2 (%3)").arg(command).arg(pos.size()).arg(pos.join(QStringLiteral(", "))),
                              QStringLiteral("usage: reprint ") + cmd->synopsis + QStringLiteral("; `reprint history` lists the IDs."));
        if (!parseBackfillId(pos.first(), &id))
            return usageError(QStringLiteral("%1: '%2' is not a backfill ID: %3").arg(command, pos.first(), idRange()),
                              QStringLiteral("`reprint history` lists the IDs."));
    } else if (!parser.positionalArguments().isEmpty()) {
        return usageError(QStringLiteral("unexpected argument '%1'").arg(parser.positionalArguments().first()),
                          QStringLiteral("usage: reprint ") + cmd->synopsis);
    }
    if (cmd->needsModel && !parser.isSet(model))
        return usageError(QStringLiteral("%1 needs --model M").arg(command), QStringLiteral("usage: reprint ") + cmd->synopsis);
    const std::string modelName = parser.value(model).toStdString();
    auto cancel = std::make_shared<backfill::CancelToken>();
    Output out(fmt, g_specPath);

    if (command == QLatin1String("init")) {
        auto r = runWithSignals(engine.init(), cancel);
        if (!r)
            return fail(r.error());
        err() << "reprint: the warehouse's Reprint schema is at version " << *r << "\n";
        return ExitOk;
    }
    if (command == QLatin1String("status")) {
        const bool latest = !parser.isSet(from) && !parser.isSet(to);
        auto r = runWithSignals(engine.status(modelName, parser.value(from).toStdString(), parser.value(to).toStdString(), cancel), cancel);
        if (!r)
            return fail(r.error());
        if (latest && !r->empty())
            err() << "reprint: no --from/--to given: showing the latest " << r->size() << " partitions, "
                  << QString::fromStdString(r->front().partition.name) << " .. " << QString::fromStdString(r->back().partition.name)
                  << " (the newest that holds rows is the last)\n";
        out.status(**engine.model(modelName), *r);
        return ExitOk;
    }
    if (command == QLatin1String("run")) {
        if (!parser.isSet(partition))
            return usageError(QStringLiteral("run needs --partition P"), QStringLiteral("usage: reprint ") + cmd->synopsis);
        auto r = runWithSignals(engine.run(modelName, parser.value(partition).toStdString(), cancel), cancel);
        if (!r)
            return fail(r.error());
        out.run(*r);
        return ExitOk;
    }
    if (command == QLatin1String("backfill")) {
        bool ok = false;
        backfill::BackfillRequest req;
        if (parser.isSet(resume)) {
            if (!parseBackfillId(parser.value(resume), &req.resumeId))
                return usageError(QStringLiteral("--resume '%1' is not a backfill ID: %2").arg(parser.value(resume), idRange()),
                                  QStringLiteral("`reprint history` lists the IDs."));
            req.retryFailed = parser.isSet(retryFailed);
        } else if (parser.isSet(retryFailed)) {
            return usageError(QStringLiteral("--retry-failed needs --resume ID"));
        } else if (!parser.isSet(model) || !parser.isSet(from) || !parser.isSet(to)) {
            return usageError(QStringLiteral("backfill needs --model M --from P --to P (or --resume ID)"),
                              QStringLiteral("usage: reprint ") + cmd->synopsis);
        }
        req.model = modelName;
        req.from = parser.value(from).toStdString();
        req.to = parser.value(to).toStdString();
        req.cascade = parser.isSet(cascadeOption);
        for (const QString &name : parser.values(leaveOutOption))
            req.leaveOut.push_back(name.toStdString());
        req.parallel = parser.value(parallel).toInt(&ok);
        if (!ok || req.parallel < 1) {
            const auto m = engine.model(modelName);
            return usageError(QStringLiteral("--parallel '%1' is not a number of staging connections from 1 to %2")
                                  .arg(parser.value(parallel))
                                  .arg(std::numeric_limits<int>::max()),
                              m ? QStringLiteral("%1 stages on at most %2 connections (max_parallel in the spec); e.g. --parallel %2.")
                                      .arg(QString::fromStdString((*m)->name))
                                      .arg((*m)->maxParallel)
                                : QStringLiteral("A model stages on at most its max_parallel connections (4 unless the spec says "
                                                 "otherwise); e.g. --parallel 2."));
        }
        const bool tty = ::isatty(2) && fmt == Format::Table;
        auto progress = [tty](const backfill::BackfillEvent &e) {
            if (!tty)
                return;
            if (e.phase == "staging" && !e.partition.partition.empty())
                err() << "\r\033[K" << QString::fromStdString(e.partition.partition) << " "
                      << backfill::toString(e.partition.state) << "  (" << e.done << "/" << e.total << " done)";
            else if (!e.message.empty())
                err() << "\r\033[K" << QString::fromStdString(e.message) << "\n";
            err().flush();
        };
        auto r = runWithSignals(engine.backfill(req, progress, cancel), cancel);
        if (tty)
            err() << "\r\033[K";
        if (!r)
            return fail(r.error());
        if (!r->takeover.empty())
            err() << "reprint: " << QString::fromStdString(r->takeover) << "\n";
        if (r->validationPassed)
            err() << "reprint: backfill " << r->id << " staged and validated\n";
        else
            err() << "reprint: backfill " << r->id << " staged; validation failed: " << QString::fromStdString(r->review.validationMessage)
                  << "\n";
        for (const backfill::Review &member : r->cascade)
            err() << "reprint: its cascade staged " << QString::fromStdString(member.model) << " " << QString::fromStdString(member.from)
                  << ".." << QString::fromStdString(member.to) << " as backfill " << member.backfillId << " (validation "
                  << QString::fromStdString(member.validation) << "); publishing " << r->id << " publishes it too\n";
        out.review(r->review, r->cascade);
        if (parser.isSet(timingsOption))
            printTimings(r->timings);
        for (const std::string &s : r->staleDownstream)
            err() << "reprint: warning: downstream " << QString::fromStdString(s) << " will be stale after publishing; "
                  << (req.cascade ? "it was left out of the cascade: backfill it once this one is published.\n"
                                  : "backfill it too, or use --cascade.\n");
        if (!r->validationPassed) {
            const std::string next = "Backfill " + std::to_string(r->id) + " keeps its claim: publish it with `reprint publish "
                                     + std::to_string(r->id) + " --approve NOTE --override REASON`, or free the window with `reprint abandon "
                                     + std::to_string(r->id) + "`.";
            err() << "  " << QString::fromStdString(backfill::completeCommands(next, g_specPath)) << "\n";
            err().flush();
            return ExitValidation;
        }
        err() << "  Review it, then: reprint publish --spec " << parser.value(spec) << " " << r->id << " --approve \"NOTE\"\n";
        err().flush();
        return ExitOk;
    }
    if (command == QLatin1String("diff")) {
        if (!parser.isSet(rows) && (parser.isSet(limit) || parser.isSet(offset)))
            return usageError(QStringLiteral("--%1 pages the row-level diff: it needs --rows P").arg(parser.isSet(limit) ? "limit" : "offset"),
                              QStringLiteral("usage: reprint ") + cmd->synopsis);
        if (parser.isSet(rows)) {
            // --limit N|all and --offset N page the changed, added and removed rows.
            std::optional<long long> pageSize = 20;
            long long skip = 0;
            if (parser.isSet(limit) && parser.value(limit) == QLatin1String("all")) {
                pageSize.reset();
            } else if (parser.isSet(limit)) {
                bool ok = false;
                pageSize = parser.value(limit).toLongLong(&ok);
                if (!ok || *pageSize < 1 || *pageSize > std::numeric_limits<int>::max())
                    return usageError(QStringLiteral("--limit '%1' is not a number of rows from 1 to %2, or all")
                                          .arg(parser.value(limit))
                                          .arg(std::numeric_limits<int>::max()),
                                      QStringLiteral("e.g. --limit 100, or --limit all for every row."));
            }
            if (parser.isSet(offset)) {
                bool ok = false;
                skip = parser.value(offset).toLongLong(&ok);
                if (!ok || skip < 0)
                    return usageError(QStringLiteral("--offset '%1' is not a number of rows to skip (0 or more)").arg(parser.value(offset)),
                                      QStringLiteral("e.g. --offset 20 for the rows after the first 20."));
            }
            const std::string partitionName = parser.value(rows).toStdString();
            auto r = runWithSignals(engine.rowDiff(id, partitionName), cancel);
            if (!r)
                return fail(r.error());
            const long long total = r->added + r->removed + r->changed;
            const QLocale numbers(QLocale::English);
            const std::string again = "reprint diff " + std::to_string(id) + " --rows " + r->partition;
            const std::string sized = pageSize && *pageSize != 20 ? " --limit " + std::to_string(*pageSize) : "";
            if (skip > 0 && skip >= total)
                return fail(Error::make(ErrorKind::Usage,
                                        "--offset " + std::to_string(skip) + " is past the last of the "
                                            + numbers.toString(total).toStdString() + " changed/added/removed rows of " + r->partition,
                                        total == 0 ? "Nothing changed in " + r->partition + ": `" + again + "` shows that."
                                                   : "The last page: `" + again + " --offset "
                                                         + std::to_string(std::max(0LL, total - pageSize.value_or(total))) + sized + "`."));
            const int take = static_cast<int>(std::min<long long>(pageSize.value_or(total), std::numeric_limits<int>::max()));
            auto page = runWithSignals(backfill::rowDiffPage(engine, id, partitionName, skip, take), cancel);
            if (!page)
                return fail(page.error());
            out.rowDiff(*r, *page, skip, pageSize);
            const long long shown = static_cast<long long>(page->rows.size());
            if (fmt != Format::Json && shown < total) {
                const QString of = QStringLiteral(" of %1 changed/added/removed").arg(numbers.toString(total));
                const bool kept = page->basis == "sample";  // only the stored first rows are left
                if (shown == 0)
                    err() << "reprint: no rows to show from row " << numbers.toString(skip + 1) << of
                          << ": only the first " << numbers.toString(skip) << " were kept (backfill " << id << "'s stage is gone)\n";
                else if (skip + shown < total && (!kept || shown == take))
                    err() << "reprint: showing rows " << numbers.toString(skip + 1) << "-" << numbers.toString(skip + shown) << of << "; "
                          << QString::fromStdString(backfill::completeCommands(
                                 "`" + again + " --offset " + std::to_string(skip + shown) + sized + "` for the next", g_specPath))
                          << " (--limit all for every row)\n";
                else
                    err() << "reprint: showing rows " << numbers.toString(skip + 1) << "-" << numbers.toString(skip + shown) << of
                          << (kept && skip + shown < total ? QStringLiteral("; only these were kept (backfill %1's stage is gone)").arg(id)
                                                           : QString())
                          << "\n";
            }
            return ExitOk;
        }
        auto r = runWithSignals(engine.reviewCascade(id), cancel);
        if (!r)
            return fail(r.error());
        out.review(r->front(), std::vector<backfill::Review>(r->begin() + 1, r->end()));
        return ExitOk;
    }
    if (command == QLatin1String("publish")) {
        if (!parser.isSet(approve) || parser.value(approve).trimmed().isEmpty())
            return usageError(QStringLiteral("publish needs --approve NOTE"), QStringLiteral("Say why the review is right: it is stored with the publish."));
        backfill::PublishRequest req;
        req.id = id;
        req.note = parser.value(approve).toStdString();
        req.overrideReason = parser.value(override_).toStdString();
        if (parser.isSet(override_) && parser.value(override_).trimmed().isEmpty())
            return usageError(QStringLiteral("--override needs a reason"));
        auto r = runWithSignals(engine.publish(req, cancel), cancel);
        if (!r)
            return fail(r.error());
        out.publish(*r);
        if (parser.isSet(timingsOption))
            printTimings(r->timings);
        return ExitOk;
    }
    if (command == QLatin1String("abandon")) {
        auto r = runWithSignals(engine.abandon(id), cancel);
        if (!r)
            return fail(r.error());
        err() << "reprint: backfill " << id << " abandoned; its staging was dropped and its claim released\n";
        return ExitOk;
    }
    if (command == QLatin1String("report")) {
        const QString path = parser.value(outOption);
        if (path.isEmpty())
            return usageError(QStringLiteral("report needs --out FILE"), QStringLiteral("usage: reprint ") + cmd->synopsis);
        if (const QString why = model::ReviewPacket::unsupported(path); !why.isEmpty())
            return usageError(why, QStringLiteral("e.g. --out review-%1.pdf; nothing was written.").arg(id));
        auto r = runWithSignals(backfill::reviewPacketData(engine, id), cancel);
        if (!r)
            return fail(r.error());
        QString error;
        if (!model::ReviewPacket(std::move(*r)).write(path, &error))
            return fail(Error::make(ErrorKind::Usage, error.toStdString()));
        err() << "reprint: wrote the review packet of backfill " << id << " to " << path << "\n";
        return ExitOk;
    }
    if (command == QLatin1String("cancel")) {
        std::string holder;
        auto r = runWithSignals(cancelAndWait(engine, id, &holder), cancel);
        if (!r)
            return fail(r.error());
        int staged = 0;
        for (const backfill::PartitionState &p : r->partitions)
            staged += p.state == "staged" ? 1 : 0;
        err() << "reprint: backfill " << id << " (" << QString::fromStdString(r->backfill.model) << ") is "
              << QString::fromStdString(r->backfill.status) << " after the cancel asked of " << QString::fromStdString(holder)
              << "; " << staged << " of " << r->partitions.size() << " partitions staged are kept.\n"
              << "  "
              << QString::fromStdString(backfill::completeCommands("Resume it with `reprint backfill --resume " + std::to_string(id)
                                                                        + "`, or abandon it with `reprint abandon " + std::to_string(id) + "`.",
                                                                    g_specPath))
              << "\n";
        return ExitOk;
    }
    if (command == QLatin1String("undo")) {
        if (parser.isSet(override_) && parser.value(override_).trimmed().isEmpty())
            return usageError(QStringLiteral("--override needs a reason"));
        backfill::UndoRequest req;
        req.id = id;
        req.overrideReason = parser.value(override_).toStdString();
        auto r = runWithSignals(engine.undo(req, cancel), cancel);
        if (!r)
            return fail(r.error());
        err() << "reprint: backfill " << id << " undone: " << r->rowsRestored << " archived rows restored in place of "
              << r->rowsRemoved << "\n";
        return ExitOk;
    }
    if (command == QLatin1String("history")) {
        if (parser.isSet(prune)) {
            bool ok = false;
            const int days = parser.value(retention).toInt(&ok);
            if (!ok || days < 0)
                return usageError(QStringLiteral("--retention-days '%1' is not a whole number of days").arg(parser.value(retention)));
            auto dropped = runWithSignals(engine.pruneArchives(days), cancel);
            if (!dropped)
                return fail(dropped.error());
            err() << "reprint: dropped " << QString::fromStdString(backfill::counted(*dropped, "archive")) << " older than "
                  << QString::fromStdString(backfill::counted(days, "day")) << " (the latest publish of each window keeps its archive)\n";
        }
        auto r = runWithSignals(engine.history(modelName), cancel);
        if (!r)
            return fail(r.error());
        out.history(*r);
        return ExitOk;
    }
    return usageError(QStringLiteral("unknown command '%1'").arg(command));
}

} // namespace reprint::cli
