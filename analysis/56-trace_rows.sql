-- trace_rows: the rows of one of the program's tables that belong to the runs of first_runs
-- (55-first_runs.sql), in the table's order: what a trace of the report draws.
-- Expects: table first_runs and the variable trace_table, that table's Parquet file, e.g.
--   SET VARIABLE trace_table = 'results/barakat-fig4/cwnd.parquet';
CREATE OR REPLACE TEMP TABLE trace_rows AS
SELECT rows.* EXCLUDE (position)
FROM (SELECT *, row_number() OVER () AS position FROM read_parquet(getvariable('trace_table'))) rows
JOIN first_runs USING (config_id, replication)
ORDER BY rows.position;
