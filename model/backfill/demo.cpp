#include "demo.h"

#include "migrations.h"
#include "resources.h"
#include "warehouse/connection.h"
#include "warehouse/iothread.h"
#include "warehouse/localcluster.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QSaveFile>

#include <charconv>
#include <cctype>
#include <cmath>
#include <vector>

#include <pwd.h>
#include <unistd.h>

namespace reprint::backfill {

using warehouse::Error;
using warehouse::ErrorKind;
using warehouse::Result;
using warehouse::Status;

namespace {

constexpr const char *kSeedingDatabase = "demo_seeding";
constexpr double kMaxScale = 20.0;

// A blocking connection for set-up work: its own io_context, run on the calling thread.
class SetupConnection {
public:
    Status open(const std::string &conninfo)
    {
        auto c = warehouse::runBlocking(m_io, warehouse::Connection::connect(conninfo));
        if (!c)
            return c.error();
        m_conn = *c;
        return warehouse::ok();
    }
    Result<warehouse::Reply> query(const std::string &sql, warehouse::Params params = {})
    {
        return warehouse::runBlocking(m_io, m_conn->query(sql, std::move(params)));
    }
    Result<warehouse::Reply> execute(const std::string &sql)
    {
        return warehouse::runBlocking(m_io, m_conn->execute(sql));
    }
    Result<MigrationOutcome> migrate() { return warehouse::runBlocking(m_io, backfill::migrate(*m_conn)); }
    void close()
    {
        if (m_conn)
            m_conn->close();
        m_conn.reset();
    }
    ~SetupConnection() { close(); }

private:
    warehouse::asio::io_context m_io;
    warehouse::ConnectionPtr m_conn;
};

struct SeedStep {
    std::string title;
    std::string sql;
};

// seed.sql in pieces, each starting at a "-- step: <title>" line.
std::vector<SeedStep> seedSteps(const std::string &text)
{
    std::vector<SeedStep> steps;
    const std::string marker = "-- step:";
    std::size_t pos = 0;
    while (pos < text.size()) {
        std::size_t end = text.find('\n', pos);
        if (end == std::string::npos)
            end = text.size();
        const std::string line = text.substr(pos, end - pos);
        if (line.rfind(marker, 0) == 0) {
            std::string title = line.substr(marker.size());
            while (!title.empty() && title.front() == ' ')
                title.erase(title.begin());
            steps.push_back({title, {}});
        } else if (!steps.empty()) {
            steps.back().sql += line + "\n";
        }
        pos = end + 1;
    }
    return steps;
}

std::string formatScale(double scale)
{
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, scale);
    return std::string(buf, r.ptr);
}

// A double-quoted YAML scalar.
std::string yamlQuoted(const std::string &text)
{
    std::string s = "\"";
    for (char c : text) {
        if (c == '"' || c == '\\')
            s += '\\';
        s += c;
    }
    return s + "\"";
}

Status writeText(const QString &path, const std::string &text)
{
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(text.data(), static_cast<qint64>(text.size())) < 0 || !f.commit())
        return Error::make(ErrorKind::Usage, "could not write " + path.toStdString() + ": " + f.errorString().toStdString(),
                           "Pick a --dir you can write to.");
    return warehouse::ok();
}

// demo.yaml (with the warehouse line filled in) and its transforms and checks.
Status writeSpecFiles(const QString &dir, const std::string &conninfo)
{
    auto spec = resourceText(QStringLiteral(":/demo/demo.yaml"));
    if (!spec)
        return spec.error();
    std::string text = *spec;
    const std::string placeholder = "\"@WAREHOUSE@\"";
    const std::size_t at = text.find(placeholder);
    if (at == std::string::npos)
        return Error::make(ErrorKind::Internal, "the demo spec in this build has no warehouse placeholder");
    text.replace(at, placeholder.size(), yamlQuoted(conninfo));
    if (auto s = writeText(QDir(dir).filePath(QStringLiteral("demo.yaml")), text); !s)
        return s;

    for (const QString &sub : {QStringLiteral("transforms"), QStringLiteral("checks")}) {
        const QDir from(QStringLiteral(":/demo/") + sub);
        const QString to = QDir(dir).filePath(sub);
        if (!QDir().mkpath(to))
            return Error::make(ErrorKind::Usage, "could not create " + to.toStdString(), "Pick a --dir you can write to.");
        for (const QString &name : from.entryList(QDir::Files, QDir::Name)) {
            auto sql = resourceText(from.filePath(name));
            if (!sql)
                return sql.error();
            if (auto s = writeText(QDir(to).filePath(name), *sql); !s)
                return s;
        }
    }
    return warehouse::ok();
}

