#pragma once
// "Test connection" (reprint-review's File › Connect to Warehouse…): connects with a
// conninfo, URI or service and says who and where that is, and whether Reprint's schema
// is installed there. Reads only.
//
// Thread affinity: runs on the io_context of the calling coroutine, on a connection of
// its own, closed before it returns. Secrets: neither the facts nor an error hold the
// password (warehouse::Connection scrubs libpq's messages; description is
// "user@database via host").

#include "warehouse/connection.h"

#include <string>

namespace reprint::backfill {

struct ConnectionFacts {
    std::string description;     // "user@database via host"
    std::string serverVersion;   // server_version, e.g. "15.8 (Debian 15.8-0+deb12u1)"
    std::string user;            // current_user
    std::string database;
    std::string timezone;        // the session's default TimeZone
    int schemaVersion = 0;       // Reprint's schema in this database; 0: not installed
    int buildSchemaVersion = 0;  // the newest this build knows
};

warehouse::Task<warehouse::Result<ConnectionFacts>> checkConnection(std::string conninfo);

} // namespace reprint::backfill
