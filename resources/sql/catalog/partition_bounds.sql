-- The bounds [lower, upper) of the newest 400 range partitions of table $1.$2, whose key
-- is one column of category $3 (date, timestamp or timestamptz), as ISO 8601 text: the
-- instant in UTC for timestamptz, the wall time for date and timestamp. Partitions
-- bounded by MINVALUE or MAXVALUE, and the default partition, are left out.
SELECT to_char(b.lower, 'YYYY-MM-DD"T"HH24:MI:SS') AS lower,
       to_char(b.upper, 'YYYY-MM-DD"T"HH24:MI:SS') AS upper
FROM pg_class parent
JOIN pg_namespace n ON n.oid = parent.relnamespace
JOIN pg_inherits i ON i.inhparent = parent.oid
JOIN pg_class c ON c.oid = i.inhrelid
CROSS JOIN LATERAL regexp_match(pg_get_expr(c.relpartbound, c.oid),
                                $re$^FOR VALUES FROM \('([^']*)'\) TO \('([^']*)'\)$$re$) AS m
CROSS JOIN LATERAL (
    SELECT CASE $3 WHEN 'timestamptz' THEN m[1]::timestamptz AT TIME ZONE 'UTC' ELSE m[1]::timestamp END AS lower,
           CASE $3 WHEN 'timestamptz' THEN m[2]::timestamptz AT TIME ZONE 'UTC' ELSE m[2]::timestamp END AS upper
) AS b
WHERE n.nspname = $1 AND parent.relname = $2 AND m IS NOT NULL
ORDER BY b.lower DESC
LIMIT 400
