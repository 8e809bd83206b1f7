-- analytics.agg_daily_revenue for the window [:start, :end): one row per order day, from
-- the fct_order_lines model.
SELECT order_date,
       sum(revenue) AS revenue,
       count(DISTINCT order_id) AS orders,
       count(*) AS lines,
       sum(quantity) AS quantity
FROM {{ fct_order_lines }}
WHERE order_date >= :start AND order_date < :end
GROUP BY order_date
