-- Issue 32's ablation (sweeps/goyal98-readings.yaml, sim/FIDELITY.md): per link, each of the
-- four combinations of pagePacing and timerClock against the paper's WAN table, with how loaded
-- the trunk is:
--
--   satsweep sql --study goyal98-readings --table paper=analysis/goyal98/goyal98-wan.csv \
--       "$(cat analysis/goyal98/goyal98-readings.sql)"
--
-- Each cell (flavor x drop x bufferRtt) is the mean of its replications; the columns are means
-- over a link's 24 cells (efficiency, fairness), the four collapse cells at 0.5 RTT (Vanilla and
-- Reno under EPD and SD), the offered load and goodput per trunk capacity C, and the connections
-- with requested bytes not yet received when the run ends (backlogged, goyal98-load.sql).
-- wan_gap_* compare the WAN cells with the paper's (the paper gives only WAN's table): the RMS
-- and the largest difference in efficiency, and how many of the 24 cells are within 0.10.
WITH backlog AS (
    SELECT config_id, replication,
           count(*) FILTER (WHERE bytes_received < bytes_requested) AS backlogged
    FROM connections
    GROUP BY ALL
), cells AS (
    SELECT r.link, r.pagePacing, r.timerClock, r.flavor, r."drop", r.bufferRtt,
           avg(r.efficiency) AS efficiency, avg(r.fairness) AS fairness,
           avg(r.offered_bps / r.capacity_bps) AS offered_per_c,
           avg(r.goodput_bps / r.capacity_bps) AS goodput_per_c,
           avg(b.backlogged) AS backlogged, count(*) AS runs
    FROM runs r
    JOIN backlog b USING (config_id, replication)
    GROUP BY ALL
), gaps AS (
    SELECT c.*, c.efficiency - p.efficiency AS gap
    FROM cells c
    LEFT JOIN paper p
      ON c.link = 'wan' AND lower(p.flavor) = c.flavor AND lower(p."drop") = c."drop"
         AND p.buffer = c.bufferRtt
)
SELECT link, pagePacing, timerClock, sum(runs) AS runs,
       round(avg(efficiency), 3) AS efficiency,
       round(avg(fairness), 3) AS fairness,
       round(avg(efficiency) FILTER (WHERE flavor = 'vanilla' AND "drop" = 'epd' AND bufferRtt = 0.5), 3) AS vanilla_epd_05,
       round(avg(efficiency) FILTER (WHERE flavor = 'reno' AND "drop" = 'epd' AND bufferRtt = 0.5), 3) AS reno_epd_05,
       round(avg(efficiency) FILTER (WHERE flavor = 'vanilla' AND "drop" = 'sd' AND bufferRtt = 0.5), 3) AS vanilla_sd_05,
       round(avg(efficiency) FILTER (WHERE flavor = 'reno' AND "drop" = 'sd' AND bufferRtt = 0.5), 3) AS reno_sd_05,
       round(avg(offered_per_c), 3) AS offered_per_c,
       round(avg(goodput_per_c), 3) AS goodput_per_c,
       round(avg(backlogged), 1) AS backlogged,
       round(sqrt(avg(gap * gap)), 3) AS wan_gap_rms,
       round(max(abs(gap)), 3) AS wan_gap_max,
       count(*) FILTER (WHERE abs(gap) <= 0.10) AS wan_cells_within_010
FROM gaps
GROUP BY link, pagePacing, timerClock
ORDER BY CASE link WHEN 'wan' THEN 1 WHEN 'meo' THEN 2 ELSE 3 END, pagePacing DESC, timerClock
