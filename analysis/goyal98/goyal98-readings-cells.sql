-- Issue 32's ablation (sweeps/goyal98-readings.yaml), the paper's collapse cells: Vanilla and
-- Reno at 0.5 RTT under EPD and SD, on each link, for each combination of pagePacing and
-- timerClock: the mean efficiency of the cell's replications with its 90% t interval
-- (mean +- t(0.95; n - 1) s / sqrt(n)), and the paper's WAN value beside it:
--
--   satsweep sql goyal98-readings --table paper=analysis/goyal98/goyal98-wan.csv \
--       "$(cat analysis/goyal98/goyal98-readings-cells.sql)"
WITH cells AS (
    SELECT link, flavor, "drop", pagePacing, timerClock,
           count(*) AS runs, avg(efficiency) AS mean, stddev_samp(efficiency) AS sd
    FROM runs
    WHERE bufferRtt = 0.5 AND flavor IN ('vanilla', 'reno')
    GROUP BY ALL
)
SELECT c.link, c.flavor, c."drop", c.pagePacing, c.timerClock, c.runs,
       round(c.mean, 3) AS efficiency,
       round(t_quantile(0.95, c.runs - 1) * c.sd / sqrt(c.runs), 3) AS halfwidth_90,
       CASE WHEN c.link = 'wan' THEN p.efficiency END AS paper
FROM cells c
LEFT JOIN paper p
  ON lower(p.flavor) = c.flavor AND lower(p."drop") = c."drop" AND p.buffer = 0.5
ORDER BY CASE c.link WHEN 'wan' THEN 1 WHEN 'meo' THEN 2 ELSE 3 END, c.flavor DESC, c."drop",
         c.pagePacing DESC, c.timerClock
