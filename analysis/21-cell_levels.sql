-- cell_levels: the cells in long form, one row per (cell, factor) with the cell's level of that
-- factor. Long form lets the following queries serve any number of factors.
-- Expects: table cells (20-cells.sql).
CREATE OR REPLACE TEMP TABLE cell_levels AS
SELECT cell_id, factor, level
FROM (
    UNPIVOT cells
    ON COLUMNS(* EXCLUDE (cell_id, n_obs, cell_mean, cell_sd, within_ss, first_obs))
    INTO NAME factor VALUE level
);
