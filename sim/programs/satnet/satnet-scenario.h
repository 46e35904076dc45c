/*
 * One satnet run: the network, the TCP connections and their load, and the result.
 */
#ifndef SATNET_SCENARIO_H
#define SATNET_SCENARIO_H

#include "satnet-config.h"

#include "contract/json.h"
#include "contract/output-schema.h"

namespace satnet
{

/**
 * Builds the configured network, runs it for the simulated time and returns
 * `{"summary", "connections", "timeline"}` as Outputs() declares them. Runs once per process:
 * it owns ns-3's simulator; the caller has seeded ns-3's RngSeedManager.
 */
satsweep::Json RunScenario(const Config& config);

/// @return what RunScenario() gives: the summary fields, the connections and the timeline tables
satsweep::OutputSchema Outputs();

} // namespace satnet

#endif /* SATNET_SCENARIO_H */
