-- steady_values: a steady-state response per run (docs/steady-state.md): the time average of
-- steady_series' y over the x values at or after its configuration's warm-up, avg(y) (bins of
-- equal width: their mean is the time average), or sum(y) / sum(per) when the series has a
-- denominator; with the sums (numerator; denominator: sum(per), else the number of x values)
-- that the ratio estimator and the run-length lever read, and the x values kept (bins).
-- Expects: table steady_series (60-steady_series.sql) and a table steady_warmups(config_id
-- VARCHAR, warmup DOUBLE): the first x kept, per configuration (a configuration it lacks is
-- not truncated).
CREATE OR REPLACE TEMP TABLE steady_values AS
SELECT
    s.config_id,
    s.replication,
    CASE WHEN count(s.per) = 0 THEN avg(s.y) ELSE sum(s.y) / nullif(sum(s.per), 0) END AS value,
    sum(s.y) AS numerator,
    CASE WHEN count(s.per) = 0 THEN CAST(count(*) AS DOUBLE) ELSE sum(s.per) END AS denominator,
    count(*) AS bins
FROM steady_series s
LEFT JOIN steady_warmups w USING (config_id)
WHERE s.x >= coalesce(w.warmup, '-infinity'::DOUBLE)
GROUP BY s.config_id, s.replication
ORDER BY s.config_id, s.replication;
