/*
 * sabt's e3: the paper's E3, a web server under WebStone, with the send-buffer pool.
 */
#ifndef SABT_WEB_H
#define SABT_WEB_H

#include "sabt-config.h"

#include "contract/json.h"

namespace sabt
{

/**
 * Runs E3 (docs/studies/sabt.md, "The implementation experiments"): one server host whose
 * pool is shared by its connections (SendBufferManager), and config.clients client hosts
 * behind one LAN link; every client requests documents back to back, each on a new connection
 * (Http10Client, Http10Server), their sizes a LognormalDocumentSize. Returns the result of
 * Outputs() with the `requests` table (one row a request) and empty `connections` and
 * `timeline` tables.
 */
satsweep::Json RunWeb(const Config& config);

} // namespace sabt

#endif /* SABT_WEB_H */
