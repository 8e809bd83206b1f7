#pragma once
// Reprint's warehouse schema: versioned migrations kept as SQL files under
// resources/sql/migrations (NNN_name.sql), each applied in one transaction and recorded
// in reprint.schema_version. Applying them again is a no-op; a database whose schema is
// newer than this build knows is refused.

#include "warehouse/connection.h"

namespace reprint::backfill {

struct MigrationOutcome {
    int fromVersion = 0;  // 0: Reprint's schema did not exist
    int toVersion = 0;
    int applied = 0;
};

// The newest schema version this build knows.
int latestSchemaVersion();

// The version of Reprint's schema in the warehouse `conn` is connected to; 0 when it has
// none. Reads only.
warehouse::Task<warehouse::Result<int>> schemaVersion(warehouse::Connection &conn);

// Applies every missing migration, each in its own transaction, serialised against
// other processes doing the same by a transaction-scoped advisory lock.
warehouse::Task<warehouse::Result<MigrationOutcome>> migrate(warehouse::Connection &conn);

// Checks that the schema exists and is exactly latestSchemaVersion(); the error says to
// run `reprint init` (older) or to upgrade Reprint (newer).
warehouse::Task<warehouse::Status> requireSchema(warehouse::Connection &conn);

} // namespace reprint::backfill
