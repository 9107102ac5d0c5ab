package io.linerate.flink.countmin;

import static io.linerate.flink.countmin.Streams.QUERY;
import static io.linerate.flink.countmin.Streams.QUERY_ITEM;
import static io.linerate.flink.countmin.Streams.UPDATE;
import static io.linerate.flink.countmin.Streams.UPDATE_ITEM;
import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.flink.state.OperatorMetrics;
import io.linerate.flink.state.WriteBackCoOperator;
import java.lang.reflect.Field;
import java.util.List;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.runtime.operators.testutils.MockEnvironment;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedTwoInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

/** Review of CountMinQueries' metrics against docs/operators/count-min.md. */
class CountMinMetricsTest {

    @Test
    void documentedMetricsCountWhatTheDocsSay() throws Exception {
        var cm = CountMinQueries.<Tuple3<String, String, Long>, Tuple2<String, String>, String>builder()
                .scope(u -> u.f0, Types.STRING).item(UPDATE_ITEM).weight(u -> u.f2)
                .queryScope(q -> q.f0).queryItem(QUERY_ITEM).seed(7).memory(4096, 3).build();
        var h = new KeyedTwoInputStreamOperatorTestHarness<>(new WriteBackCoOperator<>(cm.function(UPDATE, QUERY)),
                cm.scope(), cm.queryScope(), cm.scopeType(), 128, 1, 0);
        OperatorMetrics m = new OperatorMetrics();
        Field f = MockEnvironment.class.getDeclaredField("taskMetricGroup");
        f.setAccessible(true);
        f.set(h.getEnvironment(), m);
        h.setup(cm.outputType(QUERY).createSerializer(h.getExecutionConfig().getSerializerConfig()));
        h.open();
        h.processElement1(new StreamRecord<>(Tuple3.of("s", "a", 5L)));
        h.processElement1(new StreamRecord<>(Tuple3.of("s", "b", 0L)));
        h.processElement1(new StreamRecord<>(Tuple3.of("s", "c", -1L)));               // negative weight
        h.processElement1(new StreamRecord<>(Tuple3.of("s", null, 1L)));               // null item
        h.processElement1(new StreamRecord<>(Tuple3.of("s", "d", Long.MAX_VALUE)));
        h.processElement1(new StreamRecord<>(Tuple3.of("s", "d", Long.MAX_VALUE)));
        h.processElement2(new StreamRecord<>(Tuple2.of("s", "a")));
        h.processElement2(new StreamRecord<>(Tuple2.of("t", "a")));                    // empty scope: answered 0
        h.processElement2(new StreamRecord<>(Tuple2.of("s", null)));                   // malformed query
        assertThat(m.count("itemsProcessed")).isEqualTo(4);
        assertThat(m.count("weightProcessed")).isEqualTo(Long.MAX_VALUE);
        assertThat(m.count("malformedRecords")).isEqualTo(2);
        assertThat(m.count("queriesAnswered")).isEqualTo(2);
        assertThat(m.count("malformedQueries")).isEqualTo(1);
        CountMinSizing s = cm.function(UPDATE, QUERY).sizing();
        assertThat(m.gaugeValue("stateBytesPerKey")).isEqualTo(8L * s.width() * s.depth() + 48);
        assertThat((Double) m.gaugeValue("epsilon")).isEqualTo(2 * Math.E / s.width());
        for (String g : List.of("cachedScopes", "stateReads", "stateWrites")) {
            assertThat(m.gaugeValue(g)).as(g).isNotNull();
        }
        assertThat(m.gaugeValue("stateReads")).isEqualTo(8L);  // heap: one per record that reached the state, per query
        assertThat(m.gaugeValue("stateWrites")).isEqualTo(4L); // one per update
        h.close();
    }

    /** Updates (and their counters, the saturating weight counter, the cache's read/write counts) allocate nothing. */
    @Test
    void updatesAllocateNothingOnTheHeapBackendOnceCompiled() throws Exception {
        var cm = CountMinQueries.<Tuple3<String, Long, Long>, Tuple2<String, String>, String>builder()
                .scope(u -> u.f0, Types.STRING).item(io.linerate.flink.items.ItemSelector.longs(u -> u.f1))
                .weight(u -> u.f2).queryScope(q -> q.f0)
                .queryItem(io.linerate.flink.items.ItemSelector.<Tuple2<String, String>>longs(q -> q.f1.length()))
                .seed(7).memory(4096, 3).build();
        var updateType = Types.TUPLE(Types.STRING, Types.LONG, Types.LONG);
        @SuppressWarnings("unchecked")
        var h = new KeyedTwoInputStreamOperatorTestHarness<>(new WriteBackCoOperator<>(
                cm.function((org.apache.flink.api.common.typeinfo.TypeInformation<Tuple3<String, Long, Long>>)
                        (Object) updateType, QUERY)), cm.scope(), cm.queryScope(), cm.scopeType(), 128, 1, 0);
        OperatorMetrics m = new OperatorMetrics();
        Field f = MockEnvironment.class.getDeclaredField("taskMetricGroup");
        f.setAccessible(true);
        f.set(h.getEnvironment(), m);
        h.setup(cm.outputType(QUERY).createSerializer(h.getExecutionConfig().getSerializerConfig()));
        h.open();
        List<StreamRecord<Tuple3<String, Long, Long>>> records = new java.util.ArrayList<>();
        for (long i = 0; i < 1_000; i++) {
            records.add(new StreamRecord<>(Tuple3.of("s" + (i % 4), i * 7919, 1_000L + i)));
        }
        var threads = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long perRecord = Long.MAX_VALUE;
        int n = 100_000;
        for (long end = System.nanoTime() + 20_000_000_000L; System.nanoTime() < end && perRecord > 0; ) {
            long before = threads.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < n; i++) {
                h.processElement1(records.get(i % records.size()));
            }
            perRecord = (threads.getCurrentThreadAllocatedBytes() - before) / n;
        }
        assertThat(perRecord).as("bytes allocated per update").isZero();
        assertThat(m.count("itemsProcessed")).isPositive();
        h.close();
    }
}
