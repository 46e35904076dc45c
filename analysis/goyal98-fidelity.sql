-- The goyal98 WAN cells of each model choice against the paper's WAN table (sim/FIDELITY.md).
-- One query, run over the study's store with the paper's table beside it:
--
--   satsweep sql --study goyal98-fidelity --table paper=analysis/reference/goyal98-wan.csv \
--       "$(cat analysis/goyal98-fidelity.sql)"
--
-- Per combination of tcpModel, switchModel and poissonBounds: the mean over the 24 cells
-- (flavor x drop x bufferRtt, each the mean of its replications) of efficiency and fairness,
-- and the cells' RMS and largest difference from the paper's; the paper's own means last.
WITH cells AS (
    SELECT tcpModel, switchModel, poissonBounds, flavor, "drop", bufferRtt,
           avg(efficiency) AS efficiency, avg(fairness) AS fairness, count(*) AS runs
    FROM runs
    GROUP BY ALL
), compared AS (
    SELECT c.*, c.efficiency - p.efficiency AS efficiency_gap, c.fairness - p.fairness AS fairness_gap
    FROM cells c
    JOIN paper p
      ON lower(p.flavor) = c.flavor AND lower(p."drop") = c."drop" AND p.buffer = c.bufferRtt
)
SELECT tcpModel, switchModel, poissonBounds,
       count(*) AS cells,
       sum(runs) AS runs,
       round(avg(efficiency), 3) AS efficiency,
       round(avg(fairness), 3) AS fairness,
       round(sqrt(avg(efficiency_gap * efficiency_gap)), 3) AS rms_efficiency_gap,
       round(max(abs(efficiency_gap)), 3) AS worst_efficiency_gap,
       round(sqrt(avg(fairness_gap * fairness_gap)), 3) AS rms_fairness_gap
FROM compared
GROUP BY ALL
UNION ALL
SELECT 'paper', NULL, NULL, count(*), NULL, round(avg(efficiency), 3), round(avg(fairness), 3),
       NULL, NULL, NULL
FROM paper
ORDER BY tcpModel = 'paper', tcpModel, switchModel, poissonBounds
