-- groups: the values of the column named by the variable by_column as text (level_text), in
-- order of first appearance; one analysis per group (`--by`). Empty when by_column is not set.
-- Expects: table source, macros, the variable by_column, e.g.
--   SET VARIABLE by_column = 'link';
CREATE OR REPLACE TEMP TABLE groups AS
FROM query(
    CASE
        WHEN getvariable('by_column') IS NULL THEN 'SELECT NULL::VARCHAR AS by_value LIMIT 0'
        ELSE 'SELECT level_text(' || quoted(getvariable('by_column')) || ') AS by_value '
            || 'FROM source GROUP BY by_value ORDER BY min(rowid)'
    END
);
