#include "model/padhye-throughput.h"

#include "ns3/abort.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

double
PadhyeMeanWindow(double p, double b)
{
    NS_ABORT_MSG_UNLESS(p > 0 && p < 1, "Padhye: loss rate " << p << " outside (0, 1)");
    NS_ABORT_MSG_UNLESS(b >= 1, "Padhye: " << b << " packets per ACK");
    const double a = (2 + b) / (3 * b);
    return a + std::sqrt(8 * (1 - p) / (3 * b * p) + a * a);
}

double
PadhyeThroughput(double p, double rtt, double rto, double b)
{
    NS_ABORT_MSG_UNLESS(rtt > 0 && rto > 0, "Padhye: rtt " << rtt << " s, rto " << rto << " s");
    const double w = PadhyeMeanWindow(p, b);
    const double q = 1 - p; // a packet gets through
    // Q(w): the probability that a loss indication is a timeout (eq. 26's closed form).
    const double timeout = std::min(
        1.0,
        (1 - std::pow(q, 3)) * (1 + std::pow(q, 3) * (1 - std::pow(q, w - 3))) /
            (1 - std::pow(q, w)));
    const double f = 1 + p + 2 * std::pow(p, 2) + 4 * std::pow(p, 3) + 8 * std::pow(p, 4) +
                     16 * std::pow(p, 5) + 32 * std::pow(p, 6);
    return ((1 - p) / p + w + timeout / (1 - p)) /
           (rtt * (b * w / 2 + 1) + timeout * rto * f / (1 - p));
}

} // namespace ns3
