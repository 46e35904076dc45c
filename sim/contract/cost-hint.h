/*
 * An optional hint of what a run costs, for ordering jobs.
 */
#ifndef SATSWEEP_COST_HINT_H
#define SATSWEEP_COST_HINT_H

#include "json.h"

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace satsweep
{

/**
 * @brief Estimated core-seconds of a run: a rate times the product of some parameters.
 *
 * --describe shows it as `"cost": {"per": [...], "by": "...", "seconds": {...}, "defaults":
 * {...}}`: the estimate of a run is seconds[value of the `by` parameter] x the product of the
 * `per` parameters' values. A `per` parameter a run does not set takes its value under that
 * choice of `by`, `defaults[choice][name]` (a program whose choice presets other defaults,
 * such as a scenario's simulated time), else its declared default. Without `by`, `seconds` is
 * one number. A scheduler uses it only to order and batch jobs: only ratios between runs
 * matter.
 */
class CostHint
{
  public:
    /**
     * @param per the parameters (int or float) the cost is proportional to
     * @param seconds core-seconds per unit of their product
     */
    CostHint(std::vector<std::string> per, double seconds);

    /**
     * @param per the parameters (int or float) the cost is proportional to
     * @param by a parameter with choices that selects the rate
     * @param seconds core-seconds per unit of the product, for each choice of @p by
     */
    CostHint(std::vector<std::string> per,
             std::string by,
             std::vector<std::pair<std::string, double>> seconds);

    /**
     * @param echoOf the `params` echo of a run given only `--<by>=choice` (all defaults, the
     *        choice's presets applied); used with `by` only
     * @return the `cost` object of --describe
     */
    Json Describe(const std::function<Json(const std::string& choice)>& echoOf = nullptr) const;

    /// @return the parameter that selects the rate, empty for none
    const std::string& GetBy() const;

    /**
     * @param parameters the `parameters` array of --describe
     * @throws std::logic_error when `per` or `by` do not fit the parameters (a program bug)
     */
    void Validate(const Json& parameters) const;

    /**
     * @param params parameter values (e.g. a result's `params`); all named ones present
     * @return the estimated core-seconds of the run
     */
    double Estimate(const Json& params) const;

  private:
    std::vector<std::string> m_per;                         //!< proportional parameters
    std::string m_by;                                       //!< rate selector, empty for none
    double m_seconds{0};                                    //!< the rate without selector
    std::vector<std::pair<std::string, double>> m_secondsBy; //!< rate per selector value
};

} // namespace satsweep

#endif /* SATSWEEP_COST_HINT_H */
