-- Check for agg_daily_revenue: one row per UTC day of [:start, :end) that has orders, from
-- the raw tables.
SELECT date_trunc('day', o.ordered_at, 'UTC') AS partition,
       1 AS value
FROM raw.orders AS o
WHERE o.ordered_at >= :start AND o.ordered_at < :end
GROUP BY 1
