package io.linerate.flink.countmin;

import io.linerate.flink.rejects.Rejected;
import io.linerate.flink.state.WriteBackCoOperator;
import io.linerate.sketches.frequency.CountMinSketch;
import io.linerate.sketches.frequency.RowIndexing;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.AbstractStreamOperatorTestHarness;
import org.apache.flink.streaming.util.KeyedTwoInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.UnaryOperator;

import static io.linerate.flink.countmin.Streams.QUERY;
import static io.linerate.flink.countmin.Streams.QUERY_ITEM;
import static io.linerate.flink.countmin.Streams.UPDATE;
import static io.linerate.flink.countmin.Streams.UPDATE_ITEM;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

/** The continuous Count-Min operator in Flink's keyed two-input harness, on the heap and RocksDB backends. */
class CountMinQueryFunctionTest {

    private static final int MAX_PARALLELISM = 128;
    private static final int SCOPES = 5;

    private static CountMinQueries.Builder<Tuple3<String, String, Long>, Tuple2<String, String>, String> builder() {
        return CountMinQueries.<Tuple3<String, String, Long>, Tuple2<String, String>, String>builder()
                .scope(u -> u.f0, org.apache.flink.api.common.typeinfo.Types.STRING).item(UPDATE_ITEM).weight(u -> u.f2)
                .queryScope(q -> q.f0).queryItem(QUERY_ITEM).seed(7);
    }

    /** 4 KiB of counters at depth 3: w = 167, ε = 2e/167 ≈ 0.033, δ = e^-3 ≈ 0.05 — small enough to collide. */
    private static CountMinQueries<Tuple3<String, String, Long>, Tuple2<String, String>, String> small() {
        return builder().memory(4096, 3).build();
    }

    private static KeyedTwoInputStreamOperatorTestHarness<String, Tuple3<String, String, Long>, Tuple2<String, String>,
            CountMinEstimate<String, Tuple2<String, String>>> harness(
            CountMinQueries<Tuple3<String, String, Long>, Tuple2<String, String>, String> cm, int parallelism,
            int subtask) throws Exception {
        return harness(cm, parallelism, subtask, false);
    }

    private static KeyedTwoInputStreamOperatorTestHarness<String, Tuple3<String, String, Long>, Tuple2<String, String>,
            CountMinEstimate<String, Tuple2<String, String>>> harness(
            CountMinQueries<Tuple3<String, String, Long>, Tuple2<String, String>, String> cm, int parallelism,
            int subtask, boolean rocksdb) throws Exception {
        KeyedTwoInputStreamOperatorTestHarness<String, Tuple3<String, String, Long>, Tuple2<String, String>,
                CountMinEstimate<String, Tuple2<String, String>>> h = new KeyedTwoInputStreamOperatorTestHarness<>(
                new WriteBackCoOperator<>(cm.function(UPDATE, QUERY)), cm.scope(), cm.queryScope(),
                cm.scopeType(), MAX_PARALLELISM, parallelism, subtask);
        if (rocksdb) {
            h.setStateBackend(new EmbeddedRocksDBStateBackend());
        }
        h.setup(cm.outputType(QUERY).createSerializer(h.getExecutionConfig().getSerializerConfig()));
        return h;
    }

    private static void update(KeyedTwoInputStreamOperatorTestHarness<String, Tuple3<String, String, Long>, ?, ?> h,
                               List<Tuple3<String, String, Long>> updates) throws Exception {
        for (Tuple3<String, String, Long> u : updates) {
            h.processElement1(new StreamRecord<>(u));
        }
    }

    private static void query(KeyedTwoInputStreamOperatorTestHarness<String, ?, Tuple2<String, String>, ?> h,
                              List<Tuple2<String, String>> queries) throws Exception {
        for (Tuple2<String, String> q : queries) {
            h.processElement2(new StreamRecord<>(q));
        }
    }

