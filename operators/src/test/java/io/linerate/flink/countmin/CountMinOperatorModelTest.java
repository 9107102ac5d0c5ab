package io.linerate.flink.countmin;

import static io.linerate.flink.countmin.Streams.QUERY;
import static io.linerate.flink.countmin.Streams.QUERY_ITEM;
import static io.linerate.flink.countmin.Streams.UPDATE;
import static io.linerate.flink.countmin.Streams.UPDATE_ITEM;
import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.flink.rejects.Rejected;
import io.linerate.flink.state.WriteBackCoOperator;
import io.linerate.sketches.frequency.CountMinSketch;
import io.linerate.sketches.frequency.RowIndexing;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedTwoInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The keyed query operator and the window aggregate against an exact model (true weights per scope, with
 * BigInteger sums) on random interleavings of updates (zero, negative and huge weights) and queries, with a
 * snapshot and restore in the middle.
 */
class CountMinOperatorModelTest {

    private static final BigInteger MAX = BigInteger.valueOf(Long.MAX_VALUE);

    @ParameterizedTest(name = "rocksdb={0} cache={1} conservative={2} {3}")
    @CsvSource({"false,0,false,FULL_WIDTH", "false,0,true,MIXED_32", "true,0,false,MIXED_32", "true,1,true,FULL_WIDTH",
            "true,2,false,FULL_WIDTH"})
    void everyAnswerIsAnUpperBoundWithTheScopesExactTotal(boolean rocksdb, int cache, boolean conservative,
                                                          RowIndexing indexing) throws Exception {
        CountMinQueries.Builder<Tuple3<String, String, Long>, Tuple2<String, String>, String> b =
                CountMinQueries.<Tuple3<String, String, Long>, Tuple2<String, String>, String>builder()
                        .scope(u -> u.f0, Types.STRING).item(UPDATE_ITEM).weight(u -> u.f2)
                        .queryScope(q -> q.f0).queryItem(QUERY_ITEM).seed(3).memory(1024, 3)
                        .conservative(conservative).rowIndexing(indexing);
        CountMinQueries<Tuple3<String, String, Long>, Tuple2<String, String>, String> probe = b.build();
        CountMinQueries<Tuple3<String, String, Long>, Tuple2<String, String>, String> cm =
                b.stateCacheBytes(cache * probe.sizing().stateBytesPerKey()).build();
        SplittableRandom r = new SplittableRandom(5);
        List<Object> events = new ArrayList<>();
        long[] big = {Long.MAX_VALUE, Long.MAX_VALUE / 2, Long.MAX_VALUE / 3 + 7, 1L << 62};
        for (int i = 0; i < 4000; i++) {
            String scope = "s" + r.nextInt(4);
            String item = "i" + (int) Math.floor(Math.pow(r.nextDouble(), 3) * 300);
            if (r.nextInt(3) == 0) {
                events.add(Tuple2.of(scope, item));
            } else {
                int k = r.nextInt(100);
                long w = k < 10 ? 0 : k < 13 ? -1 - r.nextInt(5) : k < 15 ? big[r.nextInt(big.length)]
                        : 1 + r.nextInt(1000);
                events.add(Tuple3.of(scope, item, w));
            }
        }
        Map<String, Map<String, BigInteger>> truth = new HashMap<>();
        Map<String, CountMinSketch> model = new HashMap<>();
        int half = events.size() / 2;
        int rejected = 0;
        OperatorSubtaskState snapshot = null;
        var h = harness(cm, rocksdb);
        try {
            h.open();
            for (int i = 0; i < events.size(); i++) {
                if (i == half) {
                    snapshot = h.snapshot(1, 1);
                    h.close();
                    h = harness(cm, rocksdb);
                    h.initializeState(snapshot);
                    h.open();
                }
                Object e = events.get(i);
                if (e instanceof Tuple3<?, ?, ?> t) {
                    @SuppressWarnings("unchecked")
                    Tuple3<String, String, Long> u = (Tuple3<String, String, Long>) t;
                    h.processElement1(new StreamRecord<>(u));
                    if (u.f2 < 0) {
                        rejected++;
                        continue;
                    }
                    truth.computeIfAbsent(u.f0, x -> new HashMap<>()).merge(u.f1, BigInteger.valueOf(u.f2),
                            BigInteger::add);
                    model.computeIfAbsent(u.f0, x -> cm.sizing().newSketch()).update(u.f1, u.f2);
                } else {
                    @SuppressWarnings("unchecked")
                    Tuple2<String, String> q = (Tuple2<String, String>) e;
                    h.processElement2(new StreamRecord<>(q));
                    List<CountMinEstimate<String, Tuple2<String, String>>> out = h.extractOutputValues();
                    CountMinEstimate<String, Tuple2<String, String>> a = out.get(out.size() - 1);
                    assertThat(a.query).isEqualTo(q);
                    Map<String, BigInteger> scope = truth.get(q.f0);
                    if (scope == null) {
                        assertThat(a).isEqualTo(new CountMinEstimate<>(q.f0, q, 0, 0, 0));
                        continue;
                    }
                    BigInteger n = scope.values().stream().reduce(BigInteger.ZERO, BigInteger::add);
                    long exact = scope.getOrDefault(q.f1, BigInteger.ZERO).min(MAX).longValueExact();
                    assertThat(a.totalWeight).as("event %d: N of %s", i, q.f0).isEqualTo(n.min(MAX).longValueExact());
                    assertThat(a.estimate).as("event %d: %s", i, a).isGreaterThanOrEqualTo(exact);
                    CountMinSketch m = model.get(q.f0);
                    assertThat(a.estimate).isEqualTo(m.estimate(q.f1));
                    // a saturated N (the true total unknown) states no bound
                    assertThat(a.errorBound).isEqualTo(a.totalWeight == Long.MAX_VALUE ? (double) Long.MAX_VALUE
                            : cm.sizing().epsilon() * a.totalWeight);
                    assertThat(a.lowerBound()).isLessThanOrEqualTo(exact);
                    assertThat(a.lowerBound()).isBetween(0L, a.estimate);
                }
            }
            List<StreamRecord<Rejected<Tuple3<String, String, Long>>>> bad = new ArrayList<>(
                    h.getSideOutput(cm.malformedUpdates(UPDATE)));
            assertThat(bad).allSatisfy(x -> assertThat(x.getValue().reason).startsWith("weight must be ≥ 0, got -"));
            assertThat(rejected).isPositive();
        } finally {
            h.close();
        }
    }

