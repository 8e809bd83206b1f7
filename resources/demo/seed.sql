-- The demo shop: raw orders over one year (2025-07-01 .. 2026-06-30, UTC) and the
-- analytics models built from them, with a known bug in analytics.fct_order_lines.
--
-- Run by startDemo() in one transaction on a fresh database, with the scale in the
-- setting reprint.demo_scale (1.0: about 2.1 million order lines). Every random choice is
-- a hash of a row number and a salt, so a scale gives exactly the same rows every time.
-- Each "-- step:" line starts a piece that is run (and reported) on its own.
--
-- The bug, which the demo's backfill is meant to repair:
--   * revenue takes the discount twice on order_date 2026-03-10 .. 2026-03-14;
--   * lines ordered in [2026-03-09 18:00Z, 2026-03-10 00:00Z) are filed on 2026-03-10
--     (a timezone slip), and so also get the double discount.

-- step: creating schemas and tables
CREATE SCHEMA raw;
CREATE SCHEMA analytics;

-- A uniform number in [0, 1) from (n, salt): 52 bits of PostgreSQL's portable int8 hash.
CREATE FUNCTION pg_temp.demo_u(n bigint, salt bigint) RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN ((hashint8extended(n, salt) >> 11) & 4503599627370495)::double precision / 4503599627370496.0;

CREATE TABLE raw.customers (
    customer_id bigint      NOT NULL,
    name        text        NOT NULL,
    country     text        NOT NULL,
    created_at  timestamptz NOT NULL
);

CREATE TABLE raw.products (
    product_id  integer       NOT NULL,
    name        text          NOT NULL,
    category    text          NOT NULL,
    unit_price  numeric(10,2) NOT NULL
);

CREATE TABLE raw.orders (
    order_id    bigint      NOT NULL,
    customer_id bigint      NOT NULL,
    ordered_at  timestamptz NOT NULL,
    status      text        NOT NULL
);

CREATE TABLE raw.order_lines (
    order_line_id bigint        NOT NULL,
    order_id      bigint        NOT NULL,
    product_id    integer       NOT NULL,
    quantity      integer       NOT NULL,
    unit_price    numeric(10,2) NOT NULL,
    discount      numeric(4,3)  NOT NULL   -- a fraction, 0 .. 0.3
);

CREATE TABLE analytics.fct_order_lines (
    order_line_id bigint        NOT NULL,
    order_id      bigint        NOT NULL,
    order_date    date          NOT NULL,
    ordered_at    timestamptz   NOT NULL,
    customer_id   bigint        NOT NULL,
    product_id    integer       NOT NULL,
    category      text          NOT NULL,
    quantity      integer       NOT NULL,
    unit_price    numeric(10,2) NOT NULL,
    discount      numeric(4,3)  NOT NULL,
    revenue       numeric(14,2) NOT NULL
) PARTITION BY RANGE (order_date);

CREATE TABLE analytics.agg_daily_revenue (
    order_date date          NOT NULL,
    revenue    numeric(14,2) NOT NULL,
    orders     bigint        NOT NULL,
    lines      bigint        NOT NULL,
    quantity   bigint        NOT NULL
) PARTITION BY RANGE (order_date);

DO $$
DECLARE
    day date;
BEGIN
    FOR day IN SELECT d::date FROM generate_series(date '2025-07-01', date '2026-06-30', interval '1 day') AS d LOOP
        EXECUTE format('CREATE TABLE analytics.%I PARTITION OF analytics.fct_order_lines FOR VALUES FROM (%L) TO (%L)',
                       'fct_order_lines_' || to_char(day, 'YYYYMMDD'), day, day + 1);
        EXECUTE format('CREATE TABLE analytics.%I PARTITION OF analytics.agg_daily_revenue FOR VALUES FROM (%L) TO (%L)',
                       'agg_daily_revenue_' || to_char(day, 'YYYYMMDD'), day, day + 1);
    END LOOP;
END
$$;

COMMENT ON TABLE analytics.fct_order_lines IS
    'One row per order line, partitioned by order day (UTC). Built by transforms/fct_order_lines.sql.';
COMMENT ON TABLE analytics.agg_daily_revenue IS
    'Revenue, orders, lines and quantity per order day (UTC), from analytics.fct_order_lines.';

