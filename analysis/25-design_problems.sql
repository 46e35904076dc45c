-- design_problems: what keeps the data from being a balanced full factorial design, or a
-- balanced regular fraction of one. One row per missing cell (a combination of levels without
-- runs; in a fraction, a combination whose signs agree with its defining relation,
-- 24-aliases.sql) and per cell whose number of runs differs from the most common one. Empty for
-- a balanced full factorial or fraction.
-- Expects: tables cells, cell_levels, factors, levels, aliases; macro word_sign.
-- Output: problem ('missing' | 'unbalanced'), cell (e.g. 'flavor=SACK, buffer=2, drop=SD'),
-- n_obs (runs in the cell), expected (runs a cell should have).
CREATE OR REPLACE TEMP TABLE design_problems AS
WITH RECURSIVE
-- every combination of levels, built one factor at a time (level lists in factor order)
combinations(position, levels, orders, plus) AS (
    SELECT 0, []::VARCHAR[], []::INTEGER[], 0::BIGINT
    UNION ALL
    SELECT
        f.position,
        list_append(c.levels, l.level),
        list_append(c.orders, l.level_order),
        -- the factors at their second level, as a mask (word_sign)
        c.plus | CASE WHEN l.level_order = 2 THEN 1::BIGINT << (f.position - 1) ELSE 0 END
    FROM combinations AS c
    JOIN factors AS f ON f.position = c.position + 1
    JOIN levels AS l ON l.factor = f.factor
),
observed AS (
    SELECT c.cell_id, list(cl.level ORDER BY f.position) AS levels, c.n_obs
    FROM cells AS c
    JOIN cell_levels AS cl USING (cell_id)
    JOIN factors AS f USING (factor)
    GROUP BY c.cell_id, c.n_obs
),
typical AS (
    -- the most common number of runs per cell (ties: the larger)
    SELECT n_obs AS r FROM cells GROUP BY n_obs ORDER BY count(*) DESC, n_obs DESC LIMIT 1
),
problems AS (
    SELECT 'missing' AS problem, c.levels, c.orders, 0 AS n_obs, t.r AS expected
    FROM combinations AS c, typical AS t
    WHERE c.position = (SELECT max(position) FROM factors)
      AND c.levels NOT IN (SELECT levels FROM observed)
      AND NOT EXISTS (
          SELECT 1 FROM aliases AS a
          WHERE a.representative = 0 AND word_sign(a.word, c.plus) <> a.sign
      )
    UNION ALL
    SELECT 'unbalanced', o.levels, NULL, o.n_obs, t.r
    FROM observed AS o, typical AS t
    WHERE o.n_obs <> t.r
)
SELECT
    p.problem,
    string_agg(f.factor || '=' || p.levels[f.position], ', ' ORDER BY f.position) AS cell,
    p.n_obs,
    p.expected
FROM problems AS p, factors AS f
GROUP BY p.problem, p.levels, p.orders, p.n_obs, p.expected
ORDER BY p.problem, p.orders, cell;
