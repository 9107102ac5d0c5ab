package io.linerate.benchmarks.pipeline;

import java.io.Serializable;

/**
 * What the packet source generates: {@code packets} packets over {@code flows} IPv4 flows whose ranks follow
 * Zipf({@code skew}), event time advancing {@code packetsPerSecond} packets per simulated second, each flow on one
 * of {@code links} links, emitted in {@link PacketBatch}es of up to {@code batch} packets of one link (see
 * {@link PacketBatchIterator}). Deterministic for a given value: packet i is the same whatever the parallelism
 * (how the packets are grouped into batches depends on the parallelism: each source subtask batches its own).
 */
public record Workload(long packets, int flows, double skew, long seed, long packetsPerSecond, int links, int batch)
        implements Serializable {

    /** The stream: 20M packets, 1M flows, Zipf 1.1, 1M packets per simulated second. */
    public static final long PACKETS = 20_000_000L;
    public static final int FLOWS = 1_000_000;
    public static final double SKEW = 1.1;
    public static final long SEED = 0x50495045_00000011L;
    public static final long PACKETS_PER_SECOND = 1_000_000L;
    public static final int LINKS = 8;
    /** Packets per source record (a batch of one link): 64. */
    public static final int BATCH = 64;

    /** The stream in batches of {@value #BATCH} packets. */
    public Workload(long packets, int flows, double skew, long seed, long packetsPerSecond, int links) {
        this(packets, flows, skew, seed, packetsPerSecond, links, BATCH);
    }

    public Workload {
        require(packets >= 1, "packets must be >= 1, got " + packets);
        require(flows >= 1, "flows must be >= 1, got " + flows);
        require(skew > 0 && skew <= 10, "skew must be in (0, 10], got " + skew);
        require(packetsPerSecond >= 1, "packetsPerSecond must be >= 1, got " + packetsPerSecond);
        require(links >= 1 && links <= 0xFFFF, "links must be in [1, 65535], got " + links);
        require(batch >= 1 && batch <= PacketBatch.MAX_SIZE, "batch must be in [1, " + PacketBatch.MAX_SIZE
                + "], got " + batch);
    }

    private static void require(boolean condition, String message) {
        if (!condition) {
            throw new IllegalArgumentException(message);
        }
    }

    /** Event time of packet {@code index}, epoch milliseconds (the stream starts at 0). */
    public long timestampOf(long index) {
        return index * 1000 / packetsPerSecond;
    }

    /** The same stream in batches of {@code batch} packets. */
    public Workload withBatch(int batch) {
        return new Workload(packets, flows, skew, seed, packetsPerSecond, links, batch);
    }

    /** Simulated seconds the stream spans. */
    public double simulatedSeconds() {
        return (double) packets / packetsPerSecond;
    }
}
