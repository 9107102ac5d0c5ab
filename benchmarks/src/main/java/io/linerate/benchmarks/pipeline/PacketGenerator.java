package io.linerate.benchmarks.pipeline;

import io.linerate.benchmarks.frequency.ZipfKeys;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Packet i of a {@link Workload}, computed from i alone (a counter-based generator), so any subtask can produce any
 * part of the stream and the stream does not depend on the parallelism.
 *
 * <p>Packet i: r = SplitMix64(seed + (i+1)·φ); its flow's Zipf rank comes from Walker's alias table
 * ({@link ZipfKeys#aliasTable}): column c = ⌊(r &gt;&gt;&gt; 32)·flows / 2<sup>32</sup>⌋, u = (r mod 2<sup>32</sup>) /
 * 2<sup>32</sup>, rank = c if u &lt; probability[c] else alias[c]. Flow rank f: address pair =
 * SplitMix64-finalizer(f·K + seed) — a bijection of f, so every flow has its own address pair — protocol TCP
 * (80%), UDP (18%) or ICMP (2%, ports 0), source port in [1024, 65535], destination port one of ten service ports
 * (3 in 4) or random, link uniform in [0, links). Length in [40, 1500] and TCP flags (ACK, PSH|ACK, SYN, FIN|ACK)
 * are drawn per packet. The alias table (12 bytes per flow) is built once per JVM per (flows, skew).
 */
public final class PacketGenerator {

    private static final long PHI = 0x9E3779B97F4A7C15L;
    private static final long FLOW_MULTIPLIER = 0xD1B54A32D192ED03L; // odd: f -> f*K is a bijection mod 2^64
    private static final int[] SERVICE_PORTS = {80, 443, 53, 22, 25, 123, 8080, 3306, 5432, 6379};
    private static final int[] TCP_FLAGS = {0x10, 0x18, 0x18, 0x10, 0x10, 0x18, 0x02, 0x11};
    private static final Map<String, AliasTable> TABLES = new ConcurrentHashMap<>();

    private final Workload workload;
    private final AliasTable table;
    private final long flowSeed;

    public PacketGenerator(Workload workload) {
        this.workload = workload;
        this.table = TABLES.computeIfAbsent(workload.flows() + "/" + workload.skew(),
                k -> new AliasTable(workload.flows(), workload.skew()));
        this.flowSeed = mix(workload.seed() ^ 0x666C6F77L);
    }

    /** Packet {@code index} (0 … packets-1) of the workload. */
    public Packet packet(long index) {
        long r = mix(workload.seed() + (index + 1) * PHI);
        int rank = rank(r);
        long pair = mix(rank * FLOW_MULTIPLIER + flowSeed);
        long f = mix(pair ^ 0x706F727473L); // protocol (low half), source port (high half)
        long g = mix(f);                     // destination port: random (low half) or a service (high half)
        int pick = below(f, 100);
        int protocol = pick < 80 ? 6 : pick < 98 ? 17 : 1;
        int srcPort = 0;
        int dstPort = 0;
        if (protocol != 1) {
            srcPort = 1024 + below(f >>> 32, 65536 - 1024);
            int service = below(g >>> 32, 4 * SERVICE_PORTS.length); // 3 in 4: a service port
            dstPort = service < SERVICE_PORTS.length ? (int) g & 0xFFFF
                    : SERVICE_PORTS[service % SERVICE_PORTS.length];
        }
        int link = below(mix(g), workload.links());
        long p = mix(r ^ 0x706B74L);
        int bytes = 40 + below(p, 1461);
        int flags = protocol == 6 ? TCP_FLAGS[(int) (p >>> 61)] : 0;
        return new Packet((int) (pair >>> 32), (int) pair, srcPort, dstPort, protocol, flags, bytes, link,
                workload.timestampOf(index));
    }

    /** The Zipf rank of packet {@code index}'s flow (0 = most frequent); for tests. */
    int rankOf(long index) {
        return rank(mix(workload.seed() + (index + 1) * PHI));
    }

    private int rank(long r) {
        int column = (int) (((r >>> 32) * table.flows) >>> 32);
        double u = (r & 0xFFFF_FFFFL) * 0x1.0p-32;
        return u < table.probability[column] ? column : table.alias[column];
    }

    /** ⌊(low 32 bits of x)·n / 2<sup>32</sup>⌋: an int in [0, n), near uniform, without a division. */
    private static int below(long x, int n) {
        return (int) (((x & 0xFFFF_FFFFL) * n) >>> 32);
    }

    /** SplitMix64's finalizer (a bijection of the 64-bit values). */
    static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    private static final class AliasTable {
        final int flows;
        final double[] probability;
        final int[] alias;

        AliasTable(int flows, double skew) {
            this.flows = flows;
            this.probability = new double[flows];
            this.alias = new int[flows];
            ZipfKeys.aliasTable(flows, skew, probability, alias);
        }
    }
}
