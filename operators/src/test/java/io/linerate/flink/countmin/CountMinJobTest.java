package io.linerate.flink.countmin;

import io.linerate.flink.cluster.TestCluster;
import io.linerate.flink.items.ItemSelector;
import io.linerate.flink.rejects.Rejected;
import io.linerate.flink.serializers.CountMinSketchTypeInfo;
import io.linerate.sketches.frequency.CountMinSketch;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.api.java.tuple.Tuple4;
import org.apache.flink.api.java.typeutils.GenericTypeInfo;
import org.apache.flink.api.java.typeutils.TypeExtractor;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.KeyedStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.windowing.assigners.EventTimeSessionWindows;
import org.apache.flink.streaming.api.windowing.assigners.TumblingEventTimeWindows;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static io.linerate.flink.countmin.Streams.QUERY;
import static io.linerate.flink.countmin.Streams.QUERY_ITEM;
import static io.linerate.flink.countmin.Streams.UPDATE;
import static io.linerate.flink.countmin.Streams.UPDATE_ITEM;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Real jobs on a MiniCluster (parallelism 2, checkpointing every 50 ms, generic types disabled so that any Kryo
 * fallback fails the job): the window aggregate on tumbling and session windows, and the continuous operator.
 */
class CountMinJobTest {

    @RegisterExtension
    static final MiniClusterExtension CLUSTER = TestCluster.twoSlots();

    /** (scope, item, weight, timestamp). */
    private static final TypeInformation<Tuple4<String, String, Long, Long>> EVENT =
            Types.TUPLE(Types.STRING, Types.STRING, Types.LONG, Types.LONG);
    private static final ItemSelector<Tuple4<String, String, Long, Long>> EVENT_ITEM = ItemSelector.strings(e -> e.f1);

    private static StreamExecutionEnvironment env() {
        Configuration conf = new Configuration();
        conf.set(PipelineOptions.GENERIC_TYPES, false);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(2);
        env.enableCheckpointing(50);
        return env;
    }

    private static CountMinAggregate<Tuple4<String, String, Long, Long>> aggregate() {
        return CountMinAggregate.<Tuple4<String, String, Long, Long>>builder().item(EVENT_ITEM).weight(e -> e.f2)
                .memory(8192, 4).seed(21).build();
    }

    /** Events in time order over {@code windows} one-second windows, with two malformed records mixed in. */
    private static List<Tuple4<String, String, Long, Long>> events() {
        List<Tuple4<String, String, Long, Long>> out = new ArrayList<>();
        List<Tuple3<String, String, Long>> updates = Streams.updates(17, 6000, 3, 500);
        for (int i = 0; i < updates.size(); i++) {
            Tuple3<String, String, Long> u = updates.get(i);
            out.add(Tuple4.of(u.f0, u.f1, u.f2, i * 1L)); // 6 windows of 1000 ms
        }
        out.set(100, Tuple4.of("scope-0", null, 1L, 100L));
        out.set(2500, Tuple4.of("scope-1", "item-1", -4L, 2500L));
        return out;
    }

    private static boolean wellFormed(Tuple4<String, String, Long, Long> e) {
        return e.f1 != null && e.f2 >= 0;
    }