Error inStep(Error e, const std::string &step)
{
    e.message = step + ": " + e.message;
    return e;
}

// Creates the demo database under a temporary name, seeds it, applies the migrations and
// only then renames it, so an interrupted seed never leaves a half-filled `demo` behind.
Status seed(warehouse::LocalCluster &cluster, SetupConnection &admin, double scale,
            const std::function<void(const std::string &)> &say)
{
    if (auto r = admin.execute(std::string("DROP DATABASE IF EXISTS ") + kSeedingDatabase + " WITH (FORCE)"); !r)
        return inStep(r.error(), "removing an interrupted seed");
    if (auto r = admin.execute(std::string("CREATE DATABASE ") + kSeedingDatabase + " TEMPLATE template0 ENCODING 'UTF8'");
        !r)
        return inStep(r.error(), "creating the demo database");

    auto seedText = resourceText(QStringLiteral(":/demo/seed.sql"));
    if (!seedText)
        return seedText.error();
    auto loadsText = resourceText(QStringLiteral(":/demo/partition_loads.sql"));
    if (!loadsText)
        return loadsText.error();
    {
        SetupConnection db;
        if (auto s = db.open(cluster.conninfo(kSeedingDatabase)); !s)
            return s;
        // One transaction: the tables are created in it, so with wal_level = minimal their
        // rows skip the WAL. No parallel workers, so the plans (and rows) are the same each time.
        if (auto r = db.execute("SET max_parallel_workers_per_gather = 0; SET jit = off; SET work_mem = '256MB';"
                                " SET maintenance_work_mem = '512MB'; SET synchronous_commit = off;"
                                " SET TimeZone = 'UTC'");
            !r)
            return inStep(r.error(), "preparing the seed");
        if (auto r = db.query("SELECT set_config('reprint.demo_scale', $1, false)", {formatScale(scale)}); !r)
            return inStep(r.error(), "preparing the seed");
        if (auto r = db.execute("BEGIN"); !r)
            return inStep(r.error(), "preparing the seed");
        for (const SeedStep &step : seedSteps(*seedText)) {
            say(step.title);
            if (auto r = db.execute(step.sql); !r)
                return inStep(r.error(), "seed step '" + step.title + "'");
        }
        say("committing");
        if (auto r = db.execute("COMMIT"); !r)
            return inStep(r.error(), "committing the seed");

        say("applying Reprint's schema");
        auto migrated = db.migrate();
        if (!migrated)
            return inStep(migrated.error(), "applying Reprint's schema");
        say("recording when each partition was loaded");
        if (auto r = db.execute(*loadsText); !r)
            return inStep(r.error(), "recording partition loads");
    }
    // What a later start reads back: which seed, when, by whom.
    const std::string comment = "Reprint demo shop; seed scale " + formatScale(scale) + "; seed version " + seedVersion()
                                + "; seeded on " + QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyy-MM-dd HH:mm 'UTC'")).toStdString()
                                + " by pid " + std::to_string(::getpid()) + " (" + demoPerson() + ")";
    auto statement = admin.query("SELECT format('COMMENT ON DATABASE %I IS %L', $1::text, $2::text)", {std::string(kSeedingDatabase), comment});
    if (statement)
        statement = admin.execute(statement->last().scalar());
    if (!statement)
        return inStep(statement.error(), "recording the seed's version");
    if (auto r = admin.execute(std::string("ALTER DATABASE ") + kSeedingDatabase + " RENAME TO " + kDemoDatabase); !r)
        return inStep(r.error(), "naming the demo database");
    return warehouse::ok();
}

QString ownerFile(const warehouse::LocalCluster &cluster)
{
    return QDir(QString::fromStdString(cluster.dir())).filePath(QStringLiteral("demo-owner"));
}

struct Owner {
    pid_t pid = 0;
    std::string person, since;
};

Owner readOwner(const warehouse::LocalCluster &cluster)
{
    Owner o;
    QFile f(ownerFile(cluster));
    if (!f.open(QIODevice::ReadOnly))
        return o;
    const QStringList lines = QString::fromUtf8(f.readAll()).split(QLatin1Char('\n'));
    o.pid = lines.value(0).toInt();
    o.person = lines.value(1).toStdString();
    o.since = lines.value(2).toStdString();
    return o;
}

// "seed version X" out of a seed comment, or "" (a seed older than versions).
std::string versionIn(const std::string &comment)
{
    const std::string key = "seed version ";
    const std::size_t at = comment.find(key);
    if (at == std::string::npos)
        return {};
    const std::size_t from = at + key.size();
    return comment.substr(from, comment.find(';', from) - from);
}