    @Test
    void answersEqualTheModelSketchAndHoldTheCountMinBound() throws Exception {
        CountMinQueries<Tuple3<String, String, Long>, Tuple2<String, String>, String> cm = small();
        List<Tuple3<String, String, Long>> updates = Streams.updates(42, 30_000, SCOPES, 3000);
        List<Tuple2<String, String>> queries = Streams.queries(SCOPES + 1, 3000); // the last scope has no updates
        List<CountMinEstimate<String, Tuple2<String, String>>> answers;
        try (var h = harness(cm, 1, 0)) {
            h.open();
            update(h, updates);
            query(h, queries);
            answers = h.extractOutputValues();
        }
        assertThat(answers).hasSize(queries.size());

        Map<String, Map<String, Long>> truth = Streams.truth(updates);
        Map<String, CountMinSketch> model = Streams.model(cm.sizing(), updates);
        double epsilon = cm.sizing().epsilon();
        int failures = 0;
        int answered = 0;
        for (int i = 0; i < answers.size(); i++) {
            CountMinEstimate<String, Tuple2<String, String>> a = answers.get(i);
            assertThat(a.query).isEqualTo(queries.get(i));
            assertThat(a.scope).isEqualTo(queries.get(i).f0);
            CountMinSketch sketch = model.get(a.scope);
            if (sketch == null) {
                assertThat(a).isEqualTo(new CountMinEstimate<>(a.scope, a.query, 0, 0, 0));
                continue;
            }
            answered++;
            // exact model: the operator's sketch is the sketch of the scope's updates, answer for answer
            assertThat(a.estimate).isEqualTo(sketch.estimate(a.query.f1));
            assertThat(a.totalWeight).isEqualTo(sketch.totalWeight());
            assertThat(a.errorBound).isEqualTo(epsilon * sketch.totalWeight());
            long exact = truth.get(a.scope).getOrDefault(a.query.f1, 0L);
            assertThat(a.estimate).as("never below the truth: %s", a).isGreaterThanOrEqualTo(exact);
            if (a.estimate > exact + a.errorBound) {
                failures++;
            }
        }
        // Theorem 3.8.1 (full-width indexing): Pr(â > a + εN) ≤ (2/(εw))^d = e^-d per query at ε = 2e/w, so the
        // expected number of failures is at most Q·e^-d; allow three binomial standard deviations above it
        double expected = answered * cm.sizing().failureProbability();
        System.out.printf(Locale.ROOT,
                "Count-Min %s: %d of %d answers above true + εN (bound %.0f)%n", cm.sizing(), failures,
                answered, expected);
        assertThat(answered).isEqualTo(SCOPES * 3000);
        assertThat(failures).as("queries above true + εN").isLessThanOrEqualTo((int) (expected + 3 * Math.sqrt(expected)));
        // the sketch is small enough that estimates of unseen or light items do collide: the bound is exercised
        long overestimated = answers.stream().filter(a -> a.totalWeight > 0
                && a.estimate > truth.get(a.scope).getOrDefault(a.query.f1, 0L)).count();
        assertThat(overestimated).isGreaterThan(answered / 10);
    }

    @Test
    void conservativeUpdateNeverEstimatesMoreAndStaysAboveTheTruth() throws Exception {
        List<Tuple3<String, String, Long>> updates = Streams.updates(3, 20_000, 2, 2000);
        List<Tuple2<String, String>> queries = Streams.queries(2, 2000);
        List<CountMinEstimate<String, Tuple2<String, String>>> plain = run(builder().memory(4096, 3).build(), updates,
                queries);
        List<CountMinEstimate<String, Tuple2<String, String>>> conservative = run(
                builder().memory(4096, 3).conservative(true).build(), updates, queries);
        Map<String, Map<String, Long>> truth = Streams.truth(updates);
        long strictlyBetter = 0;
        for (int i = 0; i < queries.size(); i++) {
            long exact = truth.get(queries.get(i).f0).getOrDefault(queries.get(i).f1, 0L);
            assertThat(conservative.get(i).estimate).isBetween(exact, plain.get(i).estimate);
            strictlyBetter += conservative.get(i).estimate < plain.get(i).estimate ? 1 : 0;
        }
        assertThat(strictlyBetter).isGreaterThan(0);
    }

