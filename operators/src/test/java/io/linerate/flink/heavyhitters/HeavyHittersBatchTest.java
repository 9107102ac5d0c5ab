package io.linerate.flink.heavyhitters;

import static io.linerate.flink.heavyhitters.Batches.BATCH;
import static io.linerate.flink.heavyhitters.Batches.ELEMENT;
import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.flink.heavyhitters.Batches.Step;
import io.linerate.flink.rejects.Rejected;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.api.java.tuple.Tuple4;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Batch records through {@link HeavyHitterDetector#batchOperator}: the same elements fed as batches and as single
 * records give the same reports, alerts, late and rejected elements, counters and per-key state; snapshot/restore
 * mid-stream on heap and RocksDB continues identically; one state read and at most one write per batch.
 */
class HeavyHittersBatchTest {

    private static final List<String> LINKS = List.of("north", "south", "east", "west");
    private static final List<Step> STEPS = Batches.stream(LINKS, 6, 300, 41);

    private static KeyedOneInputStreamOperatorTestHarness<String, Tuple4<String, long[], int[], long[]>,
            HeavyHitterReport<String>> batchHarness(HeavyHitterDetector<Tuple4<String, Long, Integer, Long>, String> d)
            throws Exception {
        return new KeyedOneInputStreamOperatorTestHarness<>(
                d.batchOperator(BATCH, ELEMENT, Types.STRING, new Batches.Flyweight()), new Batches.BatchLink(),
                Types.STRING);
    }

    private static KeyedOneInputStreamOperatorTestHarness<String, Tuple4<String, Long, Integer, Long>,
            HeavyHitterReport<String>> singleHarness(HeavyHitterDetector<Tuple4<String, Long, Integer, Long>, String> d)
            throws Exception {
        return new KeyedOneInputStreamOperatorTestHarness<>(d.operator(ELEMENT, Types.STRING),
                new Batches.ElementLink(), Types.STRING);
    }

    private static void feedBatches(KeyedOneInputStreamOperatorTestHarness<String, Tuple4<String, long[], int[], long[]>,
            HeavyHitterReport<String>> h, List<Step> steps) throws Exception {
        for (Step s : steps) {
            if (s.isWatermark()) {
                h.processWatermark(new Watermark(s.watermark()));
            } else {
                h.processElement(s.timestamp() == null ? new StreamRecord<>(s.batch())
                        : new StreamRecord<>(s.batch(), s.timestamp()));
            }
        }
    }

    /** Each element of each batch as one record carrying the batch record's timestamp (or none). */
    private static void feedSingles(KeyedOneInputStreamOperatorTestHarness<String, Tuple4<String, Long, Integer, Long>,
            HeavyHitterReport<String>> h, List<Step> steps) throws Exception {
        for (Step s : steps) {
            if (s.isWatermark()) {
                h.processWatermark(new Watermark(s.watermark()));
                continue;
            }
            for (var e : s.elements()) {
                h.processElement(s.timestamp() == null ? new StreamRecord<>(e) : new StreamRecord<>(e, s.timestamp()));
            }
        }
    }

    /** Everything emitted so far, each output in its order, then cleared. */
    private static List<String> drain(KeyedOneInputStreamOperatorTestHarness<String, ?, HeavyHitterReport<String>> h) {
        List<String> out = new ArrayList<>();
        h.extractOutputValues().forEach(r -> out.add(r.toString()));
        h.getOutput().clear();
        var alerts = h.getSideOutput(HeavyHitterDetector.alertTag(Types.STRING));
        if (alerts != null) {
            alerts.forEach(a -> out.add(a.getValue() + " @" + a.getTimestamp()));
            alerts.clear();
        }
        var late = h.getSideOutput(HeavyHitterDetector.lateTag(ELEMENT));
        if (late != null) {
            late.forEach(r -> out.add("late " + r.getValue() + " @" + r.getTimestamp()));
            late.clear();
        }
        var rejected = h.getSideOutput(Rejected.tag(ELEMENT));
        if (rejected != null) {
            rejected.forEach(r -> out.add(r.getValue() + (r.hasTimestamp() ? " @" + r.getTimestamp() : " @none")));
            rejected.clear();
        }
        return out;
    }

    /** Every key's open sub-window indexes and each sub-window serialized, in time order: the state image. */
    private static Map<String, String> stateImage(KeyedOneInputStreamOperatorTestHarness<String, ?, ?> h)
            throws Exception {
        var operator = (HeavyHittersBatchOperator<?, ?, ?>) h.getOperator();
        ValueState<long[]> open = operator.getKeyedStateBackend().getPartitionedState(VoidNamespace.INSTANCE,
                VoidNamespaceSerializer.INSTANCE, new ValueStateDescriptor<>(
                        HeavyHittersBatchOperator.OPEN_SUB_WINDOWS_STATE, new OpenSubWindowsTypeInfo()));
        MapState<Long, SubWindow> windows = operator.getKeyedStateBackend().getPartitionedState(
                VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, new MapStateDescriptor<>(
                        HeavyHittersBatchOperator.SUB_WINDOWS_STATE, Types.LONG, new SubWindowTypeInfo()));
        Map<String, String> image = new TreeMap<>();
        for (String link : LINKS) {
            operator.setCurrentKey(link);
            StringBuilder text = new StringBuilder();
            long[] subs = open.value() == null ? new long[0] : open.value();
            for (long sub : subs) {
                DataOutputSerializer out = new DataOutputSerializer(1024);
                SubWindowSerializer.INSTANCE.serialize(windows.get(sub), out);
                text.append(sub).append(": ").append(Arrays.toString(out.getCopyOfBuffer())).append('\n');
            }
            int entries = 0;
            for (Long ignored : windows.keys()) {
                entries++;
            }
            assertThat(entries).as("%s: map entries, one per open sub-window", link).isEqualTo(subs.length);
            image.put(link, text.toString());
        }
        return image;
    }

    private static String counters(KeyedOneInputStreamOperatorTestHarness<String, ?, ?> h) {
        var op = (HeavyHittersBatchOperator<?, ?, ?>) h.getOperator();
        return "items=" + op.itemsProcessed() + " malformed=" + op.malformedRecords() + " late=" + op.lateRecords()
                + " reports=" + op.reportsEmitted() + " alerts=" + op.alertsEmitted();
    }

    /**
     * The same elements as batches (a flyweight element per batch) and as single records, with per-element
     * timestamps or the batch record's: identical outputs of every kind, counters and state image (before the final
     * watermark); the stream mixes late, malformed and good elements in the same batches.
     */
    @ParameterizedTest(name = "per-element timestamps={0}")
    @ValueSource(booleans = {true, false})
    void batchRunEqualsTheSingleRecordRun(boolean elementTimes) throws Exception {
        var detector = Batches.detector(elementTimes);
        List<String> batched;
        List<String> singles;
        try (var b = batchHarness(detector); var s = singleHarness(detector)) {
            b.open();
            s.open();
            feedBatches(b, STEPS);
            feedSingles(s, STEPS);
            assertThat(stateImage(b)).isEqualTo(stateImage(s)).allSatisfy((k, v) -> assertThat(v).isNotEmpty());
            batched = drain(b);
            singles = drain(s);
            b.processWatermark(new Watermark(Long.MAX_VALUE));
            s.processWatermark(new Watermark(Long.MAX_VALUE));
            batched.addAll(drain(b));
            singles.addAll(drain(s));
            assertThat(counters(b)).isEqualTo(counters(s));
            assertThat(stateImage(b)).allSatisfy((k, v) -> assertThat(v).isEmpty());
        }
        assertThat(batched).isEqualTo(singles);
        assertThat(batched).anyMatch(o -> o.startsWith("HH")).anyMatch(o -> o.startsWith("Alert"))
                .anyMatch(o -> o.startsWith("late")).anyMatch(o -> o.contains("weight must be ≥ 0"))
                .anyMatch(o -> o.contains("bad item"));
        // per-element times: a bad time is rejected and an untimed batch record does not matter; batch times: an
        // untimed batch record rejects each of its elements
        assertThat(batched).anyMatch(o -> o.contains(elementTimes ? "negative time" : "the record has none"));
    }

    /** Snapshot mid-stream (batches only), restore into a fresh harness: the rest equals the uninterrupted run. */
    @ParameterizedTest(name = "rocksDb={0}")
    @ValueSource(booleans = {false, true})
    void restoreMidStreamContinuesIdentically(boolean rocksDb) throws Exception {
        var detector = Batches.detector(true);
        List<Step> steps = new ArrayList<>(STEPS);
        steps.add(new Step(null, null, Long.MAX_VALUE));
        int split = steps.size() / 2 + 3;
        List<String> after;
        OperatorSubtaskState snapshot;
        try (var h = batchHarness(detector)) {
            if (rocksDb) {
                h.setStateBackend(new EmbeddedRocksDBStateBackend());
            }
            h.open();
            feedBatches(h, steps.subList(0, split));
            drain(h);
            snapshot = h.snapshot(1, 1);
            feedBatches(h, steps.subList(split, steps.size()));
            after = drain(h);
        }
        assertThat(after).anyMatch(o -> o.startsWith("HH")).anyMatch(o -> o.startsWith("Alert"));
        try (var h = batchHarness(detector)) {
            if (rocksDb) {
                h.setStateBackend(new EmbeddedRocksDBStateBackend());
            }
            h.initializeState(snapshot);
            h.open();
            feedBatches(h, steps.subList(split, steps.size()));
            List<String> restored = drain(h);
            // timers of different keys due at the same time may fire in another order after a restore; per key
            // (and for the element outputs, emitted while processing) the sequence is identical
            assertThat(byKey(restored)).isEqualTo(byKey(after));
            assertThat(restored).containsExactlyInAnyOrderElementsOf(after);
        }
    }

    /** Outputs per scope key (the report or alert key, the element's link), in emission order. */
    private static Map<String, List<String>> byKey(List<String> outputs) {
        Map<String, List<String>> out = new TreeMap<>();
        for (String s : outputs) {
            String key = LINKS.stream().filter(s::contains).findFirst().orElse("?");
            out.computeIfAbsent(key, k -> new ArrayList<>()).add(s);
        }
        return out;
    }

    /**
     * One state read per batch (RocksDB: one deserialization of the ring) and one write, whatever its size, without
     * the state cache; with it, the ring is written once, for the snapshot.
     */
    @ParameterizedTest(name = "stateCacheBytes {0}")
    @ValueSource(longs = {0, HeavyHitterDetector.DEFAULT_STATE_CACHE_BYTES})
    void rocksDbSerializesTheRingPerBatchWithoutTheCacheAndForTheSnapshotWithIt(long cacheBytes) throws Exception {
        var detector = Batches.builder(true).stateCacheBytes(cacheBytes).build();
        long[] items = new long[100];
        int[] bytes = new int[100];
        long[] times = new long[100];
        for (int i = 0; i < 100; i++) {
            items[i] = i % 7;
            bytes[i] = 100;
            times[i] = 10 + i;
        }
        try (var h = batchHarness(detector)) {
            h.setStateBackend(new EmbeddedRocksDBStateBackend());
            h.open();
            long writes = SubWindowSerializer.WRITES.sum();
            for (int b = 0; b < 5; b++) {
                h.processElement(new StreamRecord<>(Tuple4.of("north", items, bytes, times), 10));
            }
            assertThat(SubWindowSerializer.WRITES.sum() - writes).as("sub-window serializations for 5 batches of 100")
                    .isEqualTo(cacheBytes == 0 ? 5 : 0);
            h.snapshot(1, 1);
            assertThat(SubWindowSerializer.WRITES.sum() - writes).as("and for a snapshot")
                    .isEqualTo(cacheBytes == 0 ? 5 : 1);
            assertThat(((HeavyHittersBatchOperator<?, ?, ?>) h.getOperator()).itemsProcessed()).isEqualTo(500);
        }
    }

    /**
     * The batch path allocates nothing per element on the heap backend: batches of 100 pre-built elements of
     * monitored items, iterated without allocation, allocate less than 2 bytes per element on this thread (as the
     * single-record hot-path test; a boxed timestamp alone would be 16 per element).
     */
    @Test
    void batchHotPathAllocatesNothingPerElement() throws Exception {
        HeavyHitterDetector<Tuple3<String, Long, Integer>, String> detector = Fixtures.builder()
                .weight(r -> r.f2).tumbling(java.time.Duration.ofHours(1)).phi(0.01).capacity(1000)
                .alertAtWeight(Long.MAX_VALUE / 2).build();
        var threads = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        List<List<Tuple3<String, Long, Integer>>> batches = new ArrayList<>();
        for (int b = 0; b < 5; b++) {
            List<Tuple3<String, Long, Integer>> batch = new ArrayList<>();
            for (long i = 0; i < 100; i++) {
                batch.add(Tuple3.of("a", b * 100 + i, 100));
            }
            batches.add(batch);
        }
        try (var h = new KeyedOneInputStreamOperatorTestHarness<>(detector.batchOperator(Types.LIST(Fixtures.TYPE),
                Fixtures.TYPE, Types.STRING, new ListElements()), (List<Tuple3<String, Long, Integer>> b) -> b.get(0).f0,
                Types.STRING)) {
            h.open();
            StreamRecord<List<Tuple3<String, Long, Integer>>> record = new StreamRecord<>(batches.get(0), 0);
            for (int round = 0; round < 2; round++) {
                long before = threads.getCurrentThreadAllocatedBytes();
                for (int i = 0; i < 4_000; i++) {
                    h.processElement(record.replace(batches.get(i % 5), 1000 + i));
                }
                long perElement = (threads.getCurrentThreadAllocatedBytes() - before) / 400_000;
                if (round == 1) { // round 0 warms up the JIT
                    assertThat(perElement).as("bytes allocated per element").isLessThan(2);
                }
            }
            assertThat(((HeavyHittersBatchOperator<?, ?, ?>) h.getOperator()).itemsProcessed()).isEqualTo(800_000);
        }
    }

    /**
     * A batch whose ElementsOf throws part-way: the batch goes to the malformed-batches side output with the reason,
     * counted; the elements it handed over before failing are counted in the window's report; the operator goes on.
     */
    @Test
    void aBatchThatCannotBeListedGoesToTheMalformedBatchesOutput() throws Exception {
        HeavyHitterDetector<Tuple3<String, Long, Integer>, String> detector = Fixtures.builder()
                .weight(r -> r.f2).tumbling(java.time.Duration.ofSeconds(10)).phi(0.01).capacity(200).build();
        var listed = new ListElements();
        io.linerate.flink.items.ElementsOf<List<Tuple3<String, Long, Integer>>, Tuple3<String, Long, Integer>> failing =
                (batch, each) -> listed.forEach(batch, e -> {
                    if (e.f1 == -99) { // stands for an element that cannot be read
                        throw new IllegalStateException("corrupt batch");
                    }
                    each.accept(e);
                });
        var batchType = Types.LIST(Fixtures.TYPE);
        try (var h = new KeyedOneInputStreamOperatorTestHarness<>(detector.batchOperator(batchType, Fixtures.TYPE,
                Types.STRING, failing), (List<Tuple3<String, Long, Integer>> b) -> b.get(0).f0, Types.STRING)) {
            h.open();
            List<Tuple3<String, Long, Integer>> corrupt = List.of(Tuple3.of("a", 1L, 5), Tuple3.of("a", 2L, 3),
                    Tuple3.of("a", -99L, 1), Tuple3.of("a", 3L, 100));
            h.processElement(new StreamRecord<>(corrupt, 1_000));
            h.processElement(new StreamRecord<>(List.of(Tuple3.of("a", 1L, 2)), 2_000));
            h.processWatermark(new Watermark(Long.MAX_VALUE));
            assertThat(h.getSideOutput(Rejected.batchTag(batchType))).singleElement()
                    .satisfies(r -> {
                        assertThat(r.getValue().record).isEqualTo(corrupt);
                        assertThat(r.getValue().reason).contains("after 2 elements").contains("corrupt batch");
                        assertThat(r.getTimestamp()).isEqualTo(1_000);
                    });
            var op = (HeavyHittersBatchOperator<?, ?, ?>) h.getOperator();
            assertThat(op.malformedBatches()).isEqualTo(1);
            assertThat(op.malformedRecords()).isZero();
            assertThat(op.itemsProcessed()).isEqualTo(3);
            assertThat(h.extractOutputValues()).singleElement().satisfies(report -> {
                assertThat(report.totalWeight).isEqualTo(10);
                assertThat(report.items).extracting(i -> i.item).containsExactlyInAnyOrder("1", "2");
            });
        }
    }

    /** The elements of a list, by index (no iterator). */
    static final class ListElements implements io.linerate.flink.items.ElementsOf<List<Tuple3<String, Long, Integer>>,
            Tuple3<String, Long, Integer>> {
        @Override
        public void forEach(List<Tuple3<String, Long, Integer>> batch,
                            java.util.function.Consumer<? super Tuple3<String, Long, Integer>> each) {
            for (int i = 0; i < batch.size(); i++) {
                each.accept(batch.get(i));
            }
        }
    }
}
