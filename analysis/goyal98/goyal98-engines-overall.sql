-- goyal98 on both engines over all configurations: does the OMNeT++/INET model differ from
-- satnet (ns-3, per tcpModel) systematically? (omnetpp/README.md, "Cross-engine check"). With
-- the variables of goyal98-engines.sql and the t quantile over the configurations:
--
--   SET VARIABLE ns3_runs = 'results/goyal98-engines-ns3/runs.parquet';
--   SET VARIABLE omnetpp_runs = 'results/goyal98-engines-omnetpp/runs.parquet';
--   SET VARIABLE t_quantile = 1.8946;  -- t(0.95; k - 1) for k = 8 configurations per
--                                      -- link and workload: scipy.stats.t.ppf(0.95, 7)
--   .read analysis/goyal98/goyal98-engines-overall.sql
--
-- One row per link, workload and ns-3 TCP model: over the k configurations (flavor x drop),
-- the mean of the paired differences of the configuration means (OMNeT++ - ns-3) of E and F, the
-- half-width of its 90% confidence interval (t over the k differences), and the largest
-- difference. For the deterministic bulk case this is the only interval there is: the
-- configurations' differences are the sample.
WITH runs AS (
    SELECT 'ns-3 ' || tcpModel AS engine, link, workload, flavor, "drop", efficiency, fairness
    FROM read_parquet(getvariable('ns3_runs'))
    UNION ALL
    SELECT 'omnetpp' AS engine, link, workload, flavor, "drop", efficiency, fairness
    FROM read_parquet(getvariable('omnetpp_runs'))
), cells AS (
    SELECT engine, link, workload, flavor, "drop", avg(efficiency) AS e, avg(fairness) AS f
    FROM runs
    GROUP BY ALL
), differences AS (
    SELECT o.link, o.workload, s.engine AS against, o.e - s.e AS e_diff, o.f - s.f AS f_diff
    FROM cells o
    JOIN cells s
      ON s.engine <> 'omnetpp' AND o.link = s.link AND o.workload = s.workload
     AND o.flavor = s.flavor AND o."drop" = s."drop"
    WHERE o.engine = 'omnetpp'
)
SELECT link, workload, against, count(*) AS configurations,
       round(avg(e_diff), 4) AS E_diff,
       round(getvariable('t_quantile') * stddev_samp(e_diff) / sqrt(count(*)), 4) AS E_halfwidth,
       round(max_by(e_diff, abs(e_diff)), 4) AS E_largest,
       round(avg(f_diff), 4) AS F_diff,
       round(getvariable('t_quantile') * stddev_samp(f_diff) / sqrt(count(*)), 4) AS F_halfwidth,
       round(max_by(f_diff, abs(f_diff)), 4) AS F_largest
FROM differences
GROUP BY ALL
ORDER BY link, workload, against;
