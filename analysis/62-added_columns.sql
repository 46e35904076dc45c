-- added_columns: per-run columns computed from the store (a steady-state response's values,
-- 61-steady_values.sql) joined onto source as new columns, so that every later file analyses
-- them like a summary field; source is rebuilt in its own order (its rowid orders the levels).
-- Creates table added_columns (what was joined) and replaces source.
-- Expects: table source (01-source.sql) and the variables
--   SET VARIABLE added_table = 'steady_named';   -- config_id, replication and the columns
--   SET VARIABLE added_columns = ['efficiency_steady'];
-- A run the table lacks gets NULL (the value checks then name it).
CREATE OR REPLACE TEMP TABLE added_columns AS
FROM query(
    'SELECT config_id, replication'
    || array_to_string([', ' || quoted(c) for c IN getvariable('added_columns')], '')
    || ' FROM ' || quoted(getvariable('added_table'))
);
CREATE OR REPLACE TEMP TABLE source AS
SELECT s.* EXCLUDE (position) FROM (
    SELECT src.*, a.* EXCLUDE (config_id, replication), src.rowid AS position
    FROM source src LEFT JOIN added_columns a USING (config_id, replication)
) s
ORDER BY s.position;
