#include "migrations.h"

#include "resources.h"

#include <QDir>
#include <QFile>
#include <QRegularExpression>

#include <map>

namespace reprint::backfill {

using warehouse::Error;
using warehouse::ErrorKind;
using warehouse::Result;
using warehouse::Status;
using warehouse::Task;
using warehouse::args;

namespace {

// Migrations compiled into the resources: version -> SQL text, from NNN_name.sql.
const std::map<int, std::pair<std::string, std::string>> &migrationFiles()
{
    static const std::map<int, std::pair<std::string, std::string>> files = [] {
        std::map<int, std::pair<std::string, std::string>> out;
        static const QRegularExpression name(QStringLiteral("^(\\d+)_(.+)\\.sql$"));
        ensureResources();
        const QDir dir(QStringLiteral(":/sql/migrations"));
        for (const QString &entry : dir.entryList(QDir::Files, QDir::Name)) {
            const auto m = name.match(entry);
            if (!m.hasMatch())
                continue;
            QFile f(dir.filePath(entry));
            if (!f.open(QIODevice::ReadOnly))
                continue;
            out[m.captured(1).toInt()] = {m.captured(2).toStdString(), f.readAll().toStdString()};
        }
        return out;
    }();
    return files;
}

constexpr const char *kLockKey = "reprint.migrate";

Task<Result<int>> currentVersion(warehouse::Connection &conn)
{
    // Two statements: the server resolves every relation of a statement when it parses
    // it, so one query cannot test for the table and read it.
    auto exists = co_await conn.query("SELECT to_regclass('reprint.schema_version') IS NOT NULL");
    if (!exists)
        co_return exists.error();
    if (exists->last().scalar() != "t")
        co_return 0;
    auto r = co_await conn.query("SELECT coalesce(max(version), 0) FROM reprint.schema_version");
    if (!r)
        co_return r.error();
    co_return std::stoi(r->last().scalar("0"));
}

Error tooNew(int found)
{
    return Error::make(ErrorKind::Usage,
                       "the warehouse has Reprint schema version " + std::to_string(found)
                           + ", newer than this build knows (" + std::to_string(latestSchemaVersion()) + ")",
                       "Upgrade Reprint to a version that knows this schema; nothing was changed.");
}

} // namespace

int latestSchemaVersion()
{
    const auto &files = migrationFiles();
    return files.empty() ? 0 : files.rbegin()->first;
}

Task<Result<int>> schemaVersion(warehouse::Connection &conn)
{
    co_return co_await currentVersion(conn);
}

Task<Result<MigrationOutcome>> migrate(warehouse::Connection &conn)
{
    MigrationOutcome outcome;
    auto from = co_await currentVersion(conn);
    if (!from)
        co_return from.error();
    outcome.fromVersion = outcome.toVersion = *from;
    if (*from > latestSchemaVersion())
        co_return tooNew(*from);

    for (const auto &[version, file] : migrationFiles()) {
        if (version <= outcome.toVersion)
            continue;
        // One transaction per migration. The advisory lock serialises concurrent `init`s;
        // the version is re-read under it so that the loser of the race applies nothing.
        const std::string sql =
            "BEGIN;\n"
            "SELECT pg_advisory_xact_lock(hashtext('" + std::string(kLockKey) + "'));\n"
            "CREATE SCHEMA IF NOT EXISTS reprint;\n"
            "CREATE TABLE IF NOT EXISTS reprint.schema_version (version int PRIMARY KEY, "
            "description text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now());\n";
        auto locked = co_await conn.execute(sql);
        if (!locked) {
            co_await conn.execute("ROLLBACK");
            co_return locked.error();
        }
        auto again = co_await conn.query("SELECT coalesce(max(version), 0) FROM reprint.schema_version");
        if (!again) {
            co_await conn.execute("ROLLBACK");
            co_return again.error();
        }
        if (std::stoi(again->last().scalar("0")) >= version) {
            co_await conn.execute("ROLLBACK");
            outcome.toVersion = version;
            continue;
        }
        auto applied = co_await conn.execute(file.second);
        if (applied)
            applied = co_await conn.query("INSERT INTO reprint.schema_version (version, description) VALUES ($1, $2)",
                                          args(std::to_string(version), file.first));
        if (!applied) {
            co_await conn.execute("ROLLBACK");
            Error e = applied.error();
            e.message = "migration " + std::to_string(version) + " (" + file.first + ") failed: " + e.message;
            e.hint = "Nothing was changed. Check that the user may create schemas and extensions (btree_gist) in this database.";
            co_return e;
        }
        auto committed = co_await conn.execute("COMMIT");
        if (!committed)
            co_return committed.error();
        outcome.toVersion = version;
        ++outcome.applied;
    }
    co_return outcome;
}

Task<Status> requireSchema(warehouse::Connection &conn)
{
    auto v = co_await currentVersion(conn);
    if (!v)
        co_return v.error();
    if (*v > latestSchemaVersion())
        co_return tooNew(*v);
    if (*v < latestSchemaVersion())
        co_return Error::make(ErrorKind::Usage,
                              *v == 0 ? "the warehouse has no Reprint schema"
                                      : "the warehouse's Reprint schema is version " + std::to_string(*v)
                                            + ", older than this build's " + std::to_string(latestSchemaVersion()),
                              "Run `reprint init --spec S` first.");
    co_return warehouse::ok();
}

} // namespace reprint::backfill
