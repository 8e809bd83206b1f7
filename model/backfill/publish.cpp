#include "publish.h"

#include "session.h"
#include "sqltext.h"
#include "validate.h"
#include <boost/asio/redirect_error.hpp>
#include <algorithm>
#include <set>

namespace reprint::backfill {

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
    // A leaf whose bounds are exactly [lower, upper) of each window partition, compared in
    // the column's type; bounds the catalog prints unquoted (MINVALUE, DEFAULT) never match.
    const std::string type = sql.columnType;
    auto kids = co_await c.query(
        "WITH want AS (SELECT lo, hi, ord FROM unnest($2::text[], $3::text[]) WITH ORDINALITY AS u(lo, hi, ord)), "
        "kids AS (SELECT n.nspname::text AS schema, k.relname::text AS name, k.relkind::text AS kind, b[1] AS lo, b[2] AS hi "
        "  FROM pg_inherits i JOIN pg_class k ON k.oid = i.inhrelid JOIN pg_namespace n ON n.oid = k.relnamespace, "
        "  regexp_match(pg_get_expr(k.relpartbound, k.oid), '^FOR VALUES FROM \\(''([^'']*)''\\) TO \\(''([^'']*)''\\)$') AS b "
        "  WHERE i.inhparent = $1::regclass) "
        "SELECT w.ord::text, k.schema, k.name, k.kind, k.lo, k.hi FROM want w "
        "LEFT JOIN kids k ON k.lo::" + type + " = w.lo::" + type + " AND k.hi::" + type + " = w.hi::" + type + " ORDER BY w.ord",
        args(sql.target, arrayLiteral(lowers), arrayLiteral(uppers)));
    if (!kids)
        co_return kids.error();
    const auto &rows = kids->last().rows;
    for (std::size_t i = 0; i < rows.size() && i < w.partitions.size(); ++i) {
        if (!rows[i][1]) {
            layout.misfit = "partition " + w.partitions[i].name + " is not one whole physical partition of " + sql.target;
            break;
        }
        if (*rows[i][3] != "r") {
            layout.misfit = "physical partition " + quoteRelation(*rows[i][1], *rows[i][2]) + " is itself partitioned";
            break;
        }
        layout.partitions.push_back({*rows[i][1], *rows[i][2], *rows[i][4], *rows[i][5]});
    }
    if (layout.misfit.empty() && layout.partitions.size() != w.partitions.size())
        layout.misfit = "the window does not map one to one onto physical partitions of " + sql.target;
    co_return layout;
}

namespace {

// A physical partition's indexes that are part of an index of the partitioned table, by
// name: (that index's oid, the partition's index name).
using PartitionIndexes = std::vector<std::pair<std::string, std::string>>;

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

bool isLockTimeout(const Error &e)
{
    return e.kind == ErrorKind::LockNotAvailable;
}

} // namespace

