-- source_columns: the columns of source in order, with their type and whether it is numeric
-- (a response must be). The runner checks the names it is given against this table.
-- Expects: table source (01-source.sql).
CREATE OR REPLACE TEMP TABLE source_columns AS
SELECT
    column_name,
    data_type,
    data_type IN (
        'TINYINT', 'SMALLINT', 'INTEGER', 'BIGINT', 'HUGEINT',
        'UTINYINT', 'USMALLINT', 'UINTEGER', 'UBIGINT', 'UHUGEINT', 'FLOAT', 'DOUBLE'
    ) OR starts_with(data_type, 'DECIMAL') AS is_numeric
FROM information_schema.columns
WHERE table_catalog = 'temp' AND table_name = 'source'
ORDER BY ordinal_position;
