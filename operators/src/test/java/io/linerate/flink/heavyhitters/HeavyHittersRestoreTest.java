package io.linerate.flink.heavyhitters;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.linerate.flink.heavyhitters.Fixtures.Event;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.UnaryOperator;
import java.util.stream.IntStream;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.AbstractStreamOperatorTestHarness;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Snapshot mid-stream (mid-window, with sub-windows open and alerts recorded), restore into fresh harnesses on the
 * heap and RocksDB backends and at other parallelisms: the reports and alerts that follow equal an uninterrupted run.
 * A restore into an operator of another window shape fails instead of dropping the open windows.
 */
class HeavyHittersRestoreTest {

    private static final List<String> LINKS = IntStream.range(0, 12).mapToObj(i -> "link-" + i).toList();
    private static final List<Event> EVENTS = withFinalWatermark(Fixtures.zipfStream(LINKS, 6, 1000, 300, 21));
    /** Mid-stream, inside sub-window 3 (a window of three sub-windows is open). */
    private static final int SPLIT = EVENTS.size() / 2 + 101;

    private static final HeavyHitterDetector<Tuple3<String, Long, Integer>, String> DETECTOR = Fixtures.builder()
            .weight(r -> r.f2).sliding(Duration.ofSeconds(3), Duration.ofSeconds(1)).topK(5).phi(0.02).capacity(60)
            .alertAtFraction(0.05, 2_000).build();

    private static List<Event> withFinalWatermark(List<Event> events) {
        List<Event> all = new ArrayList<>(events);
        all.add(Event.watermark(Long.MAX_VALUE));
        return all;
    }

    /** The uninterrupted run: its outputs before the split, the snapshot at the split, its outputs after. */
    private record Reference(List<String> before, OperatorSubtaskState snapshot, List<String> after) {
    }

    private static Reference reference(boolean rocksDb) throws Exception {
        try (var h = Fixtures.harness(DETECTOR, 1, 0)) {
            if (rocksDb) {
                h.setStateBackend(new EmbeddedRocksDBStateBackend());
            }
            h.open();
            Fixtures.feed(h, EVENTS.subList(0, SPLIT));
            List<String> before = Fixtures.drain(h);
            OperatorSubtaskState snapshot = h.snapshot(1, 1);
            Fixtures.feed(h, EVENTS.subList(SPLIT, EVENTS.size()));
            return new Reference(before, snapshot, Fixtures.drain(h));
        }
    }

    @ParameterizedTest(name = "rocksDb={0}")
    @ValueSource(booleans = {false, true})
    void restoreIntoAFreshHarnessContinuesIdentically(boolean rocksDb) throws Exception {
        Reference ref = reference(rocksDb);
        assertThat(ref.after()).as("the rest of the stream reports windows and alerts").hasSizeGreaterThan(30);
        assertThat(ref.after()).anyMatch(s -> s.startsWith("Alert"));
        try (var h = Fixtures.harness(DETECTOR, 1, 0)) {
            if (rocksDb) {
                h.setStateBackend(new EmbeddedRocksDBStateBackend());
            }
            h.initializeState(ref.snapshot());
            h.open();
            Fixtures.feed(h, EVENTS.subList(SPLIT, EVENTS.size()));
            List<String> after = Fixtures.drain(h);
            // timers of different keys due at the same time fire in the priority queue's order, which a restore
            // may change; per key, the sequence is identical
            assertThat(byKey(after)).isEqualTo(byKey(ref.after()));
            assertThat(after).containsExactlyInAnyOrderElementsOf(ref.after());
        }
    }

    @ParameterizedTest(name = "1 → {0}")
    @ValueSource(ints = {2, 4})
    void rescaleFromOneToMany(int parallelism) throws Exception {
        Reference ref = reference(false);
        List<String> after = new ArrayList<>();
        List<KeyedOneInputStreamOperatorTestHarness<String, Tuple3<String, Long, Integer>, HeavyHitterReport<String>>>
                harnesses = new ArrayList<>();
        try {
            for (int i = 0; i < parallelism; i++) {
                var h = Fixtures.harness(DETECTOR, parallelism, i);
                harnesses.add(h);
                h.initializeState(AbstractStreamOperatorTestHarness.repartitionOperatorState(ref.snapshot(),
                        Fixtures.MAX_PARALLELISM, 1, parallelism, i));
                h.open();
            }
            feedRouted(harnesses, EVENTS.subList(SPLIT, EVENTS.size()));
            harnesses.forEach(h -> after.addAll(Fixtures.drain(h)));
            assertThat(harnesses).allSatisfy(h -> assertThat(h.extractOutputValues()).isEmpty());
        } finally {
            for (var h : harnesses) {
                h.close();
            }
        }
        assertThat(byKey(after)).isEqualTo(byKey(ref.after()));
    }

