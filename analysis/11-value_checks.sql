-- value_checks: why the runs in design cannot be analysed, one message per problem in the order
-- the runner reports them (it raises the first): no runs, missing (NULL) levels per factor in
-- factor order, a missing response, a NaN or infinite response. Empty when the values are fine.
-- Expects: table design (10-design.sql), the variables response and factors.
CREATE OR REPLACE TEMP TABLE value_checks AS
WITH
totals AS (
    SELECT
        count(*) AS n_runs,
        count(*) FILTER (WHERE y IS NULL) AS missing_y,
        count(*) FILTER (WHERE NOT isfinite(y)) AS not_finite
    FROM design
),
missing_levels AS (
    UNPIVOT (SELECT count(*) FILTER (WHERE COLUMNS(* EXCLUDE (obs_id, y)) IS NULL) FROM design)
    ON COLUMNS(*)
    INTO NAME factor VALUE missing
),
problems AS (
    SELECT 0 AS check_order, 'no runs to analyse' AS message
    FROM totals
    WHERE n_runs = 0
    UNION ALL
    SELECT
        list_position(getvariable('factors'), factor),
        format('column ''{}'' has {} missing value(s)', factor, missing)
    FROM missing_levels
    WHERE missing > 0
    UNION ALL
    SELECT
        len(getvariable('factors')) + 1,
        format('column ''{}'' has {} missing value(s)', getvariable('response'), missing_y)
    FROM totals
    WHERE missing_y > 0
    UNION ALL
    SELECT
        len(getvariable('factors')) + 2,
        format(
            'response column ''{}'' has {} NaN or infinite value(s)',
            getvariable('response'),
            not_finite
        )
    FROM totals
    WHERE not_finite > 0
)
SELECT message
FROM problems
ORDER BY check_order;
