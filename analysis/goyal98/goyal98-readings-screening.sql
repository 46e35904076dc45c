-- Issue 56's screening (sweeps/goyal98-readings-screening.yaml, sim/FIDELITY.md "The screening
-- of issue 56"): per configuration of the 2^(7-1) fraction (flavor x bufferRtt x the five
-- readings), the mechanism numbers beside efficiency and fairness:
--
--   satsweep sql --study goyal98-readings-screening \
--       "$(cat analysis/goyal98/goyal98-readings-screening.sql)"
--
-- Each row is the mean over the configuration's replications (runs) of: efficiency, fairness;
-- timeouts, fast retransmits and retransmissions per run (both ends of every connection, summed
-- from the connections table); connections_opened; silent: pairs whose client read no byte in
-- the run; cut_frames: frames accepted in part (SD's cut frames, what partialFrames acts on);
-- low_bins: the share of the timeline's bins after the first 10 s (the first page of every
-- client is due by then) whose goodput is below 0.8 C (the trunk's idle episodes, or a trunk
-- busy with cells that carry little payload: the timeline counts goodput, not busy cells), and
-- min_bin the lowest bin's efficiency. Timeouts are counted per run, not per instant: how many fire on
-- one tick is not in the store.
WITH per_run AS (
    SELECT config_id, replication,
           sum(timeouts) AS timeouts, sum(fast_retransmits) AS fast_retransmits,
           sum(retransmissions) AS retransmissions,
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
)
SELECT r.flavor, r.bufferRtt, r."connections", r.fastRetransmitGuard AS guard, r.bsdTimers,
       r.cwndUnit, r.partialFrames, count(*) AS runs,
       round(avg(r.efficiency), 3) AS efficiency, round(avg(r.fairness), 3) AS fairness,
       round(avg(p.timeouts)) AS timeouts, round(avg(p.fast_retransmits)) AS fast_rtx,
       round(avg(p.retransmissions)) AS retransmissions,
       round(avg(r.connections_opened)) AS opened, round(avg(p.silent), 1) AS silent,
       round(avg(r.frames_dropped_partial)) AS cut_frames,
       round(avg(b.low_bins), 2) AS low_bins, round(avg(b.min_bin), 2) AS min_bin
FROM runs r
JOIN per_run p USING (config_id, replication)
JOIN bins b USING (config_id, replication)
GROUP BY ALL
ORDER BY r.flavor DESC, r.bufferRtt, r."connections" DESC, guard DESC, r.bsdTimers,
         r.cwndUnit DESC, r.partialFrames DESC
