#pragma once
// Scheduling groups: where Linux groups each session's processes for the CPU scheduler
// (autogroup, on by default on desktops), a process's niceness only ranks it inside its
// group, and across groups only the group's niceness counts (/proc/<pid>/autogroup).
//
// A private cluster's server runs with its group lowered (LocalCluster::start), so that a
// backfill's backends take the CPU the window leaves. PostgreSQL gives every process it
// forks a session of its own (setsid), and with it a new group at niceness 0: the lowered
// group covered the postmaster, not the backends that do the work. A connection therefore
// moves its own backend's group to its server's niceness (followServerGroup).
//
// Everything here is best effort: without groups, for another user's processes, or for a
// server on another host, nothing changes. No Qt, no libpq.

#include <optional>
#include <sys/types.h>

namespace reprint::warehouse {

// The niceness of `pid`'s scheduling group, or nullopt where there are no groups (or the
// process is gone).
std::optional<int> groupNiceness(pid_t pid);

enum class GroupChange {
    Done,       // changed, or nothing to change
    Refused,    // the kernel refused for good (another user's process, no groups, gone)
    TryLater,   // the kernel takes one change every 100 ms from a process without CAP_SYS_ADMIN
};

// Sets `pid`'s group to `nice`. One attempt: never sleeps.
GroupChange setGroupNiceness(pid_t pid, int nice);

// The niceness `backend`'s group should take to rank as its server does: its parent's
// (the postmaster's) group niceness, when `backend` and its parent are local postgres
// processes and the parent's group is the nicer one. Nullopt when there is nothing to do.
// Only meaningful for a backend reached over a Unix socket: a TCP peer's pid names a
// process of another host.
std::optional<int> serverGroupNiceness(pid_t backend);

} // namespace reprint::warehouse