    private static List<CountMinEstimate<String, Tuple2<String, String>>> run(
            CountMinQueries<Tuple3<String, String, Long>, Tuple2<String, String>, String> cm,
            List<Tuple3<String, String, Long>> updates, List<Tuple2<String, String>> queries) throws Exception {
        try (var h = harness(cm, 1, 0)) {
            h.open();
            update(h, updates);
            query(h, queries);
            return h.extractOutputValues();
        }
    }

    @Test
    void malformedUpdatesAndQueriesGoToTheirSideOutputs() throws Exception {
        CountMinQueries<Tuple3<String, String, Long>, Tuple2<String, String>, String> cm = small();
        try (var h = harness(cm, 1, 0)) {
            h.open();
            h.processElement1(new StreamRecord<>(Tuple3.of("s", "a", 3L)));
            h.processElement1(new StreamRecord<>(Tuple3.of("s", null, 1L)));
            h.processElement1(new StreamRecord<>(Tuple3.of("s", "a", -2L)));
            // Count-Min stores no item, so an item above the selector's maxBytes is still counted (hashed whole)
            h.processElement1(new StreamRecord<>(Tuple3.of("s", "x".repeat(200), 1L)));
            h.processElement2(new StreamRecord<>(Tuple2.of("s", null)));
            h.processElement2(new StreamRecord<>(Tuple2.of("s", "a")));
            h.processElement2(new StreamRecord<>(Tuple2.of("s", "x".repeat(200))));
            assertThat(h.extractOutputValues()).extracting(a -> a.estimate, a -> a.totalWeight)
                    .containsExactly(tuple(3L, 4L), tuple(1L, 4L));
            assertThat(h.getSideOutput(cm.malformedUpdates(UPDATE))).extracting(StreamRecord::getValue).containsExactly(
                    new Rejected<>(Tuple3.of("s", null, 1L), "item: item is null"),
                    new Rejected<>(Tuple3.of("s", "a", -2L), "weight must be ≥ 0, got -2"));
            assertThat(h.getSideOutput(cm.malformedQueries(QUERY))).extracting(StreamRecord::getValue)
                    .containsExactly(new Rejected<>(Tuple2.of("s", null), "queryItem: item is null"));
        }
    }

    /** Snapshot after the first half, restore into a fresh harness, continue: the same answers as without a break. */
    @ParameterizedTest(name = "rocksdb={0}")
    @ValueSource(booleans = {false, true})
    void restoreContinuesExactlyLikeAnUninterruptedRun(boolean rocksdb) throws Exception {
        CountMinQueries<Tuple3<String, String, Long>, Tuple2<String, String>, String> cm = small();
        List<Tuple3<String, String, Long>> updates = Streams.updates(11, 6000, SCOPES, 500);
        List<Tuple3<String, String, Long>> first = updates.subList(0, 3000);
        List<Tuple3<String, String, Long>> second = updates.subList(3000, updates.size());
        List<Tuple2<String, String>> queries = Streams.queries(SCOPES, 100);

        List<CountMinEstimate<String, Tuple2<String, String>>> uninterrupted;
        OperatorSubtaskState snapshot;
        try (var h = harness(cm, 1, 0, rocksdb)) {
            h.open();
            assertThat(h.getOperator().getKeyedStateBackend().getClass().getSimpleName())
                    .startsWith(rocksdb ? "RocksDB" : "Heap");
            update(h, first);
            snapshot = h.snapshot(1, 1);
            update(h, second);
            query(h, queries);
            uninterrupted = h.extractOutputValues();
        }
        List<CountMinEstimate<String, Tuple2<String, String>>> restored;
        try (var h = harness(cm, 1, 0, rocksdb)) {
            h.initializeState(snapshot);
            h.open();
            assertThat(scopesInState(h)).isEqualTo(SCOPES);
            update(h, second);
            query(h, queries);
            restored = h.extractOutputValues();
        }
        assertThat(restored).hasSize(queries.size()).isEqualTo(uninterrupted);
        Map<String, CountMinSketch> model = Streams.model(cm.sizing(), updates);
        assertThat(restored.get(0).totalWeight).isEqualTo(model.get(restored.get(0).scope).totalWeight());
    }

