package io.linerate.flink.dedup;

import static io.linerate.flink.dedup.DedupHarnesses.MAX_PARALLELISM;
import static io.linerate.flink.dedup.DedupHarnesses.TYPE;
import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.flink.items.ElementsOf;
import io.linerate.flink.items.ItemSelector;
import io.linerate.flink.rejects.Rejected;
import io.linerate.flink.state.WriteBackOperator;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.SplittableRandom;
import java.util.TreeSet;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

/**
 * Batches of elements of one scope: a batch run equals the record-by-record run on the same elements (outputs in
 * order, counters, timers, and every key's serialized ring), including batches that mix good, late and malformed
 * elements; snapshot/restore between batches on heap and RocksDB equals an uninterrupted batch run.
 */
class DedupBatchTest {

    /** A batch: its scope and its elements (key, item, timestamp); item −1 has no item, timestamp −1 no time. */
    static final TypeInformation<Tuple2<String, List<Tuple3<String, Long, Long>>>> BATCH_TYPE =
            Types.TUPLE(Types.STRING, Types.LIST(TYPE));

    static final ElementsOf<Tuple2<String, List<Tuple3<String, Long, Long>>>, Tuple3<String, Long, Long>> ELEMENTS =
            (batch, each) -> batch.f1.forEach(each);

    private static final long H = 2000;

    static Deduplicator<Tuple3<String, Long, Long>, String> dedup(boolean eventTime) {
        var b = Deduplicator.<Tuple3<String, Long, Long>, String>builder()
                .scope(r -> r.f0, Types.STRING)
                .item(ItemSelector.strings(r -> r.f1 < 0 ? null : "id-" + r.f1))
                .horizon(Duration.ofMillis(H)).generations(3)
                .expectedRate(20).fpp(0.05).seed(42); // small filters: false positives must be reproduced too
        return eventTime ? b.eventTime().timestamps(r -> {
            if (r.f2 < 0) {
                throw new IllegalArgumentException("negative");
            }
            return r.f2;
        }).build() : b.processingTime().build();
    }

    /** Batch i is processed at time {@code times[i]} (event-time batches: the largest element time). */
    record Scenario(List<Tuple2<String, List<Tuple3<String, Long, Long>>>> batches, long[] times) {
    }

    /** 8 keys; batches of 1..20 elements; 3% late (5 s behind), 2% without item, 2% without timestamp. */
    static Scenario scenario(long seed, int batchCount) {
        SplittableRandom rnd = new SplittableRandom(seed);
        List<Tuple2<String, List<Tuple3<String, Long, Long>>>> batches = new ArrayList<>();
        long[] times = new long[batchCount];
        long t = 10_000;
        for (int i = 0; i < batchCount; i++) {
            String key = "k" + rnd.nextInt(8);
            int n = 1 + rnd.nextInt(20);
            List<Tuple3<String, Long, Long>> elements = new ArrayList<>(n);
            for (int j = 0; j < n; j++) {
                t += rnd.nextInt(4);
                int kind = rnd.nextInt(100);
                long item = kind < 2 ? -1 : rnd.nextInt(80);
                long ts = kind >= 2 && kind < 4 ? -1 : kind >= 4 && kind < 7 ? t - 5000 : t - rnd.nextInt(200);
                elements.add(Tuple3.of(key, item, ts));
            }
            batches.add(Tuple2.of(key, elements));
            times[i] = t;
        }
        return new Scenario(batches, times);
    }

    /** What a run emitted, in order per output, and its counters. */
    static final class Outputs {
        final List<String> firsts = new ArrayList<>();
        final List<String> duplicates = new ArrayList<>();
        final List<String> malformed = new ArrayList<>();

