-- first_runs: the first replication of every configuration of a study, whole (every column of
-- its row in runs.parquet), in the order of the file: the panels of the report's traces.
-- Expects: the variable runs_table, a study's runs.parquet, e.g.
--   SET VARIABLE runs_table = 'results/barakat-fig4/runs.parquet';
CREATE OR REPLACE TEMP TABLE first_runs AS
SELECT * EXCLUDE (position)
FROM (
    SELECT *, row_number() OVER () AS position
    FROM read_parquet(getvariable('runs_table'))
)
QUALIFY replication = min(replication) OVER (PARTITION BY config_id)
ORDER BY position;