    /**
     * Each field of the shape (width, depth, seed, row indexing, update rule), changed alone: the restore fails,
     * naming the serializer and the configured shape, instead of answering restored scopes with another ε.
     */
    @ParameterizedTest(name = "rocksdb={0}")
    @ValueSource(booleans = {false, true})
    void restoringIntoAnOperatorOfAnotherShapeFails(boolean rocksdb) throws Exception {
        OperatorSubtaskState snapshot;
        try (var h = harness(small(), 1, 0, rocksdb)) {
            h.open();
            update(h, Streams.updates(11, 1000, SCOPES, 500));
            snapshot = h.snapshot(1, 1);
        }
        List<UnaryOperator<CountMinQueries.Builder<Tuple3<String, String, Long>, Tuple2<String, String>, String>>>
                changes = List.of(b -> b.memory(8192, 3), b -> b.memory(4096, 4), b -> b.seed(8),
                        b -> b.rowIndexing(RowIndexing.MIXED_32), b -> b.conservative(true));
        for (var change : changes) {
            var changed = change.apply(builder().memory(4096, 3)).build();
            assertThatThrownBy(() -> {
                try (var h = harness(changed, 1, 0, rocksdb)) {
                    h.initializeState(snapshot);
                    h.open();
                }
            }).as("%s", changed.sizing()).hasStackTraceContaining("must not be incompatible with the old state serializer")
                    .hasStackTraceContaining("CountMinSketchSerializer" + changed.sizing().shape());
        }
    }

    /**
     * On RocksDB with sketch caches smaller than the 5 scopes (sketches written back and read again as scopes take
     * turns) and with none: a snapshot mid-stream and a restore give the heap run's answers; with room for every
     * scope a sketch is read from RocksDB once per scope, not once per update.
     */
    @ParameterizedTest(name = "cached sketches {0}")
    @ValueSource(ints = {0, 1, 3, SCOPES})
    void rocksDbWithASketchCacheAnswersAsTheHeap(int cached) throws Exception {
        CountMinQueries<Tuple3<String, String, Long>, Tuple2<String, String>, String> onHeap = small();
        CountMinQueries<Tuple3<String, String, Long>, Tuple2<String, String>, String> cm = builder().memory(4096, 3)
                .stateCacheBytes(cached * onHeap.sizing().stateBytesPerKey()).build();
        assertThat(cm.cachedScopes()).isEqualTo(cached);
        List<Tuple3<String, String, Long>> updates = Streams.updates(11, 6000, SCOPES, 500);
        List<Tuple2<String, String>> queries = Streams.queries(SCOPES, 100);
        List<CountMinEstimate<String, Tuple2<String, String>>> expected;
        try (var h = harness(onHeap, 1, 0, false)) {
            h.open();
            update(h, updates);
            query(h, queries);
            expected = h.extractOutputValues();
        }
        OperatorSubtaskState snapshot;
        try (var h = harness(cm, 1, 0, true)) {
            h.open();
            update(h, updates.subList(0, 3000));
            var cache = ((CountMinQueryFunction<?, ?, ?>) ((WriteBackCoOperator<?, ?, ?, ?>) h.getOperator())
                    .getUserFunction()).cache();
            if (cached == 0) { // every update reads and writes its scope's sketch
                assertThat(cache.reads()).isEqualTo(3000);
                assertThat(cache.writes()).isEqualTo(3000);
            } else if (cached == SCOPES) { // read once per scope (finding none), written only for the snapshot
                assertThat(cache.reads()).isEqualTo(SCOPES);
                assertThat(cache.writes()).isZero();
            } else { // scopes taking turns: written back and read again, but not at every update
                assertThat(cache.reads()).isBetween((long) SCOPES + 1, 2999L);
                assertThat(cache.writes()).isPositive();
            }
            long before = cache.writes();
            snapshot = h.snapshot(1, 1);
            assertThat(cache.writes() - before).as("written back for the snapshot").isEqualTo(cache.size());
        }
        try (var h = harness(cm, 1, 0, true)) {
            h.initializeState(snapshot);
            h.open();
            update(h, updates.subList(3000, updates.size()));
            query(h, queries);
            assertThat(h.extractOutputValues()).isEqualTo(expected);
        }
    }

