#pragma once
// What every test binary shares: private clusters, the shared demo warehouse, and
// blocking helpers over the async layer (tests may block; the GUI may not).

#include "warehouse/connection.h"
#include "warehouse/localcluster.h"

#include <QString>

#include <string>

namespace reprint::test {

// A private directory for this test binary ($REPRINT_TEST_DIR, else a temp dir),
// created on first use.
std::string testDir();

// This binary's own private cluster under testDir()/cluster, started on first use and
// stopped when the process exits.
warehouse::LocalCluster &privateCluster();

// The shared demo cluster started by the `demo` CTest fixture ($REPRINT_TEST_DEMO_DIR).
// Fails the test (QFAIL) when the fixture did not run.
warehouse::LocalCluster &demoCluster();

// A fresh database copied from the demo database (CREATE DATABASE name TEMPLATE demo),
// dropped first if it exists. Returns its conninfo. Tests that change data use this.
std::string demoCopy(const std::string &name);

// Runs `sql` (one statement, with parameters) on a new connection and returns the
// reply; QFAIL-style failures are reported through the returned Result.
warehouse::Result<warehouse::Reply> query(const std::string &conninfo, const std::string &sql,
                                          warehouse::Params params = {});
// Runs any number of statements (no parameters).
warehouse::Result<warehouse::Reply> execute(const std::string &conninfo, const std::string &sql);

// The `reprint` binary built with the tests ($REPRINT_BIN).
QString reprintBinary();

struct ProcessResult {
    int exitCode = -1;
    QString out;
    QString err;
};
// Runs `reprint args...` and waits (up to timeoutMs).
ProcessResult runReprint(const QStringList &args, int timeoutMs = 300000);

} // namespace reprint::test
