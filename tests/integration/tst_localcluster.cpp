// LocalCluster against the installed PostgreSQL server: fresh start, reuse, a stale
// postmaster.pid after kill -9, the unprivileged server account, and socket-only access.
#include "testsupport.h"

#include "warehouse/iothread.h"
#include "warehouse/schedgroup.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QTest>

#include <algorithm>

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <linux/capability.h>
#include <pwd.h>
#include <sys/syscall.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace reprint;
using warehouse::LocalCluster;

namespace {

uid_t processUid(pid_t pid)
{
    QFile f(QStringLiteral("/proc/%1/status").arg(pid));
    if (!f.open(QIODevice::ReadOnly))
        return static_cast<uid_t>(-1);
    for (const QByteArray &line : f.readAll().split('\n')) {
        if (line.startsWith("Uid:"))
            return static_cast<uid_t>(line.mid(4).simplified().split(' ').value(1).toUInt()); // effective uid
    }
    return static_cast<uid_t>(-1);
}

bool waitGone(pid_t pid, int ms)
{
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < ms) {
        if (::kill(pid, 0) != 0 && errno == ESRCH)
            return true;
        QTest::qWait(20);
    }
    return false;
}

void removeTree(const std::string &dir)
{
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
}

// A process's scheduling group and its niceness (/proc/<pid>/autogroup); empty where the
// kernel has none.
std::pair<std::string, int> groupOf(const std::string &pid)
{
    std::ifstream in("/proc/" + pid + "/autogroup");
    std::string group, word;
    int nice = 0;
    if (!(in >> group >> word >> nice) || word != "nice")
        return {};
    return {group, nice};
}

// Opens three connections at once, as a backfill does, then runs rounds of a 150 ms
// statement on each until every backend's group has the server's niceness (at most 20
// rounds: other processes' changes count against the kernel's rate limit too); the groups
// as the last round saw them.
std::vector<std::pair<std::string, int>> backendGroups(const LocalCluster &cluster)
{
    warehouse::asio::io_context io;
    return warehouse::runBlocking(io, [&]() -> warehouse::Task<std::vector<std::pair<std::string, int>>> {
        std::vector<std::shared_ptr<warehouse::Connection>> open;
        std::vector<std::pair<std::string, int>> seen;
        for (int i = 0; i < 3; ++i) {
            auto c = co_await warehouse::Connection::connect(cluster.conninfo());
            if (!c)
                co_return seen;
            open.push_back(*c);
        }
        for (int round = 0; round < 20; ++round) {
            seen.clear();
            for (auto &c : open) {
                auto r = co_await c->query("SELECT pg_sleep(0.15), pg_backend_pid()");
                if (!r)
                    co_return seen;
                seen.push_back(groupOf(r->last().rows.at(0).at(1).value_or("")));
            }
            if (std::all_of(seen.begin(), seen.end(), [](const auto &g) { return g.second == warehouse::kServerGroupNiceness; }))
                break;
        }
        co_return seen;
    }());
}

// Takes CAP_SYS_ADMIN out of this thread's effective capabilities (back on destruction):
// without it the kernel takes one change of a scheduling group every 100 ms, as it does
// for a desktop user. A no-op for a thread that does not have it.
class WithoutSysAdmin {
public:
    WithoutSysAdmin()
    {
        m_header.version = _LINUX_CAPABILITY_VERSION_3;
        m_header.pid = 0;
        if (::syscall(SYS_capget, &m_header, m_saved) != 0)
            return;
        __user_cap_data_struct lowered[2] = {m_saved[0], m_saved[1]};
        lowered[CAP_SYS_ADMIN / 32].effective &= ~(1u << (CAP_SYS_ADMIN % 32));
        m_dropped = ::syscall(SYS_capset, &m_header, lowered) == 0;
    }
    ~WithoutSysAdmin()
    {
        if (m_dropped)
            ::syscall(SYS_capset, &m_header, m_saved);
    }
    WithoutSysAdmin(const WithoutSysAdmin &) = delete;
    WithoutSysAdmin &operator=(const WithoutSysAdmin &) = delete;

private:
    __user_cap_header_struct m_header{};
    __user_cap_data_struct m_saved[2]{};
    bool m_dropped = false;
};

} // namespace

