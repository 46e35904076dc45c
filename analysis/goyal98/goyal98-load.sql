-- How loaded the goyal98 study's WAN trunk is, cell by cell (sim/FIDELITY.md, "Where the
-- difference is"): the offered load against the trunk's capacity C, the goodput, and how many of
-- the connections still have requested bytes unacknowledged when the run ends (backlogged):
--
--   satsweep sql --study goyal98 "$(cat analysis/goyal98/goyal98-load.sql)"
--
-- Each cell (drop x flavor x bufferRtt) is the mean over its replications.
WITH backlog AS (
    SELECT config_id, replication,
           count(*) FILTER (WHERE bytes_received < bytes_requested) AS backlogged,
           count(*) AS connections
    FROM connections
    GROUP BY ALL
)
SELECT r."drop", r.flavor, r.bufferRtt, count(*) AS runs,
       round(avg(r.offered_bps / r.capacity_bps), 3) AS offered_per_c,
       round(avg(r.goodput_bps / r.capacity_bps), 3) AS goodput_per_c,
       round(avg(b.backlogged), 1) AS backlogged,
       round(avg(b.connections), 1) AS connections
FROM runs r
JOIN backlog b USING (config_id, replication)
WHERE r.link = 'wan'
GROUP BY ALL
ORDER BY r."drop", r.flavor, r.bufferRtt
