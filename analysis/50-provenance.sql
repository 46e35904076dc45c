-- provenance: what ran, where and when, from the provenance columns of source (a study's
-- runs.parquet), as the report shows it: one row per fact, (label, value) in the report's order.
-- A column with several values lists each with its number of runs, in order of first
-- appearance. A fact whose columns the store lacks reads 'not recorded'; the configurations and
-- the wall time are left out instead.
-- Expects: table source (01-source.sql).
CREATE OR REPLACE TEMP TABLE provenance AS
WITH
recorded AS (
    SELECT list(column_name) AS names
    FROM information_schema.columns
    WHERE table_catalog = 'temp' AND table_name = 'source'
),
runs AS (
    -- every provenance column, NULL where source lacks it (`recorded` tells which)
    SELECT rowid AS row_id, * FROM source
    UNION ALL BY NAME
    SELECT
        NULL AS config_id, NULL AS git_commit, NULL AS git_dirty, NULL AS program,
        NULL AS program_version, NULL AS program_sha256, NULL AS satsweep_version, NULL AS host,
        NULL AS started_at, NULL AS elapsed_seconds, NULL AS engine
    WHERE false
),
facts(item, label, needs, if_missing) AS (
    VALUES
        (1, 'runs', []::VARCHAR[], NULL),
        (2, 'configurations', ['config_id'], NULL),
        (3, 'replications per configuration', ['config_id'], NULL),
        (4, 'git commit', ['git_commit', 'git_dirty'], 'not recorded'),
        (5, 'program and version', ['program', 'program_version'], 'not recorded'),
        (6, 'program sha256', ['program_sha256'], 'not recorded'),
        (7, 'engine', ['engine'], 'not recorded'),
        (8, 'satsweep version (runs)', ['satsweep_version'], 'not recorded'),
        (9, 'hosts', ['host'], 'not recorded'),
        (10, 'first run started (UTC)', ['started_at'], 'not recorded'),
        (11, 'last run started (UTC)', ['started_at'], 'not recorded'),
        (12, 'program wall time (sum over the runs)', ['elapsed_seconds'], NULL)
),
per_config AS (
    SELECT config_id, count(*) AS n FROM runs GROUP BY config_id
),
texts(item, value, n_runs, first_row) AS (
    SELECT 1, CAST(count(*) AS VARCHAR), NULL, NULL FROM runs
    UNION ALL
    SELECT 2, CAST(count(*) AS VARCHAR), NULL, NULL FROM per_config
    UNION ALL
    SELECT 3, CASE WHEN min(n) = max(n) THEN min(n) || '' ELSE min(n) || ' to ' || max(n) END,
        NULL, NULL
    FROM per_config
    UNION ALL
    SELECT
        4,
        coalesce(nullif(CAST(git_commit AS VARCHAR), ''), 'unknown') || ' ('
            || CASE
                WHEN git_dirty IS NULL THEN 'unknown'
                WHEN CAST(git_dirty AS BOOLEAN) THEN 'dirty'
                ELSE 'clean'
            END
            || ' working tree)',
        count(*),
        min(row_id)
    FROM runs
    GROUP BY git_commit, git_dirty
    UNION ALL
    SELECT
        5,
        coalesce(CAST(program AS VARCHAR), 'unknown') || ' '
            || coalesce(CAST(program_version AS VARCHAR), 'unknown'),
        count(*),
        min(row_id)
    FROM runs GROUP BY program, program_version
    UNION ALL
    SELECT 6, coalesce(CAST(program_sha256 AS VARCHAR), 'unknown'), count(*), min(row_id)
    FROM runs GROUP BY program_sha256
    UNION ALL
    -- NULL: a program on no engine satsweep knows (a plain contract program)
    SELECT 7, coalesce(CAST(engine AS VARCHAR), 'none'), count(*), min(row_id)
    FROM runs GROUP BY engine
    UNION ALL
    SELECT 8, coalesce(CAST(satsweep_version AS VARCHAR), 'unknown'), count(*), min(row_id)
    FROM runs GROUP BY satsweep_version
    UNION ALL
    SELECT 9, coalesce(CAST(host AS VARCHAR), 'unknown'), count(*), min(row_id)
    FROM runs GROUP BY host
    UNION ALL
    SELECT 10, coalesce(CAST(min(started_at) AS VARCHAR), 'unknown'), NULL, NULL FROM runs
    UNION ALL
    SELECT 11, coalesce(CAST(max(started_at) AS VARCHAR), 'unknown'), NULL, NULL FROM runs
    UNION ALL
    SELECT 12, coalesce(format('{:.1f} s', sum(elapsed_seconds)), 'n/a'), NULL, NULL FROM runs
)
SELECT label, value
FROM (
    SELECT
        f.item,
        f.label,
        CASE
            WHEN NOT list_has_all(r.names, f.needs) THEN f.if_missing
            WHEN count(*) = 1 THEN any_value(t.value)
            ELSE string_agg(t.value || ' (' || t.n_runs || ' runs)', '; ' ORDER BY t.first_row)
        END AS value
    FROM facts AS f
    CROSS JOIN recorded AS r
    JOIN texts AS t USING (item)
    GROUP BY f.item, f.label, f.needs, f.if_missing, r.names
)
WHERE value IS NOT NULL
ORDER BY item;
