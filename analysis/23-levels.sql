-- levels: every level of every factor, numbered per factor in order of first appearance in the
-- source (level_order 1, 2, ...).
-- Expects: tables cells, cell_levels, factors.
CREATE OR REPLACE TEMP TABLE levels AS
SELECT
    cl.factor,
    f.position,
    cl.level,
    row_number() OVER (PARTITION BY cl.factor ORDER BY min(c.first_obs))::INTEGER AS level_order,
    min(c.first_obs) AS first_obs
FROM cell_levels AS cl
JOIN cells AS c USING (cell_id)
JOIN factors AS f USING (factor)
GROUP BY cl.factor, f.position, cl.level
ORDER BY f.position, level_order;
