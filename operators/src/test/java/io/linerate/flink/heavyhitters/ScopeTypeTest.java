package io.linerate.flink.heavyhitters;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.linerate.flink.cluster.TestCluster;
import io.linerate.flink.items.ElementsOf;
import io.linerate.flink.items.ItemSelector;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A scope key whose type Flink cannot extract from a lambda (a (tenant, region) {@code Tuple2}): without its type,
 * {@code apply(stream)} fails in Flink's {@code keyBy}; {@code builder(scope, scopeType, item)} gives it, as the dedup
 * and Count-Min builders' {@code scope(selector, scopeType)} do, and the job then runs and reports per tuple key.
 */
class ScopeTypeTest {

    @RegisterExtension
    static final MiniClusterExtension CLUSTER = TestCluster.twoSlots();

    /** (tenant, region, item), all at event time 1000 (one window). */
    private static final TypeInformation<Tuple3<String, String, Long>> TYPE =
            Types.TUPLE(Types.STRING, Types.STRING, Types.LONG);
    private static final TypeInformation<Tuple2<String, String>> SCOPE_TYPE = Types.TUPLE(Types.STRING, Types.STRING);

    private static List<Tuple3<String, String, Long>> input() {
        List<Tuple3<String, String, Long>> records = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            records.add(Tuple3.of(i % 2 == 0 ? "acme" : "globex", i % 3 == 0 ? "eu" : "us", (long) (i % 7)));
        }
        return records;
    }

    private static DataStream<Tuple3<String, String, Long>> source(StreamExecutionEnvironment env) {
        return env.fromData(input(), TYPE).assignTimestampsAndWatermarks(
                WatermarkStrategy.<Tuple3<String, String, Long>>forMonotonousTimestamps()
                        .withTimestampAssigner((r, ts) -> 1_000L));
    }

    @Test
    void aTupleScopeNeedsItsTypeAndRunsWithIt() throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        HeavyHitterDetector<Tuple3<String, String, Long>, Tuple2<String, String>> untyped = HeavyHitterDetector
                .builder((Tuple3<String, String, Long> r) -> Tuple2.of(r.f0, r.f1),
                        ItemSelector.<Tuple3<String, String, Long>>longs(r -> r.f2))
                .tumbling(Duration.ofHours(1)).topK(7).phi(0.1).build();
        assertThatThrownBy(() -> untyped.apply(source(env))).hasMessageContaining("Tuple2");

        HeavyHitterDetector<Tuple3<String, String, Long>, Tuple2<String, String>> detector = HeavyHitterDetector
                .builder((Tuple3<String, String, Long> r) -> Tuple2.of(r.f0, r.f1), SCOPE_TYPE,
                        ItemSelector.<Tuple3<String, String, Long>>longs(r -> r.f2))
                .tumbling(Duration.ofHours(1)).topK(7).phi(0.1).build();
        SingleOutputStreamOperator<HeavyHitterReport<Tuple2<String, String>>> reports = detector.apply(source(env));
        assertThat(reports.getType()).isEqualTo(HeavyHitterReport.typeInfo(SCOPE_TYPE));

        Map<Tuple2<String, String>, Long> expected = new TreeMap<>(ScopeTypeTest::compare);
        input().forEach(r -> expected.merge(Tuple2.of(r.f0, r.f1), 1L, Long::sum));
        Map<Tuple2<String, String>, Long> got = new TreeMap<>(ScopeTypeTest::compare);
        reports.executeAndCollect("tuple scope").forEachRemaining(r -> got.put(r.key, r.totalWeight));
        assertThat(got).isEqualTo(expected).hasSize(4);
    }

    /** The batch path keys by the batch scope with the same type: a lambda returning a Tuple2 needs it there too. */
    @Test
    void batchesAreKeyedWithTheScopeType() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        DataStream<Tuple3<String, String, Long>> batches = source(env); // a record as a batch of itself
        ElementsOf<Tuple3<String, String, Long>, Tuple3<String, String, Long>> itself = (b, each) -> each.accept(b);
        HeavyHitterDetector<Tuple3<String, String, Long>, Tuple2<String, String>> detector = HeavyHitterDetector
                .builder((Tuple3<String, String, Long> r) -> Tuple2.of(r.f0, r.f1), SCOPE_TYPE,
                        ItemSelector.<Tuple3<String, String, Long>>longs(r -> r.f2)).build();
        assertThat(detector.applyToBatches(batches, (Tuple3<String, String, Long> b) -> Tuple2.of(b.f0, b.f1),
                itself, TYPE).getType()).isEqualTo(HeavyHitterReport.typeInfo(SCOPE_TYPE));
    }

    private static int compare(Tuple2<String, String> a, Tuple2<String, String> b) {
        int c = a.f0.compareTo(b.f0);
        return c != 0 ? c : a.f1.compareTo(b.f1);
    }
}
