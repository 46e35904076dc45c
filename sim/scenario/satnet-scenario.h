/*
 * One satnet run: the network, the TCP connections and their load, and the result.
 */
#ifndef SATNET_SCENARIO_H
#define SATNET_SCENARIO_H

#include "json.h"
#include "satnet-config.h"

namespace satnet
{

/**
 * Builds the configured network, runs it for the simulated time and returns the result object
 * `{"params", "summary", "connections"}`. Runs once per process: it owns ns-3's simulator.
 */
Json RunScenario(const Config& config);

/// @return the effective parameters of @p config as the result's "params" object
Json ParamsJson(const Config& config);

} // namespace satnet

#endif /* SATNET_SCENARIO_H */
