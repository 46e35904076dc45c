-- main_effects: the effect of every level of every factor, i.e. the mean response of the runs at
-- that level minus the overall mean (Jain 1991). In a balanced design the mean of the runs at a
-- level equals the mean of the cell means at that level, which is what is averaged here.
-- Expects: tables summary, cells, cell_levels, levels.
CREATE OR REPLACE TEMP TABLE main_effects AS
SELECT
    l.factor,
    l.position,
    l.level,
    l.level_order,
    avg(c.cell_mean) - any_value(s.mean) AS effect
FROM levels AS l
JOIN cell_levels AS cl USING (factor, level)
JOIN cells AS c USING (cell_id)
CROSS JOIN summary AS s
GROUP BY l.factor, l.position, l.level, l.level_order
ORDER BY l.position, l.level_order;
