#pragma once
// A private PostgreSQL cluster for the demo and the integration tests.
//
// initdb/pg_ctl come from the installed server (`pg_config --bindir`, else the newest
// /usr/lib/postgresql/N/bin). The cluster listens on a Unix socket in a private
// directory only (listen_addresses = ''), with trust authentication for local socket
// connections and nothing else. When the process runs as root, the server runs as an
// unprivileged account (the `postgres` system user if it exists, else `nobody`) and the
// cluster directory is chowned to it.
//
// Layout under dir(): data/ (PGDATA), socket/ (unix_socket_directories), server.log.
// start() on a directory that already holds a cluster reuses it; a stale postmaster.pid
// left by a killed run is detected (its pid is gone or not a postgres) and removed.
//
// Blocking: start() and stop() run subprocesses and wait for them. Call them from the
// CLI, a test fixture or a worker thread, never from the GUI thread.

#include "error.h"

#include <string>

namespace reprint::warehouse {

class LocalCluster {
public:
    // `dir` is created if missing. `port` only names the socket file (.s.PGSQL.port);
    // no TCP port is ever opened.
    explicit LocalCluster(std::string dir, int port = 5432);

    // initdb if needed, then pg_ctl start -w. Returns ok() when already running.
    Status start();
    // pg_ctl stop -m fast -w. Returns ok() when not running.
    Status stop();
    bool isRunning() const;
    // True when dir() already holds an initialised cluster.
    bool exists() const;

    const std::string &dir() const { return m_dir; }
    std::string dataDir() const;
    std::string socketDir() const;
    int port() const { return m_port; }
    // The database role that initdb created (the account the server runs as).
    std::string superuser() const;
    // "host=<socketDir> port=<port> user=<superuser> dbname=<database>"
    std::string conninfo(const std::string &database = "postgres") const;
    // Where initdb, pg_ctl and postgres are found.
    static std::string serverBinDir();

private:
    std::string m_dir;
    int m_port;
};

} // namespace reprint::warehouse
