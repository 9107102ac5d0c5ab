package io.linerate.benchmarks.flowtable;

import io.linerate.sketches.flowtable.FlowKeyFormat;
import io.linerate.sketches.flowtable.FlowRecord;
import io.linerate.sketches.flowtable.FlowTable;
import io.linerate.sketches.flowtable.InsertionScheme;
import io.linerate.sketches.hash.FiveTuple;
import it.unimi.dsi.fastutil.objects.Object2ObjectOpenHashMap;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The contenders of {@link FlowTableBenchmark}, by name.
 *
 * <ul>
 *   <li><b>hashmap</b>: {@code java.util.HashMap<FlowKey, FlowStats>}, a new {@link FlowKey} record per packet
 *       for the lookup ({@code get}, then {@code put} on a miss), as user code does.</li>
 *   <li><b>hashmap-probe</b>: the same with one reused mutable {@link ProbeKey} for lookups (a copy is stored
 *       on insertion), so lookups allocate nothing.</li>
 *   <li><b>fastutil</b>, <b>fastutil-probe</b>: the same two with fastutil's
 *       {@code Object2ObjectOpenHashMap} (open addressing, linear probing, keys and values in two arrays).</li>
 *   <li><b>linerate</b>: {@code FlowTable}, IPv4-only keys, the default scheme (second chance, d = 4), the
 *       default sweep of 2 slots per update, a stash of {@value #STASH} entries instead of 64 (see there),
 *       both timeouts disabled ({@code Long.MAX_VALUE}) so nothing
 *       expires while measuring; {@code updateIpv4} with primitives.</li>
 *   <li><b>linerate-sweep0</b>: the same without the sweep (0 slots per update).</li>
 *   <li><b>linerate-summary</b>: the same as linerate with the multiple-Bloom-filter summary.</li>
 *   <li><b>linerate-std</b>, <b>linerate-sc2</b>, <b>linerate-scext</b>: the same as linerate with the STANDARD
 *       (d-left, never moves), SECOND_CHANCE_2 (two entries per bucket) and EXTREME_SECOND_CHANCE (one move
 *       chosen among every occupant of the new flow's buckets) schemes, each with its own Table 5.1 sizes.</li>
 * </ul>
 *
 * <p>The maps are created with their default constructors and grow as flows arrive, as a user who does not
 * know the flow count writes them (their table is then the smallest power of two their load factor 0.75
 * allows, which is also the least memory they can have). The flow table is built for the capacity n.
 */
public final class FlowCounters {

    public static final List<String> ALL = List.of("hashmap", "hashmap-probe", "fastutil", "fastutil-probe",
            "linerate", "linerate-sweep0", "linerate-summary", "linerate-std", "linerate-sc2", "linerate-scext");

    private FlowCounters() {
    }

    /** The contender {@code name}, sized (if it is a flow table) for {@code capacity} flows. */
    public static FlowCounter create(String name, int capacity) {
        switch (name) {
            case "hashmap":
                return new KeyPerPacket(name, new HashMap<>());
            case "hashmap-probe":
                return new Probe(name, new HashMap<>());
            case "fastutil":
                return new KeyPerPacket(name, new Object2ObjectOpenHashMap<>());
            case "fastutil-probe":
                return new Probe(name, new Object2ObjectOpenHashMap<>());
            case "linerate":
                return new Linerate(name, table(capacity).build());
            case "linerate-sweep0":
                return new Linerate(name, table(capacity).sweepSlotsPerUpdate(0).build());
            case "linerate-summary":
                return new Linerate(name, table(capacity).summary(true).build());
            case "linerate-std":
                return new Linerate(name, table(capacity).scheme(InsertionScheme.STANDARD).build());
            case "linerate-sc2":
                return new Linerate(name, table(capacity).scheme(InsertionScheme.SECOND_CHANCE_2).build());
            case "linerate-scext":
                return new Linerate(name, table(capacity).scheme(InsertionScheme.EXTREME_SECOND_CHANCE).build());
            default:
                throw new IllegalArgumentException("unknown flow table '" + name + "', known: " + ALL);
        }
    }

    /**
     * Stash entries of the benchmark's flow tables. The default stash (64) overflows before 90% of n at n = 1M:
     * inserting 900,000 flows into a second-chance table built for 1,000,000 sends about 140 of them to the
     * stash (the standard scheme about 650, and 79 already at n = 100k), so the default table evicts flows
     * there. 1024 entries hold them all; they cost 1024 · 48 bytes and are searched only on a miss or for a
     * flow that is in the stash.
     */
    public static final int STASH = 1024;

    /**
     * The benchmark's flow table settings: IPv4 keys, timeouts off, a stash of {@value #STASH}; everything else
     * the builder's default.
     */
    static FlowTable.Builder table(int capacity) {
        return FlowTable.builder()
                .capacity(capacity)
                .stashCapacity(STASH)
                .keyFormat(FlowKeyFormat.IPV4_ONLY)
                .idleTimeout(Long.MAX_VALUE)
                .activeTimeout(Long.MAX_VALUE);
    }

    /** What the map contenders share: everything but how a packet finds its key. */
    abstract static class MapCounter<K> implements FlowCounter {
        final String name;
        final Map<K, FlowStats> map;

        MapCounter(String name, Map<K, FlowStats> map) {
            this.name = name;
            this.map = map;
        }

        /** A fresh key for a lookup outside the measured path. */
        abstract K key(int src, int dst, int srcPort, int dstPort, int protocol);

        @Override
        public String name() {
            return name;
        }

        @Override
        public int size() {
            return map.size();
        }

        @Override
        public long[] stats(int src, int dst, int srcPort, int dstPort, int protocol) {
            FlowStats s = map.get(key(src, dst, srcPort, dstPort, protocol));
            return s == null ? null : s.toArray();
        }

        @Override
        public long reportedBytes() {
            return -1;
        }

        @Override
        public long evictions() {
            return 0;
        }

        @Override
        public String describe() {
            return name + ": " + map.getClass().getSimpleName() + ", size=" + map.size();
        }

        @Override
        public Object unwrap() {
            return map;
        }
    }

    /** A map with a new {@link FlowKey} per packet. */
    static final class KeyPerPacket extends MapCounter<FlowKey> {

        KeyPerPacket(String name, Map<FlowKey, FlowStats> map) {
            super(name, map);
        }

        @Override
        public void update(int src, int dst, int srcPort, int dstPort, int protocol, int tcpFlags, int length,
                           long timestamp) {
            FlowKey key = new FlowKey(src, dst, srcPort, dstPort, protocol);
            FlowStats stats = map.get(key);
            if (stats == null) {
                stats = new FlowStats();
                map.put(key, stats);
            }
            stats.add(tcpFlags, length, timestamp);
        }

        @Override
        FlowKey key(int src, int dst, int srcPort, int dstPort, int protocol) {
            return new FlowKey(src, dst, srcPort, dstPort, protocol);
        }
    }

    /** A map looked up with one reused {@link ProbeKey}; a copy is stored when a flow is new. */
    static final class Probe extends MapCounter<ProbeKey> {
        private final ProbeKey probe = new ProbeKey();

        Probe(String name, Map<ProbeKey, FlowStats> map) {
            super(name, map);
        }

        @Override
        public void update(int src, int dst, int srcPort, int dstPort, int protocol, int tcpFlags, int length,
                           long timestamp) {
            ProbeKey key = probe.set(src, dst, srcPort, dstPort, protocol);
            FlowStats stats = map.get(key);
            if (stats == null) {
                stats = new FlowStats();
                map.put(key.copy(), stats);
            }
            stats.add(tcpFlags, length, timestamp);
        }

        @Override
        ProbeKey key(int src, int dst, int srcPort, int dstPort, int protocol) {
            return new ProbeKey().set(src, dst, srcPort, dstPort, protocol);
        }
    }

    /** linerate's {@link FlowTable}, primitive update path. */
    static final class Linerate implements FlowCounter {
        private final String name;
        private final FlowTable table;

        Linerate(String name, FlowTable table) {
            this.name = name;
            this.table = table;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public void update(int src, int dst, int srcPort, int dstPort, int protocol, int tcpFlags, int length,
                           long timestamp) {
            table.updateIpv4(src, dst, srcPort, dstPort, protocol, tcpFlags, length, timestamp);
        }

        @Override
        public int size() {
            return table.size();
        }

        @Override
        public long[] stats(int src, int dst, int srcPort, int dstPort, int protocol) {
            int slot = table.find(FiveTuple.ipv4(src, dst, srcPort, dstPort, protocol));
            if (slot < 0) {
                return null;
            }
            FlowRecord r = table.record(slot);
            return new long[] {r.packets(), r.bytes(), r.firstTimestamp(), r.lastTimestamp(), r.tcpFlags()};
        }

        @Override
        public long reportedBytes() {
            return table.memoryBytes();
        }

        @Override
        public long evictions() {
            return table.evictions();
        }

        @Override
        public String describe() {
            StringBuilder loads = new StringBuilder();
            for (int i = 0; i < table.layout().levels(); i++) {
                loads.append(i == 0 ? "" : ", ").append(String.format(Locale.ROOT, "%.3f", table.load(i)));
            }
            return String.format(Locale.ROOT, "%s: %s, %s, %d slots, %d longs per slot, size=%d, stash=%d/%d, "
                            + "overflows=%d, evictions=%d, moves=%d, sub-table loads [%s]%s",
                    name, table.scheme(), table.layout(), table.slots(), table.entryLongs(), table.size(),
                    table.stashSize(), table.stashCapacity(), table.overflows(), table.evictions(), table.moves(),
                    loads, table.hasSummary() ? String.format(Locale.ROOT, ", summary lookups=%d, false positives=%d,"
                            + " failures=%d", table.summaryLookups(), table.summaryFalsePositives(),
                            table.summaryFailures()) : "");
        }

        @Override
        public Object unwrap() {
            return table;
        }

        FlowTable table() {
            return table;
        }
    }
}
