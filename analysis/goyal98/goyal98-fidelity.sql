-- The goyal98 WAN cells of each model choice against the paper's WAN table (sim/FIDELITY.md).
-- One query, run over the study's store with the paper's table beside it:
--
--   satsweep sql --study goyal98-fidelity --table paper=analysis/goyal98/goyal98-wan.csv \
--       "$(cat analysis/goyal98/goyal98-fidelity.sql)"
--
-- Each cell (flavor x drop x bufferRtt) is the mean of its replications. Rows: every
-- combination of tcpModel, switchModel and poissonBounds, then each level of one choice with the
-- other two pooled ('*': the difference between a choice's two rows is its effect), then all
-- runs, then the paper. Columns: the mean over the cells of efficiency and fairness, and the RMS
-- and largest difference of the cells from the paper's.
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
SELECT * FROM (
    SELECT coalesce(tcpModel, '*') AS tcpModel,
           coalesce(switchModel, '*') AS switchModel,
           coalesce(poissonBounds, '*') AS poissonBounds,
           count(*) AS cells,
           sum(runs) AS runs,
           round(avg(efficiency), 3) AS efficiency,
           round(avg(fairness), 3) AS fairness,
           round(sqrt(avg(efficiency_gap * efficiency_gap)), 3) AS rms_efficiency_gap,
           round(max(abs(efficiency_gap)), 3) AS worst_efficiency_gap,
           round(sqrt(avg(fairness_gap * fairness_gap)), 3) AS rms_fairness_gap,
           grouping(tcpModel, switchModel, poissonBounds) AS pooled
    FROM compared
    GROUP BY GROUPING SETS (
        (tcpModel, switchModel, poissonBounds), (tcpModel), (switchModel), (poissonBounds), ()
    )
    UNION ALL
    SELECT 'paper', '', '', count(*), NULL, round(avg(efficiency), 3), round(avg(fairness), 3),
           NULL, NULL, NULL, 8
    FROM paper
)
ORDER BY pooled = 8, bit_count(pooled), pooled DESC, tcpModel, switchModel, poissonBounds
