package io.linerate.jobs.pcap;

/**
 * Receives the decoded packets of a capture, one call per IP packet, with primitives only (no allocation per
 * packet). Timestamps are nanoseconds since the Unix epoch, whatever the file's resolution.
 *
 * <p>Ports: TCP, UDP, SCTP and UDP-Lite give their source and destination ports; ICMP and ICMPv6 give
 * {@code srcPort = 0} and {@code dstPort = type << 8 | code} (the NetFlow/IPFIX convention); every other protocol,
 * and every IP fragment but the first, gives 0 and 0. {@code tcpFlags} is the TCP flags byte (FIN = 0x01, SYN = 0x02,
 * RST = 0x04, PSH = 0x08, ACK = 0x10, URG = 0x20, ECE = 0x40, CWR = 0x80), 0 for other protocols.
 * {@code ipLength} is the length the IP header declares (IPv4 total length; IPv6 payload length + 40), i.e. the
 * packet's length on the wire at the IP layer, even when the capture kept fewer bytes (snaplen). An IPv4 total
 * length of 0 (a packet captured before TCP segmentation offload) gives the frame's length on the wire (the record's
 * original length) minus the link-layer headers; an IPv6 payload length of 0 gives 40 + the Jumbo Payload option's
 * length (RFC 2675), else that length on the wire when it is more than 40 + 65,535 (captured before offload, Linux
 * "BIG TCP"), else 40.
 */
public interface PacketVisitor {

    /** An IPv4 packet; addresses are the 32 address bits in network order as an int (10.0.0.1 = 0x0A000001). */
    void ipv4(long timestampNanos, int src, int dst, int srcPort, int dstPort, int protocol, int tcpFlags,
              int ipLength);

    /** An IPv6 packet; each address is two longs (the high and low 64 bits, network order). */
    void ipv6(long timestampNanos, long srcHigh, long srcLow, long dstHigh, long dstLow, int srcPort, int dstPort,
              int protocol, int tcpFlags, int ipLength);
}
