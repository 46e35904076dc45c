-- confidence_intervals: the main effects with their standard deviation
-- s_A = se x sqrt((N_A - 1) / n) and confidence interval effect +- t x s_A (Jain 1991), where se
-- is the standard error of the chosen error model and t the two-sided t quantile at its degrees
-- of freedom (t(0.95; dof) for 90% confidence). A level is significant when its interval excludes
-- 0. Interval and significance are NULL when the model leaves no degree of freedom for the error,
-- and when t_quantile is not set.
-- Expects: tables summary, factors, main_effects, error_term, and two variables:
--   SET VARIABLE error_model = 'first-order';   -- or 'full'; 'first-order' when not set
--   SET VARIABLE t_quantile = 1.9431802805153;  -- scipy.stats.t.ppf(0.95, dof), dof from error_term
CREATE OR REPLACE TEMP TABLE confidence_intervals AS
WITH spread AS (
    SELECT
        e.factor,
        e.position,
        e.level,
        e.level_order,
        e.effect,
        err.standard_error * sqrt((f.n_levels - 1) / s.n) AS effect_sd,
        CAST(getvariable('t_quantile') AS DOUBLE) AS t
    FROM main_effects AS e
    JOIN factors AS f USING (factor)
    JOIN error_term AS err ON err.model = coalesce(getvariable('error_model'), 'first-order')
    CROSS JOIN summary AS s
)
SELECT
    factor,
    position,
    level,
    level_order,
    effect,
    effect_sd,
    effect - t * effect_sd AS ci_low,
    effect + t * effect_sd AS ci_high,
    (effect - t * effect_sd > 0 OR effect + t * effect_sd < 0) AS significant
FROM spread
ORDER BY position, level_order;
