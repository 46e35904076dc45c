-- factors: the factors of the design in the order of the design table's columns (position
-- 1..k), with their number of levels N_A.
-- Expects: table design (its column order), table cell_levels (21-cell_levels.sql).
CREATE OR REPLACE TEMP TABLE factors AS
WITH design_columns AS (
    SELECT column_name AS factor, ordinal_position
    FROM information_schema.columns
    WHERE table_name = 'design' AND column_name NOT IN ('obs_id', 'y')
    -- a temporary `design` shadows one of the same name in the database
    QUALIFY row_number() OVER (PARTITION BY column_name ORDER BY table_catalog <> 'temp') = 1
)
SELECT
    d.factor,
    row_number() OVER (ORDER BY d.ordinal_position)::INTEGER AS position,
    count(DISTINCT cl.level) AS n_levels
FROM design_columns AS d
JOIN cell_levels AS cl USING (factor)
GROUP BY d.factor, d.ordinal_position
ORDER BY position;
