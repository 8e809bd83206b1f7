-- The columns of table $1.$2 in order: name, type (as format_type names it), a category
-- (date, timestamp, timestamptz, numeric or other; a domain counts as its base type),
-- whether it is NOT NULL, and whether it is generated (never inserted).
SELECT a.attname AS name,
       format_type(a.atttypid, a.atttypmod) AS type,
       CASE coalesce(nullif(t.typbasetype, 0), t.oid)
           WHEN 'date'::regtype THEN 'date'
           WHEN 'timestamp'::regtype THEN 'timestamp'
           WHEN 'timestamptz'::regtype THEN 'timestamptz'
           WHEN 'smallint'::regtype THEN 'numeric'
           WHEN 'integer'::regtype THEN 'numeric'
           WHEN 'bigint'::regtype THEN 'numeric'
           WHEN 'numeric'::regtype THEN 'numeric'
           WHEN 'real'::regtype THEN 'numeric'
           WHEN 'double precision'::regtype THEN 'numeric'
           ELSE 'other'
       END AS category,
       a.attnotnull::text AS not_null,
       (a.attgenerated <> '')::text AS generated
FROM pg_attribute a
JOIN pg_class c ON c.oid = a.attrelid
JOIN pg_namespace n ON n.oid = c.relnamespace
JOIN pg_type t ON t.oid = a.atttypid
WHERE n.nspname = $1 AND c.relname = $2 AND a.attnum > 0 AND NOT a.attisdropped
ORDER BY a.attnum
