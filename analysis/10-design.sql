-- design: the input of the analysis, one row per run of source (of one group with by_column):
--   design(obs_id BIGINT, y DOUBLE, <one VARCHAR column per factor, in the order of factors>)
-- obs_id is the run's rowid in source (it orders cells and levels by first appearance), y the
-- response, and each factor column holds the level as text (level_text). The order of the
-- factors orders the terms of the analysis; it never changes a number.
-- Expects: table source, macros, and the variables
--   SET VARIABLE response = 'efficiency';
--   SET VARIABLE factors = ['flavor', 'drop'];
--   SET VARIABLE by_column = 'link';   -- optional: only the runs whose link, as text, is
--   SET VARIABLE by_value = 'wan';     -- by_value
-- The columns are named by variables, so the statement is built as text and run by query().
CREATE OR REPLACE TEMP TABLE design AS
FROM query(
    'SELECT rowid AS obs_id, CAST(' || quoted(getvariable('response')) || ' AS DOUBLE) AS y'
    || array_to_string(
        [', level_text(' || quoted(f) || ') AS ' || quoted(f) for f IN getvariable('factors')],
        ''
    )
    || ' FROM source'
    || CASE
        WHEN getvariable('by_column') IS NULL THEN ''
        ELSE ' WHERE level_text(' || quoted(getvariable('by_column')) || ') = '
            || 'level_text(getvariable(''by_value''))'
    END
);