    @Test
    void tumblingWindowsEmitTheModelSketchPerKeyAndWindowAndScreenMalformedRecords() throws Exception {
        CountMinAggregate<Tuple4<String, String, Long, Long>> cm = aggregate();
        List<Tuple4<String, String, Long, Long>> events = events();
        StreamExecutionEnvironment env = env();
        DataStream<Tuple4<String, String, Long, Long>> source = env.fromData(events, EVENT).setParallelism(1)
                .assignTimestampsAndWatermarks(WatermarkStrategy.<Tuple4<String, String, Long, Long>>forMonotonousTimestamps()
                        .withTimestampAssigner((e, ts) -> e.f3)).setParallelism(1);
        SingleOutputStreamOperator<Tuple4<String, String, Long, Long>> screened = cm.screen(source);
        KeyedStream<Tuple4<String, String, Long, Long>, String> keyed = screened.keyBy(e -> e.f0, Types.STRING);
        List<Tuple2<String, String>> watch = List.of(Tuple2.of("", "item-0"), Tuple2.of("", "item-3"),
                Tuple2.of("", "never-seen"));
        CloseableIterator<WindowSketch<String>> sketches = cm.sketchesOf(
                keyed.window(TumblingEventTimeWindows.of(Duration.ofMillis(1000))), keyed.getKeyType()).collectAsync();
        CloseableIterator<WindowEstimate<String, Tuple2<String, String>>> estimates = cm.estimatesOf(
                keyed.window(TumblingEventTimeWindows.of(Duration.ofMillis(1000))), keyed.getKeyType(), QUERY_ITEM,
                watch, QUERY).collectAsync();
        CloseableIterator<Rejected<Tuple4<String, String, Long, Long>>> rejected =
                screened.getSideOutput(cm.malformed(EVENT)).collectAsync();
        env.execute("Count-Min tumbling windows");

        // the model: one sketch per (scope, window) of the well-formed events
        Map<String, CountMinSketch> model = new HashMap<>();
        Map<String, Map<String, Long>> truth = new HashMap<>();
        for (Tuple4<String, String, Long, Long> e : events) {
            if (wellFormed(e)) {
                String key = e.f0 + "@" + (e.f3 / 1000 * 1000);
                model.computeIfAbsent(key, k -> cm.sizing().newSketch()).update(e.f1, e.f2);
                truth.computeIfAbsent(key, k -> new HashMap<>()).merge(e.f1, e.f2, Long::sum);
            }
        }
        Map<String, byte[]> actual = new HashMap<>();
        sketches.forEachRemaining(w -> {
            assertThat(w.windowEnd - w.windowStart).isEqualTo(1000);
            actual.put(w.scope + "@" + w.windowStart, w.sketch.toByteArray());
        });
        assertThat(actual.keySet()).isEqualTo(model.keySet()).hasSize(18);
        model.forEach((key, sketch) -> assertThat(actual.get(key)).as(key).isEqualTo(sketch.toByteArray()));

        int answers = 0;
        for (WindowEstimate<String, Tuple2<String, String>> e : (Iterable<WindowEstimate<String, Tuple2<String, String>>>) () -> estimates) {
            String key = e.scope + "@" + e.windowStart;
            CountMinSketch sketch = model.get(key);
            assertThat(e.estimate).as("%s", e).isEqualTo(sketch.estimate(e.item.f1))
                    .isGreaterThanOrEqualTo(truth.get(key).getOrDefault(e.item.f1, 0L));
            assertThat(e.totalWeight).isEqualTo(sketch.totalWeight());
            assertThat(e.errorBound).isEqualTo(sketch.errorBound());
            answers++;
        }
        assertThat(answers).isEqualTo(18 * watch.size());

        List<Rejected<Tuple4<String, String, Long, Long>>> bad = new ArrayList<>();
        rejected.forEachRemaining(bad::add);
        assertThat(bad).containsExactlyInAnyOrder(
                new Rejected<>(Tuple4.of("scope-0", null, 1L, 100L), "item: item is null"),
                new Rejected<>(Tuple4.of("scope-1", "item-1", -4L, 2500L), "weight must be ≥ 0, got -4"));
    }

