-- Check for fct_order_lines: the quantity ordered per UTC day of [:start, :end), from the raw tables.
SELECT date_trunc('day', o.ordered_at, 'UTC') AS partition,
       sum(l.quantity) AS value
FROM raw.order_lines AS l
JOIN raw.orders AS o ON o.order_id = l.order_id
WHERE o.ordered_at >= :start AND o.ordered_at < :end
GROUP BY 1
