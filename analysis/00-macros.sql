-- macros: what the other files, the runner (satsweep/analysis) and the report share.
--   level_text(x): a value as the text that keys a level, a cell or a group: numbers without
--       trailing zeros (1.0 -> '1', 0.5 -> '0.5'; FLOAT and DECIMAL via DOUBLE), booleans
--       'true'/'false', strings as they are, NULL stays NULL.
--   quoted(name): a column or table name as an SQL identifier, for the statements that
--       10-design.sql and its siblings build from variables.
--   word_sign(word, plus): the sign of a word of two-level factors (a bit mask over factor
--       positions, bit p - 1 for position p) in a cell whose factors at their second level
--       (+1; the first is -1) are the bits of plus: the product of the word's factors' signs.
-- TRY_CAST: the DOUBLE branch never runs for other types, but it must bind for every type.
CREATE OR REPLACE TEMP MACRO level_text(x) AS
    CASE
        WHEN typeof(x) NOT IN ('FLOAT', 'DOUBLE') AND NOT starts_with(typeof(x), 'DECIMAL')
            THEN CAST(x AS VARCHAR)
        WHEN TRY_CAST(x AS DOUBLE) = trunc(TRY_CAST(x AS DOUBLE))
            AND abs(TRY_CAST(x AS DOUBLE)) < 1e15
            THEN CAST(CAST(TRY_CAST(x AS DOUBLE) AS BIGINT) AS VARCHAR)
        ELSE CAST(TRY_CAST(x AS DOUBLE) AS VARCHAR)
    END;

CREATE OR REPLACE TEMP MACRO quoted(name) AS '"' || replace(name, '"', '""') || '"';

CREATE OR REPLACE TEMP MACRO word_sign(word, plus) AS
    CASE WHEN (bit_count(word) - bit_count(word & plus)) % 2 = 0 THEN 1 ELSE -1 END;
