#pragma once
// A private PostgreSQL cluster for the demo and the integration tests.
//
// initdb/pg_ctl come from the installed server ($REPRINT_PG_BINDIR, else `pg_config
// --bindir`, else the newest /usr/lib/postgresql/N/bin). The cluster listens on a Unix
// socket in a private directory only (listen_addresses = ''), with trust authentication
// for local socket connections and nothing else. When the process runs as root, the
// server runs as an unprivileged account (the `postgres` system user if it exists, else
// `nobody`; an existing cluster keeps the account that owns it) and the cluster directory
// is chowned to it. Every directory above dir() must then be searchable by that account:
// start() checks this and names the directory that is not.
//
// Layout under dir(): data/ (PGDATA), socket/ (unix_socket_directories), server.log and
// .reprint-cluster (the marker that makes the directory ours). start() refuses a directory
// that is neither new, empty nor marked, so a wrong --dir never has its files chowned.
// start() on a directory that already holds a cluster reuses it; a stale postmaster.pid
// left by a killed run is detected (its pid is gone, or is not a postgres of this data
// directory) and removed once no orphaned server process of the cluster is left.
//
// Blocking: start() and stop() run subprocesses and wait for them. Call them from the
// CLI, a test fixture or a worker thread, never from the GUI thread. They fork and exec
// only async-signal-safe code in the child, so other threads may keep running.
// A LocalCluster object holds no process handle: the server outlives it, and any object
// made for the same directory controls the same server.

#include "error.h"

#include <string>
#include <sys/types.h>

namespace reprint::warehouse {

// The niceness the server (and every backend it forks) runs at, above the caller's own:
// the window that drives a backfill keeps the CPU when the machine is busy.
inline constexpr int kServerNiceness = 10;
// The niceness of the server's scheduling group, where Linux groups each session's
// processes (autogroup): the lowest, so that the server takes the CPU the desktop leaves.
// Inside a group processes still rank by kServerNiceness; across groups only the group's
// niceness counts. Every backend gets a group of its own from PostgreSQL and follows this
// one when a connection opens (schedgroup.h).
inline constexpr int kServerGroupNiceness = 19;

// True while process `pid` of this host runs (it may belong to another user).
bool processRunning(pid_t pid);

class LocalCluster {
public:
    // `dir` is made absolute and created on start() if missing. `port` only names the
    // socket file (.s.PGSQL.port); no TCP port is ever opened.
    explicit LocalCluster(std::string dir, int port = 5432);

    // initdb if needed, then pg_ctl start -w. Returns ok() when already running.
    // Errors carry the output of initdb/pg_ctl and the end of server.log.
    Status start();
    // pg_ctl stop -m fast -w. Returns ok() when not running.
    Status stop();
    bool isRunning() const;
    // True when dir() already holds an initialised cluster.
    bool exists() const;

    const std::string &dir() const { return m_dir; }
    std::string dataDir() const;
    std::string socketDir() const;
    std::string logFile() const;
    int port() const { return m_port; }
    // The postmaster's pid from postmaster.pid while it runs, else 0.
    pid_t serverPid() const;
    // The database role that initdb created (the account the server runs as).
    std::string superuser() const;
    // "host=<socketDir> port=<port> user=<superuser> dbname=<database>", values quoted
    // when they need it.
    std::string conninfo(const std::string &database = "postgres") const;
    // Where initdb, pg_ctl and postgres are found; empty when no server is installed.
    static std::string serverBinDir();
    // The account the server would run as for `dir` when this process starts it: the
    // current user, or (as root) the owner of an existing cluster or postgres/nobody.
    static std::string serverAccount(const std::string &dir);
    // Empty when `account` can reach `dir` (every existing ancestor is searchable by it),
    // else a sentence naming the first directory it cannot search.
    static std::string reachability(const std::string &dir, const std::string &account);

private:
    std::string m_dir;
    int m_port;
};

} // namespace reprint::warehouse
