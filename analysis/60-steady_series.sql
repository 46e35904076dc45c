-- steady_series: one of the program's tables as a time series per run, for a steady-state
-- response (docs/steady-state.md): per run (config_id, replication) and x value, y summed over
-- the run's rows at that x (e.g. one row per connection adds up), and with steady_per the sum
-- of that column too (the denominator of a ratio; NULL without it). Ordered by run, then x.
-- Expects: macros (00-macros.sql) and the variables
--   SET VARIABLE steady_table = 'results/goyal98-steady/timeline.parquet';
--   SET VARIABLE steady_x = 'time';           -- a numeric column of steady_table
--   SET VARIABLE steady_y = 'efficiency';     -- a numeric column of steady_table
--   SET VARIABLE steady_per = 'duration';     -- optional: y / per is the response
-- With the variable max_replication set, only replications 1..max_replication (01-source.sql).
-- The columns are named by variables, so the statement is built as text and run by query().
CREATE OR REPLACE TEMP TABLE steady_series AS
FROM query(
    'SELECT config_id, replication, CAST(' || quoted(getvariable('steady_x')) || ' AS DOUBLE) AS x, '
    || 'sum(CAST(' || quoted(getvariable('steady_y')) || ' AS DOUBLE)) AS y, '
    || CASE
        WHEN getvariable('steady_per') IS NULL THEN 'CAST(NULL AS DOUBLE)'
        ELSE 'sum(CAST(' || quoted(getvariable('steady_per')) || ' AS DOUBLE))'
    END
    || ' AS per FROM read_parquet(getvariable(''steady_table'')) '
    || CASE
        WHEN getvariable('max_replication') IS NULL THEN ''
        ELSE 'WHERE replication <= getvariable(''max_replication'') '
    END
    || 'GROUP BY ALL ORDER BY config_id, replication, x'
);
