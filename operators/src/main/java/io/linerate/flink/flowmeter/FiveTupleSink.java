package io.linerate.flink.flowmeter;

import io.linerate.sketches.hash.FiveTuple;

/**
 * Receives the 5-tuple of one packet from a {@link PacketSelector} as primitive fields, so a packet record can
 * hand its addresses and ports to the flow meter without allocating a {@link FiveTuple}. The selector calls
 * exactly one of the methods once per record; the operator checks the ranges (ports 0–65535, protocol 0–255)
 * and rejects the record otherwise.
 */
public interface FiveTupleSink {

    /** An IPv4 packet; addresses are 32-bit values in network order (10.0.0.1 = 0x0A000001). */
    void ipv4(int srcAddress, int dstAddress, int srcPort, int dstPort, int protocol);

    /** An IPv6 packet; each address as its high and low 64 bits in network order. */
    void ipv6(long srcHigh, long srcLow, long dstHigh, long dstLow, int srcPort, int dstPort, int protocol);

    /** The 5-tuple as an object (convenience for records that already hold one); {@code null} is rejected. */
    default void fiveTuple(FiveTuple tuple) {
        if (tuple == null) {
            throw new IllegalArgumentException("5-tuple is null");
        }
        if (tuple.isIpv6()) {
            ipv6(tuple.srcHigh(), tuple.srcLow(), tuple.dstHigh(), tuple.dstLow(), tuple.srcPort(), tuple.dstPort(),
                    tuple.protocol());
        } else {
            ipv4((int) tuple.srcLow(), (int) tuple.dstLow(), tuple.srcPort(), tuple.dstPort(), tuple.protocol());
        }
    }
}
