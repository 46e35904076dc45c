-- source: the runs to analyse, one row per run, as a table: its rowid keeps the order of the
-- file, which orders levels, cells and groups by first appearance.
-- Expects: macros (00-macros.sql) and the variable source, a Parquet file (name ending in
-- .parquet or .pq), a CSV file (.csv, .tsv, .txt, .csv.gz, .tsv.gz) or the name of a table or
-- view, e.g.
--   SET VARIABLE source = 'results/smoke/runs.parquet';
-- With the variable max_replication set, only the runs of replications 1..max_replication: the
-- balanced part of a precision campaign whose configurations have their own replications
-- (docs/precision.md), which the factorial analysis needs.
CREATE OR REPLACE TEMP TABLE source AS
FROM query(
    CASE
        WHEN regexp_matches(lower(getvariable('source')), '\.(parquet|pq)$')
            THEN 'FROM read_parquet(getvariable(''source''))'
        WHEN regexp_matches(lower(getvariable('source')), '\.(csv|tsv|txt|csv\.gz|tsv\.gz)$')
            THEN 'FROM read_csv_auto(getvariable(''source''))'
        ELSE 'FROM ' || quoted(getvariable('source'))
    END
    || CASE
        WHEN getvariable('max_replication') IS NULL THEN ''
        ELSE ' WHERE replication <= getvariable(''max_replication'')'
    END
);
