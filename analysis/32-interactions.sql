-- interactions: the first-order interaction of every pair of levels (a of factor A, b of factor
-- B, A before B in factor order): mean of the runs at (a, b) - overall mean - effect(a) -
-- effect(b) (Jain 1991).
-- In a fraction only the pairs that represent their alias set (24-aliases.sql): the
-- interaction is then the estimate of the set's sum.
-- Expects: tables summary, cells, cell_levels, factors, main_effects, aliases.
CREATE OR REPLACE TEMP TABLE interactions AS
SELECT
    a.factor AS factor_a,
    a.level AS level_a,
    b.factor AS factor_b,
    b.level AS level_b,
    avg(c.cell_mean) - any_value(s.mean) - any_value(ea.effect) - any_value(eb.effect)
        AS interaction
FROM cell_levels AS a
JOIN cell_levels AS b ON b.cell_id = a.cell_id
JOIN factors AS fa ON fa.factor = a.factor
JOIN factors AS fb ON fb.factor = b.factor AND fa.position < fb.position
JOIN cells AS c ON c.cell_id = a.cell_id
JOIN main_effects AS ea ON ea.factor = a.factor AND ea.level = a.level
JOIN main_effects AS eb ON eb.factor = b.factor AND eb.level = b.level
CROSS JOIN summary AS s
WHERE (1::BIGINT << (fa.position - 1)) | (1::BIGINT << (fb.position - 1))
    NOT IN (SELECT word FROM aliases WHERE word <> representative)
GROUP BY a.factor, a.level, b.factor, b.level, fa.position, fb.position, ea.level_order,
    eb.level_order
ORDER BY fa.position, fb.position, ea.level_order, eb.level_order;
