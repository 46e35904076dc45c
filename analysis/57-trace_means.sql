-- trace_means: one of the program's tables averaged over the replications of each
-- configuration: per panel (a combination of levels of trace_panels, the design's factors but
-- x when x is a factor), series value and x value, the number of runs n with a value of y there,
-- the mean of y over them and its sample standard deviation (NULL with one run; n = 0 and a NULL
-- mean where no run has one). Each run's rows are first averaged per (x, series): a
-- per-connection table with x a factor gives one value per run and series. x values are grouped
-- exactly (runs are expected to share a grid, e.g. 1 s steps). Every trace_y gives the same rows
-- in the same order, so the report runs it once per y column and lines them up.
-- What the report's traces draw with `replications: mean`: the interval is mean +- t sd/sqrt(n),
-- t = scipy.stats.t.ppf(1 - (1 - confidence) / 2, n - 1), computed by the caller per row as n
-- varies (40-confidence_intervals.sql takes one t as a variable instead).
-- Expects: macros (00-macros.sql) and the variables
--   SET VARIABLE runs_table = 'results/sabt-fig2-3/runs.parquet';
--   SET VARIABLE trace_table = 'results/sabt-fig2-3/timeline.parquet';
--   SET VARIABLE trace_x = 'time';            -- a column of trace_table, or a factor
--   SET VARIABLE trace_x_is_factor = false;   -- true: trace_x is a column of runs_table
--   SET VARIABLE trace_y = 'buffer';          -- a numeric column of trace_table
--   SET VARIABLE trace_series = 'connection'; -- a column of trace_table; unset: one series
--   SET VARIABLE trace_panels = ['pool', 'algorithm'];
-- Output: panel_order (the first run of the panel in runs_table), the trace_panels columns (level
-- text), x, series (text, '' without trace_series), n, mean, sd, low and high (the least and the
-- most run's value: the range the traces reach), and each run's value (ys) with its
-- replication (replications), in replication order; ordered by panel, series (as a number when
-- it is one), x.
-- The columns are named by variables, so the statement is built as text and run by query().
CREATE OR REPLACE TEMP TABLE trace_means AS
FROM query(
    'WITH runs AS (SELECT row_number() OVER () AS position, * '
    || 'FROM read_parquet(getvariable(''runs_table''))), '
    || 'per_run AS (SELECT r.config_id, r.replication, min(r.position) AS position'
    || array_to_string(
        [', level_text(r.' || quoted(f) || ') AS ' || quoted(f) for f IN getvariable('trace_panels')],
        ''
    )
    || ', CAST(' || CASE WHEN getvariable('trace_x_is_factor') THEN 'r.' ELSE 't.' END
    || quoted(getvariable('trace_x')) || ' AS DOUBLE) AS x, '
    || CASE
        WHEN getvariable('trace_series') IS NULL THEN ''''''
        ELSE 'CAST(t.' || quoted(getvariable('trace_series')) || ' AS VARCHAR)'
    END
    || ' AS series, avg(CAST(t.' || quoted(getvariable('trace_y')) || ' AS DOUBLE)) AS y '
    || 'FROM read_parquet(getvariable(''trace_table'')) AS t '
    || 'JOIN runs AS r USING (config_id, replication) GROUP BY ALL) '
    || 'SELECT min(first_position) OVER (PARTITION BY '
    || array_to_string(list_concat([quoted(f) for f IN getvariable('trace_panels')], ['true']), ', ')
    || ') AS panel_order, * EXCLUDE (first_position) FROM (SELECT min(position) AS first_position'
    || array_to_string([', ' || quoted(f) for f IN getvariable('trace_panels')], '')
    || ', x, series, count(y) AS n, avg(y) AS mean, stddev_samp(y) AS sd, min(y) AS low, '
    || 'max(y) AS high, list(replication ORDER BY replication) FILTER (y IS NOT NULL) AS replications, '
    || 'list(y ORDER BY replication) FILTER (y IS NOT NULL) AS ys '
    || 'FROM per_run GROUP BY ALL) '
    || 'ORDER BY panel_order, try_cast(series AS DOUBLE) NULLS LAST, series, x'
);
