package io.linerate.flink.countmin;

import io.linerate.flink.items.ItemSelector;
import io.linerate.sketches.frequency.CountMinSketch;
import io.linerate.sketches.frequency.RowIndexing;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.streaming.api.datastream.WindowedStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.windowing.assigners.TumblingEventTimeWindows;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static io.linerate.flink.countmin.Streams.QUERY_ITEM;
import static io.linerate.flink.countmin.Streams.UPDATE_ITEM;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The window aggregate's functions and both builders' validation, without a cluster. */
class CountMinAggregateTest {

    private static CountMinAggregate.Builder<Tuple3<String, String, Long>> aggregate() {
        return CountMinAggregate.<Tuple3<String, String, Long>>builder().item(UPDATE_ITEM).weight(u -> u.f2).seed(3);
    }

    private static CountMinQueries.Builder<Tuple3<String, String, Long>, Tuple2<String, String>, String> queries() {
        return CountMinQueries.<Tuple3<String, String, Long>, Tuple2<String, String>, String>builder()
                .scope(u -> u.f0, Types.STRING).item(UPDATE_ITEM).queryScope(q -> q.f0).queryItem(QUERY_ITEM);
    }

    @Test
    void mergingTwoHalvesGivesTheSketchOfTheWholeStream() {
        CountMinAggregate<Tuple3<String, String, Long>> cm = aggregate().errors(0.01, 0.01).build();
        List<Tuple3<String, String, Long>> updates = Streams.updates(9, 10_000, 1, 1000);
        CountMinSketch whole = cm.createAccumulator();
        CountMinSketch even = cm.createAccumulator();
        CountMinSketch odd = cm.createAccumulator();
        for (int i = 0; i < updates.size(); i++) {
            whole = cm.add(updates.get(i), whole);
            if (i % 2 == 0) {
                even = cm.add(updates.get(i), even);
            } else {
                odd = cm.add(updates.get(i), odd);
            }
        }
        CountMinSketch merged = cm.merge(even, odd);
        assertThat(merged.toByteArray()).isEqualTo(whole.toByteArray());
        assertThat(cm.getResult(merged).totalWeight()).isEqualTo(updates.stream().mapToLong(u -> u.f2).sum());
        Map<String, Long> truth = Streams.truth(updates).get("scope-0");
        truth.forEach((item, weight) -> assertThat(
                CountMinAggregate.estimate(merged, QUERY_ITEM, Tuple2.of("scope-0", item))).isGreaterThanOrEqualTo(weight));
    }

    @Test
    void mergedConservativeSketchesStayUpperBounds() {
        CountMinAggregate<Tuple3<String, String, Long>> cm = aggregate().memory(2048, 2).conservative(true).build();
        List<Tuple3<String, String, Long>> updates = Streams.updates(10, 8000, 1, 800);
        CountMinSketch a = cm.createAccumulator();
        CountMinSketch b = cm.createAccumulator();
        for (int i = 0; i < updates.size(); i++) {
            if (i < 5000) {
                cm.add(updates.get(i), a);
            } else {
                cm.add(updates.get(i), b);
            }
        }
        CountMinSketch merged = cm.merge(a, b);
        assertThat(merged.isConservative()).isTrue();
        Streams.truth(updates).get("scope-0").forEach((item, weight) -> assertThat(
                CountMinAggregate.estimate(merged, QUERY_ITEM, Tuple2.of("scope-0", item))).isGreaterThanOrEqualTo(weight));
    }

    @Test
    void anUnscreenedMalformedRecordFailsLoudlyNamingTheReasonAndTheScreen() {
        CountMinAggregate<Tuple3<String, String, Long>> cm = aggregate().memory(1024, 2).build();
        CountMinSketch sketch = cm.createAccumulator();
        assertThatThrownBy(() -> cm.add(Tuple3.of("s", "a", -1L), sketch))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("weight must be ≥ 0, got -1")
                .hasMessageContaining("CountMinAggregate.screen");
        assertThatThrownBy(() -> cm.add(Tuple3.of("s", null, 1L), sketch))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("item: item is null");
        assertThat(sketch.totalWeight()).isZero();
    }

