#pragma once
// Errors as the engine raises them: the warehouse's Error and Result (warehouse/error.h)
// with the kinds only the engine knows. The warehouse layer classifies what the server and
// libpq said; it reserves the kinds from ErrorKind::LayerAbove for the layers that use it
// and never makes one. These are the engine's: a refusal by its own rules, not the server's.

#include "warehouse/error.h"

namespace reprint::backfill {

using warehouse::Error;
using warehouse::ErrorKind;
using warehouse::Result;

namespace EngineKind {
// This backfill's state or another's claim forbids it; trying again later can work.
inline constexpr ErrorKind Conflict{int(ErrorKind::LayerAbove)};
// The spec file (or a file it names) is wrong: the message names file:line.
inline constexpr ErrorKind Spec{int(ErrorKind::LayerAbove) + 1};
// The data failed validation, so nothing was published.
inline constexpr ErrorKind Validation{int(ErrorKind::LayerAbove) + 2};
// The target, source, transform or claim changed since validation (or the window since
// publish, for undo); nothing was changed.
inline constexpr ErrorKind Drift{int(ErrorKind::LayerAbove) + 3};
} // namespace EngineKind

// "conflict", "spec", "validation", "drift", else the warehouse's name of the kind.
const char *kindName(ErrorKind kind);

// Another transaction or backfill was in the way: the warehouse's concurrency kinds (a
// rolled-back transaction, a lock that did not come) or the engine's Conflict. Trying again
// later can work. Call it as backfill::isConcurrencyConflict: argument-dependent lookup
// also finds the warehouse's, which knows only the server's kinds.
bool isConcurrencyConflict(ErrorKind kind);

} // namespace reprint::backfill
