-- The goyal98 study's 24 WAN cells beside the paper's WAN table (sim/FIDELITY.md, issue 11's
-- target: mean efficiency within 0.03 of the paper's, every cell within 0.10):
--
--   satsweep sql --study goyal98 --table paper=analysis/goyal98/goyal98-wan.csv \
--       "$(cat analysis/goyal98/goyal98-wan.sql)"
--
-- Rows: each cell (drop x flavor x bufferRtt) with the mean of its replications, their standard
-- deviation and the paper's value; then 'all', the mean over the cells with the RMS and largest
-- difference from the paper (in its efficiency_gap and fairness_gap: the largest absolute one)
-- and how many cells lie within 0.10 of the paper's efficiency.
WITH cells AS (
    SELECT "drop", flavor, bufferRtt, count(*) AS runs,
           avg(efficiency) AS efficiency, stddev_samp(efficiency) AS efficiency_sd,
           avg(fairness) AS fairness, stddev_samp(fairness) AS fairness_sd
    FROM runs
    WHERE link = 'wan'
    GROUP BY ALL
), compared AS (
    SELECT c.*, p.efficiency AS paper_efficiency, p.fairness AS paper_fairness,
           c.efficiency - p.efficiency AS efficiency_gap, c.fairness - p.fairness AS fairness_gap
    FROM cells c
    JOIN paper p
      ON lower(p.flavor) = c.flavor AND lower(p."drop") = c."drop" AND p.buffer = c.bufferRtt
)
SELECT * FROM (
    SELECT "drop", flavor, CAST(bufferRtt AS VARCHAR) AS bufferRtt, runs,
           round(efficiency, 3) AS efficiency, round(efficiency_sd, 3) AS efficiency_sd,
           round(paper_efficiency, 3) AS paper_efficiency, round(efficiency_gap, 3) AS efficiency_gap,
           round(fairness, 3) AS fairness, round(paper_fairness, 3) AS paper_fairness,
           round(fairness_gap, 3) AS fairness_gap, NULL AS rms_efficiency_gap,
           NULL AS cells_within_0_10, 0 AS part
    FROM compared
    UNION ALL
    SELECT 'all', '', '', sum(runs), round(avg(efficiency), 3), NULL,
           round(avg(paper_efficiency), 3), round(max(abs(efficiency_gap)), 3),
           round(avg(fairness), 3), round(avg(paper_fairness), 3),
           round(max(abs(fairness_gap)), 3),
           round(sqrt(avg(efficiency_gap * efficiency_gap)), 3),
           count(*) FILTER (WHERE abs(efficiency_gap) <= 0.10), 1
    FROM compared
)
ORDER BY part, "drop", flavor, bufferRtt
