-- Check for agg_daily_revenue: the number of orders per UTC day of [:start, :end), from the raw tables.
SELECT date_trunc('day', o.ordered_at, 'UTC') AS partition,
       count(DISTINCT o.order_id) AS value
FROM raw.orders AS o
WHERE o.ordered_at >= :start AND o.ordered_at < :end
GROUP BY 1
