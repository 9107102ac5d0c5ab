package io.linerate.benchmarks.pipeline;

import java.io.Serializable;

/**
 * What the packet source generates: {@code packets} packets over {@code flows} IPv4 flows whose ranks follow
 * Zipf({@code skew}), event time advancing {@code packetsPerSecond} packets per simulated second, each flow on one
 * of {@code links} links. Deterministic for a given value: packet i is the same whatever the parallelism.
 */
public record Workload(long packets, int flows, double skew, long seed, long packetsPerSecond, int links)
        implements Serializable {

    /** The stream: 20M packets, 1M flows, Zipf 1.1, 1M packets per simulated second. */
    public static final long PACKETS = 20_000_000L;
    public static final int FLOWS = 1_000_000;
    public static final double SKEW = 1.1;
    public static final long SEED = 0x50495045_00000011L;
    public static final long PACKETS_PER_SECOND = 1_000_000L;
    public static final int LINKS = 8;

    public Workload {
        require(packets >= 1, "packets must be >= 1, got " + packets);
        require(flows >= 1, "flows must be >= 1, got " + flows);
        require(skew > 0 && skew <= 10, "skew must be in (0, 10], got " + skew);
        require(packetsPerSecond >= 1, "packetsPerSecond must be >= 1, got " + packetsPerSecond);
        require(links >= 1 && links <= 0xFFFF, "links must be in [1, 65535], got " + links);
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

    /** Simulated seconds the stream spans. */
    public double simulatedSeconds() {
        return (double) packets / packetsPerSecond;
    }
}
