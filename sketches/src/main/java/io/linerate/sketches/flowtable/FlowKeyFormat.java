package io.linerate.sketches.flowtable;

/** Which 5-tuples a {@link FlowTable} stores, and so how wide its key is. */
public enum FlowKeyFormat {
    /** IPv4 only: addresses in one long, ports/protocol in another (16 bytes per key). */
    IPV4_ONLY(2),
    /** IPv4 and IPv6: four address longs and the ports/protocol long (40 bytes per key). */
    IPV4_AND_IPV6(5);

    private final int keyLongs;

    FlowKeyFormat(int keyLongs) {
        this.keyLongs = keyLongs;
    }

    /** Longs per stored key. */
    public int keyLongs() {
        return keyLongs;
    }

    public static FlowKeyFormat ofId(int id) {
        FlowKeyFormat[] all = values();
        if (id < 0 || id >= all.length) {
            throw new IllegalArgumentException("key format id must be in [0, " + (all.length - 1) + "], got " + id);
        }
        return all[id];
    }
}
