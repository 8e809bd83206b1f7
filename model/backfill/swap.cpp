#include "swap.h"

#include "publish.h"
#include "session.h"
#include "sqltext.h"
#include <boost/asio/redirect_error.hpp>
#include <algorithm>
#include <set>

namespace reprint::backfill {

namespace {

// A query for the range children of `parent` (an SQL expression of a regclass) matched to
// the bounds of the window's partitions: one row per wanted [lo, hi) ($2, $3: text arrays),
// in order, with `columns` of `k` (each child's oid, schema, name, kind, owner, lo, hi), all
// NULL where no child has exactly those bounds, compared in the column's type. Only a bound
// the catalog prints as FOR VALUES FROM ('lo') TO ('hi') matches: MINVALUE, DEFAULT,
// several columns or a quote inside a literal never do. The bounds are printed without the
// children's column names (relid 0), so that no child is opened or locked to read them.
std::string childrenAtBounds(const ModelSql &sql, const std::string &parent, const std::string &columns)
{
    const std::string &type = sql.columnType;
    return "WITH want AS (SELECT lo, hi, ord FROM unnest($2::text[], $3::text[]) WITH ORDINALITY AS u(lo, hi, ord)), "
           "kids AS (SELECT k.oid, n.nspname::text AS schema, k.relname::text AS name, k.relkind::text AS kind, "
           "  k.relowner AS owner, split_part(b, '''', 2) AS lo, split_part(b, '''', 4) AS hi "
           "  FROM pg_inherits i JOIN pg_class k ON k.oid = i.inhrelid JOIN pg_namespace n ON n.oid = k.relnamespace, "
           "  pg_get_expr(k.relpartbound, 0) AS b "
           "  WHERE i.inhparent = " + parent + " AND b = format('FOR VALUES FROM (%L) TO (%L)', split_part(b, '''', 2), "
           "  split_part(b, '''', 4))) "
           "SELECT " + columns + " FROM want w LEFT JOIN kids k ON k.lo::" + type + " = w.lo::" + type + " AND k.hi::" + type
           + " = w.hi::" + type + " ORDER BY w.ord";
}

} // namespace

Task<Result<SwapLayout>> swapLayoutOf(warehouse::Connection &c, const ModelSql &sql, const Window &w)
{
    SwapLayout layout;
    auto key = co_await c.query("SELECT p.partstrat::text, p.partnatts::int, coalesce(a.attname::text, '') "
                                "FROM pg_partitioned_table p "
                                "LEFT JOIN pg_attribute a ON a.attrelid = p.partrelid AND a.attnum = p.partattrs[0] "
                                "WHERE p.partrelid = $1::regclass",
                                args(sql.target));
    if (!key)
        co_return key.error();
    if (key->last().rows.empty()) {
        layout.misfit = sql.target + " is not a partitioned table";
        co_return layout;
    }
    const auto &k = key->last().rows.front();
    if (*k[0] != "r" || *k[1] != "1" || *k[2] != sql.model->partitionColumn) {
        layout.misfit = sql.target + " is not range-partitioned on " + sql.column + " alone";
        co_return layout;
    }
    // A swap detaches and attaches partitions and builds their successors beside them: only
    // the owner of the target and its partitions may, with CREATE on their schemas. A role
    // that may only write the target's rows (docs/privileges.md) replaces instead.
    auto may = co_await c.query("SELECT current_user::text, bool_and(pg_has_role(current_user, k.relowner, 'USAGE') "
                                "AND has_schema_privilege(k.relnamespace, 'CREATE'))::text FROM pg_class k "
                                "WHERE k.oid = $1::regclass OR k.oid IN (SELECT i.inhrelid FROM pg_inherits i WHERE i.inhparent = $1::regclass)",
                                args(sql.target));
    if (!may)
        co_return may.error();
    if (may->last().rows.front()[1] != "true") {
        layout.misfit = "role " + may->last().rows.front()[0].value_or("?") + " may not swap partitions of " + sql.target
                        + " (only their owner may, with CREATE on their schema)";
        co_return layout;
    }
    std::vector<Value> lowers, uppers;
    for (const Partition &p : w.partitions) {
        lowers.emplace_back(sql.lowerValue(p));
        uppers.emplace_back(sql.upperValue(p));
    }
    auto kids = co_await c.query(childrenAtBounds(sql, "$1::regclass", "k.schema, k.name, k.kind, k.lo, k.hi"),
                                 args(sql.target, arrayLiteral(lowers), arrayLiteral(uppers)));
    if (!kids)
        co_return kids.error();
    const auto &rows = kids->last().rows;
    for (std::size_t i = 0; i < rows.size() && i < w.partitions.size(); ++i) {
        if (!rows[i][1]) {
            layout.misfit = "partition " + w.partitions[i].name + " is not one whole physical partition of " + sql.target;
            break;
        }
        if (*rows[i][2] != "r") {
            layout.misfit = "physical partition " + quoteRelation(*rows[i][0], *rows[i][1]) + " is itself partitioned";
            break;
        }
        layout.partitions.push_back({*rows[i][0], *rows[i][1], *rows[i][3], *rows[i][4]});
    }
    if (layout.misfit.empty() && layout.partitions.size() != w.partitions.size())
        layout.misfit = "the window does not map one to one onto physical partitions of " + sql.target;
    co_return layout;
}

namespace {

// The indexes of each of `partitions` (quoted relations), in their order: one query for
// the whole window.
Task<Result<std::vector<PartitionIndexes>>> readPartitionIndexes(warehouse::Connection &c, const std::vector<Value> &partitions)
{
    auto r = co_await c.query("SELECT u.ord::int, p.inhparent::text, c.relname::text "
                              "FROM unnest($1::regclass[]) WITH ORDINALITY AS u(rel, ord) "
                              "JOIN pg_index x ON x.indrelid = u.rel JOIN pg_class c ON c.oid = x.indexrelid "
                              "JOIN pg_inherits p ON p.inhrelid = x.indexrelid ORDER BY u.ord, c.relname",
                              args(arrayLiteral(partitions)));
    if (!r)
        co_return r.error();
    std::vector<PartitionIndexes> out(partitions.size());
    for (const auto &row : r->last().rows)
        out.at(std::size_t(std::stoll(*row[0]) - 1)).emplace_back(*row[1], *row[2]);
    co_return out;
}

} // namespace

std::string successorShape(const ModelSql &sql)
{
    return " (LIKE " + sql.target
           + " INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING INDEXES INCLUDING GENERATED INCLUDING STORAGE "
             "INCLUDING COMPRESSION)";
}

std::string partitionBounds(const PhysicalPartition &part)
{
    return "FOR VALUES FROM (" + quoteLiteral(part.lower) + ") TO (" + quoteLiteral(part.upper) + ")";
}

std::string swapBoundsCheck(const ModelSql &sql, const PhysicalPartition &part)
{
    return "CHECK (" + sql.column + " IS NOT NULL AND " + sql.column + " >= " + quoteLiteral(part.lower) + "::" + sql.columnType
           + " AND " + sql.column + " < " + quoteLiteral(part.upper) + "::" + sql.columnType + ")";
}

namespace {

// The name successor `i` of the plan's backfill has (unquoted), beside the partition it replaces.
std::string successorName(const PublishPlan &plan, std::size_t i)
{
    return ("reprint_new_" + std::to_string(plan.id) + "_" + std::to_string(i)).substr(0, 63);
}

// Where the stage is partitioned as the window's physical partitions (createStage) and
// this role owns its partitions, they become the successors themselves, nothing copied:
// each is detached from the stage and moved beside the partition it replaces under its
// successor's name (one round trip for the window). Counts the rows inserted from what
// staging recorded. Empty when the stage is one table, another role's, or no longer
// matches the layout: the caller copies the stage instead (copySuccessors).
Task<Result<std::vector<std::string>>> takeStagedPartitions(warehouse::Connection &c, const ModelSql &sql, const PublishPlan &plan,
                                                           const SwapLayout &layout, PublishOutcome &out)
{
    std::vector<Value> lowers, uppers;
    for (const PhysicalPartition &part : layout.partitions) {
        lowers.emplace_back(part.lower);
        uppers.emplace_back(part.upper);
    }
    auto kids = co_await c.query(
        childrenAtBounds(sql, "to_regclass($1)",
                         "k.name, coalesce(k.owner = (SELECT r.oid FROM pg_roles r WHERE r.rolname = current_user) AND k.kind = 'r' "
                         "AND EXISTS (SELECT 1 FROM pg_constraint x WHERE x.conrelid = k.oid AND x.conname = $4), false)::text, "
                         "(SELECT coalesce(sum(p.rows), 0)::text FROM reprint.backfill_partitions p WHERE p.backfill_id = $5)"),
        args(plan.stage, arrayLiteral(lowers), arrayLiteral(uppers), kSwapBounds, std::to_string(plan.id)));
    if (!kids)
        co_return kids.error();
    const auto &rows = kids->last().rows;
    std::vector<std::string> fresh;
    if (rows.size() != layout.partitions.size())
        co_return fresh;
    for (const auto &row : rows)
        if (!row[0] || row[1] != "true")
            co_return fresh;
    std::string moves;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const PhysicalPartition &part = layout.partitions[i];
        const std::string staged = quoteRelation("reprint_staging", *rows[i][0]);
        const std::string name = successorName(plan, i);
        moves += "ALTER TABLE " + plan.stage + " DETACH PARTITION " + staged + ";\n"
                 "ALTER TABLE " + staged + " RENAME TO " + quoteIdentifier(name) + ";\n"
                 "ALTER TABLE " + quoteRelation("reprint_staging", name) + " SET SCHEMA " + quoteIdentifier(part.schema) + ";\n";
        fresh.push_back(quoteRelation(part.schema, name));
    }
    // The leak guard keeps the stage's default partition empty; were it not, those rows
    // would be lost with the stage: refuse as the copy does.
    const std::string &col = sql.column;
    const std::string &type = sql.columnType;
    auto outside = co_await c.query("SELECT count(*) FROM " + plan.stage + " AS t WHERE t." + col + " IS NULL OR t." + col + " < "
                                    + quoteLiteral(layout.partitions.front().lower) + "::" + type + " OR t." + col
                                    + " >= " + quoteLiteral(layout.partitions.back().upper) + "::" + type);
    if (!outside)
        co_return outside.error();
    if (outside->last().scalar("0") != "0")
        co_return Error::make(ErrorKind::Data,
                              "the stage of backfill " + std::to_string(plan.id) + " holds " + outside->last().scalar("0")
                                  + " rows outside every partition of the window; nothing was published",
                              "Check the transform's bounds, then stage the window again.");
    if (auto moved = co_await c.execute(std::move(moves)); !moved)
        co_return moved.error();
    out.rowsInserted = std::stoll(rows.front()[2].value_or("0"));
    co_return fresh;
}

// The successor of each physical partition of the window, built beside it from the stage
// inside the caller's transaction (no lock on the target beyond ACCESS SHARE), with a
// CHECK of its bounds so that ATTACH need not scan it. Counts the rows inserted.
Task<Result<std::vector<std::string>>> copySuccessors(warehouse::Connection &c, const ModelSql &sql, const PublishPlan &plan,
                                                     const SwapLayout &layout, PublishOutcome &out)
{
    const Window &w = *plan.window;
    const std::string id = std::to_string(plan.id);
    std::vector<std::string> fresh;  // quoted, in the old partitions' schemas
    Result<Reply> r = Reply{};
    for (std::size_t i = 0; i < layout.partitions.size() && r; ++i) {
        const PhysicalPartition &part = layout.partitions[i];
        const std::string table = quoteRelation(part.schema, successorName(plan, i));
        fresh.push_back(table);
        const Params bounds = {sql.lowerValue(w.partitions[i]), sql.upperValue(w.partitions[i])};
        r = co_await c.query("CREATE TABLE " + table + successorShape(sql));
        if (r)
            r = co_await c.query("INSERT INTO " + table + " (" + sql.columnList + ") SELECT " + sql.columnList + " FROM "
                                     + plan.stage + " AS t WHERE " + sql.inWindow("t"),
                                 bounds);
        if (r) {
            out.rowsInserted += r->last().affectedRows;
            r = co_await c.query("ALTER TABLE " + table + " ADD CONSTRAINT " + kSwapBounds + " " + swapBoundsCheck(sql, part));
        }
    }
    if (r)
        r = co_await c.query("SELECT count(*) FROM " + plan.stage);
    if (!r)
        co_return r.error();
    if (std::stoll(r->last().scalar("0")) != out.rowsInserted)
        co_return Error::make(ErrorKind::Data,
                              "the stage of backfill " + id + " holds " + r->last().scalar("0") + " rows but the window's "
                                  + std::to_string(layout.partitions.size()) + " partitions take "
                                  + std::to_string(out.rowsInserted) + "; nothing was published",
                              "Some staged rows lie outside every partition of the window. Check the transform's bounds.");
    co_return fresh;
}

// The successors of the window's physical partitions (the staged partitions themselves
// where it can, else copies of the stage), the rows they replace (one query for the
// window), and the archive table the detached partitions will inherit.
Task<Result<std::vector<std::string>>> buildSuccessors(warehouse::Connection &c, const ModelSql &sql, const PublishPlan &plan,
                                                      const SwapLayout &layout, PublishOutcome &out)
{
    auto fresh = co_await takeStagedPartitions(c, sql, plan, layout, out);
    if (fresh && fresh->empty())
        fresh = co_await copySuccessors(c, sql, plan, layout, out);
    if (!fresh)
        co_return fresh.error();
    std::string counts;
    for (const PhysicalPartition &part : layout.partitions)
        counts += (counts.empty() ? "SELECT " : " + ") + std::string("(SELECT count(*) FROM ONLY ") + quoteRelation(part.schema, part.name) + ")";
    auto replaced = co_await c.query(counts);
    if (!replaced)
        co_return replaced.error();
    out.rowsReplaced = std::stoll(replaced->last().scalar("0"));
    if (!plan.archiveName.empty()) {
        // The detached partitions become children of one archive table, so that undo
        // and prune treat a swapped publish like a replaced one.
        auto r = co_await c.query("CREATE TABLE " + quoteRelation("reprint_archive", plan.archiveName) + " (LIKE " + sql.target
                                  + " INCLUDING DEFAULTS)");
        if (!r)
            co_return r.error();
    }
    co_return fresh;
}

// The statements that swap physical partition `i`: detach it (into the archive, or
// dropped when there is none), then attach its successor `fresh` under its name.
PartitionSwap planSwap(const ModelSql &sql, const PublishPlan &plan, const PhysicalPartition &part, std::size_t i,
                       const std::string &fresh, PartitionIndexes indexes, bool parkAsIs)
{
    PartitionSwap swap;
    const std::string id = std::to_string(plan.id);
    const std::string archive = plan.archiveName.empty() ? std::string() : quoteRelation("reprint_archive", plan.archiveName);
    swap.old = quoteRelation(part.schema, part.name);
    swap.schema = part.schema;
    const std::string &old = swap.old;
    const std::string parked = ("b" + id + "_" + std::to_string(i) + "_" + part.name).substr(0, 63);
    swap.indexes = std::move(indexes);
    std::vector<std::string> steps{"ALTER TABLE " + sql.target + " DETACH PARTITION " + old};
    if (archive.empty()) {
        steps.push_back("DROP TABLE " + old);
    } else if (parkAsIs) {
        // Its name and its indexes' are free in the archive schema: moved as they are.
        steps.push_back("ALTER TABLE " + old + " SET SCHEMA reprint_archive");
        steps.push_back("ALTER TABLE " + quoteRelation("reprint_archive", part.name) + " INHERIT " + archive);
    } else {
        // Parked, its indexes give their names up first.
        for (std::size_t j = 0; j < swap.indexes.size(); ++j) {
            const std::string &name = swap.indexes[j].second;
            const std::string moved = ("b" + id + "_" + std::to_string(i) + "_" + std::to_string(j) + "_" + name).substr(0, 63);
            steps.push_back("ALTER INDEX " + quoteRelation(part.schema, name) + " RENAME TO " + quoteIdentifier(moved));
        }
        steps.push_back("ALTER TABLE " + old + " RENAME TO " + quoteIdentifier(parked));
        steps.push_back("ALTER TABLE " + quoteRelation(part.schema, parked) + " SET SCHEMA reprint_archive");
        steps.push_back("ALTER TABLE " + quoteRelation("reprint_archive", parked) + " INHERIT " + archive);
    }
    steps.push_back("ALTER TABLE " + fresh + " RENAME TO " + quoteIdentifier(part.name));
    steps.push_back("ALTER TABLE " + sql.target + " ATTACH PARTITION " + old + " " + partitionBounds(part));
    steps.push_back("ALTER TABLE " + old + " DROP CONSTRAINT " + kSwapBounds);
    for (const std::string &step : steps)
        swap.statements += step + ";\n";
    return swap;
}

// A DO block that gives each swapped partition's indexes the names its predecessor's had
// (the attach adopts the successor's indexes under their own names): run under the lock
// after the swaps, in the same round trip, so that it finds the indexes as attached.
std::string renameIndexesBlock(const std::vector<PartitionSwap> &swaps)
{
    std::string wanted;
    for (const PartitionSwap &swap : swaps)
        for (const auto &[parent, name] : swap.indexes)
            wanted += std::string(wanted.empty() ? "" : ", ") + "(" + quoteLiteral(swap.old) + "::regclass, " + quoteLiteral(parent)
                      + "::oid, " + quoteLiteral(name) + "::text, " + quoteLiteral(swap.schema) + "::text)";
    if (wanted.empty())
        return {};
    std::string body = "DECLARE r record; BEGIN FOR r IN SELECT w.schema, c.relname::text AS now, w.name FROM (VALUES " + wanted
                       + ") AS w(rel, parent, name, schema) JOIN pg_index x ON x.indrelid = w.rel "
                         "JOIN pg_inherits p ON p.inhrelid = x.indexrelid AND p.inhparent = w.parent "
                         "JOIN pg_class c ON c.oid = x.indexrelid WHERE c.relname <> w.name LOOP "
                         "EXECUTE format('ALTER INDEX %I.%I RENAME TO %I', r.schema, r.now, r.name); END LOOP; END";
    std::string tag = "$reprint$";
    while (body.find(tag) != std::string::npos)
        tag.insert(tag.size() - 1, "_");
    return "DO " + tag + body + tag + ";\n";
}

} // namespace