-- step: seeding raw.customers and raw.products
INSERT INTO raw.customers (customer_id, name, country, created_at)
SELECT n,
       'Customer ' || n,
       (ARRAY['DE', 'FR', 'NL', 'GB', 'US', 'ES', 'IT', 'SE', 'PL', 'AT'])[1 + floor(pg_temp.demo_u(n, 11) ^ 1.5 * 10)::int],
       timestamptz '2022-01-01 00:00+00' + floor(pg_temp.demo_u(n, 12) * 3.5 * 365 * 86400) * interval '1 second'
FROM generate_series(1::bigint, greatest(500, round(current_setting('reprint.demo_scale')::float8 * 60000))::bigint) AS n;

INSERT INTO raw.products (product_id, name, category, unit_price)
SELECT n,
       c.category || ' ' || to_char(n, 'FM000'),
       c.category,
       round((c.base * (0.4 + 1.6 * pg_temp.demo_u(n, 22)))::numeric, 2)
FROM generate_series(1, 400) AS n
CROSS JOIN LATERAL (
    SELECT (ARRAY['books', 'games', 'garden', 'kitchen', 'music', 'outdoor', 'electronics', 'toys'])[1 + (n % 8)] AS category,
           (ARRAY[14, 39, 27, 22, 12, 48, 180, 25])[1 + (n % 8)]::float8 AS base
) AS c;

-- step: seeding raw.orders
-- Orders per day: a base rate times the weekday (weekends busy), the season (summer dip,
-- November/December peak, Black Friday, a quiet Christmas) and a little noise.
CREATE TEMP TABLE demo_days ON COMMIT DROP AS
SELECT day,
       greatest(1, round(current_setting('reprint.demo_scale')::float8 * 2110
           * (ARRAY[0.90, 0.86, 0.88, 0.93, 1.08, 1.42, 1.33])[extract(isodow FROM day)::int]
           * (ARRAY[0.92, 0.94, 1.00, 1.00, 0.96, 0.84, 0.80, 0.76, 0.93, 1.00, 1.35, 1.50])[extract(month FROM day)::int]
           * CASE day WHEN date '2025-11-28' THEN 2.6 WHEN date '2025-12-01' THEN 1.8
                      WHEN date '2025-12-24' THEN 0.6 WHEN date '2025-12-25' THEN 0.35 WHEN date '2026-01-01' THEN 0.5
                      ELSE 1.0 END
           * (0.94 + 0.12 * pg_temp.demo_u(extract(epoch FROM day)::bigint, 31))))::int AS n_orders
FROM generate_series(date '2025-07-01', date '2026-06-30', interval '1 day') AS g(d)
CROSS JOIN LATERAL (SELECT d::date AS day) AS x;

-- Time of day: an evening peak (19:00 UTC) and a quiet early morning, over all 24 hours.
-- t = v - a*sin(2*pi*v) is monotone for a < 1/(2*pi), so every second stays possible.
CREATE TEMP TABLE demo_orders ON COMMIT DROP AS
SELECT row_number() OVER (ORDER BY s.ordered_at, s.seq) AS order_id, s.ordered_at, s.seq
FROM (
    SELECT (d.day + floor(86400 * ((t.v + 19.0 / 24) - floor(t.v + 19.0 / 24)))::int * interval '1 second')
               AT TIME ZONE 'UTC' AS ordered_at,
           k.seq
    FROM demo_days AS d
    CROSS JOIN LATERAL generate_series(1, d.n_orders) AS i
    CROSS JOIN LATERAL (SELECT (d.day - date '2025-07-01')::bigint * 100000 + i AS seq) AS k
    CROSS JOIN LATERAL (SELECT pg_temp.demo_u(k.seq, 41) - 0.09 * sin(2 * pi() * pg_temp.demo_u(k.seq, 41)) AS v) AS t
) AS s;

INSERT INTO raw.orders (order_id, customer_id, ordered_at, status)
SELECT o.order_id,
       1 + floor(pg_temp.demo_u(o.seq, 42) ^ 1.6 * c.n)::bigint,
       o.ordered_at,
       CASE WHEN pg_temp.demo_u(o.seq, 43) < 0.04 THEN 'cancelled'
            WHEN pg_temp.demo_u(o.seq, 43) < 0.07 THEN 'refunded'
            ELSE 'completed' END
FROM demo_orders AS o
CROSS JOIN (SELECT count(*) AS n FROM raw.customers) AS c;

-- step: seeding raw.order_lines
-- 1..6 lines per order (2.57 on average); quantity mostly 1; 45% of lines discounted by
-- 2.5% .. 30% in steps of 2.5%.
CREATE TEMP TABLE demo_line_counts ON COMMIT DROP AS
SELECT o.order_id, o.seq, n.lines,
       sum(n.lines) OVER (ORDER BY o.order_id) - n.lines AS lines_before
