package io.linerate.flink.flowmeter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.linerate.flink.flowmeter.Packets.Packet;
import io.linerate.flink.state.WriteBackCache;
import io.linerate.sketches.flowtable.FlowKeyFormat;
import io.linerate.sketches.flowtable.InsertionScheme;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.flink.api.common.ExecutionConfig;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.api.operators.sorted.state.BatchExecutionKeyedStateBackend;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The write-back cache of scope tables ({@code FlowMeter.Builder#stateCacheBytes}) on the embedded RocksDB backend:
 * the same records as the heap backend, across snapshots and restores, with caches that hold every scope or fewer
 * than the scopes in use (tables written back and read again as scopes take turns); a table is read from RocksDB
 * once per scope while it stays cached instead of once per record; no cache on the heap backend or under Flink's
 * plain operator (custom {@code process(..)} wiring, which has no hook before the barrier).
 */
@SuppressWarnings("try") // the harness's close() may throw InterruptedException
class FlowMeterStateCacheTest {

    private static final int SCOPES = 8;
    private static final int EVERY = 50; // packets between watermarks
    private static final long LAG = 1_500;
    private static final List<Packet> PACKETS = Packets.churn(11, 3_000, SCOPES);
    private static final int CUT = 1_775; // mid-stream, between two watermarks

    /** Small tables (evictions happen too) and short timeouts, so every export reason occurs. */
    private static FlowMeter.Builder<Packet, String> builder() {
        return Packets.meter().capacity(4).stashCapacity(2).idleTimeout(Duration.ofSeconds(5))
                .activeTimeout(Duration.ofSeconds(20)).tick(Duration.ofMillis(500));
    }

    /** A meter whose cache holds {@code scopes} tables. */
    private static FlowMeter<Packet, String> caching(int scopes) {
        long table = builder().build().tableBytes();
        FlowMeter<Packet, String> meter = builder().stateCacheBytes(scopes * table + table / 2).build();
        assertThat(meter.cachedScopes()).isEqualTo(scopes);
        return meter;
    }

    private static StateBackend rocksDb() {
        return new EmbeddedRocksDBStateBackend();
    }

    private static void feed(KeyedOneInputStreamOperatorTestHarness<String, Packet, MeteredFlow<String>> h, int from,
                             int to) throws Exception {
        for (int i = from; i < to; i++) {
            Harnesses.send(h, PACKETS.get(i));
            if ((i + 1) % EVERY == 0) {
                h.processWatermark(PACKETS.get(i).ts - LAG);
            }
        }
    }

    /** The records of a run, in a fixed order (scope, then emission order within the scope is kept by the sort). */
    private static List<MeteredFlow<String>> byScope(List<MeteredFlow<String>> flows) {
        List<MeteredFlow<String>> out = new ArrayList<>(flows);
        out.sort(Comparator.comparing(f -> f.scope)); // stable: each scope's records stay in emission order
        return out;
    }

    private static List<MeteredFlow<String>> heapRun() throws Exception {
        try (var h = Harnesses.open(builder().build(), new HashMapStateBackend(), 1, 0, null)) {
            h.open();
            feed(h, 0, PACKETS.size());
            h.processWatermark(Long.MAX_VALUE);
            return byScope(h.extractOutputValues());
        }
    }

    /**
     * Caches of every size from one table to all of them, cut by a snapshot and restored into a fresh harness: the
     * heap backend's records, with every export reason on both sides of the cut.
     */
    @ParameterizedTest(name = "cached scopes {0}")
    @ValueSource(ints = {1, 3, SCOPES})
    void rocksDbWithACacheGivesTheHeapRecordsAcrossARestore(int cached) throws Exception {
        List<MeteredFlow<String>> expected = heapRun();
        FlowMeter<Packet, String> meter = caching(cached);
        List<MeteredFlow<String>> all = new ArrayList<>();
        OperatorSubtaskState snapshot;
        Harnesses.Metrics metrics = new Harnesses.Metrics();
        try (var h = Harnesses.open(meter, rocksDb(), 1, 0, metrics)) {
            h.open();
            feed(h, 0, CUT);
            assertThat((Integer) metrics.gaugeValue("cachedScopes")).isEqualTo(cached);
            snapshot = h.snapshot(1, PACKETS.get(CUT).ts);
            all.addAll(h.extractOutputValues());
            if (cached == SCOPES) { // a scope's table is read again only after its table emptied and was cleared
                assertThat((Long) metrics.gaugeValue("stateReads")).as("tables read from RocksDB")
                        .isLessThan(CUT / 10);
            }
        }
        try (var h = Harnesses.open(meter, rocksDb(), 1, 0, null)) {
            h.initializeState(snapshot);
            h.open();
            assertThat(h.getOperator().getKeyedStateBackend().getClass().getSimpleName()).startsWith("RocksDB");
            feed(h, CUT, PACKETS.size());
            h.processWatermark(Long.MAX_VALUE);
            all.addAll(h.extractOutputValues());
        }
        assertThat(all.stream().map(f -> f.reason).distinct()).hasSize(4); // idle, active, evicted, flushed
        assertThat(byScope(all)).isEqualTo(expected);
        assertThat(all.stream().mapToLong(f -> f.packets).sum()).isEqualTo(PACKETS.size());
    }

    /**
     * With room for every scope, each scope's table is looked up in RocksDB once (its first packet finds none and
     * creates it) and written only when a snapshot needs it; without the cache, every packet reads and writes its
     * scope's whole table.
     */
    @Test
    void aCachedTableIsReadOnceAndWrittenOnlyForASnapshot() throws Exception {
        Harnesses.Metrics cached = new Harnesses.Metrics();
        Harnesses.Metrics plain = new Harnesses.Metrics();
        try (var h = Harnesses.open(caching(SCOPES), rocksDb(), 1, 0, cached);
             var p = Harnesses.open(builder().stateCacheBytes(0).build(), rocksDb(), 1, 0, plain)) {
            h.open();
            p.open();
            int n = 400; // no watermark: no timer fires, every packet goes through processElement
            for (Packet packet : PACKETS.subList(0, n)) {
                Harnesses.send(h, packet);
                Harnesses.send(p, packet);
            }
            long scopes = PACKETS.subList(0, n).stream().map(x -> x.scope).distinct().count();
            assertThat((Long) cached.gaugeValue("stateReads")).isEqualTo(scopes);
            assertThat((Long) cached.gaugeValue("stateWrites")).isZero();
            assertThat((Long) plain.gaugeValue("stateReads")).isEqualTo(n);
            assertThat((Long) plain.gaugeValue("stateWrites")).isEqualTo(n);
            assertThat((Integer) plain.gaugeValue("cachedScopes")).isZero();

            h.snapshot(1, PACKETS.get(n).ts);
            assertThat((Long) cached.gaugeValue("stateWrites")).as("written back for the snapshot").isEqualTo(scopes);
            h.snapshot(2, PACKETS.get(n).ts);
            assertThat((Long) cached.gaugeValue("stateWrites")).as("nothing changed since").isEqualTo(scopes);
            for (String scope : PACKETS.subList(0, n).stream().map(x -> x.scope).distinct().toList()) {
                assertThat(Harnesses.tableImage(h, scope)).as(scope).isEqualTo(Harnesses.tableImage(p, scope));
            }
        }
    }

    /** A cache of one table with scopes taking turns: each turn writes the last scope's table back and reads the next. */
    @Test
    void scopesTakingTurnsInACacheOfOneAreWrittenBackAndReadAgain() throws Exception {
        Harnesses.Metrics metrics = new Harnesses.Metrics();
        try (var h = Harnesses.open(caching(1), rocksDb(), 1, 0, metrics)) {
            h.open();
            Packet a = new Packet("a", 1, 2, 100, 1_000);
            Packet b = new Packet("b", 2, 2, 100, 1_000);
            for (int i = 0; i < 5; i++) {
                Harnesses.send(h, a);
                Harnesses.send(h, b);
            }
            // a: created (read finds none), then 4 more turns; b alike: each turn but the first reads the table
            assertThat((Long) metrics.gaugeValue("stateReads")).isEqualTo(10);
            assertThat((Long) metrics.gaugeValue("stateWrites")).isEqualTo(9); // every turn's end but b's last
            h.processWatermark(Long.MAX_VALUE);
            assertThat(h.extractOutputValues()).extracting(f -> f.scope + ":" + f.packets)
                    .containsExactlyInAnyOrder("a:5", "b:5");
        }
    }

    /** No cache where it could not be flushed before a barrier, nor on the heap backend, whose state is live. */
    @ParameterizedTest(name = "rocksDb={0}")
    @ValueSource(booleans = {false, true})
    void noCacheOnTheHeapBackendNorUnderFlinksPlainOperator(boolean rocksDb) throws Exception {
        Harnesses.Metrics metrics = new Harnesses.Metrics();
        // on RocksDB: Flink's plain KeyedProcessOperator (custom wiring); on heap: the meter's own operator
        try (var h = Harnesses.open(caching(SCOPES), rocksDb ? rocksDb() : new HashMapStateBackend(), 1, 0, metrics,
                !rocksDb)) {
            h.open();
            for (Packet packet : PACKETS.subList(0, 100)) {
                Harnesses.send(h, packet);
            }
            assertThat((Integer) metrics.gaugeValue("cachedScopes")).isZero();
            assertThat((Long) metrics.gaugeValue("stateReads")).isEqualTo(100);
            assertThat((Long) metrics.gaugeValue("stateWrites")).isEqualTo(100);
        }
    }

    /** Only a backend that stores values serialized gets a cache; the heap's and batch execution's do not. */
    @Test
    void onlyRocksDbStoresValuesSerialized() throws Exception {
        try (var heap = Harnesses.open(builder().build(), new HashMapStateBackend(), 1, 0, null);
             var rocks = Harnesses.open(builder().build(), rocksDb(), 1, 0, null)) {
            heap.open();
            rocks.open();
            assertThat(WriteBackCache.storesSerialized(heap.getOperator().getKeyedStateBackend())).isFalse();
            assertThat(WriteBackCache.storesSerialized(rocks.getOperator().getKeyedStateBackend())).isTrue();
        }
        assertThat(WriteBackCache.storesSerialized(new BatchExecutionKeyedStateBackend<>(StringSerializer.INSTANCE,
                new KeyGroupRange(0, 127), new ExecutionConfig()))).isFalse();
    }

    @Test
    void theCacheBudgetIsCheckedAndCountsWholeTables() {
        assertThatThrownBy(() -> builder().stateCacheBytes(-1)).hasMessage("stateCacheBytes must be >= 0, got -1");
        FlowMeter<Packet, String> meter = builder().build();
        long table = meter.newTable(null).memoryBytes();
        assertThat(meter.tableBytes()).as("the budget's arithmetic against a real table").isEqualTo(table);
        for (long capacity : new long[] {4, 1_000, 100_000}) {
            for (InsertionScheme scheme : InsertionScheme.values()) {
                for (FlowKeyFormat format : FlowKeyFormat.values()) {
                    FlowMeter<Packet, String> m = builder().capacity(capacity).scheme(scheme).keyFormat(format)
                            .build();
                    assertThat(m.tableBytes()).as("%d flows, %s, %s", capacity, scheme, format)
                            .isEqualTo(m.newTable(null).memoryBytes());
                }
            }
        }
        assertThat((long) meter.cachedScopes() * table).as("%d tables of %d bytes: what fits in 64 MiB",
                meter.cachedScopes(), table).isLessThanOrEqualTo(64L << 20).isGreaterThan((long) (0.99 * (64L << 20)));
        assertThat(builder().stateCacheBytes(meter.tableBytes() - 1).build().cachedScopes()).isZero();
        assertThat(builder().stateCacheBytes(0).build().cachedScopes()).isZero();
    }
}
