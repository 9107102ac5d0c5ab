package io.linerate.flink.flowmeter;

/**
 * One packet's fields as the selectors gave them: the operator's reused {@link FiveTupleSink}, so the table is
 * updated only after every selector returned (a selector that fails half-way changes nothing).
 */
final class PacketFields implements FiveTupleSink {

    int calls;
    boolean ipv6;
    long srcHigh;
    long srcLow;
    long dstHigh;
    long dstLow;
    int srcPort;
    int dstPort;
    int protocol;
    int tcpFlags;
    long length;
    long timestamp;

    void reset() {
        calls = 0;
    }

    @Override
    public void ipv4(int srcAddress, int dstAddress, int srcPort, int dstPort, int protocol) {
        calls++;
        this.ipv6 = false;
        this.srcHigh = 0;
        this.srcLow = srcAddress;
        this.dstHigh = 0;
        this.dstLow = dstAddress;
        this.srcPort = srcPort;
        this.dstPort = dstPort;
        this.protocol = protocol;
    }

    @Override
    public void ipv6(long srcHigh, long srcLow, long dstHigh, long dstLow, int srcPort, int dstPort, int protocol) {
        calls++;
        this.ipv6 = true;
        this.srcHigh = srcHigh;
        this.srcLow = srcLow;
        this.dstHigh = dstHigh;
        this.dstLow = dstLow;
        this.srcPort = srcPort;
        this.dstPort = dstPort;
        this.protocol = protocol;
    }
}
