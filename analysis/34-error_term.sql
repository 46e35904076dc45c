-- error_term: the error sum of squares, its degrees of freedom and the standard error
-- se = sqrt(SSE / dof) under each error model:
--   'first-order': everything not explained by the mean, the main effects and the first-order
--       interactions (Jain 1991; the paper's method with one run per cell):
--       SSE = SST - sum of SS of factors and pairs, dof = n - 1 - sum(N_A - 1)
--       - sum over pairs (N_A - 1)(N_B - 1);
--   'full': all interactions are in the model and the error is the replication (pure) error:
--       SSE = sum over cells of the squared deviations from the cell mean, dof = n - cells
--       (needs r >= 2 runs per cell).
-- standard_error is NULL when no degree of freedom is left for the error.
-- Expects: tables summary, cells, sums_of_squares.
CREATE OR REPLACE TEMP TABLE error_term AS
WITH models AS (
    SELECT
        'first-order' AS model,
        -- clamp the rounding noise of a subtraction that should give 0 for an exact fit
        greatest(s.total_variation - coalesce(sum(ss.ss), 0), 0.0) AS ss,
        s.n - 1 - coalesce(sum(ss.dof), 0) AS dof
    FROM summary AS s
    LEFT JOIN sums_of_squares AS ss ON ss."order" <= 2
    GROUP BY s.total_variation, s.n
    UNION ALL
    SELECT 'full', (SELECT sum(within_ss) FROM cells), s.n - s.n_cells
    FROM summary AS s
)
SELECT
    model,
    ss,
    dof::BIGINT AS dof,
    CASE WHEN dof > 0 THEN sqrt(ss / dof) END AS standard_error
FROM models
ORDER BY model;