    @Test
    void rescaleFromFourToOne() throws Exception {
        Reference ref = reference(false);
        List<String> before = new ArrayList<>();
        OperatorSubtaskState[] snapshots = new OperatorSubtaskState[4];
        List<KeyedOneInputStreamOperatorTestHarness<String, Tuple3<String, Long, Integer>, HeavyHitterReport<String>>>
                four = new ArrayList<>();
        try {
            for (int i = 0; i < 4; i++) {
                var h = Fixtures.harness(DETECTOR, 4, i);
                four.add(h);
                h.open();
            }
            feedRouted(four, EVENTS.subList(0, SPLIT));
            for (int i = 0; i < 4; i++) {
                before.addAll(Fixtures.drain(four.get(i)));
                snapshots[i] = four.get(i).snapshot(1, 1);
            }
        } finally {
            for (var h : four) {
                h.close();
            }
        }
        assertThat(byKey(before)).isEqualTo(byKey(ref.before()));
        OperatorSubtaskState merged = AbstractStreamOperatorTestHarness.repartitionOperatorState(
                AbstractStreamOperatorTestHarness.repackageState(snapshots), Fixtures.MAX_PARALLELISM, 4, 1, 0);
        try (var h = Fixtures.harness(DETECTOR, 1, 0)) {
            h.initializeState(merged);
            h.open();
            Fixtures.feed(h, EVENTS.subList(SPLIT, EVENTS.size()));
            assertThat(byKey(Fixtures.drain(h))).isEqualTo(byKey(ref.after()));
        }
    }

    /** Builders of the restore test's detector with one shape field changed each. */
    private static List<UnaryOperator<HeavyHitterDetector.Builder<Tuple3<String, Long, Integer>, String>>> changes() {
        return List.of(b -> b.sliding(Duration.ofSeconds(3), Duration.ofMillis(500)),
                b -> b.sliding(Duration.ofSeconds(4), Duration.ofSeconds(1)),
                b -> b.countMinHeap(),
                b -> b.capacity(61),
                b -> b.seed(99));
    }

    /**
     * Slide, window size, tracker kind, capacity, seed: a restore with any of them changed would read the open
     * sub-windows as something else (or fail merging them at the next report); it must fail at the restore, on
     * both backends, naming the state incompatible.
     */
    @ParameterizedTest(name = "rocksDb={0}")
    @ValueSource(booleans = {false, true})
    void restoringIntoAnOperatorOfAnotherShapeFails(boolean rocksDb) throws Exception {
        OperatorSubtaskState snapshot;
        try (var h = Fixtures.harness(DETECTOR, 1, 0)) {
            if (rocksDb) {
                h.setStateBackend(new EmbeddedRocksDBStateBackend());
            }
            h.open();
            Fixtures.feed(h, EVENTS.subList(0, SPLIT));
            snapshot = h.snapshot(1, 1);
        }
        for (var change : changes()) {
            var changed = change.apply(Fixtures.builder().weight(r -> r.f2)
                    .sliding(Duration.ofSeconds(3), Duration.ofSeconds(1)).topK(5).phi(0.02).capacity(60)
                    .alertAtFraction(0.05, 2_000)).build();
            assertThatThrownBy(() -> {
                try (var h = Fixtures.harness(changed, 1, 0)) {
                    if (rocksDb) {
                        h.setStateBackend(new EmbeddedRocksDBStateBackend());
                    }
                    h.initializeState(snapshot);
                    h.open();
                    Fixtures.feed(h, EVENTS.subList(SPLIT, EVENTS.size()));
                }
            }).as("%s", changed).hasStackTraceContaining("must not be incompatible with the old state serializer")
                    .hasStackTraceContaining("OpenSubWindowsSerializer" + changed.shape());
        }
    }

    /**
     * docs/operators/README.md listed φ and k among the parameters that "may change across a restore"; with the
     * default capacity (c · max(k, ⌈1/φ⌉)) they are shape, and the restore fails naming the capacity
     * (heavy-hitters.md says so).
     */
    @Test
    void changingPhiWithTheDefaultCapacityMakesTheRestoreIncompatible() throws Exception {
        var before = Fixtures.builder().weight(r -> r.f2).sliding(Duration.ofSeconds(3), Duration.ofSeconds(1))
                .topK(5).phi(0.02).build();
        var after = Fixtures.builder().weight(r -> r.f2).sliding(Duration.ofSeconds(3), Duration.ofSeconds(1))
                .topK(5).phi(0.01).build();
        assertThat(after.capacity()).isNotEqualTo(before.capacity());
        OperatorSubtaskState snapshot;
        try (var h = Fixtures.harness(before, 1, 0)) {
            h.open();
            Fixtures.feed(h, EVENTS.subList(0, SPLIT));
            snapshot = h.snapshot(1, 1);
        }
        assertThatThrownBy(() -> {
            try (var h = Fixtures.harness(after, 1, 0)) {
                h.initializeState(snapshot);
                h.open();
            }
        }).hasStackTraceContaining("must not be incompatible with the old state serializer");
    }