        @SuppressWarnings("unchecked")
        void drain(KeyedOneInputStreamOperatorTestHarness<String, ?, Tuple3<String, Long, Long>> h) {
            for (Object o; (o = h.getOutput().poll()) != null; ) {
                if (o instanceof StreamRecord<?> r) {
                    firsts.add(r.getValue().toString());
                }
            }
            Queue<StreamRecord<Tuple3<String, Long, Long>>> d = h.getSideOutput(Deduplicator.duplicatesTag(TYPE));
            for (StreamRecord<?> r; d != null && (r = d.poll()) != null; ) {
                duplicates.add(r.getValue().toString());
            }
            Queue<StreamRecord<Rejected<Tuple3<String, Long, Long>>>> m = h.getSideOutput(Rejected.tag(TYPE));
            for (StreamRecord<Rejected<Tuple3<String, Long, Long>>> r; m != null && (r = m.poll()) != null; ) {
                malformed.add(r.getValue().record + " " + r.getValue().reason);
            }
        }
    }

    static <B> KeyedOneInputStreamOperatorTestHarness<String, B, Tuple3<String, Long, Long>> harness(
            DedupFunction<String, B, Tuple3<String, Long, Long>> fn,
            org.apache.flink.api.java.functions.KeySelector<B, String> scope, StateBackend backend,
            OperatorSubtaskState state) throws Exception {
        var h = new KeyedOneInputStreamOperatorTestHarness<>(new WriteBackOperator<>(fn), scope, Types.STRING,
                MAX_PARALLELISM, 1, 0);
        if (backend != null) {
            h.setStateBackend(backend);
        }
        h.setup();
        if (state != null) {
            h.initializeState(state);
        }
        h.open();
        return h;
    }

    /** Time before batch i: a watermark 300 ms behind every 4th batch, or the processing time. */
    static void advance(KeyedOneInputStreamOperatorTestHarness<String, ?, ?> h, boolean eventTime, Scenario s, int i)
            throws Exception {
        if (!eventTime) {
            h.setProcessingTime(s.times()[i]);
        } else if (i % 4 == 0) {
            h.processWatermark(s.times()[i] - 300);
        }
    }

    static void feedBatches(KeyedOneInputStreamOperatorTestHarness<String, Tuple2<String, List<Tuple3<String, Long,
            Long>>>, Tuple3<String, Long, Long>> h, boolean eventTime, Scenario s, int from, int to, Outputs out)
            throws Exception {
        for (int i = from; i < to; i++) {
            advance(h, eventTime, s, i);
            h.processElement(s.batches().get(i), s.times()[i]);
            out.drain(h);
        }
    }

    /** The ring image of every key, in key order. */
    static List<String> images(KeyedOneInputStreamOperatorTestHarness<String, ?, ?> h,
                               DedupFunction<String, ?, ?> fn) throws Exception {
        List<String> out = new ArrayList<>();
        for (String key : new TreeSet<>(List.of("k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7"))) {
            ((AbstractStreamOperator<?>) h.getOperator()).setCurrentKey(key);
            GenerationRing ring = fn.currentRing();
            out.add(key + "=" + (ring == null ? "none" : java.util.Arrays.toString(fn.image(ring))));
        }
        return out;
    }