    @Test
    void accumulatorAndResultTypesAreTheStateSerializersTypeInfo() {
        CountMinAggregate<Tuple3<String, String, Long>> cm = aggregate().memory(1024, 2).build();
        assertThat(cm.accumulatorType()).isInstanceOf(io.linerate.flink.serializers.CountMinSketchTypeInfo.class)
                .isEqualTo(new io.linerate.flink.serializers.CountMinSketchTypeInfo(cm.sizing().shape()))
                .hasToString("CountMinSketchTypeInfo" + cm.sizing().shape());
        assertThat(cm.sizing().shape()).isEqualTo(io.linerate.flink.serializers.Shapes.of(cm.createAccumulator()));
        assertThat(cm.resultType()).isInstanceOf(io.linerate.flink.serializers.CountMinSketchTypeInfo.class);
        assertThat(WindowSketch.typeInfo(Types.STRING).toString()).doesNotContain("GenericType");
    }

    @Test
    void sizingFollowsEpsilonDeltaOrMemoryAndDepth() {
        CountMinSizing byErrors = aggregate().errors(0.01, 0.001).build().sizing();
        assertThat(byErrors.epsilon()).isLessThanOrEqualTo(0.01);
        assertThat(byErrors.failureProbability()).isLessThanOrEqualTo(0.001);
        assertThat(byErrors.width()).isEqualTo(547); // the smallest prime ≥ 2e/0.01 = 543.7
        CountMinSizing byMemory = aggregate().memory(4096, 3).build().sizing();
        assertThat(byMemory.width()).isEqualTo(167); // the largest prime ≤ 4096 / 8 / 3 = 170
        assertThat(byMemory.depth()).isEqualTo(3);
        assertThat(byMemory.failureProbability()).isEqualTo(Math.exp(-3));
        CountMinSketch sketch = byMemory.newSketch();
        assertThat(byMemory.stateBytesPerKey()).isEqualTo(4 + sketch.toByteArray().length).isEqualTo(8L * 167 * 3 + 48)
                .isGreaterThan(sketch.memoryBytes());
        assertThat(sketch.hasher().seed()).isEqualTo(3);
        assertThat(CountMinQueries.<String, String, String>builder().scope(s -> s, Types.STRING)
                .item(ItemSelector.strings(s -> s)).queryScope(s -> s).queryItem(ItemSelector.strings(s -> s))
                .memory(1024, 2).build().sizing().seed()).isEqualTo(CountMinSizing.defaultSeed());
    }

    /**
     * build() works from the size alone: it allocated two or three whole sketches (128 MiB each here) where the job
     * is built, and a sketch as large as this JVM's heap, which TaskManagers may well hold, failed with
     * OutOfMemoryError.
     */
    @Test
    void buildAllocatesNoSketch() {
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long sketchBytes = 128L << 20;
        long before = threads.getCurrentThreadAllocatedBytes();
        CountMinSizing mixed = aggregate().memory(sketchBytes, 4).rowIndexing(RowIndexing.MIXED_32).build().sizing();
        CountMinSizing byErrors = queries().errors(2e-6, 0.1).build().sizing(); // 2.7M × 14 counters: 304 MB
        assertThat(threads.getCurrentThreadAllocatedBytes() - before).isLessThan(sketchBytes / 16);
        assertThat(mixed.width()).isEqualTo(4_194_301); // the largest prime ≤ 2^27 / 8 / 4
        assertThat(mixed.stateBytesPerKey()).isEqualTo(8L * 4_194_301 * 4 + 48);
        assertThat(byErrors.width()).isBetween(2_718_282, 2_718_400) // the smallest prime ≥ 2e/ε = 2,718,281.8
                .isEqualTo(CountMinSketch.sizeFromErrors(2e-6, 0.1).width());
        assertThat(byErrors.depth()).isEqualTo(14).isEqualTo(CountMinSketch.rowsPerCopy(2e-6));
        long heap = Runtime.getRuntime().maxMemory();
        assertThat(aggregate().memory(heap, 4).build().sizing().stateBytesPerKey()).isGreaterThan(heap - 100_000);
        // the largest budget the limit allows is accepted, one byte more is not
        long most = 8L * CountMinSketch.MAX_COUNTERS;
        assertThat(aggregate().memory(most, 64).build().sizing().depth()).isEqualTo(64);
        assertThatThrownBy(() -> aggregate().memory(most + 1, 64).build())
                .hasMessage("memory bytes must be ≤ 2147483520 (268435440 counters), got 2147483521");
    }

