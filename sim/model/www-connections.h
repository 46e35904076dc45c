/*
 * How the WWW load's client/server pairs use TCP connections (satnet's --connections).
 */
#ifndef SATNET_WWW_CONNECTIONS_H
#define SATNET_WWW_CONNECTIONS_H

namespace ns3
{

/**
 * @brief The study's "all components of a web page are fetched in one TCP connection" and
 * "persistent until a Close request" read three ways (WwwClient's and WwwServer's Connections).
 */
enum class WwwConnections
{
    RUN,        ///< one connection for the whole run, opened at the client's start
    PAGE,       ///< a new connection per page, closed after the page's last answer
    PAGE_RESET, ///< one connection whose sender state is reset when a page starts on it idle
};

} // namespace ns3

#endif /* SATNET_WWW_CONNECTIONS_H */