class TestLocalCluster : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(!LocalCluster::serverBinDir().empty(), "no PostgreSQL server installed");
    }

    void freshStartThenReuse()
    {
        const std::string dir = test::testDir() + "/fresh";
        removeTree(dir);
        LocalCluster cluster(dir);
        QVERIFY(!cluster.exists());
        QVERIFY(!cluster.isRunning());

        QElapsedTimer t;
        t.start();
        const auto started = cluster.start();
        QVERIFY2(started.ok(), started.ok() ? "" : started.error().toSentence().c_str());
        qInfo("initdb + start: %lld ms", static_cast<long long>(t.elapsed()));
        QVERIFY(cluster.exists());
        QVERIFY(cluster.isRunning());

        auto made = test::execute(cluster.conninfo(), "CREATE TABLE kept (v int); INSERT INTO kept VALUES (42)");
        QVERIFY2(made.ok(), made.ok() ? "" : made.error().toSentence().c_str());

        // Starting a running cluster is a no-op.
        QVERIFY(cluster.start().ok());

        const auto stopped = cluster.stop();
        QVERIFY2(stopped.ok(), stopped.ok() ? "" : stopped.error().toSentence().c_str());
        QVERIFY(!cluster.isRunning());
        QVERIFY(cluster.stop().ok());

        t.restart();
        LocalCluster again(dir);
        const auto restarted = again.start();
        QVERIFY2(restarted.ok(), restarted.ok() ? "" : restarted.error().toSentence().c_str());
        qInfo("reuse start: %lld ms", static_cast<long long>(t.elapsed()));
        auto kept = test::query(again.conninfo(), "SELECT v FROM kept");
        QVERIFY2(kept.ok(), kept.ok() ? "" : kept.error().toSentence().c_str());
        QCOMPARE(kept->last().scalar(), std::string("42"));
        QVERIFY(again.stop().ok());
    }

    void socketOnly()
    {
        LocalCluster &cluster = test::privateCluster();
        QVERIFY(cluster.isRunning());
        auto listen = test::query(cluster.conninfo(), "SHOW listen_addresses");
        QVERIFY2(listen.ok(), listen.ok() ? "" : listen.error().toSentence().c_str());
        QCOMPARE(listen->last().scalar("?"), std::string());
        auto sockets = test::query(cluster.conninfo(), "SHOW unix_socket_directories");
        QVERIFY(sockets.ok());
        QCOMPARE(sockets->last().scalar(), cluster.socketDir());
        auto rules = test::query(cluster.conninfo(),
                                 "SELECT count(*) FILTER (WHERE type <> 'local' OR auth_method <> 'trust'), count(*) "
                                 "FROM pg_hba_file_rules");
        QVERIFY(rules.ok());
        QCOMPARE(rules->last().rows[0][0].value_or("?"), std::string("0"));
        QCOMPARE(rules->last().rows[0][1].value_or("?"), std::string("1"));
        // This very connection came through the socket.
        auto port = test::query(cluster.conninfo(), "SELECT inet_server_addr() IS NULL");
        QVERIFY(port.ok());
        QCOMPARE(port->last().scalar(), std::string("t"));
    }

    void serverRunsUnprivileged()
    {
        LocalCluster &cluster = test::privateCluster();
        const pid_t pid = cluster.serverPid();
        QVERIFY(pid > 0);
        const uid_t uid = processUid(pid);
        QVERIFY(uid != static_cast<uid_t>(-1));
        if (::geteuid() == 0) {
            QVERIFY2(uid != 0, "the server runs as root");
            const passwd *pw = ::getpwuid(uid);
            QVERIFY(pw);
            QCOMPARE(std::string(pw->pw_name), cluster.superuser());
            struct stat st{};
            QCOMPARE(::stat(cluster.dataDir().c_str(), &st), 0);
            QCOMPARE(st.st_uid, uid);
        } else {
            QCOMPARE(uid, ::geteuid());
        }
        auto who = test::query(cluster.conninfo(), "SELECT current_user, (SELECT rolsuper FROM pg_roles WHERE rolname = current_user)");
        QVERIFY(who.ok());
        QCOMPARE(who->last().rows[0][0].value_or(""), cluster.superuser());
        QCOMPARE(who->last().rows[0][1].value_or(""), std::string("t"));
    }

    // The server and every backend it forks run below the GUI's priority: on a busy machine
    // a backfill's backends must not take the CPU from the window that drives them.
    void serverYieldsTheCpu()
    {
        LocalCluster &cluster = test::privateCluster();
        const pid_t postmaster = cluster.serverPid();
        QVERIFY(postmaster > 0);
        auto backend = test::query(cluster.conninfo(), "SELECT pg_backend_pid()");
        QVERIFY(backend.ok());
        errno = 0;
        const int ours = ::getpriority(PRIO_PROCESS, 0);
        QCOMPARE(errno, 0);
        const int wanted = std::min(ours + warehouse::kServerNiceness, 19);
        for (const pid_t pid : {postmaster, static_cast<pid_t>(std::stoi(backend->last().scalar()))}) {
            errno = 0;
            const int nice = ::getpriority(PRIO_PROCESS, static_cast<id_t>(pid));
            QCOMPARE(errno, 0);
            QCOMPARE(nice, wanted);
        }
        // Where Linux groups a session's processes for the scheduler (pg_ctl gives the
        // server a session of its own), the server's group is lowered as well: a niceness
        // only ranks processes inside their group.
        const std::string ourGroup = groupOf("self").first;
        if (ourGroup.empty())
            QSKIP("this kernel has no scheduling groups per session (/proc/self/autogroup)");
        const auto [serverGroup, serverNice] = groupOf(std::to_string(postmaster));
        QVERIFY(!serverGroup.empty());
        if (serverGroup == ourGroup)
            QSKIP("the server shares this test's session: its group was not lowered");
        QCOMPARE(serverNice, warehouse::kServerGroupNiceness);
        // So are the groups of the processes the server started with it.
        int helpers = 0;
        for (const auto &entry : std::filesystem::directory_iterator("/proc")) {
            const std::string pid = entry.path().filename().string();
            if (pid.find_first_not_of("0123456789") != std::string::npos)
                continue;
            std::ifstream cmd(entry.path() / "cmdline");
            std::string title;
            std::getline(cmd, title, '\0');
            title.erase(title.find_last_not_of(' ') + 1); // the title is padded with spaces
            for (const char *name : {"postgres: checkpointer", "postgres: background writer", "postgres: walwriter"}) {
                if (title != name)
                    continue;
                std::ifstream stat(entry.path() / "stat");
                std::string line;
                std::getline(stat, line);
                long parent = 0;
                std::sscanf(line.c_str() + line.rfind(')') + 1, " %*c %ld", &parent);
                if (parent != postmaster)
                    continue;
                ++helpers;
                const auto [group, nice] = groupOf(pid);
                QVERIFY2(!group.empty() && group != ourGroup, title.c_str());
                QCOMPARE(nice, warehouse::kServerGroupNiceness);
            }
        }
        QCOMPARE(helpers, 3);

        // PostgreSQL gives each backend a session, and so a group, of its own (setsid):
        // the backend a connection reaches is the one that does the work, and its group
        // must rank as low as the server's while the connection is open.
        const auto groups = backendGroups(cluster);
        QCOMPARE(groups.size(), std::size_t(3));
        for (const auto &[group, nice] : groups) {
            QVERIFY2(!group.empty() && group != ourGroup, group.c_str());
            QCOMPARE(nice, warehouse::kServerGroupNiceness);
        }
    }

    // As a desktop user (no CAP_SYS_ADMIN) the kernel refuses a second change of a group
    // within 100 ms: of three connections opened at once, the later ones move their
    // backends before a later statement, without waiting.
    void backendsFollowUnderTheRateLimit()
    {
        LocalCluster &cluster = test::privateCluster();
        const pid_t postmaster = cluster.serverPid();
        QVERIFY(postmaster > 0);
        const auto [serverGroup, serverNice] = groupOf(std::to_string(postmaster));
        if (serverGroup.empty() || serverGroup == groupOf("self").first)
            QSKIP("no scheduling group of the server's own here (see serverYieldsTheCpu)");
        WithoutSysAdmin desktopUser;
        // The premise: two changes in a row, the second refused for now.
        const auto first = warehouse::setGroupNiceness(postmaster, serverNice);
        const auto second = warehouse::setGroupNiceness(postmaster, serverNice);
        QVERIFY(first != warehouse::GroupChange::Refused);
        QCOMPARE(second, warehouse::GroupChange::TryLater);
        const auto groups = backendGroups(cluster);
        QCOMPARE(groups.size(), std::size_t(3));
        for (const auto &[group, nice] : groups) {
            QVERIFY2(!group.empty(), "a backend's group could not be read");
            QCOMPARE(nice, warehouse::kServerGroupNiceness);
        }
    }

    void stalePidAfterKill9()
    {
        LocalCluster &cluster = test::privateCluster();
        const pid_t pid = cluster.serverPid();
        QVERIFY(pid > 0);
        QCOMPARE(::kill(pid, SIGKILL), 0);
        QVERIFY(waitGone(pid, 10000));
        QVERIFY(QFile::exists(QString::fromStdString(cluster.dataDir() + "/postmaster.pid")));
        QVERIFY(!cluster.isRunning());

        QElapsedTimer t;
        t.start();
        const auto started = cluster.start();
        QVERIFY2(started.ok(), started.ok() ? "" : started.error().toSentence().c_str());
        qInfo("start after kill -9: %lld ms", static_cast<long long>(t.elapsed()));
        QVERIFY(cluster.serverPid() > 0);
        QVERIFY(cluster.serverPid() != pid);
        auto one = test::query(cluster.conninfo(), "SELECT 1");
        QVERIFY2(one.ok(), one.ok() ? "" : one.error().toSentence().c_str());
    }

    void stalePidOfAnotherProcess()
    {
        // A pid file naming a live process that is not this cluster's postgres (pid reuse
        // after a reboot): PostgreSQL itself would refuse to start.
        LocalCluster &cluster = test::privateCluster();
        QVERIFY(cluster.stop().ok());
        const std::string pidFile = cluster.dataDir() + "/postmaster.pid";
        {
            std::ofstream out(pidFile);
            out << ::getpid() << "\n" << cluster.dataDir() << "\n";
        }
        QVERIFY(!cluster.isRunning());
        const auto started = cluster.start();
        QVERIFY2(started.ok(), started.ok() ? "" : started.error().toSentence().c_str());
        QVERIFY(cluster.isRunning());
        QVERIFY(cluster.serverPid() != ::getpid());
    }

    void refusesForeignDirectory()
    {
        const std::string dir = test::testDir() + "/foreign";
        removeTree(dir);
        QVERIFY(QDir().mkpath(QString::fromStdString(dir)));
        {
            std::ofstream(dir + "/notes.txt") << "not a cluster\n";
        }
        LocalCluster cluster(dir);
        const auto started = cluster.start();
        QVERIFY(!started.ok());
        QCOMPARE(started.error().kind, warehouse::ErrorKind::Usage);
        QVERIFY(!QFile::exists(QString::fromStdString(dir + "/data")));
        struct stat st{};
        QCOMPARE(::stat((dir + "/notes.txt").c_str(), &st), 0);
        QCOMPARE(st.st_uid, ::geteuid());
    }

    void unreachableDirectory()
    {
        if (::geteuid() != 0)
            QSKIP("only root hands the server to another account");
        const std::string locked = test::testDir() + "/locked";
        removeTree(locked);
        QVERIFY(QDir().mkpath(QString::fromStdString(locked)));
        QCOMPARE(::chmod(locked.c_str(), 0700), 0);
        LocalCluster cluster(locked + "/cluster");
        const auto started = cluster.start();
        QVERIFY(!started.ok());
        QCOMPARE(started.error().kind, warehouse::ErrorKind::Usage);
        const std::string message = started.error().toSentence();
        QVERIFY2(message.find(locked) != std::string::npos, message.c_str());
        QVERIFY2(message.find("chmod o+x") != std::string::npos, message.c_str());
        QVERIFY(!LocalCluster::reachability(locked + "/cluster", cluster.superuser()).empty());
        QVERIFY(LocalCluster::reachability(test::testDir(), cluster.superuser()).empty());
    }
};

QTEST_GUILESS_MAIN(TestLocalCluster)
#include "tst_localcluster.moc"