// Inside the caller's open transaction, before any lock on the target beyond the writer
// fence: builds the successors (buildSuccessors) and writes each partition's swap (planSwap).
Task<Result<std::vector<PartitionSwap>>> prepareSwap(warehouse::Connection &c, const ModelSql &sql, const PublishPlan &plan,
                                                     const SwapLayout &layout, PublishOutcome &out)
{
    auto fresh = co_await buildSuccessors(c, sql, plan, layout, out);
    if (!fresh)
        co_return fresh.error();
    std::vector<Value> olds;
    for (const PhysicalPartition &part : layout.partitions)
        olds.emplace_back(quoteRelation(part.schema, part.name));
    auto indexes = co_await readPartitionIndexes(c, olds);
    if (!indexes)
        co_return indexes.error();
    // The old partitions are parked in the archive schema under their own names (and their
    // indexes'), unless one of those names is taken there (an archive of an earlier publish
    // of the same partition): then they are renamed first, two statements more apiece under
    // the lock.
    std::vector<Value> names;
    std::set<std::string> distinct;
    for (std::size_t i = 0; i < layout.partitions.size(); ++i) {
        names.emplace_back(layout.partitions[i].name);
        for (const auto &index : (*indexes)[i])
            names.emplace_back(index.second);
    }
    for (const Value &name : names)
        distinct.insert(*name);
    auto taken = co_await c.query("SELECT count(*) FROM pg_class WHERE relnamespace = 'reprint_archive'::regnamespace "
                                  "AND relname = ANY($1::text[])",
                                  args(arrayLiteral(names)));
    if (!taken)
        co_return taken.error();
    const bool parkAsIs = distinct.size() == names.size() && taken->last().scalar("1") == "0";
    std::vector<PartitionSwap> swaps;
    for (std::size_t i = 0; i < layout.partitions.size(); ++i)
        swaps.push_back(planSwap(sql, plan, layout.partitions[i], i, (*fresh)[i], std::move((*indexes)[i]), parkAsIs));
    co_return swaps;
}