// "on DATE by pid P (PERSON)" out of a seed comment, or "".
std::string seededIn(const std::string &comment)
{
    const std::string key = "seeded ";
    const std::size_t at = comment.find(key);
    return at == std::string::npos ? std::string() : comment.substr(at + key.size());
}

using Say = std::function<void(const std::string &)>;

Status checkOptions(const DemoOptions &options)
{
    if (!std::isfinite(options.scale) || options.scale <= 0 || options.scale > kMaxScale)
        return Error::make(ErrorKind::Usage,
                           "the demo scale must be a number above 0 and at most " + formatScale(kMaxScale)
                               + " (1 is about 2.1 million order lines)",
                           "Try --scale 1, or --scale 0.1 for a quick one.");
    if (options.dir.empty())
        return Error::make(ErrorKind::Usage, "no directory given for the demo cluster");
    return warehouse::ok();
}

// A running demo cluster that another live process started is used only with --share.
Status checkOwner(const warehouse::LocalCluster &cluster, const DemoOptions &options, const Say &say)
{
    const Owner owner = readOwner(cluster);
    if (owner.pid != ::getpid() && warehouse::processRunning(owner.pid) && !options.share)
        return Error::make(ErrorKind::Usage,
                           "the demo cluster in " + cluster.dir() + " is in use: process " + std::to_string(owner.pid) + " ("
                               + owner.person + ") started it " + owner.since + " and is still running",
                           "Start a demo of your own with `reprint demo --dir " + cluster.dir() + "-" + std::to_string(::getpid())
                               + "`, or use this one anyway with `reprint demo --dir " + cluster.dir()
                               + " --share` (your backfills would change its data).");
    if (warehouse::processRunning(owner.pid) && owner.pid != ::getpid())
        say("sharing the demo cluster that process " + std::to_string(owner.pid) + " (" + owner.person + ") started (--share)");
    return warehouse::ok();
}

// Starts the cluster (creating it if need be); a cluster this process started records
// this process as its owner.
Status startCluster(warehouse::LocalCluster &cluster, bool existed, bool running, const Say &say, DemoInfo &info)
{
    say(std::string(running ? "using the running demo cluster in " : existed ? "starting the demo cluster in " : "creating a PostgreSQL cluster in ")
        + cluster.dir());
    QElapsedTimer timer;
    timer.start();
    if (auto s = cluster.start(); !s)
        return s.error();
    info.clusterSeconds = static_cast<double>(timer.elapsed()) / 1000.0;
    if (!running) {
        const std::string owner = std::to_string(::getpid()) + "\n" + demoPerson() + "\n"
                                  + QDateTime::currentDateTimeUtc().toString(QStringLiteral("'on' yyyy-MM-dd 'at' HH:mm 'UTC'")).toStdString() + "\n";
        if (auto s = writeText(ownerFile(cluster), owner); !s)
            return s.error();
    }
    return warehouse::ok();
}

// The demo database's seed comment, in a reply with no rows when there is no demo
// database; one seeded by another seed version is dropped first.
Result<warehouse::Reply> currentSeed(SetupConnection &admin, const Say &say)
{
    auto found = admin.query("SELECT shobj_description(oid, 'pg_database') FROM pg_database WHERE datname = $1",
                             {std::string(kDemoDatabase)});
    if (!found)
        return found.error();
    if (!found->last().rows.empty()) {
        const std::string comment = found->last().scalar();
        const std::string version = versionIn(comment);
        if (version != seedVersion()) {
            say("the demo database was seeded by " + (version.empty() ? std::string("an older seed") : "seed version " + version)
                + ", this build's seed is version " + seedVersion() + ": seeding it again");
            if (auto r = admin.execute(std::string("DROP DATABASE ") + kDemoDatabase + " WITH (FORCE)"); !r)
                return inStep(r.error(), "removing the outdated demo database");
            found = admin.query("SELECT 1 WHERE false");
            if (!found)
                return found.error();
        }
    }
    return found;
}

// An existing demo database of this seed version, brought up to Reprint's schema.
Status reuseDemo(const warehouse::LocalCluster &cluster, const std::string &comment, const DemoOptions &options,
                 const Say &say)
{
    const std::string seededBy = seededIn(comment);
    say("reusing the demo in " + cluster.dir() + (seededBy.empty() ? std::string() : ", seeded " + seededBy));
    const std::string asked = "seed scale " + formatScale(options.scale);
    if (!comment.empty() && comment.find(asked) == std::string::npos)
        say("note: --scale applies to a new demo only; remove " + cluster.dir() + " to seed again");
    SetupConnection db;
    if (auto s = db.open(cluster.conninfo(kDemoDatabase)); !s)
        return s.error();
    auto migrated = db.migrate();
    if (!migrated)
        return inStep(migrated.error(), "applying Reprint's schema");
    return warehouse::ok();
}

} // namespace