    /**
     * errors(ε, δ) with δ = ε^k: k copies of ⌈ln(1/(ε(1 − 1/(2e²))))⌉ rows, as the docs' formula says (a rounding
     * of ln(1/δ)/ln(1/ε) just above k gave a copy more), and the least δ a refusal names is accepted.
     */
    @Test
    void errorsSizingTakesTheFormulasRowsWhenDeltaIsAPowerOfEpsilon() {
        assertThat(CountMinAggregate.<Long>builder().item(io.linerate.flink.items.ItemSelector.longs(x -> x))
                .errors(0.002, 8e-9).build().sizing().depth()).isEqualTo(21);
        assertThat(CountMinAggregate.<Long>builder().item(io.linerate.flink.items.ItemSelector.longs(x -> x))
                .errors(0.2, 0.008).build().sizing().depth()).isEqualTo(6);
        assertThat(CountMinAggregate.<Long>builder().item(io.linerate.flink.items.ItemSelector.longs(x -> x))
                .errors(0.7, Math.pow(0.7, 64)).build().sizing().depth()).isEqualTo(64);
    }

    private static KeyedTwoInputStreamOperatorTestHarness<String, Tuple3<String, String, Long>, Tuple2<String, String>,
            CountMinEstimate<String, Tuple2<String, String>>> harness(
            CountMinQueries<Tuple3<String, String, Long>, Tuple2<String, String>, String> cm, boolean rocksdb)
            throws Exception {
        var h = new KeyedTwoInputStreamOperatorTestHarness<>(new WriteBackCoOperator<>(cm.function(UPDATE, QUERY)),
                cm.scope(), cm.queryScope(), cm.scopeType(), 128, 1, 0);
        if (rocksdb) {
            h.setStateBackend(new EmbeddedRocksDBStateBackend());
        }
        h.setup(cm.outputType(QUERY).createSerializer(h.getExecutionConfig().getSerializerConfig()));
        return h;
    }
}
