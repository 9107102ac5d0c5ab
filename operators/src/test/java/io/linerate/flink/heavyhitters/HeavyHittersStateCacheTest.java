package io.linerate.flink.heavyhitters;

import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.flink.heavyhitters.Fixtures.Event;
import io.linerate.flink.state.OperatorMetrics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.IntStream;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The write-back cache of window rings ({@code HeavyHitterDetector.Builder#stateCacheBytes}) on the embedded RocksDB
 * backend: the heap backend's reports and alerts across a snapshot and restore, with budgets that hold every key's
 * ring, a few, or less than one ring (rings of a sliding window grow and shrink as sub-windows open and close, so
 * the cache weighs them by their bytes); the held rings never weigh more than the budget between records; a ring is
 * read from RocksDB once while it stays cached instead of once per record.
 */
@SuppressWarnings("try") // the harness's close() may throw InterruptedException
class HeavyHittersStateCacheTest {

    private static final List<String> LINKS = IntStream.range(0, 12).mapToObj(i -> "link-" + i).toList();
    private static final List<Event> EVENTS = withFinalWatermark(Fixtures.zipfStream(LINKS, 6, 1000, 300, 33));
    /** Mid-stream, inside sub-window 3. */
    private static final int SPLIT = EVENTS.size() / 2 + 77;

    private static HeavyHitterDetector.Builder<Tuple3<String, Long, Integer>, String> builder() {
        return Fixtures.builder().weight(r -> r.f2).sliding(Duration.ofSeconds(3), Duration.ofSeconds(1)).topK(5)
                .phi(0.02).capacity(60).alertAtFraction(0.05, 2_000);
    }

    private static final long TRACKER_BYTES = builder().build().trackerBytes();

    private static List<Event> withFinalWatermark(List<Event> events) {
        List<Event> all = new ArrayList<>(events);
        all.add(Event.watermark(Long.MAX_VALUE));
        return all;
    }

    /**
     * Reports and alerts per key ("key report", "key alert"), each in emission order (keys' timers due together may
     * fire in any order).
     */
    private static Map<String, List<String>> drainByKey(
            KeyedOneInputStreamOperatorTestHarness<String, ?, HeavyHitterReport<String>> h) {
        Map<String, List<String>> out = new TreeMap<>();
        h.extractOutputValues()
                .forEach(r -> out.computeIfAbsent(r.key + " report", k -> new ArrayList<>()).add(r.toString()));
        var alerts = h.getSideOutput(HeavyHitterDetector.alertTag(Types.STRING));
        if (alerts != null) {
            alerts.forEach(a -> out.computeIfAbsent(a.getValue().key + " alert", k -> new ArrayList<>())
                    .add(a.getValue().toString()));
            alerts.clear();
        }
        h.getOutput().clear();
        return out;
    }

    private static void merge(Map<String, List<String>> into, Map<String, List<String>> more) {
        more.forEach((k, v) -> into.computeIfAbsent(k, x -> new ArrayList<>()).addAll(v));
    }

    /** Feeds events, checking after each that the held rings weigh no more than {@code budget}. */
    private static void feed(KeyedOneInputStreamOperatorTestHarness<String, Tuple3<String, Long, Integer>, ?> h,
                             List<Event> events, OperatorMetrics metrics, long budget) throws Exception {
        for (Event e : events) {
            if (e.watermark()) {
                h.processWatermark(new Watermark(e.time()));
            } else {
                h.processElement(new StreamRecord<>(e.record(), e.time()));
            }
            assertThat((Long) metrics.gaugeValue("cachedBytes")).isBetween(0L, budget);
        }
    }

    private static Map<String, List<String>> heapRun() throws Exception {
        try (var h = Fixtures.harness(builder().build(), new HashMapStateBackend(), new OperatorMetrics())) {
            h.open();
            Fixtures.feed(h, EVENTS);
            return drainByKey(h);
        }
    }

    /**
     * Budgets of two trackers (a held ring weighs the sub-windows it has read: one to four trackers), about three
     * rings and all twelve keys' rings; a snapshot mid-stream restored into a fresh harness: the heap run's output.
     */
    @ParameterizedTest(name = "budget {0} trackers")
    @ValueSource(ints = {2, 12, 100})
    void rocksDbWithACacheGivesTheHeapOutputAcrossARestore(int trackers) throws Exception {
        Map<String, List<String>> expected = heapRun();
        assertThat(expected.keySet()).anyMatch(k -> k.endsWith(" alert"));
        long budget = trackers * TRACKER_BYTES;
        var detector = builder().stateCacheBytes(budget).build();
        Map<String, List<String>> all = new TreeMap<>();
        OperatorSubtaskState snapshot;
        OperatorMetrics metrics = new OperatorMetrics();
        try (var h = Fixtures.harness(detector, new EmbeddedRocksDBStateBackend(), metrics)) {
            h.open();
            feed(h, EVENTS.subList(0, SPLIT), metrics, budget);
            int cached = (Integer) metrics.gaugeValue("cachedScopes");
            if (trackers == 2) {
                // a held ring weighs the sub-windows read since it entered (its records' one, a report's three): at
                // the cut, inside the third sub-window, a ring that read only that one fits
                assertThat(cached).as("keys held within two trackers").isBetween(1, 2);
            } else if (trackers == 12) {
                assertThat(cached).isBetween(1, LINKS.size() - 1);
            } else {
                assertThat(cached).isEqualTo(LINKS.size());
            }
            snapshot = h.snapshot(1, 1);
            merge(all, drainByKey(h));
        }
        OperatorMetrics restored = new OperatorMetrics();
        try (var h = Fixtures.harness(detector, new EmbeddedRocksDBStateBackend(), restored)) {
            h.initializeState(snapshot);
            h.open();
            assertThat(h.getOperator().getKeyedStateBackend().getClass().getSimpleName()).startsWith("RocksDB");
            feed(h, EVENTS.subList(SPLIT, EVENTS.size()), restored, budget);
            merge(all, drainByKey(h));
        }
        assertThat(all).isEqualTo(expected);
    }

    /**
     * With room for every ring, each key's ring is looked up in RocksDB once (its first record finds none) and written
     * only when a snapshot needs it; without the cache, and with a budget below one ring, every record reads and
     * writes its key's whole ring.
     */
    @Test
    void aCachedRingIsReadOnceAndWrittenOnlyForASnapshot() throws Exception {
        OperatorMetrics cached = new OperatorMetrics();
        OperatorMetrics plain = new OperatorMetrics();
        OperatorMetrics tooSmall = new OperatorMetrics();
        try (var h = Fixtures.harness(builder().build(), new EmbeddedRocksDBStateBackend(), cached);
             var p = Fixtures.harness(builder().stateCacheBytes(0).build(), new EmbeddedRocksDBStateBackend(), plain);
             var s = Fixtures.harness(builder().stateCacheBytes(TRACKER_BYTES / 2).build(),
                     new EmbeddedRocksDBStateBackend(), tooSmall)) {
            h.open();
            p.open();
            s.open();
            List<Event> records = EVENTS.stream().filter(e -> !e.watermark()).limit(600).toList();
            for (Event e : records) { // no watermark: no timer fires
                for (var x : List.of(h, p, s)) {
                    x.processElement(new StreamRecord<>(e.record(), e.time()));
                }
            }
            long keys = records.stream().map(e -> e.record().f0).distinct().count();
            assertThat((Long) cached.gaugeValue("stateReads")).isEqualTo(keys);
            assertThat((Long) cached.gaugeValue("stateWrites")).isZero();
            assertThat((Integer) cached.gaugeValue("cachedScopes")).isEqualTo((int) keys);
            assertThat((Long) cached.gaugeValue("cachedBytes")).isPositive();
            for (OperatorMetrics m : List.of(plain, tooSmall)) {
                assertThat((Long) m.gaugeValue("stateReads")).isEqualTo(records.size());
                assertThat((Long) m.gaugeValue("stateWrites")).isEqualTo(records.size());
                assertThat((Integer) m.gaugeValue("cachedScopes")).isZero();
            }
            h.snapshot(1, 1);
            assertThat((Long) cached.gaugeValue("stateWrites")).as("written back for the snapshot").isEqualTo(keys);
            h.snapshot(2, 2);
            assertThat((Long) cached.gaugeValue("stateWrites")).as("nothing changed since").isEqualTo(keys);
        }
    }

    /**
     * The state holds one entry per sub-window (layout 2): with eight sub-windows of a key open (records a backlog
     * ahead of the watermark), a record of the newest reads and writes that sub-window only, without the cache or
     * with one too small for the key's whole window; layout 1 read and wrote all eight trackers per record.
     */
    @ParameterizedTest(name = "stateCacheBytes = {0} trackers")
    @ValueSource(ints = {0, 2})
    void aRecordReadsAndWritesItsOwnSubWindowOnly(int trackers) throws Exception {
        var detector = Fixtures.builder().tumbling(Duration.ofSeconds(1)).phi(0.02).capacity(60)
                .stateCacheBytes(trackers * TRACKER_BYTES).build();
        OperatorMetrics metrics = new OperatorMetrics();
        try (var h = Fixtures.harness(detector, new EmbeddedRocksDBStateBackend(), metrics)) {
            h.open();
            for (int s = 0; s < 8; s++) { // no watermark: every sub-window stays open
                h.processElement(new StreamRecord<>(Tuple3.of("a", (long) s, 1), s * 1000L + 10));
            }
            long reads = SubWindowSerializer.READS.sum();
            long writes = SubWindowSerializer.WRITES.sum();
            for (int i = 0; i < 20; i++) {
                h.processElement(new StreamRecord<>(Tuple3.of("a", (long) i, 1), 7_500L));
            }
            long read = SubWindowSerializer.READS.sum() - reads;
            long written = SubWindowSerializer.WRITES.sum() - writes;
            if (trackers == 0) {
                assertThat(read).as("sub-windows read for 20 records").isEqualTo(20);
                assertThat(written).as("sub-windows written for 20 records").isEqualTo(20);
            } else {
                assertThat(read).as("sub-windows read for 20 records, the key held").isLessThanOrEqualTo(1);
                assertThat(written).as("nothing written before a snapshot").isZero();
                assertThat((Integer) metrics.gaugeValue("cachedScopes")).isEqualTo(1);
            }
            h.snapshot(1, 1); // writes the held key back
            assertThat(mapEntries(h, "a")).as("map entries of the key's eight open sub-windows").isEqualTo(8);
            h.processWatermark(new Watermark(Long.MAX_VALUE));
            assertThat(h.extractOutputValues()).as("a report per sub-window").hasSize(8)
                    .allSatisfy(r -> assertThat(r.totalWeight).isPositive());
            assertThat(h.extractOutputValues().get(7).totalWeight).isEqualTo(21);
            h.snapshot(2, 2);
            assertThat(mapEntries(h, "a")).as("map entries once every window was reported").isZero();
            try (var keys = h.getOperator().getKeyedStateBackend().getKeys(
                    HeavyHittersBatchOperator.OPEN_SUB_WINDOWS_STATE, VoidNamespace.INSTANCE)) {
                assertThat(keys.count()).as("keys with an index left").isZero();
            }
        }
    }

    /**
     * A held ring weighs what its records can still change: a report reads the window's n = 4 sub-windows, and those
     * of them that are written back already (here by a snapshot before each report) are dropped after it and read
     * again by the next report, so between reports the ring weighs its index only, not n trackers. The reports are the
     * heap backend's, and each reads the sub-windows it dropped before.
     */
    @Test
    void aHeldRingDropsTheReportedSubWindowsWrittenBack() throws Exception {
        var detector = Fixtures.builder().sliding(Duration.ofSeconds(4), Duration.ofSeconds(1)).phi(0.02).capacity(60)
                .build();
        OperatorMetrics metrics = new OperatorMetrics();
        List<String> reports = new ArrayList<>();
        List<Long> readsPerReport = new ArrayList<>();
        try (var h = Fixtures.harness(detector, new EmbeddedRocksDBStateBackend(), metrics)) {
            h.open();
            for (int s = 0; s < 10; s++) {
                for (int i = 0; i < 30; i++) {
                    h.processElement(new StreamRecord<>(Tuple3.of("a", (long) (i % 7), 1), s * 1000L + 10 + i));
                }
                h.snapshot(s, s); // writes the ring back: every sub-window unchanged since
                long reads = SubWindowSerializer.READS.sum();
                h.processWatermark(new Watermark(s * 1000L + 999)); // reports the window ending with sub-window s
                readsPerReport.add(SubWindowSerializer.READS.sum() - reads);
                assertThat((Integer) metrics.gaugeValue("cachedScopes")).isEqualTo(1);
                assertThat((Long) metrics.gaugeValue("cachedBytes")).as("held after report %d: the index of at "
                        + "most 3 open sub-windows, no tracker", s).isLessThanOrEqualTo(3 * 8L);
            }
            h.extractOutputValues().forEach(r -> reports.add(r.toString()));
        }
        // the report of sub-window s reads the earlier ones of its window, dropped after the previous report
        assertThat(readsPerReport).containsExactly(0L, 1L, 2L, 3L, 3L, 3L, 3L, 3L, 3L, 3L);
        List<String> heap = new ArrayList<>();
        try (var h = Fixtures.harness(detector, new HashMapStateBackend(), new OperatorMetrics())) {
            h.open();
            for (int s = 0; s < 10; s++) {
                for (int i = 0; i < 30; i++) {
                    h.processElement(new StreamRecord<>(Tuple3.of("a", (long) (i % 7), 1), s * 1000L + 10 + i));
                }
                h.processWatermark(new Watermark(s * 1000L + 999));
            }
            h.extractOutputValues().forEach(r -> heap.add(r.toString()));
        }
        assertThat(reports).hasSize(10).isEqualTo(heap);
    }

    /** The entries of {@code key}'s sub-window map in the backend (RocksDB: what a full snapshot would write). */
    private static int mapEntries(KeyedOneInputStreamOperatorTestHarness<String, ?, ?> h, String key)
            throws Exception {
        var backend = h.getOperator().getKeyedStateBackend();
        backend.setCurrentKey(key);
        MapState<Long, SubWindow> windows = backend.getPartitionedState(VoidNamespace.INSTANCE,
                VoidNamespaceSerializer.INSTANCE, new MapStateDescriptor<>(HeavyHittersBatchOperator.SUB_WINDOWS_STATE,
                        Types.LONG, new SubWindowTypeInfo()));
        int n = 0;
        for (Long ignored : windows.keys()) {
            n++;
        }
        return n;
    }

    /** The heap backend's state is the live ring: no cache there, whatever the budget. */
    @Test
    void noCacheOnTheHeapBackend() throws Exception {
        OperatorMetrics metrics = new OperatorMetrics();
        StateBackend heap = new HashMapStateBackend();
        try (var h = Fixtures.harness(builder().build(), heap, metrics)) {
            h.open();
            List<Event> records = EVENTS.stream().filter(e -> !e.watermark()).limit(100).toList();
            for (Event e : records) {
                h.processElement(new StreamRecord<>(e.record(), e.time()));
            }
            assertThat((Integer) metrics.gaugeValue("cachedScopes")).isZero();
            assertThat((Long) metrics.gaugeValue("stateReads")).isEqualTo(records.size());
        }
    }
}
