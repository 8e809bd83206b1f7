-- analytics.fct_order_lines for the window [:start, :end): one row per order line, filed
-- on the UTC day it was ordered, with revenue after the line's discount.
SELECT l.order_line_id,
       l.order_id,
       (o.ordered_at AT TIME ZONE 'UTC')::date AS order_date,
       o.ordered_at,
       o.customer_id,
       l.product_id,
       p.category,
       l.quantity,
       l.unit_price,
       l.discount,
       round(l.quantity * l.unit_price * (1 - l.discount), 2) AS revenue
FROM raw.order_lines AS l
JOIN raw.orders AS o ON o.order_id = l.order_id
JOIN raw.products AS p ON p.product_id = l.product_id
WHERE o.ordered_at >= :start AND o.ordered_at < :end