    private void batchRunEqualsRecordRun(boolean eventTime, StateBackend batchBackend) throws Exception {
        Scenario s = scenario(3, 600);
        var dedup = dedup(eventTime);

        var singleFn = dedup.function(TYPE);
        var single = harness(singleFn, dedup.scope(), null, null);
        Outputs expected = new Outputs();
        for (int i = 0; i < s.batches().size(); i++) {
            advance(single, eventTime, s, i);
            for (Tuple3<String, Long, Long> e : s.batches().get(i).f1) {
                single.processElement(e, s.times()[i]);
                expected.drain(single);
            }
        }

        var batchFn = dedup.batchFunction(BATCH_TYPE, TYPE, ELEMENTS);
        var batched = harness(batchFn, b -> b.f0, batchBackend, null);
        Outputs got = new Outputs();
        feedBatches(batched, eventTime, s, 0, s.batches().size(), got);

        assertThat(got.firsts).isEqualTo(expected.firsts);
        assertThat(got.duplicates).isEqualTo(expected.duplicates);
        assertThat(got.malformed).isEqualTo(expected.malformed);
        assertThat(images(batched, batchFn)).isEqualTo(images(single, singleFn));
        assertThat(batchFn.itemsProcessed()).isEqualTo(singleFn.itemsProcessed());
        assertThat(batchFn.duplicatesFlagged()).isEqualTo(singleFn.duplicatesFlagged()).isGreaterThan(500);
        assertThat(batchFn.malformedRecords()).isEqualTo(singleFn.malformedRecords());
        assertThat(batchFn.lateRecords()).isEqualTo(singleFn.lateRecords());
        assertThat(batchFn.overCapacityGenerations()).isEqualTo(singleFn.overCapacityGenerations());
        assertThat(batchFn.estimatedFpp()).isEqualTo(singleFn.estimatedFpp());
        assertThat(batched.numEventTimeTimers()).isEqualTo(single.numEventTimeTimers());
        assertThat(batched.numProcessingTimeTimers()).isEqualTo(single.numProcessingTimeTimers())
                .as("one timer per live key, not per element").isLessThanOrEqualTo(8);
        if (eventTime) {
            assertThat(batchFn.lateRecords()).as("the scenario has late elements").isGreaterThan(50);
            assertThat(got.malformed).anyMatch(m -> m.endsWith("timestamp: negative"))
                    .anyMatch(m -> m.endsWith("item: item is null"));
        }
        single.close();
        batched.close();
    }

    @Test
    void eventTimeBatchesMixingLateAndMalformedElementsEqualTheRecordByRecordRun() throws Exception {
        batchRunEqualsRecordRun(true, null);
    }

    /** The reference stays the record-by-record run on the heap: a lost per-batch state write would show. */
    @Test
    void eventTimeBatchesOnRocksDbEqualTheRecordByRecordRunOnHeap() throws Exception {
        batchRunEqualsRecordRun(true, new EmbeddedRocksDBStateBackend());
    }

    @Test
    void processingTimeBatchesEqualTheRecordByRecordRun() throws Exception {
        batchRunEqualsRecordRun(false, null);
    }

    /**
     * A batch whose ElementsOf throws part-way: the batch goes to the malformed-batches side output with the reason,
     * counted; the elements it handed over before failing are processed and kept in state (a repeat of them in a
     * later batch is a duplicate); the operator goes on.
     */
    @Test
    void aBatchThatCannotBeListedGoesToTheMalformedBatchesOutput() throws Exception {
        ElementsOf<Tuple2<String, List<Tuple3<String, Long, Long>>>, Tuple3<String, Long, Long>> failing =
                (batch, each) -> {
                    for (Tuple3<String, Long, Long> e : batch.f1) {
                        if (e.f1 == -99) { // stands for an element that cannot be read
                            throw new IllegalStateException("corrupt batch");
                        }
                        each.accept(e);
                    }
                };
        var dedup = dedup(false);
        var fn = dedup.batchFunction(BATCH_TYPE, TYPE, failing);
        var h = harness(fn, b -> b.f0, null, null);
        List<Tuple3<String, Long, Long>> corrupt = new ArrayList<>(List.of(Tuple3.of("k", 1L, 0L), Tuple3.of("k", 2L, 0L)));
        corrupt.add(Tuple3.of("k", -99L, 0L));
        corrupt.add(Tuple3.of("k", 3L, 0L));
        h.processElement(Tuple2.of("k", corrupt), 0);
        h.processElement(Tuple2.of("k", List.of(Tuple3.of("k", 2L, 0L), Tuple3.of("k", 3L, 0L))), 0);
        Outputs out = new Outputs();
        var rejected = h.getSideOutput(Rejected.batchTag(BATCH_TYPE));
        out.drain(h);
        assertThat(rejected).singleElement().satisfies(r -> {
            assertThat(r.getValue().record.f1).containsExactlyElementsOf(corrupt);
            assertThat(r.getValue().reason).contains("after 2 elements").contains("corrupt batch");
        });
        assertThat(out.firsts).containsExactly("(k,1,0)", "(k,2,0)", "(k,3,0)");
        assertThat(out.duplicates).containsExactly("(k,2,0)");
        assertThat(fn.malformedBatches()).isEqualTo(1);
        assertThat(fn.malformedRecords()).isZero();
        assertThat(fn.itemsProcessed()).isEqualTo(4);
        h.close();
    }

