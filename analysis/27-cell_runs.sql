-- cell_runs: one run of every cell (its first in the source), whole: every column of the
-- source, for what needs a cell's parameters and not only its mean (the report's theory).
-- Expects: tables source (01-source.sql) and cells (20-cells.sql).
-- Output: cell_id, then the source's columns.
CREATE OR REPLACE TEMP TABLE cell_runs AS
SELECT cells.cell_id, source.*
FROM cells
JOIN source ON source.rowid = cells.first_obs
ORDER BY cells.cell_id;
