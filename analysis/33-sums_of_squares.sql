-- sums_of_squares: the variation explained by every term of the full factorial model: each factor
-- (order 1), each pair of factors (order 2, the first-order interactions), each triple (order 3),
-- ... up to the interaction of all k factors, with its degrees of freedom.
-- For a factor this is (runs per level) x sum of its effects^2 and for a pair (runs per cell of
-- the pair) x sum of its interactions^2 (Jain 1991). Here it is computed for any set S of factors
-- from the cell means by inclusion-exclusion:
--   SS_S = sum over the non-empty subsets T of S of (-1)^(|S| - |T|) x B_T,
--   B_T  = sum over the level combinations g of T of (runs at g) x (mean at g - overall mean)^2,
-- B_T being the variation between the margins of T, which holds SS_T and the SS of all terms
-- inside T (the terms of a balanced design are orthogonal, so the alternating sum isolates SS_S).
-- In a fraction (24-aliases.sql) only one term per alias set is kept, its representative (the
-- word of fewest factors): its SS is the set's, n x q^2 for the sign table's estimate q (no
-- subset of a representative is aliased with another or with I, so its margins are a full
-- factorial and the same alternating sum holds). A full factorial has no aliases: every term.
-- Expects: tables summary, cells, cell_levels, factors, aliases.
-- Output: term ('a', 'a:b', 'a:b:c': factor names in factor order), "order" (number of factors),
-- positions (their positions), ss, dof (product of N_A - 1 over the term's factors).
CREATE OR REPLACE TEMP TABLE sums_of_squares AS
WITH
masks AS (
    -- every non-empty subset of the k factors as a bit mask (bit p-1 = factor at position p)
    SELECT unnest(range(1::BIGINT, 1::BIGINT << count(*))) AS mask FROM factors
),
subsets AS (
    SELECT
        m.mask,
        list(f.position ORDER BY f.position) AS positions,
        string_agg(f.factor, ':' ORDER BY f.position) AS term,
        count(*)::INTEGER AS "order",
        product(f.n_levels - 1)::BIGINT AS dof
    FROM masks AS m
    JOIN factors AS f ON (m.mask >> (f.position - 1)) & 1 = 1
    GROUP BY m.mask
),
terms AS (
    -- a fraction's terms: one per alias set (every subset in a full factorial)
    FROM subsets
    WHERE mask NOT IN (SELECT word FROM aliases WHERE word <> representative)
),
cell_keys AS (
    SELECT c.cell_id, c.cell_mean, list(cl.level ORDER BY f.position) AS levels
    FROM cells AS c
    JOIN cell_levels AS cl USING (cell_id)
    JOIN factors AS f USING (factor)
    GROUP BY c.cell_id, c.cell_mean
),
margins AS (
    -- mean response at every level combination of every subset of factors
    SELECT t.mask, avg(k.cell_mean) AS margin_mean, count(*) AS n_cells
    FROM subsets AS t, cell_keys AS k
    GROUP BY t.mask, list_select(k.levels, t.positions)
),
between_margins AS (
    SELECT m.mask, sum(m.n_cells * s.replications * (m.margin_mean - s.mean) ^ 2) AS b
    FROM margins AS m, summary AS s
    GROUP BY m.mask
)
SELECT
    t.term,
    t."order",
    t.positions,
    -- clamp the rounding noise of the alternating sum (a true SS is never negative)
    greatest(
        sum(CASE WHEN (t."order" - bit_count(b.mask)) % 2 = 0 THEN b.b ELSE -b.b END), 0.0
    ) AS ss,
    t.dof
FROM terms AS t
JOIN between_margins AS b ON (b.mask & t.mask) = b.mask
GROUP BY t.term, t."order", t.positions, t.dof
ORDER BY t."order", t.positions;