    @Test
    void withoutTimestampsEveryElementTakesTheBatchRecordsTimestamp() throws Exception {
        var dedup = Deduplicator.<Tuple3<String, Long, Long>, String>builder()
                .scope(r -> r.f0, Types.STRING).item(ItemSelector.longs(r -> r.f1))
                .horizon(Duration.ofMillis(H)).generations(3).eventTime().expectedRate(20).fpp(1e-6).build();
        var fn = dedup.batchFunction(BATCH_TYPE, TYPE, ELEMENTS);
        var h = harness(fn, b -> b.f0, null, null);
        Outputs out = new Outputs();
        // the elements' own f2 (here 0) is ignored: the batch's timestamp 10 000 is every element's time
        h.processElement(Tuple2.of("k", List.of(Tuple3.of("k", 1L, 0L), Tuple3.of("k", 1L, 0L))), 10_000);
        h.processElement(new StreamRecord<>(Tuple2.of("k", List.of(Tuple3.of("k", 2L, 0L)))));
        out.drain(h);
        assertThat(out.firsts).containsExactly("(k,1,0)");
        assertThat(out.duplicates).containsExactly("(k,1,0)");
        assertThat(out.malformed).containsExactly("(k,2,0) timestamp: missing; event-time deduplication needs "
                + "record timestamps");
        ((AbstractStreamOperator<?>) h.getOperator()).setCurrentKey("k");
        assertThat(fn.currentRing().clock()).isEqualTo(10_000);
        h.close();
    }

    private void restoreBetweenBatchesContinuesIdentically(StateBackend backend) throws Exception {
        Scenario s = scenario(5, 400);
        int cut = 200;
        var dedup = dedup(true);
        Outputs expected = new Outputs();
        var whole = harness(dedup.batchFunction(BATCH_TYPE, TYPE, ELEMENTS), b -> b.f0, null, null); // reference: heap
        feedBatches(whole, true, s, 0, s.batches().size(), expected);
        whole.close();

        Outputs got = new Outputs();
        var first = harness(dedup.batchFunction(BATCH_TYPE, TYPE, ELEMENTS), b -> b.f0, backend, null);
        feedBatches(first, true, s, 0, cut, got);
        OperatorSubtaskState snapshot = first.snapshot(1, 1);
        first.close();
        var second = harness(dedup.batchFunction(BATCH_TYPE, TYPE, ELEMENTS), b -> b.f0, backend, snapshot);
        feedBatches(second, true, s, cut, s.batches().size(), got);
        second.close();

        assertThat(got.firsts).isEqualTo(expected.firsts);
        assertThat(got.duplicates).isEqualTo(expected.duplicates).hasSizeGreaterThan(300);
        assertThat(got.malformed).isEqualTo(expected.malformed);
    }

    @Test
    void restoreBetweenBatchesOnHeapContinuesIdentically() throws Exception {
        restoreBetweenBatchesContinuesIdentically(null);
    }

    @Test
    void restoreBetweenBatchesOnRocksDbContinuesIdentically() throws Exception {
        restoreBetweenBatchesContinuesIdentically(new EmbeddedRocksDBStateBackend());
    }
}
