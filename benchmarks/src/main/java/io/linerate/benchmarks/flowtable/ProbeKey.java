package io.linerate.benchmarks.flowtable;

/**
 * A mutable IPv4 5-tuple for the "probe" variants: one instance is refilled for every packet's lookup and
 * copied only when a new flow is inserted, so a lookup allocates nothing. Same fields, same 32-byte object
 * and the same hash function as {@link FlowKey} (31·h + component), so the maps differ only in the
 * allocation. A stored key must never be changed, hence the copy.
 */
public final class ProbeKey {

    private int src;
    private int dst;
    private int srcPort;
    private int dstPort;
    private int protocol;

    ProbeKey set(int src, int dst, int srcPort, int dstPort, int protocol) {
        this.src = src;
        this.dst = dst;
        this.srcPort = srcPort;
        this.dstPort = dstPort;
        this.protocol = protocol;
        return this;
    }

    ProbeKey copy() {
        return new ProbeKey().set(src, dst, srcPort, dstPort, protocol);
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof ProbeKey)) {
            return false;
        }
        ProbeKey k = (ProbeKey) o;
        return src == k.src && dst == k.dst && srcPort == k.srcPort && dstPort == k.dstPort
                && protocol == k.protocol;
    }

    @Override
    public int hashCode() {
        int h = src;
        h = 31 * h + dst;
        h = 31 * h + srcPort;
        h = 31 * h + dstPort;
        return 31 * h + protocol;
    }
}
