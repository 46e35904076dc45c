/*
 * The TCP throughput of Padhye, Firoiu, Towsley and Kurose (1998) from loss rate, RTT and RTO.
 */
#ifndef SATNET_PADHYE_THROUGHPUT_H
#define SATNET_PADHYE_THROUGHPUT_H

namespace ns3
{

/**
 * @brief Expected throughput of a bulk Reno connection, packets/s: the full model of Padhye et
 * al., "Modeling TCP Throughput: A Simple Model and its Empirical Validation" (SIGCOMM 1998,
 * eq. 30 without the W_max cap), as docs/studies/sabt.md, "SABT's throughput estimate", gives
 * it for SABT's rho:
 *
 *   E[W] = (2+b)/(3b) + sqrt(8(1-p)/(3bp) + ((2+b)/(3b))^2)
 *   Q(w) = min(1, (1-(1-p)^3)(1+(1-p)^3(1-(1-p)^(w-3))) / (1-(1-p)^w))
 *   f(p) = 1 + p + 2p^2 + 4p^3 + 8p^4 + 16p^5 + 32p^6
 *   rho  = ((1-p)/p + E[W] + Q(E[W])/(1-p)) / (rtt (b E[W]/2 + 1) + Q(E[W]) rto f(p)/(1-p))
 *
 * @param p loss rate, in (0, 1)
 * @param rtt round-trip time, s (> 0)
 * @param rto retransmission timeout, s (> 0)
 * @param b packets acknowledged per ACK (1 without delayed ACKs)
 * @return rho, packets/s
 */
double PadhyeThroughput(double p, double rtt, double rto, double b = 1);

/**
 * @param p loss rate, in (0, 1)
 * @param b packets per ACK
 * @return E[W], the model's mean window at a loss indication, packets
 */
double PadhyeMeanWindow(double p, double b = 1);

} // namespace ns3

#endif /* SATNET_PADHYE_THROUGHPUT_H */