// Then, under a short ACCESS EXCLUSIVE lock on the partitioned table alone (readers reach
// its partitions through it; the detach locks each swapped partition itself, so a reader
// of some other partition does not hold the swap up), swaps the window's partitions. The
// lock is asked for with a short lock_timeout so that readers never queue behind it for
// long, and retried with backoff; when it cannot be had, the swap is rolled back to before
// the lock and a conflict says so. Readers see all old or all new: the catalog change
// commits at once.
Task<Status> swapPartitions(warehouse::Connection &c, const ModelSql &sql, const PublishPlan &plan,
                            const std::vector<PartitionSwap> &swaps, PublishOutcome &out)
{
    const EngineOptions &opt = *plan.options;
    // One round trip: the lock (how long it was waited for is measured by the server, so
    // that the hold is counted from when it came), every partition's swap, the index
    // names, and the savepoint released. The simple protocol runs them in order inside the
    // publish's transaction; the first that fails stops the rest.
    std::string batch = "SAVEPOINT reprint_swap;\nSET LOCAL lock_timeout = '" + std::to_string(opt.swapLockTimeoutMs)
                        + "ms';\nSELECT set_config('reprint.lock_asked', clock_timestamp()::text, true);\n"
                          "LOCK TABLE ONLY " + sql.target + " IN ACCESS EXCLUSIVE MODE;\n"
                          "SELECT extract(epoch FROM clock_timestamp() - current_setting('reprint.lock_asked')::timestamptz) * 1000 "
                          "AS reprint_lock_waited_ms;\n";
    for (const PartitionSwap &swap : swaps)
        batch += swap.statements;
    batch += renameIndexesBlock(swaps);
    batch += "SET LOCAL lock_timeout = '" + std::to_string(opt.lockTimeoutMs) + "ms';\nRELEASE SAVEPOINT reprint_swap";
    auto timer = asio::steady_timer(co_await asio::this_coro::executor);
    int backoffMs = 100;
    for (int attempt = 1;; ++attempt) {
        const auto asked = std::chrono::steady_clock::now();
        auto swapped = co_await c.execute(batch);
        if (swapped) {
            double waitedMs = 0;
            for (const warehouse::ResultSet &set : swapped->sets)
                if (set.column("reprint_lock_waited_ms") >= 0 && !set.rows.empty())
                    waitedMs = std::stod(set.rows.front()[0].value_or("0"));
            out.lockedAt = asked + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                       std::chrono::duration<double, std::milli>(waitedMs));
            co_return warehouse::ok();
        }
        const Error e = swapped.error();
        auto back = co_await c.execute("ROLLBACK TO SAVEPOINT reprint_swap");
        if (!back || e.kind != ErrorKind::LockNotAvailable)
            co_return e;
        if (plan.cancel && plan.cancel->isCancelled())
            co_return Error::make(ErrorKind::Cancelled, "cancelled while waiting for the lock on " + sql.target + "; nothing was published");
        if (attempt >= opt.swapLockTries)
            co_return conflict("could not lock " + sql.target + " to swap "
                                   + counted(static_cast<long long>(swaps.size()), "partition") + ": other sessions held it through " + std::to_string(attempt) + " tries of "
                                   + std::to_string(opt.swapLockTimeoutMs) + " ms; nothing was published",
                               "Publish again when the target is quieter, or set `publish: replace` for this model: it never "
                               "waits for readers.");
        timer.expires_after(std::chrono::milliseconds(backoffMs));
        boost::system::error_code ec;
        co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
        backoffMs = std::min(backoffMs * 2, 2000);
    }
}

} // namespace reprint::backfill