FROM demo_orders AS o
CROSS JOIN LATERAL (
    SELECT CASE WHEN u < 0.30 THEN 1 WHEN u < 0.55 THEN 2 WHEN u < 0.75 THEN 3
                WHEN u < 0.88 THEN 4 WHEN u < 0.95 THEN 5 ELSE 6 END AS lines
    FROM (SELECT pg_temp.demo_u(o.seq, 51) AS u) AS r
) AS n;

INSERT INTO raw.order_lines (order_line_id, order_id, product_id, quantity, unit_price, discount)
SELECT l.order_line_id, l.order_id, p.product_id,
       1 + floor(pg_temp.demo_u(l.h, 53) ^ 3 * 5)::int,
       p.unit_price,
       CASE WHEN pg_temp.demo_u(l.h, 54) < 0.45
            THEN (1 + floor(pg_temp.demo_u(l.h, 55) * 12))::numeric * 0.025
            ELSE 0 END
FROM (
    SELECT c.lines_before + j AS order_line_id, c.order_id, c.seq * 8 + j AS h
    FROM demo_line_counts AS c
    CROSS JOIN LATERAL generate_series(1, c.lines) AS j
) AS l
JOIN raw.products AS p ON p.product_id = 1 + floor(pg_temp.demo_u(l.h, 52) ^ 2 * 400)::int;

-- step: indexing raw tables
ALTER TABLE raw.customers ADD PRIMARY KEY (customer_id);
ALTER TABLE raw.products ADD PRIMARY KEY (product_id);
ALTER TABLE raw.orders ADD PRIMARY KEY (order_id);
ALTER TABLE raw.order_lines ADD PRIMARY KEY (order_line_id);
CREATE INDEX orders_ordered_at_idx ON raw.orders (ordered_at);
CREATE INDEX order_lines_order_id_idx ON raw.order_lines (order_id);

-- step: building analytics.fct_order_lines (with the known bug)
INSERT INTO analytics.fct_order_lines
    (order_line_id, order_id, order_date, ordered_at, customer_id, product_id, category,
     quantity, unit_price, discount, revenue)
SELECT b.order_line_id, b.order_id, b.order_date, b.ordered_at, b.customer_id, b.product_id, b.category,
       b.quantity, b.unit_price, b.discount,
       CASE WHEN b.order_date BETWEEN date '2026-03-10' AND date '2026-03-14'
            THEN round(b.quantity * b.unit_price * (1 - b.discount) * (1 - b.discount), 2)
            ELSE round(b.quantity * b.unit_price * (1 - b.discount), 2) END
FROM (
    SELECT l.order_line_id, l.order_id,
           CASE WHEN o.ordered_at >= timestamptz '2026-03-09 18:00+00' AND o.ordered_at < timestamptz '2026-03-10 00:00+00'
                THEN date '2026-03-10'
                ELSE (o.ordered_at AT TIME ZONE 'UTC')::date END AS order_date,
           o.ordered_at, o.customer_id, l.product_id, p.category, l.quantity, l.unit_price, l.discount
    FROM raw.order_lines AS l
    JOIN raw.orders AS o ON o.order_id = l.order_id
    JOIN raw.products AS p ON p.product_id = l.product_id
) AS b;

ALTER TABLE analytics.fct_order_lines ADD PRIMARY KEY (order_line_id, order_date);

-- step: building analytics.agg_daily_revenue
INSERT INTO analytics.agg_daily_revenue (order_date, revenue, orders, lines, quantity)
SELECT order_date, sum(revenue), count(DISTINCT order_id), count(*), sum(quantity)
FROM analytics.fct_order_lines
GROUP BY order_date;

ALTER TABLE analytics.agg_daily_revenue ADD PRIMARY KEY (order_date);

-- step: analyzing
-- The raw tables, which the checks and transforms scan by time. The 730 analytics
-- partitions are left to autovacuum: analyzing them here would take longer than the rest
-- of the seed, and each is scanned whole anyway.
ANALYZE raw.customers, raw.products, raw.orders, raw.order_lines;

-- step: recording the seed
DO $$
BEGIN
    EXECUTE format('COMMENT ON DATABASE %I IS %L', current_database(),
                   'Reprint demo shop, seed scale ' || current_setting('reprint.demo_scale'));
END
$$;