    /** Outputs per scope key, in emission order ("HH{key ..." or "Alert{key ..."). */
    private static Map<String, List<String>> byKey(List<String> outputs) {
        Map<String, List<String>> out = new TreeMap<>();
        for (String s : outputs) {
            String key = s.substring(s.indexOf('{') + 1, s.indexOf(' '));
            out.computeIfAbsent(key, k -> new ArrayList<>()).add(s);
        }
        return out;
    }

    /**
     * After a restore the operator remembers the watermark of the checkpoint: a record of a window reported before
     * it is late at once, not a second, partial report of that window (before the first new watermark arrives).
     * Across a rescale (union state) the smallest watermark of the instances counts.
     */
    @Test
    void aWindowReportedBeforeACheckpointIsNotReopenedAfterTheRestore() throws Exception {
        HeavyHitterDetector<Tuple3<String, Long, Integer>, String> detector = Fixtures.builder()
                .tumbling(java.time.Duration.ofSeconds(1)).phi(0.1).build();
        Snapshot before = oneRecordThenWatermark(detector, 999);
        assertThat(before.reports()).isEqualTo(1);
        OperatorSubtaskState snapshot = before.state();
        for (int parallelism : new int[] {1, 2}) {
            int subtask = KeyGroupRangeAssignment.assignKeyToParallelOperator("a", Fixtures.MAX_PARALLELISM,
                    parallelism);
            try (var h = Fixtures.harness(detector, parallelism, subtask)) {
                h.initializeState(parallelism == 1 ? snapshot : AbstractStreamOperatorTestHarness
                        .repartitionOperatorState(snapshot, Fixtures.MAX_PARALLELISM, 1, parallelism, subtask));
                h.open();
                var op = (HeavyHittersOperator<?, ?>) h.getOperator();
                h.processElement(new StreamRecord<>(Tuple3.of("a", 2L, 1), 200)); // window [0, 1000): reported
                h.processElement(new StreamRecord<>(Tuple3.of("a", 3L, 1), 1200));
                h.processWatermark(new Watermark(1999));
                assertThat(op.lateRecords()).as("parallelism %d", parallelism).isEqualTo(1);
                assertThat(h.extractOutputValues()).extracting(r -> r.windowStart + ":" + r.totalWeight)
                        .containsExactly("1000:1");
            }
        }
    }

    /**
     * A savepoint taken after the end-of-input watermark (stop with --drain, a finished bounded job) does not make
     * every later record late: the end of input is not kept as the restored watermark.
     */
    @Test
    void aDrainedSavepointDoesNotMakeNewInputLate() throws Exception {
        HeavyHitterDetector<Tuple3<String, Long, Integer>, String> detector = Fixtures.builder()
                .tumbling(java.time.Duration.ofSeconds(1)).phi(0.1).build();
        OperatorSubtaskState snapshot = oneRecordThenWatermark(detector, Long.MAX_VALUE).state();
        try (var h = Fixtures.harness(detector, 1, 0)) {
            h.initializeState(snapshot);
            h.open();
            var op = (HeavyHittersOperator<?, ?>) h.getOperator();
            h.processElement(new StreamRecord<>(Tuple3.of("a", 2L, 1), 5_200));
            h.processWatermark(new Watermark(5_999));
            assertThat(op.lateRecords()).isZero();
            assertThat(h.extractOutputValues()).extracting(r -> r.windowStart).containsExactly(5_000L);
        }
    }

    /** A snapshot, and the reports emitted before it. */
    private record Snapshot(OperatorSubtaskState state, int reports) {
    }

    /** A fresh operator given one record of item 1 at 100 ms, then {@code watermark}, snapshotted. */
    private static Snapshot oneRecordThenWatermark(
            HeavyHitterDetector<Tuple3<String, Long, Integer>, String> detector, long watermark) throws Exception {
        try (var h = Fixtures.harness(detector, 1, 0)) {
            h.open();
            h.processElement(new StreamRecord<>(Tuple3.of("a", 1L, 1), 100));
            h.processWatermark(new Watermark(watermark));
            return new Snapshot(h.snapshot(1, 1), h.extractOutputValues().size());
        }
    }

    /** Each record to the subtask owning its key group; every watermark to all. */
    private static void feedRouted(
            List<KeyedOneInputStreamOperatorTestHarness<String, Tuple3<String, Long, Integer>, HeavyHitterReport<String>>> hs,
            List<Event> events) throws Exception {
        for (Event e : events) {
            if (e.watermark()) {
                for (var h : hs) {
                    h.processWatermark(e.time());
                }
            } else {
                int owner = KeyGroupRangeAssignment.assignKeyToParallelOperator(e.record().f0,
                        Fixtures.MAX_PARALLELISM, hs.size());
                hs.get(owner).processElement(new StreamRecord<>(e.record(), e.time()));
            }
        }
    }
}
