-- cells: one row per cell of the design (a combination of one level of every factor) with its
-- number of runs, mean response, sample standard deviation (NULL with one run; the report's
-- results table) and within-cell sum of squares (the replication, or "pure", error).
-- Expects: table design (10-design.sql), whose obs_id is the row's position in the source (it
-- fixes the "first appearance" order of cells and levels).
-- Output: cell_id (by first appearance), the factor columns, n_obs, cell_mean, cell_sd,
-- within_ss, first_obs.
CREATE OR REPLACE TEMP TABLE cells AS
SELECT
    row_number() OVER (ORDER BY first_obs) AS cell_id,
    *
FROM (
    SELECT
        * EXCLUDE (obs_id, y),
        count(*) AS n_obs,
        avg(y) AS cell_mean,
        stddev_samp(y) AS cell_sd,
        var_pop(y) * count(*) AS within_ss,
        min(obs_id) AS first_obs
    FROM design
    GROUP BY ALL
)
ORDER BY cell_id;
