#pragma once
// The SQL and demo files compiled into the build (resources/, the reprint_data resource
// set): registered once in whatever binary links the engine, read as text.

#include "warehouse/error.h"

#include <QString>

#include <string>

namespace reprint::backfill {

// Registers the resources (idempotent; the static library's initialiser is not linked by itself).
void ensureResources();
// The text of the resource at `path` (":/demo/seed.sql"); an Internal error naming it when
// this build lacks it.
warehouse::Result<std::string> resourceText(const QString &path);

} // namespace reprint::backfill
