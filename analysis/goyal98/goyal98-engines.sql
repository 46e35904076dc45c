-- goyal98 on both engines, configuration by configuration: satnet (ns-3, per tcpModel) against
-- the OMNeT++/INET model (omnetpp/README.md, "Cross-engine check"). Run it in the duckdb shell
-- (or through duckdb's Python API) with the two stores and the t quantile set:
--
--   SET VARIABLE ns3_runs = 'results/goyal98-engines-ns3/runs.parquet';
--   SET VARIABLE omnetpp_runs = 'results/goyal98-engines-omnetpp/runs.parquet';
--   SET VARIABLE t_quantile = 1.8595;  -- t(0.95; 2r - 2) for r = 5 runs per engine:
--                                      -- scipy.stats.t.ppf(0.95, 8)
--   .read analysis/goyal98/goyal98-engines.sql
--
-- One row per configuration (link x workload x flavor x drop) and ns-3 TCP model: each
-- engine's mean efficiency E and fairness F over its replications, the difference (OMNeT++ -
-- ns-3), the half-width of its 90% confidence interval (two-sample t, pooled variance, equal r
-- per engine), and whether the engines agree: 'yes' when the interval holds 0, 'no' when not,
-- 'exact' when neither engine's replications vary (the bulk case: a deterministic run has no
-- sampling error, so any difference is the models').
WITH runs AS (
    SELECT 'ns-3 ' || tcpModel AS engine, link, workload, flavor, "drop", efficiency, fairness
    FROM read_parquet(getvariable('ns3_runs'))
    UNION ALL
    SELECT 'omnetpp' AS engine, link, workload, flavor, "drop", efficiency, fairness
    FROM read_parquet(getvariable('omnetpp_runs'))
), cells AS (
    SELECT engine, link, workload, flavor, "drop", count(*) AS n,
           avg(efficiency) AS e, var_samp(efficiency) AS e_var,
           avg(fairness) AS f, var_samp(fairness) AS f_var
    FROM runs
    GROUP BY ALL
), pairs AS (
    SELECT o.link, o.workload, o.flavor, o."drop", s.engine AS against,
           o.n AS n_omnetpp, s.n AS n_ns3,
           o.e AS e_omnetpp, s.e AS e_ns3, o.e - s.e AS e_diff,
           getvariable('t_quantile') * sqrt(((o.n - 1) * o.e_var + (s.n - 1) * s.e_var)
               / (o.n + s.n - 2) * (1 / o.n + 1 / s.n)) AS e_halfwidth,
           o.f AS f_omnetpp, s.f AS f_ns3, o.f - s.f AS f_diff,
           getvariable('t_quantile') * sqrt(((o.n - 1) * o.f_var + (s.n - 1) * s.f_var)
               / (o.n + s.n - 2) * (1 / o.n + 1 / s.n)) AS f_halfwidth
    FROM cells o
    JOIN cells s
      ON s.engine <> 'omnetpp' AND o.link = s.link AND o.workload = s.workload
     AND o.flavor = s.flavor AND o."drop" = s."drop"
    WHERE o.engine = 'omnetpp'
)
SELECT link, workload, flavor, "drop", against, n_omnetpp, n_ns3,
       round(e_omnetpp, 4) AS E_omnetpp, round(e_ns3, 4) AS E_ns3,
       round(e_diff, 4) AS E_diff, round(e_halfwidth, 4) AS E_halfwidth,
       CASE WHEN e_halfwidth = 0 THEN 'exact' WHEN abs(e_diff) <= e_halfwidth THEN 'yes'
            ELSE 'no' END AS E_agree,
       round(f_omnetpp, 4) AS F_omnetpp, round(f_ns3, 4) AS F_ns3,
       round(f_diff, 4) AS F_diff, round(f_halfwidth, 4) AS F_halfwidth,
       CASE WHEN f_halfwidth = 0 THEN 'exact' WHEN abs(f_diff) <= f_halfwidth THEN 'yes'
            ELSE 'no' END AS F_agree
FROM pairs
ORDER BY link, workload, against, flavor, "drop";
