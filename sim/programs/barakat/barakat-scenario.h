/*
 * One barakat run: the path, the sources' transfers, and the result.
 */
#ifndef BARAKAT_SCENARIO_H
#define BARAKAT_SCENARIO_H

#include "barakat-config.h"

#include "contract/json.h"
#include "contract/output-schema.h"

namespace barakat
{

/**
 * Builds the path and the sources of @p config, runs them and returns `{"summary", "transfers",
 * "cwnd"}` as Outputs() declares them. Runs once per process (it owns ns-3's simulator); the
 * caller has seeded ns-3's RngSeedManager.
 */
satsweep::Json RunScenario(const Config& config);

/// @return what RunScenario() gives: the summary, the transfers table and the cwnd table
satsweep::OutputSchema Outputs();

} // namespace barakat

#endif /* BARAKAT_SCENARIO_H */
