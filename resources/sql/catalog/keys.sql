-- The unique indexes of table $1.$2 that can serve as a spec's key: valid, not partial,
-- on columns only (no expression). One row per index and key column, the primary key
-- first, then the narrowest.
SELECT i.indexrelid::regclass::text AS index,
       i.indisprimary::text AS "primary",
       k.n::text AS position,
       a.attname AS "column"
FROM pg_index i
JOIN pg_class c ON c.oid = i.indrelid
JOIN pg_namespace n ON n.oid = c.relnamespace
CROSS JOIN LATERAL unnest(i.indkey::int2[]) WITH ORDINALITY AS k(attnum, n)
JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum
WHERE n.nspname = $1 AND c.relname = $2
  AND i.indisunique AND i.indisvalid AND i.indpred IS NULL AND i.indexprs IS NULL
  AND k.n <= i.indnkeyatts
ORDER BY i.indisprimary DESC, i.indnkeyatts, i.indexrelid::regclass::text, k.n
