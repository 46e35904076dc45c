-- Issue 56, a connection per page at the paper's scale (sweeps/goyal98-readings-page.yaml on
-- WAN, sweeps/goyal98-readings-page-sat.yaml on MEO and GEO; sim/FIDELITY.md "The screening of
-- issue 56"): each cell (link x flavor x drop x bufferRtt) under connections=run and
-- connections=page, with the mechanism numbers and the paper's WAN value beside it (for the
-- distance only: nothing is tuned toward it; the paper's table is WAN's, so paper is empty on
-- MEO and GEO):
--
--   satsweep sql --study goyal98-readings-page --table paper=analysis/goyal98/goyal98-wan.csv \
--       "$(cat analysis/goyal98/goyal98-readings-page.sql)"
--   (the same with --study goyal98-readings-page-sat)
--
-- Each row is the mean over the cell's replications (runs) of: efficiency with its 90% t
-- interval's half-width (t(0.95; runs - 1) s / sqrt(runs)), fairness; timeouts and fast
-- retransmits per run (both ends of every connection, from the connections table);
-- connections_opened; requests the servers read by the end; silent: pairs whose client read no
-- byte; low_bins: the share of the timeline's bins after the first 10 s whose goodput is below
-- 0.8 C (the trunk's idle episodes, or cells carrying little payload: the timeline counts
-- goodput, not busy cells) and min_bin the lowest bin's efficiency.
WITH per_run AS (
    SELECT config_id, replication,
           sum(timeouts) AS timeouts, sum(fast_retransmits) AS fast_retransmits,
           sum(requests) AS requests,
           count(*) FILTER (WHERE bytes_received = 0) AS silent
    FROM connections
    GROUP BY ALL
), bins AS (
    SELECT config_id, replication,
           avg(CASE WHEN efficiency < 0.8 THEN 1 ELSE 0 END) AS low_bins,
           min(efficiency) AS min_bin
    FROM timeline
    WHERE "time" >= 10
    GROUP BY ALL
), cells AS (
    SELECT r.link, r.flavor, r."drop", r.bufferRtt, r."connections", count(*) AS runs,
           avg(r.efficiency) AS efficiency, stddev_samp(r.efficiency) AS sd,
           avg(r.fairness) AS fairness, avg(p.timeouts) AS timeouts,
           avg(p.fast_retransmits) AS fast_retransmits, avg(r.connections_opened) AS opened,
           avg(p.requests) AS requests, avg(p.silent) AS silent,
           avg(b.low_bins) AS low_bins, avg(b.min_bin) AS min_bin
    FROM runs r
    JOIN per_run p USING (config_id, replication)
    JOIN bins b USING (config_id, replication)
    GROUP BY ALL
)
SELECT c.link, c.flavor, c."drop", c.bufferRtt, c."connections", c.runs,
       round(c.efficiency, 3) AS efficiency,
       round(t_quantile(0.95, c.runs - 1) * c.sd / sqrt(c.runs), 3) AS halfwidth_90,
       round(c.fairness, 3) AS fairness, round(c.timeouts) AS timeouts,
       round(c.fast_retransmits) AS fast_rtx, round(c.opened) AS opened,
       round(c.requests) AS requests, round(c.silent, 1) AS silent,
       round(c.low_bins, 2) AS low_bins, round(c.min_bin, 2) AS min_bin,
       p.efficiency AS paper
FROM cells c
LEFT JOIN paper p
  ON lower(p.link) = c.link AND lower(p.flavor) = c.flavor AND lower(p."drop") = c."drop"
 AND p.buffer = c.bufferRtt
ORDER BY c.link DESC,
         CASE c.flavor WHEN 'vanilla' THEN 1 WHEN 'reno' THEN 2 WHEN 'newreno' THEN 3 ELSE 4 END,
         c."drop", c.bufferRtt, c."connections" DESC
