-- summary: the design's totals. n runs; the overall mean; SSY = sum of y^2
-- (sum_squares_total_values); SS0 = n * mean^2 (sum_squares_mean); SST = SSY - SS0, computed as
-- the sum of squared deviations from the mean (total_variation); the number of cells and of runs
-- per cell (replications r; for a balanced design every cell has r runs).
-- Expects: tables design, cells.
CREATE OR REPLACE TEMP TABLE summary AS
SELECT
    count(*) AS n,
    avg(y) AS mean,
    sum(y * y) AS sum_squares_total_values,
    count(*) * avg(y) * avg(y) AS sum_squares_mean,
    var_pop(y) * count(*) AS total_variation,
    (SELECT count(*) FROM cells) AS n_cells,
    (SELECT min(n_obs) FROM cells) AS replications
FROM design;
