#include "commandtable.h"
#include "commands.h"

#include <algorithm>
#include <vector>

namespace reprint::cli {

namespace {

constexpr int kWidth = 92;

OptionHelp option(const char *name, const char *valueName, const char *text, const char *defaultValue = "")
{
    return {QStringList{QString::fromLatin1(name)}, QString::fromLatin1(valueName), QString::fromUtf8(text),
            QString::fromLatin1(defaultValue)};
}

// The options every engine command takes, after its own.
QList<OptionHelp> common(QList<OptionHelp> own)
{
    own.prepend(option("spec", "S", "The spec file (YAML): the warehouse, the models, their transforms and checks. Required."));
    own << option("db", "CONNINFO|URI",
                  "Where to connect: a libpq conninfo, a postgresql:// URI or service=NAME. Default: the spec's warehouse, "
                  "else libpq's PG* environment.")
        << option("format", "table|json|csv",
                  "How results print on stdout: an aligned table (the default), JSON (shapes in docs/contract-notes.md) or CSV.",
                  "table")
        << OptionHelp{QStringList{QStringLiteral("h"), QStringLiteral("help")}, QString(), QStringLiteral("Show this help."), QString()};
    return own;
}

QList<CommandHelp> buildTable()
{
    QList<CommandHelp> t;
    t << CommandHelp{QStringLiteral("init"), QStringLiteral("init --spec S"),
                     QStringLiteral("create or upgrade Reprint's schema in the warehouse; safe to run again"),
                     QStringLiteral("Creates Reprint's own schema in the warehouse (reprint.*: backfills, claims, partition totals, "
                                    "row diffs, the audit), or upgrades it to this version's migrations. Running it again "
                                    "changes nothing."),
                     common({}), false, false, &initCommand};
    t << CommandHelp{QStringLiteral("status"), QStringLiteral("status --spec S --model M [--from P --to P] [--refresh]"),
                     QStringLiteral("rows, measure sums, check results, last load and claim per partition"),
                     QStringLiteral("Shows each partition of a model as the warehouse holds it now: rows, the sum of each measure, "
                                    "whether each check agrees with the source, when it was last loaded and who claims it. "
                                    "Without a window, the latest 31 partitions that hold rows."),
                     common({option("model", "M", "The model (a name in the spec's models)."),
                             option("from", "P", "First partition to show, by name: 2026-03-10 (day), 2026-03 (month), "
                                                 "2026-03-10T14 (hour)."),
                             option("to", "P", "Last partition to show (inclusive)."),
                             option("refresh", "", "Accepted for compatibility; status always reads the warehouse afresh.")}),
                     true, false, &statusCommand};
    t << CommandHelp{QStringLiteral("run"), QStringLiteral("run --spec S --model M --partition P"),
                     QStringLiteral("the scheduled run of one partition: the same transform, stage and publish as a backfill"),
                     QStringLiteral("Loads one partition as the scheduler does: claims it, runs the model's transform into a "
                                    "stage and publishes it in one transaction, by the same code as a backfill. Refused "
                                    "(exit 4) while a backfill claims the partition."),
                     common({option("model", "M", "The model to run."),
                             option("partition", "P", "The partition to load, by name (e.g. 2026-03-20).")}),
                     true, false, &runCommand};
    t << CommandHelp{
        QStringLiteral("backfill"),
        QStringLiteral("backfill --spec S --model M --from P --to P [--parallel N] [--cascade [--leave-out M]...] | --resume ID [--retry-failed] [--timings]"),
        QStringLiteral("claim a window, stage it (boundary partitions first), validate, store and print the review"),
        QStringLiteral("Claims the partitions of a window of a model, runs the model's own transform for each into a "
                       "stage (the boundary partitions first), compares old and new totals per partition and measure "
                       "with the source checks, stores the review and prints it. Nothing is published yet: read the "
                       "review, then publish it. Exit 3 when validation failed (the backfill keeps its claim until it is "
                       "published with an override or abandoned), 4 when another backfill claims the window, 5 when "
                       "cancelled (what was staged is kept: resume it)."),
        common({option("model", "M", "The model to backfill."),
                option("from", "P", "First partition of the window, by name (2026-03-10 for a day)."),
                option("to", "P", "Last partition of the window (inclusive)."),
                option("parallel", "N",
                       "Stage on N connections at once (default 1; at most the model's max_parallel in the spec).", "1"),
                option("cascade", "",
                       "Also backfill every model downstream of this one (depends_on in the spec) over the window it "
                       "maps to; each is reviewed with it, and publishing this backfill publishes them all in one "
                       "transaction."),
                option("leave-out", "M",
                       "With --cascade, do not stage downstream model M (nor what reads it); repeat it for several. "
                       "M is stale once this backfill is published, and the review says so."),
                option("resume", "ID",
                       "Finish backfill ID after an interruption (Ctrl-C, a crash, a lapsed lease): stage what is not "
                       "staged yet under the same id, then validate. Takes the model and window from backfill ID."),
                option("retry-failed", "",
                       "With --resume, re-stage only the partitions that failed; those staged are kept."),
                option("timings", "", "Also print on stderr where the time went, phase by phase (connect, claim, "
                                      "stage, totals, checks, row diffs, ...).")}),
        false, false, &backfillCommand};
    t << CommandHelp{QStringLiteral("diff"), QStringLiteral("diff --spec S ID [--rows P [--limit N|all] [--offset N]]"),
                     QStringLiteral("the stored review of a backfill; with --rows, the row-level diff of a partition"),
                     QStringLiteral("Prints the stored review of backfill ID (per partition and measure, old and new totals, "
                                    "the source and the verdict). With --rows, the row-level diff of one partition instead "
                                    "(added, removed and changed rows, changes per column, then the rows, a page at a time)."),
                     common({option("rows", "P", "The partition (in the window) whose rows to compare, old against new."),
                             option("limit", "N|all",
                                    "With --rows, how many changed, added or removed rows to print (default 20), or all."),
                             option("offset", "N",
                                    "With --rows, skip the first N of them (default 0); the page after the first starts "
                                    "at 20.")}),
                     false, true, &diffCommand};
    t << CommandHelp{QStringLiteral("publish"), QStringLiteral("publish --spec S ID --approve NOTE [--override REASON] [--timings]"),
                     QStringLiteral("one transaction: drift guard, archive, replace or swap, audit, release the claim"),
                     QStringLiteral("Publishes backfill ID in one transaction: checks that the window did not change since "
                                    "validation, archives the rows it replaces (for undo), replaces the window (delete and "
                                    "insert, or a partition swap, as publish says in the spec), records the approval and "
                                    "releases the claim. The root of a cascade publishes every member. A reader sees all "
                                    "old or all new."),
                     common({option("approve", "NOTE", "Why the review is right; stored with the publish. Required."),
                             option("override", "REASON",
                                    "Publish although validation failed, for this reason (stored in the audit)."),
                             option("timings", "", "Also print on stderr where the time went, phase by phase (lock "
                                                   "wait, drift guard, archive and replace, commit).")}),
                     false, true, &publishCommand};
    t << CommandHelp{QStringLiteral("abandon"), QStringLiteral("abandon --spec S ID"),
                     QStringLiteral("drop an unpublished backfill's stage and free its window"),
                     QStringLiteral("Drops the stage of backfill ID, which is not published, and releases its claim, so "
                                    "that the window can be backfilled again. The target is not touched."),
                     common({}), false, true, &abandonCommand};
    t << CommandHelp{QStringLiteral("cancel"), QStringLiteral("cancel --spec S ID"),
                     QStringLiteral("stop a backfill staging in another process, as Ctrl-C would there"),
                     QStringLiteral("Asks the process staging backfill ID (the CLI elsewhere, a GUI) to cancel it as Ctrl-C "
                                    "would there, and waits up to 30 s for the warehouse to show it stopped. What was "
                                    "staged is kept, to resume or abandon."),
                     common({}), false, true, &cancelCommand};
    t << CommandHelp{QStringLiteral("report"), QStringLiteral("report --spec S ID --out FILE.pdf|FILE.html|FILE.csv"),
                     QStringLiteral("write the review packet of a backfill (PDF, HTML or CSV)"),
                     QStringLiteral("Writes the review packet of backfill ID (the rules, the per-partition totals, the "
                                    "boundary row diffs, who ran and approved it) to a PDF, HTML or CSV file."),
                     common({option("out", "FILE", "Where to write the packet; its extension (.pdf, .html, .csv) picks the form. "
                                                   "Required.")}),
                     false, true, &reportCommand};
    t << CommandHelp{QStringLiteral("undo"), QStringLiteral("undo --spec S ID [--override REASON]"),
                     QStringLiteral("restore what a publish replaced, from its archive"),
                     QStringLiteral("Restores the archived rows of published backfill ID in place of what it published, in "
                                    "one transaction. Refused (exit 4) when the window changed after the publish."),
                     common({option("override", "REASON", "Undo although the window changed after the publish, for this reason.")}),
                     false, true, &undoCommand};
    t << CommandHelp{QStringLiteral("history"), QStringLiteral("history --spec S [--model M] [--prune [--retention-days N]]"),
                     QStringLiteral("every backfill and run with status, operator, approver and note"),
                     QStringLiteral("Lists every backfill and scheduled run, newest first, with its status, validation, "
                                    "window, operator, approver, note and error."),
                     common({option("model", "M", "Only the backfills and runs of this model."),
                             option("prune", "", "First drop archives past their retention (the latest publish of each "
                                                 "window keeps its archive)."),
                             option("retention-days", "N", "With --prune, keep archives this many days (default 30).", "30")}),
                     false, false, &historyCommand};
    t << CommandHelp{QStringLiteral("demo"), QStringLiteral("demo [--dir D] [--scale N] [--share] [--stop]"),
                     QStringLiteral("start (or stop) the embedded demo warehouse"),
                     QStringLiteral("Starts a private PostgreSQL cluster with the demo shop and its spec (a Unix socket, no "
                                    "TCP), or stops it."),
                     {}, false, false, nullptr, &demoCommand};
    return t;
}

// `text` wrapped to kWidth, every line starting with `indent` spaces, the first with
// `first` instead when given.
QString wrap(const QString &text, int indent, const QString &first = {})
{
    const QStringList words = text.split(QLatin1Char(' '), Qt::SkipEmptyParts);
    QString out;
    QString line = first.isNull() ? QString(indent, QLatin1Char(' ')) : first;
    bool empty = true;
    for (const QString &w : words) {
        if (!empty && line.size() + 1 + w.size() > kWidth) {
            out += line + QLatin1Char('\n');
            line = QString(indent, QLatin1Char(' '));
            empty = true;
        }
        line += (empty ? QString() : QStringLiteral(" ")) + w;
        empty = false;
    }
    return out + line + QLatin1Char('\n');
}

QString term(const OptionHelp &o)
{
    QStringList names;
    for (const QString &n : o.names)
        names << (n.size() == 1 ? QStringLiteral("-") : QStringLiteral("--")) + n;
    return names.join(QStringLiteral(", ")) + (o.valueName.isEmpty() ? QString() : QLatin1Char(' ') + o.valueName);
}

} // namespace

const QList<CommandHelp> &commandTable()
{
    static const QList<CommandHelp> table = buildTable();
    return table;
}

const CommandHelp *findCommand(const QString &name)
{
    for (const CommandHelp &c : commandTable())
        if (c.name == name)
            return &c;
    return nullptr;
}

QList<OptionHelp> allEngineOptions()
{
    QList<OptionHelp> out;
    for (const CommandHelp &c : commandTable())
        for (const OptionHelp &o : c.options)
            if (std::none_of(out.begin(), out.end(), [&](const OptionHelp &x) { return x.names == o.names; }))
                out << o;
    return out;
}

bool acceptsOption(const CommandHelp &command, const QString &name)
{
    return std::any_of(command.options.begin(), command.options.end(), [&](const OptionHelp &o) { return o.names.contains(name); });
}

QString mainHelp()
{
    QString out = QStringLiteral("usage: reprint <command> [options]\n\n");
    out += wrap(QStringLiteral("Runs and reviews backfills on a PostgreSQL warehouse: re-runs a model's own transform over a "
                               "window of partitions, validates old against new totals, and publishes the window in one "
                               "transaction once a person approved the review. `reprint COMMAND --help` explains each "
                               "command's options."),
                2);
    out += QStringLiteral("\ncommands:\n");
    for (const CommandHelp &c : commandTable()) {
        const QString synopsis = c.synopsis.mid(c.name.size()).trimmed();
        out += QStringLiteral("  ") + c.name.leftJustified(10) + synopsis + QLatin1Char('\n');
        out += wrap(c.summary, 12);
    }
    out += QStringLiteral("\ncommon options: --db CONNINFO|URI, --format table|json|csv\n"
                          "exit codes: 0 ok, 1 usage/spec, 2 database, 3 validation failed, 4 conflict, 5 cancelled\n");
    return out;
}

QString commandHelp(const CommandHelp &c)
{
    QString out = QStringLiteral("usage: reprint ") + c.synopsis + QStringLiteral("\n\n") + wrap(c.description, 2);
    if (c.options.isEmpty())
        return out;
    int width = 0;
    for (const OptionHelp &o : c.options)
        width = std::max(width, static_cast<int>(term(o).size()));
    width = std::min(width, 26) + 2;
    out += QStringLiteral("\noptions:\n");
    for (const OptionHelp &o : c.options) {
        const QString t = QStringLiteral("  ") + term(o);
        if (t.size() + 2 > width + 2)
            out += t + QLatin1Char('\n') + wrap(o.text, width + 2);
        else
            out += wrap(o.text, width + 2, t.leftJustified(width + 2));
    }
    return out;
}

int editDistance(const QString &a, const QString &b)
{
    const int n = static_cast<int>(a.size());
    const int m = static_cast<int>(b.size());
    std::vector<std::vector<int>> d(n + 1, std::vector<int>(m + 1));
    for (int i = 0; i <= n; ++i)
        d[i][0] = i;
    for (int j = 0; j <= m; ++j)
        d[0][j] = j;
    for (int i = 1; i <= n; ++i)
        for (int j = 1; j <= m; ++j) {
            const int cost = a[i - 1] == b[j - 1] ? 0 : 1;
            d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
        }
    return d[n][m];
}

QString nearestCommand(const QString &typed)
{
    const QString word = typed.toLower();
    QString best;
    int bestDistance = 3;
    for (const CommandHelp &c : commandTable()) {
        const int d = editDistance(word, c.name);
        if (d < bestDistance && 2 * d < std::max(word.size(), c.name.size())) {
            best = c.name;
            bestDistance = d;
        }
    }
    return best;
}

} // namespace reprint::cli
