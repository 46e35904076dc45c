-- design_checks: why design is not a balanced full factorial that the chosen error model can
-- analyse, one message per problem in the order the runner reports them (it raises the first):
-- a factor with a single level, two factors aliased with each other (a fraction of resolution
-- II: every run has the same or the opposite levels of both), then the first of design_problems
-- (with the number of others), then model 'full' without replications. Empty when the design
-- is fine.
-- Expects: tables cells, factors, levels, aliases, design_problems, and the variable error_model
-- ('first-order' when not set).
CREATE OR REPLACE TEMP TABLE design_checks AS
WITH
first_problem AS (
    SELECT
        *,
        CASE
            WHEN count(*) OVER () > 1
                THEN format(' (and {} more cell(s) with a problem)', count(*) OVER () - 1)
            ELSE ''
        END AS more
    FROM design_problems
    QUALIFY row_number() OVER (ORDER BY rowid) = 1
),
problems AS (
    SELECT
        f.position AS check_order,
        format(
            'factor ''{}'' has a single level (''{}''); a factor needs at least 2',
            f.factor,
            l.level
        ) AS message
    FROM factors AS f
    JOIN levels AS l USING (factor)
    WHERE f.n_levels < 2
    UNION ALL
    SELECT
        (SELECT count(*) FROM factors) + 1,
        format(
            'factors ''{}'' and ''{}'' are aliased (I = {}): their main effects are one '
            || 'estimate; analyse one of them, or run a fraction of resolution III or more',
            fa.factor, fb.factor, CASE WHEN a.sign < 0 THEN '-' ELSE '' END || a.term
        )
    FROM aliases AS a
    JOIN factors AS fa ON fa.position = a.positions[1]
    JOIN factors AS fb ON fb.position = a.positions[2]
    WHERE a.representative = 0 AND a."order" = 2
    UNION ALL
    SELECT
        (SELECT count(*) FROM factors) + 2,
        CASE problem
            WHEN 'missing' THEN format(
                'not a {}: no runs for cell {}; every combination of levels {}needs {} run(s){}',
                CASE WHEN fraction = '' THEN 'full factorial design'
                    ELSE 'complete fraction (' || fraction || ')' END,
                cell,
                CASE WHEN fraction = '' THEN '' ELSE 'of the fraction ' END,
                expected, more
            )
            ELSE format(
                'unbalanced design: cell {} has {} run(s), the other cells have {}{}',
                cell, n_obs, expected, more
            )
        END
    FROM first_problem, (
        SELECT coalesce(any_value(alias_set) FILTER (representative = 0), '') AS fraction
        FROM aliases
    ) AS d
    UNION ALL
    SELECT
        (SELECT count(*) FROM factors) + 3,
        format(
            'model ''full'' needs replications (r >= 2 runs per cell, here r = {}): its error '
            || 'is the variation within cells; use model ''first-order''',
            r
        )
    FROM (SELECT min(n_obs) AS r FROM cells)
    WHERE coalesce(getvariable('error_model'), 'first-order') = 'full' AND r < 2
)
SELECT message
FROM problems
ORDER BY check_order;
