#include "errors.h"

namespace reprint::backfill {

const char *kindName(ErrorKind kind)
{
    if (kind == EngineKind::Conflict)
        return "conflict";
    if (kind == EngineKind::Spec)
        return "spec";
    if (kind == EngineKind::Validation)
        return "validation";
    if (kind == EngineKind::Drift)
        return "drift";
    return warehouse::toString(kind);
}

bool isConcurrencyConflict(ErrorKind kind)
{
    return kind == EngineKind::Conflict || warehouse::isConcurrencyConflict(kind);
}

} // namespace reprint::backfill
