package io.linerate.benchmarks.flowtable;

import io.linerate.benchmarks.frequency.ZipfKeys;
import it.unimi.dsi.fastutil.longs.LongOpenHashSet;
import java.util.SplittableRandom;

/**
 * F distinct IPv4 flows and a pre-generated packet stream over them whose flows follow Zipf(1.1): flow r (of
 * Zipf rank r) is drawn with probability proportional to 1/(r+1)<sup>1.1</sup> ({@link ZipfKeys#ranks},
 * Walker's alias method). Deterministic for a given flow count, length and seed.
 *
 * <p>Flows: random 32-bit source and destination addresses (every flow has a different address pair),
 * protocol TCP (80%), UDP (18%) or ICMP (2%, ports 0), source port random in [1024, 65535], destination port
 * one of ten common service ports (TCP, UDP) or random. Packets: the flow's 5-tuple, TCP flags (ACK, PSH|ACK,
 * SYN or FIN|ACK for TCP, 0 otherwise) and a length in [40, 1500] bytes, {@value #INTS} ints per packet in one
 * {@code int[]} (src, dst, srcPort, dstPort, protocol, flags, length, unused), read in order. Flow f has Zipf
 * rank f; flows are inserted into a table in a random order ({@link #insertionOrder()}).
 */
public final class Packets {

    /** Zipf exponent of the flow distribution. */
    public static final double S = 1.1;
    /** ints per packet in {@link #stream()}. */
    public static final int INTS = 8;
    /** Packets in the benchmark's stream: 2<sup>22</sup> (128 MB); the benchmark cycles through it. */
    public static final int LENGTH = 1 << 22;
    /** Seed of the benchmark's flows and stream. */
    public static final long SEED = 0x464C4F57_00000011L;

    static final int SRC = 0;
    static final int DST = 1;
    static final int SRC_PORT = 2;
    static final int DST_PORT = 3;
    static final int PROTOCOL = 4;
    static final int FLAGS = 5;
    static final int LENGTH_FIELD = 6;

    private static final int[] SERVICE_PORTS = {80, 443, 53, 22, 25, 123, 8080, 3306, 5432, 6379};
    private static final int[] TCP_FLAGS = {0x10, 0x18, 0x18, 0x10, 0x10, 0x18, 0x02, 0x11};

    private final int[] src;
    private final int[] dst;
    private final int[] srcPort;
    private final int[] dstPort;
    private final int[] protocol;
    private final int[] insertionOrder;
    private final int[] stream;

    private Packets(int flows, int length, long seed) {
        if (flows < 1 || length < 0 || (long) length * INTS > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("flows must be ≥ 1 and length in [0, 2^28), got " + flows + ", "
                    + length);
        }
        src = new int[flows];
        dst = new int[flows];
        srcPort = new int[flows];
        dstPort = new int[flows];
        protocol = new int[flows];
        SplittableRandom random = new SplittableRandom(seed ^ 0x666C6F77L);
        LongOpenHashSet pairs = new LongOpenHashSet(flows);
        for (int f = 0; f < flows; f++) {
            long pair;
            do {
                pair = random.nextLong();
            } while (!pairs.add(pair));
            src[f] = (int) (pair >>> 32);
            dst[f] = (int) pair;
            int p = random.nextInt(100);
            protocol[f] = p < 80 ? 6 : p < 98 ? 17 : 1;
            if (protocol[f] != 1) {
                srcPort[f] = 1024 + random.nextInt(65536 - 1024);
                dstPort[f] = random.nextInt(4) == 0 ? random.nextInt(65536)
                        : SERVICE_PORTS[random.nextInt(SERVICE_PORTS.length)];
            }
        }
        insertionOrder = new int[flows];
        for (int f = 0; f < flows; f++) {
            int j = random.nextInt(f + 1); // Fisher-Yates, inside-out
            insertionOrder[f] = insertionOrder[j];
            insertionOrder[j] = f;
        }
        int[] ranks = ZipfKeys.ranks(flows, S, length, seed);
        stream = new int[length * INTS];
        for (int i = 0; i < length; i++) {
            int f = ranks[i];
            int e = i * INTS;
            stream[e + SRC] = src[f];
            stream[e + DST] = dst[f];
            stream[e + SRC_PORT] = srcPort[f];
            stream[e + DST_PORT] = dstPort[f];
            stream[e + PROTOCOL] = protocol[f];
            stream[e + FLAGS] = protocol[f] == 6 ? TCP_FLAGS[random.nextInt(TCP_FLAGS.length)] : 0;
            stream[e + LENGTH_FIELD] = 40 + random.nextInt(1461);
        }
    }

    /** {@code flows} distinct flows and a stream of {@code length} packets over them. */
    public static Packets generate(int flows, int length, long seed) {
        return new Packets(flows, length, seed);
    }

    /** The benchmark's packets: {@code flows} flows, {@link #LENGTH} packets, {@link #SEED}. */
    public static Packets standard(int flows) {
        return new Packets(flows, LENGTH, SEED);
    }

    /** Distinct flows. */
    public int flows() {
        return src.length;
    }

    /** Packets in the stream. */
    public int length() {
        return stream.length / INTS;
    }

    /** The stream, {@value #INTS} ints per packet. Shared: do not modify. */
    public int[] stream() {
        return stream;
    }

    /**
     * Puts every flow into {@code table} with one packet (a 60-byte SYN for TCP) in {@link #insertionOrder()},
     * at timestamps {@code timestamp}, {@code timestamp + 1}, ...; returns the next timestamp.
     */
    public long insertEveryFlow(FlowCounter table, long timestamp) {
        long t = timestamp;
        for (int f : insertionOrder) {
            table.update(src[f], dst[f], srcPort[f], dstPort[f], protocol[f], protocol[f] == 6 ? 0x02 : 0, 60, t++);
        }
        return t;
    }

    /**
     * The order {@link #insertEveryFlow} inserts the flows in: a fixed random permutation, so that the heavy
     * flows (low Zipf ranks) are not the first to arrive in an empty table. (In rank order they would all get
     * the first place they try: the first sub-table of a flow table, their home slot in an open-addressing map.)
     */
    public int[] insertionOrder() {
        return insertionOrder.clone();
    }

    /** Feeds the whole stream to {@code table}, one timestamp per packet from {@code timestamp}; returns the next. */
    public long feed(FlowCounter table, long timestamp) {
        long t = timestamp;
        int[] p = stream;
        for (int e = 0; e < p.length; e += INTS) {
            table.update(p[e], p[e + 1], p[e + 2], p[e + 3], p[e + 4], p[e + 5], p[e + 6], t++);
        }
        return t;
    }

    int src(int flow) {
        return src[flow];
    }

    int dst(int flow) {
        return dst[flow];
    }

    int srcPort(int flow) {
        return srcPort[flow];
    }

    int dstPort(int flow) {
        return dstPort[flow];
    }

    int protocol(int flow) {
        return protocol[flow];
    }

    /** {packets, bytes, OR of flags} of {@code flow} in the stream, counted from the stream. */
    long[] exact(int flow) {
        long packets = 0;
        long bytes = 0;
        long flags = 0;
        for (int e = 0; e < stream.length; e += INTS) {
            if (stream[e + SRC] == src[flow] && stream[e + DST] == dst[flow]) {
                packets++;
                bytes += stream[e + LENGTH_FIELD];
                flags |= stream[e + FLAGS];
            }
        }
        return new long[] {packets, bytes, flags};
    }
}
