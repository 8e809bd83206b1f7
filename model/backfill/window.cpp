#include "window.h"

#include <algorithm>
#include <deque>
#include <map>
#include <optional>

namespace reprint::backfill {

std::string Window::text() const
{
    return windowText(first(), last());
}

std::string windowText(const Partition &from, const Partition &to)
{
    return from.name == to.name ? from.name : from.name + ".." + to.name;
}

std::vector<std::pair<Partition, bool>> stagingOrder(const Window &window)
{
    std::vector<std::pair<Partition, bool>> order;
    order.reserve(window.partitions.size());
    order.emplace_back(window.first(), true);
    if (window.partitions.size() > 1)
        order.emplace_back(window.last(), true);
    for (std::size_t i = 1; i + 1 < window.partitions.size(); ++i)
        order.emplace_back(window.partitions[i], false);
    return order;
}

namespace {

Window windowBetween(const Model &model, const Partition &from, const Partition &to)
{
    Window w;
    w.model = &model;
    w.scheme = model.scheme();
    w.partitions = w.scheme.range(from, to);
    w.before = w.scheme.previous(from);
    w.after = w.scheme.next(to);
    return w;
}

} // namespace

Result<Window> windowOf(const Model &model, const std::string &from, const std::string &to)
{
    const PartitionScheme scheme = model.scheme();
    auto f = scheme.parse(from);
    if (!f)
        return f.error();
    auto t = scheme.parse(to);
    if (!t)
        return t.error();
    if (t->start < f->start)
        return Error::make(ErrorKind::Usage, "the window " + from + ".." + to + " ends before it starts", "Swap --from and --to.");
    return windowBetween(model, *f, *t);
}

Window windowSpanning(const Model &model, const QDateTime &start, const QDateTime &end)
{
    const PartitionScheme scheme = model.scheme();
    const Partition a = scheme.containing(start);
    const Partition b = scheme.containing(end > start ? end.addMSecs(-1) : start);
    return windowBetween(model, a, b);
}

std::vector<DownstreamWindow> downstreamWindows(const Spec &spec, const Window &root, const std::set<std::string> &leaveOut)
{
    // Every model downstream of the root, transitively.
    std::set<std::string> downstream;
    std::deque<std::string> todo{root.model->name};
    while (!todo.empty()) {
        const std::string name = todo.front();
        todo.pop_front();
        for (const Model *d : spec.dependants(name))
            if (downstream.insert(d->name).second)
                todo.push_back(d->name);
    }
    // Place each once all its upstreams among them are placed; its window holds the union
    // of theirs, on its own grain.
    struct Placed {
        QDateTime start, end;
        bool staged = true;
    };
    std::map<std::string, Placed> placed{{root.model->name, {root.first().start, root.last().end, true}}};
    std::vector<DownstreamWindow> out;
    bool grew = true;
    while (grew) {
        grew = false;
        for (const Model &m : spec.models) {
            if (!downstream.count(m.name) || placed.count(m.name))
                continue;
            bool ready = true;
            bool upstreamStaged = true;
            std::optional<std::pair<QDateTime, QDateTime>> span;
            for (const std::string &up : m.dependsOn) {
                if (up != root.model->name && !downstream.count(up))
                    continue;  // an external relation, or a model the window does not reach
                const auto it = placed.find(up);
                if (it == placed.end()) {
                    ready = false;
                    break;
                }
                upstreamStaged = upstreamStaged && it->second.staged;
                span = span ? std::make_pair(std::min(span->first, it->second.start), std::max(span->second, it->second.end))
                            : std::make_pair(it->second.start, it->second.end);
            }
            if (!ready || !span)
                continue;
            DownstreamWindow d;
            d.model = &m;
            d.window = windowSpanning(m, span->first, span->second);
            d.staged = upstreamStaged && !leaveOut.count(m.name);
            placed[m.name] = {d.window.first().start, d.window.last().end, d.staged};
            out.push_back(std::move(d));
            grew = true;
        }
    }
    return out;
}

} // namespace reprint::backfill