Result<DemoInfo> startDemo(const DemoOptions &options, const std::function<void(const std::string &)> &progress)
{
    const Say say = [&](const std::string &line) {
        if (progress)
            progress(line);
    };
    if (auto s = checkOptions(options); !s)
        return s.error();

    DemoInfo info;
    warehouse::LocalCluster cluster(options.dir);
    const bool existed = cluster.exists();
    const bool running = existed && cluster.isRunning();
    if (running) {
        if (auto s = checkOwner(cluster, options, say); !s)
            return s.error();
    }
    if (auto s = startCluster(cluster, existed, running, say, info); !s)
        return s.error();

    SetupConnection admin;
    if (auto s = admin.open(cluster.conninfo("postgres")); !s)
        return s.error();
    auto found = currentSeed(admin, say);
    if (!found)
        return found.error();

    bool seeded = false;
    if (found->last().rows.empty()) {
        say("seeding the demo shop at scale " + formatScale(options.scale));
        QElapsedTimer timer;
        timer.start();
        if (auto s = seed(cluster, admin, options.scale, say); !s)
            return s.error();
        info.seedSeconds = static_cast<double>(timer.elapsed()) / 1000.0;
        seeded = true;
    } else if (auto s = reuseDemo(cluster, found->last().scalar(), options, say); !s) {
        return s.error();
    }
    admin.close();

    info.conninfo = cluster.conninfo(kDemoDatabase);
    const QString dir = QString::fromStdString(cluster.dir());
    if (auto s = writeSpecFiles(dir, info.conninfo); !s)
        return s.error();
    info.specPath = QDir(dir).filePath(QStringLiteral("demo.yaml")).toStdString();
    info.reused = existed && !seeded;
    return info;
}

Status stopDemo(const std::string &dir)
{
    return warehouse::LocalCluster(dir).stop();
}

namespace {

// This process's account name, or "uid N" when it has none.
std::string accountName()
{
    const passwd *pw = ::getpwuid(::geteuid());
    return pw ? std::string(pw->pw_name) : "uid " + std::to_string(::geteuid());
}

// Under sudo as root, the person who asked ($SUDO_USER); else empty.
std::string sudoPerson()
{
    const QString sudo = qEnvironmentVariable("SUDO_USER");
    return ::geteuid() == 0 && !sudo.isEmpty() && sudo != QLatin1String("root") ? sudo.toStdString() : std::string();
}

} // namespace

std::string demoPerson()
{
    const std::string sudo = sudoPerson();
    return sudo.empty() ? accountName() : accountName() + " (via sudo from " + sudo + ")";
}

std::string seedVersion()
{
    static const std::string version = [] {
        QCryptographicHash hash(QCryptographicHash::Sha1);
        for (const QString &path : {QStringLiteral(":/demo/seed.sql"), QStringLiteral(":/demo/partition_loads.sql")}) {
            auto text = resourceText(path);
            hash.addData(QByteArray::fromStdString(text ? *text : std::string()));
        }
        return hash.result().toHex().left(12).toStdString();
    }();
    return version;
}

std::string defaultDemoDir(std::string *why)
{
    QString base = qEnvironmentVariable("XDG_DATA_HOME");
    if (base.isEmpty())
        base = QDir::home().filePath(QStringLiteral(".local/share"));
    std::string dir = QDir(base).filePath(QStringLiteral("reprint/demo")).toStdString();
    if (::geteuid() == 0) {
        const std::string account = warehouse::LocalCluster::serverAccount(dir);
        const std::string blocked = warehouse::LocalCluster::reachability(dir, account);
        if (!blocked.empty()) {
            // One demo per person: under sudo, the person who asked, not root.
            std::string person = sudoPerson().empty() ? accountName() : sudoPerson();
            for (char &ch : person)
                if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '-' && ch != '_' && ch != '.')
                    ch = '_';
            const std::string fallback = "/var/tmp/reprint-demo-" + person;
            if (why)
                *why = "running as root; " + blocked.substr(0, blocked.find(". ")) + "; using " + fallback + " instead (pass --dir to choose)";
            dir = fallback;
        }
    }
    return dir;
}

} // namespace reprint::backfill
