-- interaction_intervals: the first-order interactions (32-interactions.sql) with their
-- standard deviation s_AB = se x sqrt((N_A - 1) (N_B - 1) / n) and confidence interval
-- interaction +- t x s_AB (Jain 1991, ch. 21-22: the two-factor design with replications; in a
-- balanced design of more factors each (a, b) mean averages n / (N_A N_B) runs alike), with se
-- and t as in 40-confidence_intervals.sql. A pair of levels is significant when its interval
-- excludes 0: the levels do not add up there. NULL intervals under the same conditions as 40's.
-- Expects: tables summary, factors, main_effects, interactions, error_term, and the variables error_model and
-- t_quantile of 40-confidence_intervals.sql.
CREATE OR REPLACE TEMP TABLE interaction_intervals AS
WITH spread AS (
    SELECT
        i.factor_a,
        i.level_a,
        i.factor_b,
        i.level_b,
        i.interaction,
        err.standard_error * sqrt((fa.n_levels - 1) * (fb.n_levels - 1) / s.n) AS interaction_sd,
        CAST(getvariable('t_quantile') AS DOUBLE) AS t,
        fa.position AS position_a,
        fb.position AS position_b,
        ea.level_order AS order_a,
        eb.level_order AS order_b
    FROM interactions AS i
    JOIN factors AS fa ON fa.factor = i.factor_a
    JOIN factors AS fb ON fb.factor = i.factor_b
    JOIN main_effects AS ea ON ea.factor = i.factor_a AND ea.level = i.level_a
    JOIN main_effects AS eb ON eb.factor = i.factor_b AND eb.level = i.level_b
    JOIN error_term AS err ON err.model = coalesce(getvariable('error_model'), 'first-order')
    CROSS JOIN summary AS s
)
SELECT
    factor_a,
    level_a,
    factor_b,
    level_b,
    interaction,
    interaction_sd,
    interaction - t * interaction_sd AS ci_low,
    interaction + t * interaction_sd AS ci_high,
    (interaction - t * interaction_sd > 0 OR interaction + t * interaction_sd < 0) AS significant
FROM spread
ORDER BY position_a, position_b, order_a, order_b;
