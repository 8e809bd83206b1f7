-- The declarative partition key of table $1.$2: its strategy (r range, l list, h hash)
-- and one row per key part, the column's name (NULL for an expression) and category.
SELECT p.partstrat::text AS strategy,
       a.attname AS "column",
       CASE a.atttypid
           WHEN 'date'::regtype THEN 'date'
           WHEN 'timestamp'::regtype THEN 'timestamp'
           WHEN 'timestamptz'::regtype THEN 'timestamptz'
           ELSE 'other'
       END AS category
FROM pg_partitioned_table p
JOIN pg_class c ON c.oid = p.partrelid
JOIN pg_namespace n ON n.oid = c.relnamespace
CROSS JOIN LATERAL unnest(p.partattrs::int2[]) WITH ORDINALITY AS k(attnum, n)
LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum
WHERE n.nspname = $1 AND c.relname = $2
ORDER BY k.n
