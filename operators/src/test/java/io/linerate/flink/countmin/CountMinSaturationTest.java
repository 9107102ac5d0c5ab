package io.linerate.flink.countmin;

import io.linerate.flink.state.WriteBackCoOperator;
import io.linerate.sketches.frequency.CountMinSketch;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedTwoInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

import java.math.BigInteger;
import java.util.List;

import static io.linerate.flink.countmin.Streams.QUERY;
import static io.linerate.flink.countmin.Streams.QUERY_ITEM;
import static io.linerate.flink.countmin.Streams.UPDATE;
import static io.linerate.flink.countmin.Streams.UPDATE_ITEM;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A scope whose total weight passed Long.MAX_VALUE: N is reported saturated, so ε·N of the reported N is no bound on
 * the error (the true N is larger), and an answer must not claim one: every reported bound must hold against the exact
 * model (BigInteger sums).
 */
class CountMinSaturationTest {

    @Test
    void aSaturatedScopeClaimsNoBoundItCannotKeep() throws Exception {
        var cm = CountMinQueries.<Tuple3<String, String, Long>, Tuple2<String, String>, String>builder()
                .scope(u -> u.f0, Types.STRING).item(UPDATE_ITEM).weight(u -> u.f2)
                .queryScope(q -> q.f0).queryItem(QUERY_ITEM).seed(7).memory(4096, 3).build();
        var h = new KeyedTwoInputStreamOperatorTestHarness<>(new WriteBackCoOperator<>(cm.function(UPDATE, QUERY)),
                cm.scope(), cm.queryScope(), cm.scopeType(), 128, 1, 0);
        h.setup(cm.outputType(QUERY).createSerializer(h.getExecutionConfig().getSerializerConfig()));
        h.open();
        // 2000 accepted records of weight Long.MAX_VALUE (each one a valid weight ≥ 0): true N = 2000·(2^63 − 1)
        BigInteger trueN = BigInteger.ZERO;
        for (int i = 0; i < 2000; i++) {
            h.processElement1(new StreamRecord<>(Tuple3.of("s", "heavy-" + i, Long.MAX_VALUE)));
            trueN = trueN.add(BigInteger.valueOf(Long.MAX_VALUE));
        }
        h.processElement1(new StreamRecord<>(Tuple3.of("s", "light", 1L)));
        for (int i = 0; i < 100; i++) {
            h.processElement2(new StreamRecord<>(Tuple2.of("s", "unseen-" + i)));
        }
        h.processElement2(new StreamRecord<>(Tuple2.of("s", "light")));
        List<CountMinEstimate<String, Tuple2<String, String>>> answers = h.extractOutputValues();
        h.close();
        assertThat(answers).hasSize(101);
        int failures = 0;
        for (CountMinEstimate<String, Tuple2<String, String>> a : answers) {
            long exact = a.query.f1.equals("light") ? 1 : 0;
            assertThat(a.totalWeight).isEqualTo(Long.MAX_VALUE); // saturated, as documented
            assertThat(a.estimate).isGreaterThanOrEqualTo(exact);
            if (a.estimate > exact + a.errorBound) {
                failures++;
            }
            // lowerBound() "holds with the same probability" (count-min.md): it must not exceed the true weight
            assertThat(a.lowerBound()).as("lowerBound of %s, true weight %d", a, exact).isLessThanOrEqualTo(exact);
        }
        // the guarantee allows Pr(â > a + errorBound) ≤ e^-d ≈ 0.05 per answer
        double allowed = answers.size() * cm.sizing().failureProbability();
        assertThat(failures).as("answers above true + errorBound").isLessThanOrEqualTo(
                (int) (allowed + 3 * Math.sqrt(allowed)));
        System.out.println("true N = " + trueN + ", reported " + answers.get(0));
    }

    @Test
    void aSaturatedWindowSketchClaimsNoBound() {
        CountMinSizing sizing = CountMinSizing.fromMemory(4096, 3, 7, false);
        CountMinSketch sketch = sizing.newSketch();
        for (int i = 0; i < 2000; i++) {
            sketch.update("heavy-" + i, Long.MAX_VALUE);
        }
        WindowSketch<String> w = new WindowSketch<>("s", 0, 1, sketch);
        long estimate = w.estimate(QUERY_ITEM, Tuple2.of("s", "unseen"));
        assertThat(estimate).isEqualTo(Long.MAX_VALUE);
        // true weight 0: the reported bound must cover the estimate
        assertThat((double) estimate).isLessThanOrEqualTo(w.errorBound());
    }
}
