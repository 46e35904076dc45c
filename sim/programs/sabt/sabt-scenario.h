/*
 * One sabt run: the paths, the bulk senders sharing the send-buffer pool, and the result; and
 * what the scenarios share (e3's web server is sabt-web.h).
 */
#ifndef SABT_SCENARIO_H
#define SABT_SCENARIO_H

#include "sabt-config.h"

#include "model/send-buffer-manager.h"

#include "contract/json.h"
#include "contract/output-schema.h"

#include "ns3/node-container.h"

namespace sabt
{

/**
 * Builds the paths and the connections of @p config, runs them and returns `{"summary",
 * "connections", "timeline", "requests"}` as Outputs() declares them (e3: RunWeb()). Runs once
 * per process (it owns ns-3's simulator); the caller has seeded ns-3's RngSeedManager.
 */
satsweep::Json RunScenario(const Config& config);

/// @return what RunScenario() gives: the summary, the connections, timeline and requests tables
satsweep::OutputSchema Outputs();

/// Sets the study's TCP on @p hosts: ns-2's Reno sender, no delayed ACKs, a large window.
void InstallTcp(const Config& config, const ns3::NodeContainer& hosts);

/// @return the sender's buffer manager, configured from @p config (not started)
ns3::Ptr<ns3::SendBufferManager> MakeManager(const Config& config);

/// @return the round trip of a full segment and its ACK over a path of bottleneck @p rate with
/// empty queues: the links' delays both ways and each packet's transmission on each link, s
double BaseRtt(const Config& config, double rate);

} // namespace sabt

#endif /* SABT_SCENARIO_H */