    /** Why {@link CountMinAggregate#applyTo} passes the types: reflection alone would make the sketch a Kryo type. */
    @Test
    void applyToNeedsNoKryoWhilePlainAggregateWouldFallBackToIt() {
        CountMinAggregate<Tuple4<String, String, Long, Long>> cm = aggregate();
        StreamExecutionEnvironment env = env();
        KeyedStream<Tuple4<String, String, Long, Long>, String> keyed = env.fromData(events().subList(0, 10), EVENT)
                .keyBy(e -> e.f0, Types.STRING);
        cm.applyTo(keyed.window(TumblingEventTimeWindows.of(Duration.ofMillis(1000)))).print();
        assertThat(env.getStreamGraph().getStreamNodes()).hasSize(3);

        StreamExecutionEnvironment plain = env();
        KeyedStream<Tuple4<String, String, Long, Long>, String> keyed2 = plain.fromData(events().subList(0, 10), EVENT)
                .keyBy(e -> e.f0, Types.STRING);
        // What reflection finds depends on the JVM-global type registry: LinerateTypes.register() (README: in main()
        // and in tests; OperatorDocSnippetsTest calls it) makes it the registered factory's type information. This
        // test ran after one that registered and failed, depending on the order the classes ran in.
        TypeInformation<CountMinSketch> reflected = TypeExtractor.getAggregateFunctionAccumulatorType(cm, EVENT, null,
                false);
        if (TypeExtractor.getTypeInfoFactory(CountMinSketch.class) == null) {
            assertThat(reflected).isInstanceOf(GenericTypeInfo.class);
            assertThatThrownBy(() -> {
                keyed2.window(TumblingEventTimeWindows.of(Duration.ofMillis(1000))).aggregate(cm).print();
                plain.getStreamGraph();
            }).hasStackTraceContaining("Generic types have been disabled");
        } else {
            // registered: no Kryo, but the accumulator's serializer expects no shape, so a restore into another
            // shape is not refused; accumulatorType() does expect the configured one
            assertThat(reflected).isEqualTo(new CountMinSketchTypeInfo()).isNotEqualTo(cm.accumulatorType());
        }
    }

    /**
     * Sessions that only join when a late-arriving event bridges them: Flink merges the window states with
     * {@link CountMinAggregate#merge}, and the session's sketch must equal the sketch of all its events.
     */
    @Test
    void sessionWindowsMergeSketchesExactly() throws Exception {
        CountMinAggregate<Tuple4<String, String, Long, Long>> cm = aggregate();
        SplittableRandom random = new SplittableRandom(4);
        List<Tuple4<String, String, Long, Long>> events = new ArrayList<>();
        // gap 100 ms; first every 150 ms (separate sessions), then the events at the odd multiples of 75 ms join them
        for (int pass = 0; pass < 2; pass++) {
            for (long t = pass * 75L; t < 3000; t += 150) {
                for (int s = 0; s < 3; s++) {
                    events.add(Tuple4.of("scope-" + s, "item-" + random.nextInt(300), 1L + random.nextInt(9), t + s));
                }
            }
        }
        StreamExecutionEnvironment env = env();
        KeyedStream<Tuple4<String, String, Long, Long>, String> keyed = env.fromData(events, EVENT).setParallelism(1)
                .assignTimestampsAndWatermarks(WatermarkStrategy
                        .<Tuple4<String, String, Long, Long>>forBoundedOutOfOrderness(Duration.ofSeconds(10))
                        .withTimestampAssigner((e, ts) -> e.f3)).setParallelism(1)
                .keyBy(e -> e.f0, Types.STRING);
        List<WindowSketch<String>> sessions = new ArrayList<>();
        cm.sketchesOf(keyed.window(EventTimeSessionWindows.withGap(Duration.ofMillis(100))), keyed.getKeyType())
                .executeAndCollect("Count-Min session windows").forEachRemaining(sessions::add);

        Map<String, CountMinSketch> model = new HashMap<>();
        for (Tuple4<String, String, Long, Long> e : events) {
            model.computeIfAbsent(e.f0, k -> cm.sizing().newSketch()).update(e.f1, e.f2);
        }
        assertThat(sessions).hasSize(3);
        for (WindowSketch<String> w : sessions) {
            int s = Integer.parseInt(w.scope.substring("scope-".length()));
            assertThat(w.windowStart).isEqualTo(s);
            assertThat(w.windowEnd).isEqualTo(2925 + s + 100);
            assertThat(w.sketch.toByteArray()).as(w.scope).isEqualTo(model.get(w.scope).toByteArray());
        }
    }