    /**
     * The operators keep FULL_WIDTH by default (their state so far holds FULL_WIDTH sketches, and state written before
     * their snapshots recorded the shape restores into any configuration); MIXED_32 is opt-in. After a change of the
     * setting on such state, a merge of a restored sketch and a new one fails naming the setting instead of mixing
     * counters placed two ways (state written since is refused at the restore: CountMinAggregateRestoreTest).
     */
    @Test
    void rowIndexingDefaultsToFullWidthAndAMixedMergeNamesTheSetting() {
        CountMinAggregate<Tuple3<String, String, Long>> byDefault = aggregate().memory(4096, 3).build();
        assertThat(byDefault.sizing().rowIndexing()).isEqualTo(RowIndexing.FULL_WIDTH);
        assertThat(byDefault.createAccumulator().indexing()).isEqualTo(RowIndexing.FULL_WIDTH);
        CountMinAggregate<Tuple3<String, String, Long>> mixed =
                aggregate().memory(4096, 3).rowIndexing(RowIndexing.MIXED_32).build();
        assertThat(mixed.createAccumulator().indexing()).isEqualTo(RowIndexing.MIXED_32);
        assertThat(mixed.sizing().width()).isEqualTo(byDefault.sizing().width());
        assertThat(queries().memory(4096, 3).rowIndexing(RowIndexing.MIXED_32).build().sizing().rowIndexing())
                .isEqualTo(RowIndexing.MIXED_32);

        Tuple3<String, String, Long> record = Tuple3.of("s", "item", 5L);
        CountMinSketch restored = byDefault.add(record, byDefault.createAccumulator());
        CountMinSketch fresh = mixed.add(record, mixed.createAccumulator());
        assertThatThrownBy(() -> mixed.merge(fresh, restored)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("different row indexing: MIXED_32 vs FULL_WIDTH")
                .hasMessageContaining("rowIndexing").hasMessageContaining("indexing=MIXED_32");
        // Any other field of the shape that differs (here the seed) gets the same context, not the bare message.
        CountMinAggregate<Tuple3<String, String, Long>> reseeded =
                aggregate().memory(4096, 3).rowIndexing(RowIndexing.MIXED_32).seed(7).build();
        CountMinSketch otherSeed = reseeded.add(record, reseeded.createAccumulator());
        assertThatThrownBy(() -> mixed.merge(fresh, otherSeed)).isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("cannot merge window sketches: cannot merge Count-Min sketches with "
                        + "different seeds").hasMessageContaining("Restore from a checkpoint or savepoint");
        CountMinSketch other = mixed.add(record, mixed.createAccumulator());
        CountMinSketch merged = mixed.merge(fresh, other);
        assertThat(CountMinAggregate.estimate(merged, QUERY_ITEM, Tuple2.of("s", "item"))).isEqualTo(10);

        assertThatThrownBy(() -> aggregate().memory(4096, 3).rowIndexing(RowIndexing.MOD_PRIME).build())
                .hasMessageStartingWith("rowIndexing must be MIXED_32 or FULL_WIDTH");
        assertThatThrownBy(() -> queries().rowIndexing(null)).hasMessage("rowIndexing");
    }

    @Test
    void buildersRejectBadParametersNamingThem() {
        assertThatThrownBy(() -> aggregate().errors(0, 0.1).build()).hasMessage("epsilon must be in (0, 1), got 0.0");
        assertThatThrownBy(() -> aggregate().errors(0.1, 1.5).build()).hasMessage("delta must be in (0, 1), got 1.5");
        assertThatThrownBy(() -> aggregate().errors(Double.NaN, 0.1).build()).hasMessageStartingWith("epsilon");
        assertThatThrownBy(() -> aggregate().errors(1e-9, 0.1).build()).hasMessageContaining("epsilon=1.0E-9");
        assertThatThrownBy(() -> aggregate().errors(0.5, 1e-300).build()).hasMessageStartingWith("delta must be ≥ epsilon^64")
                .hasMessageContaining("at most 64 rows");
        assertThatThrownBy(() -> aggregate().memory(100, 8).build())
                .hasMessage("memory bytes must be ≥ 128 (2 counters of 8 bytes per row) for depth 8, got 100");
        assertThatThrownBy(() -> aggregate().memory(4096, 0).build()).hasMessage("depth must be in [1, 64], got 0");
        assertThatThrownBy(() -> aggregate().memory(4096, 65).build()).hasMessage("depth must be in [1, 64], got 65");
        assertThatThrownBy(() -> aggregate().memory(1L << 40, 4).build()).hasMessageStartingWith("memory bytes must be ≤");
        assertThatThrownBy(() -> aggregate().errors(0.1, 0.1).memory(4096, 2).build())
                .hasMessage("set either errors(epsilon, delta) or memory(bytes, depth), not both: each gives the"
                        + " sketch's shape (got errors(0.1, 0.1) and memory(4096, 2))");
        assertThatThrownBy(() -> aggregate().build()).hasMessageStartingWith("sketch size must be set");
        // values a user passes are never mistaken for "not set"
        assertThatThrownBy(() -> aggregate().errors(0.01, 0.01).memory(-1, -1).build())
                .hasMessage("set either errors(epsilon, delta) or memory(bytes, depth), not both: each gives the"
                        + " sketch's shape (got errors(0.01, 0.01) and memory(-1, -1))");
        assertThatThrownBy(() -> aggregate().memory(-1, -1).build()).hasMessageStartingWith("depth must be in");
        assertThatThrownBy(() -> CountMinAggregate.<String>builder().memory(1024, 2).build())
                .hasMessage("item must be set");

        assertThatThrownBy(() -> queries().memory(1024, 2).scope(null, null).build()).hasMessage("scope must be set");
        assertThatThrownBy(() -> queries().memory(1024, 2).queryItem(null).build()).hasMessage("queryItem must be set");
        assertThatThrownBy(() -> queries().memory(1024, 2).queryScope(null).build()).hasMessage("queryScope must be set");
        assertThatThrownBy(() -> queries().memory(1024, 2).queryItem(ItemSelector.longs(q -> 1L)).build())
                .hasMessage("queryItem must select the same kind of item (longs, strings, bytes or 5-tuples) as item,"
                        + " got queryItem longs and item strings(maxBytes 64)");
        assertThatThrownBy(() -> queries().errors(2, 0.1).build()).hasMessage("epsilon must be in (0, 1), got 2.0");
    }

    /**
     * A watch-list item that is null or that the query selector rejects would throw at the first window firing
     * (a restart loop): it fails when the job is built, naming its index; a good list builds.
     */
    @Test
    void aBadWatchListItemFailsWhenTheJobIsBuiltNamingItsIndex() {
        CountMinAggregate<Tuple3<String, String, Long>> cm = aggregate().memory(1024, 2).build();
        WindowedStream<Tuple3<String, String, Long>, String, TimeWindow> windowed = oneSecondWindows();
        assertThatThrownBy(() -> cm.estimatesOf(windowed, Types.STRING, QUERY_ITEM,
                Arrays.asList(Tuple2.of("", "a"), null), Streams.QUERY))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("items[1] is null");
        assertThatThrownBy(() -> cm.estimatesOf(windowed, Types.STRING, QUERY_ITEM,
                List.of(Tuple2.of("", "a"), Tuple2.of("", "b"), Tuple2.of("", null)), Streams.QUERY))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("items[2] ((,null)) is rejected by queryItem: item is null");
        assertThat(cm.estimatesOf(windowed, Types.STRING, QUERY_ITEM, List.of(Tuple2.of("", "a")), Streams.QUERY))
                .isNotNull();
    }

    /** A watch list hashed by another kind of selector than the updates could never match: refused, naming both. */
    @Test
    void aWatchListOfAnotherItemKindIsRefusedNamingBothKinds() {
        CountMinAggregate<Tuple3<String, String, Long>> cm = aggregate().memory(1024, 2).build();
        WindowedStream<Tuple3<String, String, Long>, String, TimeWindow> windowed = oneSecondWindows();
        assertThatThrownBy(() -> cm.estimatesOf(windowed, Types.STRING, ItemSelector.<Long>longs(x -> x), List.of(1L),
                Types.LONG)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("queryItem must select the same kind of item (longs, strings, bytes or 5-tuples) as item,"
                        + " got queryItem longs and item strings(maxBytes 64)");
    }

    /** A GlobalWindow ends at Long.MAX_VALUE: its reported end does not wrap to Long.MIN_VALUE. */
    @Test
    void aGlobalWindowsEndDoesNotWrap() {
        assertThat(WindowSketches.end(org.apache.flink.streaming.api.windowing.windows.GlobalWindow.get()))
                .isEqualTo(Long.MAX_VALUE);
        assertThat(WindowSketches.end(new org.apache.flink.streaming.api.windowing.windows.TimeWindow(0, 10)))
                .isEqualTo(10);
    }

    /** The screen's try covers the selectors only: a chained downstream failure is not a malformed record. */
    @Test
    void aDownstreamFailureThroughTheScreenIsNotAMalformedRecord() throws Exception {
        RecordScreen<Tuple3<String, String, Long>> screen = new RecordScreen<>(UPDATE_ITEM, u -> u.f2, 3,
                io.linerate.flink.rejects.Rejected.tag(Types.TUPLE(Types.STRING, Types.STRING, Types.LONG)));
        var harness = org.apache.flink.streaming.util.ProcessFunctionTestHarnesses.forProcessFunction(screen);
        java.util.List<Object> side = new java.util.ArrayList<>();
        var ctx = screen.new Context() {
            @Override
            public Long timestamp() {
                return null;
            }

            @Override
            public org.apache.flink.streaming.api.TimerService timerService() {
                return null;
            }

            @Override
            public <X> void output(org.apache.flink.util.OutputTag<X> tag, X value) {
                side.add(value);
            }
        };
        org.apache.flink.util.Collector<Tuple3<String, String, Long>> failing = new org.apache.flink.util.Collector<>() {
            @Override
            public void collect(Tuple3<String, String, Long> r) {
                throw new IllegalStateException("chained downstream operator failed");
            }

            @Override
            public void close() {
            }
        };
        assertThatThrownBy(() -> screen.processElement(Tuple3.of("s", "item", 1L), ctx, failing))
                .hasMessage("chained downstream operator failed");
        assertThat(side).isEmpty();
        harness.close();
    }

    /** Tumbling one-second windows of a one-update stream, keyed by scope: what the estimatesOf checks build on. */
    private static WindowedStream<Tuple3<String, String, Long>, String, TimeWindow> oneSecondWindows() {
        return StreamExecutionEnvironment.getExecutionEnvironment()
                .fromData(List.of(Tuple3.of("s", "a", 1L)), Streams.UPDATE).keyBy(u -> u.f0, Types.STRING)
                .window(TumblingEventTimeWindows.of(Duration.ofSeconds(1)));
    }
}
