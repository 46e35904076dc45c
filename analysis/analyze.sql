-- analyze.sql: the whole analysis in the duckdb shell, the numbered files in order. Run it from
-- the repository root (the paths below are relative to the shell's working directory) after
-- setting the variables, e.g.
--   SET VARIABLE source = 'results/smoke/runs.parquet';
--   SET VARIABLE response = 'efficiency';
--   SET VARIABLE factors = ['flavor', 'drop'];
--   .read analysis/analyze.sql
-- Optional: by_column and by_value (one group, see 10-design.sql), error_model ('first-order'
-- or 'full') and t_quantile (the intervals, see 40-confidence_intervals.sql). The checks do not
-- stop the script: value_checks and design_checks must be empty, else the numbers mean nothing.
.read analysis/00-macros.sql
.read analysis/01-source.sql
.read analysis/02-source_columns.sql
.read analysis/05-groups.sql
.read analysis/10-design.sql
.read analysis/11-value_checks.sql
.read analysis/20-cells.sql
.read analysis/21-cell_levels.sql
.read analysis/22-factors.sql
.read analysis/23-levels.sql
.read analysis/24-aliases.sql
.read analysis/25-design_problems.sql
.read analysis/26-design_checks.sql
.read analysis/27-cell_runs.sql
.read analysis/30-summary.sql
.read analysis/31-main_effects.sql
.read analysis/32-interactions.sql
.read analysis/33-sums_of_squares.sql
.read analysis/34-error_term.sql
.read analysis/35-allocation_of_variation.sql
.read analysis/40-confidence_intervals.sql
.read analysis/41-interaction_intervals.sql
