-- aliases: the alias structure of a regular fraction of two-level factors (Jain 1991, ch. 19),
-- read from the cells that have runs. A word is a set of factors, a bit mask over positions
-- (bit p - 1 for position p); its sign in a cell is the product of its factors' signs, the
-- first level of a factor (level_order 1) -1 and the second +1. The defining relation is the
-- words whose sign is the same in every cell (I = a:b:d, or I = -a:b:d); the alias set of a word
-- is its products with them, and the sign table estimates one sum per set:
--   q(estimate of w) = sum over the words v of w's set of sign(v) x q(v).
-- One row per word (not I) that is aliased: its set's representative (the word of fewest
-- factors, first by position: the term 33-sums_of_squares.sql keeps), its sign in the
-- representative's estimate, and the set as text ('a = b:d = -c:e', the representative first);
-- a word of the defining relation has representative 0 ('I', the mean).
-- Empty for a full factorial, for factors with more than two levels (they are analysed only as
-- a full factorial) and beyond 20 factors.
-- Expects: tables cells, cell_levels, factors, levels; macro word_sign.
-- Output: word (mask), term, "order", positions, representative (mask), sign, alias_set.
CREATE OR REPLACE TEMP TABLE aliases AS
WITH
shape AS (
    SELECT count(*) AS k, bool_and(n_levels = 2) AS two_level FROM factors
),
cell_plus AS (
    -- each cell's factors at their second level, as a mask
    SELECT cl.cell_id, sum(CASE WHEN l.level_order = 2 THEN 1::BIGINT << (l.position - 1) ELSE 0 END) AS plus
    FROM cell_levels AS cl
    JOIN levels AS l USING (factor, level)
    GROUP BY cl.cell_id
),
words AS (
    -- every word but I, when the cells are fewer than the full factorial's
    SELECT unnest(range(1::BIGINT, 1::BIGINT << s.k)) AS word
    FROM shape AS s
    WHERE s.two_level AND s.k <= 20 AND (SELECT count(*) FROM cells) < (1::BIGINT << s.k)
),
defining AS (
    SELECT w.word, min(word_sign(w.word, c.plus)) AS sign
    FROM words AS w, cell_plus AS c
    GROUP BY w.word
    HAVING min(word_sign(w.word, c.plus)) = max(word_sign(w.word, c.plus))
    UNION ALL
    SELECT 0, 1 FROM (SELECT 1 FROM words LIMIT 1)
),
named AS (
    SELECT
        w.word,
        string_agg(f.factor, ':' ORDER BY f.position) AS term,
        count(*)::INTEGER AS "order",
        list(f.position ORDER BY f.position) AS positions
    FROM words AS w
    JOIN factors AS f ON (w.word >> (f.position - 1)) & 1 = 1
    GROUP BY w.word
    UNION ALL
    SELECT 0, 'I', 0, []::INTEGER[]
),
sets AS (
    -- each word with its set's representative: the first of its products with the defining words
    SELECT
        n.word,
        arg_min(
            {'word': r.word, 'sign': d.sign}, {'order': r."order", 'positions': r.positions}
        ) AS representative
    FROM named AS n
    JOIN defining AS d ON n.word <> 0
    JOIN named AS r ON r.word = xor(n.word, d.word)
    GROUP BY n.word
    HAVING count(*) > 1
),
members AS (
    SELECT
        n.word,
        n.term,
        n."order",
        n.positions,
        s.representative.word AS representative,
        s.representative.sign AS sign
    FROM sets AS s
    JOIN named AS n USING (word)
)
SELECT
    m.*,
    string_agg(
        CASE WHEN o.sign < 0 THEN '-' ELSE '' END || o.term,
        ' = ' ORDER BY o.word <> m.representative, o."order", o.positions
    ) AS alias_set
FROM members AS m
JOIN (FROM members UNION ALL SELECT 0, 'I', 0, [], 0, 1) AS o USING (representative)
GROUP BY ALL
ORDER BY m.representative, m."order", m.positions;
