#pragma once
// The window of a backfill: a model's partitions `from`..`to` (inclusive), the partitions
// just outside each end, and the windows its downstream models get when it changes.
// This is the one place that maps a window between grains: the plan the GUI shows, the
// cascade the engine stages and the stale models the review names all come from here.
// Pure values (no I/O); the partitions are those of the model's grain and zone.

#include "partition.h"
#include "spec.h"

#include <set>
#include <string>
#include <utility>
#include <vector>

namespace reprint::backfill {

struct Window {
    const Model *model = nullptr;
    PartitionScheme scheme{Grain::Day, "UTC"};
    std::vector<Partition> partitions;  // never empty once made
    Partition before, after;            // the partitions just outside each end
    const Partition &first() const { return partitions.front(); }
    const Partition &last() const { return partitions.back(); }
    // "2026-03-09..2026-03-14", or one name for a one-partition window.
    std::string text() const;
};

// The window from..to of `model`, by partition names (as a user types them); a Usage
// error says which name is wrong or that the window ends before it starts.
Result<Window> windowOf(const Model &model, const std::string &from, const std::string &to);
// The smallest window of `model` that holds the instants [start, end) (end exclusive).
Window windowSpanning(const Model &model, const QDateTime &start, const QDateTime &end);

// "from..to", or one name when both are the same partition.
std::string windowText(const Partition &from, const Partition &to);

// The order a backfill stages the window in, each with whether it is a boundary partition:
// the first and the last partition, then the rest in time order. They are the likeliest to
// be wrong, so their review is ready earliest; the run screen lists them the same way.
std::vector<std::pair<Partition, bool>> stagingOrder(const Window &window);

// A model downstream of a window, with the window it gets on its own grain: the
// partitions holding the union of its upstreams' windows (a day -> the month holding it).
struct DownstreamWindow {
    const Model *model = nullptr;
    Window window;
    // Staged with the root in a cascade; false when the user left it out, or when an
    // upstream of it in the cascade is left out (it would read that upstream's old rows):
    // such a model is stale once the root is published.
    bool staged = true;
};

// Every model downstream of `root`, transitively, each after all of its upstreams (the
// order a cascade stages them in). `leaveOut`: model names the user leaves out.
std::vector<DownstreamWindow> downstreamWindows(const Spec &spec, const Window &root,
                                                const std::set<std::string> &leaveOut = {});

} // namespace reprint::backfill