    /** Scope keys holding a sketch, on either backend. */
    private static long scopesInState(AbstractStreamOperatorTestHarness<?> h) {
        try (var keys = h.getOperator().<String>getKeyedStateBackend().getKeys("countMin", VoidNamespace.INSTANCE)) {
            return keys.count();
        }
    }

    @ParameterizedTest(name = "1 -> {0}")
    @ValueSource(ints = {2, 4})
    void scaleOutFromOneByKeyGroup(int parallelism) throws Exception {
        rescale(1, parallelism);
    }

    @Test
    void scaleInFromFourToOne() throws Exception {
        rescale(4, 1);
    }

    /**
     * Runs the first half at parallelism {@code from}, snapshots every subtask, restores at parallelism {@code to}
     * by key group, runs the second half there: the answers equal those of one uninterrupted subtask.
     */
    private static void rescale(int from, int to) throws Exception {
        CountMinQueries<Tuple3<String, String, Long>, Tuple2<String, String>, String> cm = small();
        int scopes = 12;
        List<Tuple3<String, String, Long>> updates = Streams.updates(5, 6000, scopes, 400);
        List<Tuple3<String, String, Long>> first = updates.subList(0, 3000);
        List<Tuple3<String, String, Long>> second = updates.subList(3000, updates.size());
        List<Tuple2<String, String>> queries = Streams.queries(scopes, 60);
        List<CountMinEstimate<String, Tuple2<String, String>>> expected = run(cm, updates, queries);

        OperatorSubtaskState[] before = new OperatorSubtaskState[from];
        for (int i = 0; i < from; i++) {
            try (var h = harness(cm, from, i)) {
                h.open();
                update(h, owned(first, from, i));
                before[i] = h.snapshot(1, 1);
            }
        }
        OperatorSubtaskState packed = AbstractStreamOperatorTestHarness.repackageState(before);
        List<CountMinEstimate<String, Tuple2<String, String>>> actual = new ArrayList<>();
        int restoredKeys = 0;
        for (int i = 0; i < to; i++) {
            try (var h = harness(cm, to, i)) {
                h.initializeState(AbstractStreamOperatorTestHarness.repartitionOperatorState(packed, MAX_PARALLELISM,
                        from, to, i));
                h.open();
                restoredKeys += h.numKeyedStateEntries();
                update(h, owned(second, to, i));
                query(h, ownedQueries(queries, to, i));
                actual.addAll(h.extractOutputValues());
            }
        }
        assertThat(restoredKeys).as("scope sketches restored").isEqualTo(scopes);
        assertThat(actual).containsExactlyInAnyOrderElementsOf(expected);
    }

    private static List<Tuple3<String, String, Long>> owned(List<Tuple3<String, String, Long>> updates, int parallelism,
                                                            int subtask) {
        return updates.stream().filter(u -> owner(u.f0, parallelism) == subtask).toList();
    }

    private static List<Tuple2<String, String>> ownedQueries(List<Tuple2<String, String>> queries, int parallelism,
                                                            int subtask) {
        return queries.stream().filter(q -> owner(q.f0, parallelism) == subtask).toList();
    }

    private static int owner(String scope, int parallelism) {
        return KeyGroupRangeAssignment.assignKeyToParallelOperator(scope, MAX_PARALLELISM, parallelism);
    }
}
