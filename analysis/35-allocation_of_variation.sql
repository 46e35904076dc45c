-- allocation_of_variation: the share of the total variation SST explained by each term of the
-- model, and by the error, in percent (Jain 1991), for both error models:
--   'first-order': the factors and the pairs of factors, then the error;
--   'full': the factors, the pairs, the higher-order interactions ('a:b:c', ...), then the error.
-- percent is NULL when SST = 0 (a constant response).
-- Expects: tables summary, sums_of_squares, error_term.
-- Output: model, term_order (row order within a model), term ('error' for the error), "order"
-- (number of factors in the term; NULL for the error), ss, dof, percent.
CREATE OR REPLACE TEMP TABLE allocation_of_variation AS
WITH
models AS (
    SELECT 'first-order' AS model, 2 AS max_order
    UNION ALL
    SELECT 'full', (SELECT max("order") FROM sums_of_squares)
),
rows AS (
    SELECT m.model, t.term, t."order", t.positions, t.ss, t.dof
    FROM models AS m
    JOIN sums_of_squares AS t ON t."order" <= m.max_order
    UNION ALL
    SELECT e.model, 'error', NULL, NULL, e.ss, e.dof
    FROM error_term AS e
)
SELECT
    r.model,
    row_number() OVER (
        PARTITION BY r.model ORDER BY r."order" NULLS LAST, r.positions
    )::INTEGER AS term_order,
    r.term,
    r."order",
    r.ss,
    r.dof,
    100.0 * r.ss / nullif(s.total_variation, 0) AS percent
FROM rows AS r, summary AS s
ORDER BY r.model, term_order;
