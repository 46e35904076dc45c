/*
 * One sabt run: the paths, the bulk senders sharing the send-buffer pool, and the result.
 */
#ifndef SABT_SCENARIO_H
#define SABT_SCENARIO_H

#include "sabt-config.h"

#include "contract/json.h"
#include "contract/output-schema.h"

namespace sabt
{

/**
 * Builds the paths and the connections of @p config, runs them and returns `{"summary",
 * "connections", "timeline"}` as Outputs() declares them. Runs once per process (it owns ns-3's
 * simulator); the caller has seeded ns-3's RngSeedManager.
 */
satsweep::Json RunScenario(const Config& config);

/// @return what RunScenario() gives: the summary, the connections and the timeline tables
satsweep::OutputSchema Outputs();

} // namespace sabt

#endif /* SABT_SCENARIO_H */