std::string successorShape(const ModelSql &sql)
{
    return " (LIKE " + sql.target
           + " INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING INDEXES INCLUDING GENERATED INCLUDING STORAGE "
             "INCLUDING COMPRESSION)";
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
    const std::string type = sql.columnType;
    auto kids = co_await c.query(
        "WITH want AS (SELECT lo, hi, ord FROM unnest($2::text[], $3::text[]) WITH ORDINALITY AS u(lo, hi, ord)), "
        "kids AS (SELECT k.relname::text AS name, k.relowner = (SELECT r.oid FROM pg_roles r WHERE r.rolname = current_user) "
        "  AND k.relkind = 'r' AND EXISTS (SELECT 1 FROM pg_constraint x WHERE x.conrelid = k.oid AND x.conname = $4) AS mine, "
        "  b[1] AS lo, b[2] AS hi "
        "  FROM pg_inherits i JOIN pg_class k ON k.oid = i.inhrelid, "
        "  regexp_match(pg_get_expr(k.relpartbound, k.oid), '^FOR VALUES FROM \\(''([^'']*)''\\) TO \\(''([^'']*)''\\)$') AS b "
        "  WHERE i.inhparent = to_regclass($1)) "
        "SELECT k.name, coalesce(k.mine, false)::text, "
        "(SELECT coalesce(sum(p.rows), 0)::text FROM reprint.backfill_partitions p WHERE p.backfill_id = $5) "
        "FROM want w LEFT JOIN kids k ON k.lo::" + type + " = w.lo::" + type + " AND k.hi::" + type + " = w.hi::" + type
            + " ORDER BY w.ord",
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

// The swap of physical partition `i`, written before the lock: the statements that detach
// it (into the archive, or dropped when there is none) and attach its successor `fresh`
// under its name, and the names of its indexes, which the successor's take over after the
// attach, so that names stay what the warehouse's owners chose.
struct PartitionSwap {
    std::string old;      // the physical partition, quoted (after the swap: its successor)
    std::string schema;   // unquoted
    std::string statements;
    PartitionIndexes indexes;
};

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
    steps.push_back("ALTER TABLE " + sql.target + " ATTACH PARTITION " + old + " FOR VALUES FROM (" + quoteLiteral(part.lower)
                    + ") TO (" + quoteLiteral(part.upper) + ")");
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
        if (!back || !isLockTimeout(e))
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

// A replace whose delete or insert waited past lock_timeout for rows that another session
// holds locked (an open UPDATE, SELECT ... FOR UPDATE) gives up: the caller rolls back.
Error rowsLocked(Error e, const ModelSql &sql, const PublishPlan &plan)
{
    if (!isLockTimeout(e))
        return e;
    const std::string what = plan.auditAction == "run" ? "the run" : "backfill " + std::to_string(plan.id);
    return conflict("could not replace " + windowText(plan.window->first(), plan.window->last()) + " of " + sql.target
                        + ": another session held rows of it locked for more than " + std::to_string(plan.options->lockTimeoutMs)
                        + " ms (lock timeout); nothing of " + what + " was published",
                    "Publish again once that session has committed or rolled back"
                        + (plan.retry.empty() ? std::string(".") : ": " + plan.retry + "."));
}

// Replaces the window's rows of the target with the stage's, inside the caller's open
// transaction: archive (optional) and delete in one pass, then insert. Row locks held by
// another session past lock_timeout give up (rowsLocked).
Task<Result<PublishOutcome>> replaceRows(warehouse::Connection &c, const ModelSql &sql, const PublishPlan &plan)
{
    PublishOutcome out;
    out.id = plan.id;
    out.strategy = "replace";
    out.lockedAt = std::chrono::steady_clock::now();
    const Window &w = *plan.window;
    const Params bounds = {sql.lowerValue(w.first()), sql.upperValue(w.last())};
    const std::string where = " AS t WHERE " + sql.inWindow("t");
    Result<Reply> r = Reply{};
    if (!plan.archiveName.empty()) {
        const std::string archive = quoteRelation("reprint_archive", plan.archiveName);
        r = co_await c.query("CREATE TABLE " + archive + " (LIKE " + sql.target + " INCLUDING DEFAULTS)");
        if (r)
            r = co_await c.query("WITH gone AS (DELETE FROM " + sql.target + where + " RETURNING " + sql.columnList
                                     + ") INSERT INTO " + archive + " (" + sql.columnList + ") SELECT " + sql.columnList
                                     + " FROM gone",
                                 bounds);
    } else {
        r = co_await c.query("DELETE FROM " + sql.target + where, bounds);
    }
    if (!r)
        co_return rowsLocked(r.error(), sql, plan);
    out.rowsReplaced = r->last().affectedRows;
    r = co_await c.query("INSERT INTO " + sql.target + " (" + sql.columnList + ") SELECT " + sql.columnList + " FROM "
                         + plan.stage);
    if (!r)
        co_return rowsLocked(r.error(), sql, plan);
    out.rowsInserted = r->last().affectedRows;
    co_return out;
}

// After the window was replaced: the backfill is published (approver, note, archive), the
// audit and the partitions' loads say so, the claim is released and the stage dropped.
Task<Status> recordPublished(warehouse::Connection &c, const ModelSql &sql, const PublishPlan &plan, PublishOutcome &out)
{
    std::vector<Value> starts, ends;
    for (const Partition &p : plan.window->partitions) {
        starts.emplace_back(p.startText());
        ends.emplace_back(p.endText());
    }
    const Value reason = plan.overrideReason.empty() ? Value() : Value(plan.overrideReason);
    const Value archiveName = plan.archiveName.empty() ? Value() : Value(plan.archiveName);
    auto r = co_await c.query("UPDATE reprint.backfills SET status = 'published', approver = current_user, note = $2, "
                              "override_reason = $3, published_at = now(), updated_at = now(), archive_table = $4 "
                              "WHERE id = $1 RETURNING approver",
                              args(std::to_string(plan.id), plan.note, reason, archiveName));
    if (r) {
        out.approver = r->last().scalar();
        r = co_await c.query("INSERT INTO reprint.audit (backfill_id, action, note, override_reason) VALUES ($1, $2, $3, $4)",
                             args(std::to_string(plan.id), plan.auditAction, plan.note, reason));
    }
    if (r)
        r = co_await c.query("INSERT INTO reprint.partition_loads (model, partition_start, partition_end, loaded_at, backfill_id) "
                             "SELECT $1, s, e, now(), $4 FROM unnest($2::timestamptz[], $3::timestamptz[]) AS u(s, e) "
                             "ON CONFLICT (model, partition_start) DO UPDATE SET partition_end = excluded.partition_end, "
                             "loaded_at = excluded.loaded_at, backfill_id = excluded.backfill_id",
                             args(sql.model->name, arrayLiteral(starts), arrayLiteral(ends), std::to_string(plan.id)));
    if (r)
        r = co_await c.query("DELETE FROM reprint.claims WHERE backfill_id = $1", args(std::to_string(plan.id)));
    if (r)
        r = co_await c.query("DROP TABLE IF EXISTS " + plan.stage + " CASCADE");
    if (!r)
        co_return r.error();
    co_return warehouse::ok();
}

} // namespace

Task<Result<PublishOutcome>> publishWindow(warehouse::Connection &c, const ModelSql &sql, const PublishPlan &plan)
{
    SwapLayout layout;
    if (plan.strategy != PublishStrategy::Replace) {
        auto found = co_await swapLayoutOf(c, sql, *plan.window);
        if (!found)
            co_return found.error();
        layout = std::move(*found);
        if (!layout.misfit.empty() && plan.strategy == PublishStrategy::Swap)
            co_return Error::make(EngineKind::Spec,
                                  "model " + sql.model->name + " asks for `publish: swap`, but " + layout.misfit
                                      + "; nothing was published",
                                  "Scope the window to whole physical partitions, or set `publish: auto` (swap where it "
                                  "can, replace otherwise) or `publish: replace` in the spec.");
    }
    if (plan.strategy == PublishStrategy::Replace || !layout.misfit.empty()) {
        auto out = co_await replaceRows(c, sql, plan);
        if (!out)
            co_return out.error();
        if (auto recorded = co_await recordPublished(c, sql, plan, *out); !recorded)
            co_return recorded.error();
        co_return out;
    }
    // A swap records the publish before it takes its lock: the lock then covers only the
    // catalog change (and the commit).
    PublishOutcome out;
    out.id = plan.id;
    out.strategy = "swap";
    auto swaps = co_await prepareSwap(c, sql, plan, layout, out);
    if (!swaps)
        co_return swaps.error();
    if (auto recorded = co_await recordPublished(c, sql, plan, out); !recorded)
        co_return recorded.error();
    if (auto swapped = co_await swapPartitions(c, sql, plan, *swaps, out); !swapped)
        co_return swapped.error();
    co_return out;
}

Task<Status> commitOrReadBack(warehouse::Connection &c, const std::string &conninfo, long long id, BackfillStatus done,
                              const std::string &again)
{
    auto committed = co_await c.execute("COMMIT");
    if (committed)
        co_return warehouse::ok();
    const std::string ids = std::to_string(id);
    const std::string verb = done == BackfillStatus::Published ? "publish" : "undo";
    auto conn = co_await openSession(conninfo);
    Result<BackfillRow> st = Error::make(ErrorKind::Connection, "not connected");
    if (conn)
        st = co_await readBackfill(**conn, id, false);
    if (st && st->status == done)
        co_return warehouse::ok();
    Error e = committed.error();
    if (st) {
        e.message = "the COMMIT of backfill " + ids + "'s " + verb + " did not answer (" + e.message + "); the warehouse shows it "
                    + toString(st->status) + ": it rolled back, nothing was " + (verb == "publish" ? "published" : "undone");
        e.hint = again;
    } else {
        e.message = "the COMMIT of backfill " + ids + "'s " + verb + " did not answer (" + e.message
                    + ") and its outcome could not be read back";
        e.hint = "Run `reprint history` once the warehouse is reachable: it says whether backfill " + ids + " was " + toString(done) + ".";
    }
    co_return e;
}

Task<Status> fenceWriters(warehouse::Connection &c, const ModelSql &sql, int timeoutMs, const std::string &nothingDone,
                          const std::string &again)
{
    auto r = co_await c.execute("LOCK TABLE " + sql.target + " IN SHARE ROW EXCLUSIVE MODE");
    if (r)
        co_return warehouse::ok();
    if (!isLockTimeout(r.error()))
        co_return r.error();
    co_return conflict("could not lock " + sql.target + " against writers within " + std::to_string(timeoutMs)
                           + " ms: another session kept writing it; " + nothingDone,
                       again + " once that write has committed.");
}

namespace {

// Whether backfill `b` may be published as asked: staged and validated (or overridden),
// four eyes where the model asks for them, and still holding its claim.
Task<Status> checkPublishable(warehouse::Connection &c, const Model &m, const BackfillRow &b, const PublishRequest &req)
{
    const std::string id = std::to_string(b.id);
    if (b.status == BackfillStatus::Published)
        co_return conflict("backfill " + id + " is already published; nothing was changed", "`reprint history` shows when and by whom.");
    if (b.status == BackfillStatus::Undone || b.status == BackfillStatus::Abandoned)
        co_return conflict("backfill " + id + " was " + toString(b.status) + " and cannot be published", "Run a new backfill of the window.");
    if (b.status != BackfillStatus::Staged) {
        const std::string next = b.status == BackfillStatus::Failed ? "Resume it (`reprint backfill --resume " + id + "`) or abandon it."
                                                      : "Wait until it has staged and validated.";
        co_return conflict("backfill " + id + " is " + toString(b.status) + ", not staged: there is nothing validated to publish", next);
    }
    if (b.validation.empty())
        co_return Error::make(EngineKind::Validation,
                              "backfill " + id + " (" + m.name + ") was never validated: no review of it was produced, so nobody "
                                  "approved it; nothing was published",
                              "Stage it again with `reprint backfill --resume " + std::to_string(req.id) + "`, then review it.");
    if (b.validation != "passed" && req.overrideReason.empty())
        co_return Error::make(EngineKind::Validation, "backfill " + id + " (" + m.name + ") failed validation: " + b.validationMessage,
                              "Nothing was published. To publish anyway, give a reason with --override REASON.");
    if (m.approval == Approval::FourEyes) {
        auto who = co_await c.query("SELECT current_user::text");
        if (!who)
            co_return who.error();
        if (who->last().scalar() == b.operatorName)
            co_return Error::make(ErrorKind::Permission,
                                  "model " + m.name + " needs four eyes: the approver must not be the operator (" + b.operatorName + ")",
                                  "Ask another database user to publish backfill " + id + ".");
    }
    auto claim = co_await c.query("SELECT holder FROM reprint.claims WHERE backfill_id = $1", args(id));
    if (!claim)
        co_return claim.error();
    if (claim->last().rows.empty())
        co_return drift("backfill " + id + " no longer holds its claim on the window", "Its lease was taken over; run the backfill again.");
    co_return warehouse::ok();
}

// The drift guard, under the writer fence: the target's window still holds the totals it
// was validated against, and the source still gives the check values the review stored.
Task<Status> guardDrift(warehouse::Connection &c, const ModelSql &sql, const Window &w, const BackfillRow &b,
                        const CheckSessions &sessions, Laps &laps)
{
    const Model &m = *sql.model;
    const std::string id = std::to_string(b.id);
    if (sql.transformHash != b.transformHash)
        co_return drift("the transform of " + m.name + " changed since backfill " + id + " was validated",
                        "Run the backfill again so that the review matches the code that runs.");
    // The source checks run on their sessions while this one reads the target's totals.
    // Only the window's own partitions: publish writes nothing else, so what the source now
    // says of the neighbours cannot make the validated rows wrong (and reading them would
    // triple a one-day guard).
    const auto executor = co_await asio::this_coro::executor;
    PendingChecks pending = startChecks(executor, sessions, sql, w.first(), w.last());
    auto moved = co_await totalsDrift(c, sql, w, b.id, StoredTotal::Old);
    laps.lap("drift guard: target totals");
    auto checksNow = co_await awaitChecks(std::move(pending));  // on every path: `sql` must outlive it
    if (!moved)
        co_return moved.error();
    if (*moved)
        co_return drift("the target changed since validation: " + m.name + " " + (*moved)->partition + " " + (*moved)->measure
                            + " was " + (*moved)->stored.value_or("NULL") + ", now " + (*moved)->current.value_or("NULL")
                            + "; nothing was published",
                        "Something wrote the window after backfill " + id
                            + " was validated. Abandon it and run the backfill again to re-validate.");
    if (!checksNow)
        co_return checksNow.error();
    auto storedChecks = co_await c.query("SELECT extract(epoch FROM partition_start)::bigint, check_name, value::text "
                                         "FROM reprint.check_values WHERE backfill_id = $1 AND partition_start >= $2 "
                                         "AND partition_start < $3",
                                         args(id, w.first().startText(), w.last().endText()),
                                         oids(0, kTimestamptzOid, kTimestamptzOid));
    if (!storedChecks)
        co_return storedChecks.error();
    for (const auto &row : storedChecks->last().rows) {
        const Value current = checkOf(*checksNow, *row[1], std::stoll(*row[0]));
        if (!agrees(current, row[2], 0))
            co_return drift("the source changed since validation: check '" + *row[1] + "' of " + m.name + " was "
                                + row[2].value_or("NULL") + ", now " + current.value_or("NULL"),
                            "Abandon backfill " + id + " and run it again to re-validate against the new source.");
    }
    laps.lap("drift guard: source checks");
    co_return warehouse::ok();
}

} // namespace

Task<Result<PublishOutcome>> publishMember(warehouse::Connection &c, const Spec &spec, const Model &m, const Window &w,
                                           const BackfillRow &b, const PublishRequest &req, const EngineOptions &options,
                                           const CheckSessions &checkSessions, CancelTokenPtr cancel, Laps &laps)
{
    const std::string id = std::to_string(b.id);
    if (auto publishable = co_await checkPublishable(c, m, b, req); !publishable)
        co_return publishable.error();
    auto described = co_await describeModel(c, spec, m);
    if (!described)
        co_return described.error();
    const ModelSql &sql = *described;
    laps.lap("check the request and read the catalog");
    // What is published must be exactly what was validated. Writers of the target are
    // fenced off first (readers are not), so that a write committing while publish waits
    // is read by the drift guard, never overwritten by the replace.
    auto fenced = co_await fenceWriters(c, sql, options.lockTimeoutMs, "nothing of backfill " + id + " was published",
                                        "Publish again with `reprint publish " + std::to_string(req.id) + " --approve NOTE`");
    if (!fenced)
        co_return fenced.error();
    laps.lap("fence writers (wait for the lock)");
    if (auto guarded = co_await guardDrift(c, sql, w, b, checkSessions, laps); !guarded)
        co_return guarded.error();
    PublishPlan plan;
    plan.id = b.id;
    plan.window = &w;
    plan.stage = quoteRelation("reprint_staging", b.stageTable);
    plan.archiveName = ("b" + id + "_" + m.name).substr(0, 63);
    plan.note = req.note;
    plan.overrideReason = req.overrideReason;
    plan.auditAction = "publish";
    plan.strategy = m.publish;
    plan.options = &options;
    plan.cancel = std::move(cancel);
    plan.retry = "`reprint publish " + std::to_string(req.id) + " --approve NOTE`";
    auto replaced = co_await publishWindow(c, sql, plan);
    laps.lap(replaced ? "archive and " + replaced->strategy + " the window" : std::string("replace the window"));
    co_return replaced;
}

namespace {


Error notUndoable(const BackfillRow &b)
{
    const std::string id = std::to_string(b.id);
    if (b.kind == "run")
        return conflict(id + " is a scheduled run of " + b.model + " " + b.from + " (" + toString(b.status)
                            + "), not a backfill: a run archives nothing, so there is nothing to restore",
                        "To rebuild that partition, backfill it: `reprint backfill --model " + b.model + " --from " + b.from
                            + " --to " + b.to + "`.");
    if (b.status == BackfillStatus::Staged)
        return conflict("backfill " + id + " is staged, not published: it has not changed the target, so there is nothing to undo",
                        "Publish it (`reprint publish " + id + " --approve NOTE`) or drop it with `reprint abandon " + id + "`.");
    if (isUnderway(b.status))
        return conflict("backfill " + id + " is still " + toString(b.status) + ", not published: there is nothing to undo",
                        "Cancel it (`reprint cancel " + id + "`), or let it finish and review it.");
    if (b.status == BackfillStatus::Failed)
        return conflict("backfill " + id + " failed before it was published: the target is unchanged, so there is nothing to undo",
                        "Resume it (`reprint backfill --resume " + id + "`) or abandon it (`reprint abandon " + id + "`).");
    return conflict("backfill " + id + " is " + toString(b.status) + ", never published: there is nothing to undo", "");
}

} // namespace

Task<Status> checkUndoable(warehouse::Connection &c, const BackfillRow &b, const Window &w)
{
    const std::string id = std::to_string(b.id);
    if (b.status == BackfillStatus::Undone)
        co_return conflict("backfill " + id + " is already undone; nothing was changed", "");
    if (b.status != BackfillStatus::Published || b.kind != "backfill")
        co_return notUndoable(b);
    if (b.archiveTable.empty())
        co_return conflict("the archive of backfill " + id + " was pruned; it can no longer be undone",
                           "Run a backfill of the window instead.");
    // Nobody may be writing the window now.
    auto claims = co_await c.query("SELECT b.id::text, b.operator FROM reprint.claims c JOIN reprint.backfills b ON b.id = c.backfill_id "
                                   "WHERE c.model = $1 AND c.span && tstzrange($2, $3) LIMIT 1",
                                   args(b.model, w.first().startText(), w.last().endText()),
                                   oids(0, kTimestamptzOid, kTimestamptzOid));
    if (!claims)
        co_return claims.error();
    if (!claims->last().rows.empty()) {
        const auto &row = claims->last().rows.front();
        co_return conflict("the window is claimed by backfill " + *row[0] + " (operator " + *row[1] + ")",
                           "Publish or abandon it first.");
    }
    co_return warehouse::ok();
}

Task<Result<UndoOutcome>> restoreWindow(warehouse::Connection &c, const ModelSql &sql, const Window &w, const BackfillRow &b,
                                        const std::string &overrideReason)
{
    const std::string id = std::to_string(b.id);
    const std::string archive = quoteRelation("reprint_archive", b.archiveTable);
    UndoOutcome out;
    out.id = b.id;
    auto r = co_await c.query("DELETE FROM " + sql.target + " AS t WHERE " + sql.inWindow("t"),
                              args(sql.lowerValue(w.first()), sql.upperValue(w.last())));
    if (r) {
        out.rowsRemoved = r->last().affectedRows;
        r = co_await c.query("INSERT INTO " + sql.target + " (" + sql.columnList + ") SELECT " + sql.columnList + " FROM " + archive);
    }
    if (r) {
        out.rowsRestored = r->last().affectedRows;
        r = co_await c.query("UPDATE reprint.backfills SET status = 'undone', undone_at = now(), updated_at = now(), "
                             "archive_table = NULL WHERE id = $1",
                             args(id));
    }
    const Value reason = overrideReason.empty() ? Value() : Value(overrideReason);
    if (r)
        r = co_await c.query("INSERT INTO reprint.audit (backfill_id, action, override_reason) VALUES ($1, 'undo', $2)",
                             args(id, reason));
    if (r)
        r = co_await c.query("UPDATE reprint.partition_loads SET loaded_at = now(), backfill_id = $2 "
                             "WHERE model = $1 AND partition_start >= $3 AND partition_start < $4",
                             args(b.model, id, w.first().startText(), w.last().endText()),
                             oids(0, 0, kTimestamptzOid, kTimestamptzOid));
    if (r)
        r = co_await c.query("DROP TABLE " + archive + " CASCADE");  // a swap's archive: the detached partitions inherit it
    if (!r)
        co_return r.error();
    co_return out;
}

} // namespace reprint::backfill
