-- When each seeded partition of the demo models was loaded: two hours after it closed, as
-- a nightly scheduler would have done. Run once, after the seed and Reprint's migrations.
INSERT INTO reprint.partition_loads (model, partition_start, partition_end, loaded_at)
SELECT m.model,
       d::timestamp AT TIME ZONE 'UTC',
       (d + interval '1 day') AT TIME ZONE 'UTC',
       (d + interval '1 day 2 hours') AT TIME ZONE 'UTC'
FROM (VALUES ('fct_order_lines'), ('agg_daily_revenue')) AS m (model)
CROSS JOIN generate_series(timestamp '2025-07-01', timestamp '2026-06-30', interval '1 day') AS d
ON CONFLICT (model, partition_start) DO NOTHING
