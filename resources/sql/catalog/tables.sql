-- The tables a new spec may target: ordinary and partitioned tables (never a partition of
-- another table) that the role may read, outside the system's and Reprint's own schemas,
-- with the planner's estimate of their rows (a partitioned table: its partitions' sum).
SELECT n.nspname AS schema,
       c.relname AS "table",
       CASE c.relkind WHEN 'p' THEN 'partitioned' ELSE 'table' END AS kind,
       CASE c.relkind
           WHEN 'p' THEN (SELECT coalesce(sum(greatest(p.reltuples, 0)), 0)
                          FROM pg_partition_tree(c.oid) AS t JOIN pg_class p ON p.oid = t.relid
                          WHERE t.isleaf)
           ELSE greatest(c.reltuples, 0)
       END::bigint::text AS estimated_rows
FROM pg_class c
JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind IN ('r', 'p')
  AND NOT c.relispartition
  AND n.nspname NOT IN ('pg_catalog', 'information_schema', 'reprint', 'reprint_staging', 'reprint_archive')
  AND n.nspname !~ '^pg_(toast|temp)'
  AND has_table_privilege(c.oid, 'SELECT')
ORDER BY n.nspname, c.relname