    /**
     * The continuous operator in a job. Updates and queries come from two sources, so which updates a query sees is
     * not fixed; but a scope's updates arrive in order and all weights are ≥ 1, so an answer's total weight N names
     * exactly the prefix of the scope's updates it saw, and the answer must equal the model sketch of that prefix.
     */
    @Test
    void connectedOperatorAnswersEveryQueryFromAPrefixOfItsScopesUpdates() throws Exception {
        CountMinQueries<Tuple3<String, String, Long>, Tuple2<String, String>, String> cm =
                CountMinQueries.<Tuple3<String, String, Long>, Tuple2<String, String>, String>builder()
                        .scope(u -> u.f0, Types.STRING).item(UPDATE_ITEM).weight(u -> u.f2)
                        .queryScope(q -> q.f0).queryItem(QUERY_ITEM).errors(0.05, 0.01).seed(99).conservative(true)
                        .build();
        List<Tuple3<String, String, Long>> updates = new ArrayList<>(Streams.updates(23, 5000, 4, 300));
        updates.add(Tuple3.of("scope-2", "item-1", -1L));
        List<Tuple2<String, String>> queries = new ArrayList<>(Streams.queries(5, 40));
        queries.add(Tuple2.of("scope-1", null));

        StreamExecutionEnvironment env = env();
        DataStream<Tuple3<String, String, Long>> updateStream = env.fromData(updates, UPDATE).setParallelism(1);
        DataStream<Tuple2<String, String>> queryStream = env.fromData(queries, QUERY).setParallelism(1);
        SingleOutputStreamOperator<CountMinEstimate<String, Tuple2<String, String>>> answers =
                cm.apply(updateStream, queryStream);
        CloseableIterator<CountMinEstimate<String, Tuple2<String, String>>> out = answers.collectAsync();
        CloseableIterator<Rejected<Tuple3<String, String, Long>>> badUpdates =
                answers.getSideOutput(cm.malformedUpdates(UPDATE)).collectAsync();
        CloseableIterator<Rejected<Tuple2<String, String>>> badQueries =
                answers.getSideOutput(cm.malformedQueries(QUERY)).collectAsync();
        env.execute("Count-Min point queries");

        Map<String, List<Tuple3<String, String, Long>>> byScope = new HashMap<>();
        for (Tuple3<String, String, Long> u : updates) {
            if (u.f2 >= 0) {
                byScope.computeIfAbsent(u.f0, k -> new ArrayList<>()).add(u);
            }
        }
        int count = 0;
        for (CountMinEstimate<String, Tuple2<String, String>> a : (Iterable<CountMinEstimate<String, Tuple2<String, String>>>) () -> out) {
            count++;
            CountMinSketch prefix = cm.sizing().newSketch();
            Map<String, Long> truth = new HashMap<>();
            for (Tuple3<String, String, Long> u : byScope.getOrDefault(a.scope, List.of())) {
                if (prefix.totalWeight() == a.totalWeight) {
                    break;
                }
                prefix.update(u.f1, u.f2);
                truth.merge(u.f1, u.f2, Long::sum);
            }
            assertThat(prefix.totalWeight()).as("a prefix of %s has total weight %d", a.scope, a.totalWeight)
                    .isEqualTo(a.totalWeight);
            assertThat(a.estimate).as("%s", a).isEqualTo(prefix.estimate(a.query.f1))
                    .isGreaterThanOrEqualTo(truth.getOrDefault(a.query.f1, 0L));
            assertThat(a.errorBound).isEqualTo(prefix.errorBound());
        }
        assertThat(count).isEqualTo(queries.size() - 1);
        List<Rejected<Tuple3<String, String, Long>>> rejectedUpdates = new ArrayList<>();
        badUpdates.forEachRemaining(rejectedUpdates::add);
        assertThat(rejectedUpdates).containsExactly(
                new Rejected<>(Tuple3.of("scope-2", "item-1", -1L), "weight must be ≥ 0, got -1"));
        List<Rejected<Tuple2<String, String>>> rejectedQueries = new ArrayList<>();
        badQueries.forEachRemaining(rejectedQueries::add);
        assertThat(rejectedQueries).containsExactly(new Rejected<>(Tuple2.of("scope-1", null), "queryItem: item is null"));
    }
}
