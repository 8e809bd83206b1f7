#pragma once
// The embedded demo warehouse: a private cluster (LocalCluster) seeded with a realistic
// shop and a daily-partitioned analytics.fct_order_lines with a known bug, plus the demo
// spec and its SQL files written next to it. Used by `reprint demo`, `reprint-review
// --demo` and the integration tests.
//
// Blocking: runs subprocesses and the seed; call from the CLI, a test or a worker thread.

#include "warehouse/error.h"

#include <functional>
#include <string>

namespace reprint::backfill {

struct DemoOptions {
    std::string dir;     // cluster and spec live here; created if missing
    double scale = 1.0;  // multiplies the number of orders (1.0: at least 2 million order lines)
    // A cluster that another live process started (its pid in DIR/demo-owner) is refused
    // (Usage error naming that process and the --dir hint) unless this is set.
    bool share = false;
};

struct DemoInfo {
    std::string conninfo;    // to the demo database; no password (trust on a private socket)
    std::string specPath;    // dir/demo.yaml
    bool reused = false;     // the cluster and its seed already existed
    double clusterSeconds = 0; // time to initdb (if needed) and start
    double seedSeconds = 0;    // time to seed (0 when reused)
};

// Starts (or reuses) the demo cluster in options.dir, seeds it when the demo database
// does not exist yet or was seeded by another version of the seed (kSeedVersion: a hash
// of the seed's SQL, recorded in the database's comment with when, by which pid and
// which person), applies Reprint's migrations, and writes the spec and SQL files. The
// process that starts the server records itself in DIR/demo-owner; a reuse says whose
// seed it reuses.
// `progress` receives one-line messages ("seeding raw.orders ...") as it goes.
warehouse::Result<DemoInfo> startDemo(const DemoOptions &options,
                                      const std::function<void(const std::string &)> &progress = {});
// Stops the demo cluster in `dir` (its data is kept for the next start).
warehouse::Status stopDemo(const std::string &dir);

// Where the demo lives unless told otherwise: $XDG_DATA_HOME/reprint/demo (or
// ~/.local/share/reprint/demo). As root, when the server's unprivileged account cannot
// reach that directory, /var/tmp/reprint-demo-<person> instead (the person: $SUDO_USER
// under sudo, else the account's name), and `why` says so: one demo per person.
std::string defaultDemoDir(std::string *why = nullptr);
// Who runs this process, in words: the account's name, or "root (via sudo from NAME)".
std::string demoPerson();
// The seed's version: the first 12 hex digits of a SHA-1 over the seed's SQL files.
std::string seedVersion();

// The name of the seeded database inside the demo cluster.
inline constexpr const char *kDemoDatabase = "demo";

} // namespace reprint::backfill
