package io.linerate.flink.dedup;

import static io.linerate.flink.dedup.DedupHarnesses.TYPE;
import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.flink.state.OperatorMetrics;
import io.linerate.flink.state.WriteBackOperator;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.runtime.operators.testutils.MockEnvironment;
import org.apache.flink.runtime.operators.testutils.MockEnvironmentBuilder;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

/** Review of the dedup operator's metrics against docs/operators/dedup.md. */
class DedupMetricsTest {

    private static KeyedOneInputStreamOperatorTestHarness<String, Tuple3<String, Long, Long>, Tuple3<String, Long, Long>>
            open(Deduplicator<Tuple3<String, Long, Long>, String> dedup, OperatorMetrics metrics) throws Exception {
        MockEnvironment env = new MockEnvironmentBuilder().setMaxParallelism(DedupHarnesses.MAX_PARALLELISM)
                .setMetricGroup(metrics).build();
        var h = new KeyedOneInputStreamOperatorTestHarness<>(new WriteBackOperator<>(dedup.function(TYPE)),
                dedup.scope(), Types.STRING, env);
        h.open();
        return h;
    }

    @Test
    void everyDocumentedMetricIsRegisteredWithItsKind() throws Exception {
        OperatorMetrics metrics = new OperatorMetrics();
        var dedup = DedupHarnesses.builder(Duration.ofSeconds(3), 4).eventTime().expectedRate(100).fpp(0.01).build();
        var h = open(dedup, metrics);
        for (String c : List.of("itemsProcessed", "duplicatesFlagged", "malformedRecords", "malformedBatches",
                "lateRecords", "overCapacityGenerations")) {
            assertThat(metrics.count(c)).as(c).isZero();
        }
        for (String g : List.of("stateBytesPerKey", "cachedScopes", "cachedBytes", "stateReads", "stateWrites",
                "estimatedFpp")) {
            assertThat(metrics.gaugeValue(g)).as(g).isNotNull();
        }
        h.close();
    }

    /**
     * dedup.md: estimatedFpp is "the largest among the keys rotated at the latest epoch, [...] so one key running far
     * ahead does not hide the others". Key "b" runs on time at 5x its rate (its generations close with an fpp far
     * above p); key "a" runs at half its rate, 1.5 spans ahead of the watermark. Both rotate once per span while the
     * watermark is in the same epoch, yet the gauge shows only "a" for half of every span.
     */
    @Test
    void aKeyOneSpanAheadDoesNotHideAnOverloadedKeyFromTheFppGauge() throws Exception {
        OperatorMetrics metrics = new OperatorMetrics();
        var dedup = DedupHarnesses.builder(Duration.ofSeconds(3), 4).eventTime().expectedRate(100).fpp(0.01).build();
        var h = open(dedup, metrics);
        long itemA = 0;
        long itemB = 1_000_000_000L;
        List<String> low = new ArrayList<>();
        for (long t = 0; t < 20_000; t += 2) {
            h.processElement(Tuple3.of("b", itemB++, t), t);             // 500 distinct/s, designed 100
            if (t % 20 == 0) {
                h.processElement(Tuple3.of("a", itemA++, t + 1500), t + 1500); // 50 distinct/s, 1.5 s ahead
            }
            if (t % 100 == 0) {
                h.processWatermark(t);
                double fpp = (Double) metrics.gaugeValue("estimatedFpp");
                if (t >= 5_000 && fpp < 0.05) {
                    low.add(t + ": " + fpp);
                }
            }
        }
        assertThat(low).as("gauge samples that show only the key running ahead").isEmpty();
        h.close();
    }

    /**
     * docs/operators/README.md said stateBytesPerKey "read[s] 0 until the restarted task has handled its first record";
     * dedup's gauge is the configured size per key (dedup.md), non-zero from the start, also after a restore.
     */
    @Test
    void stateBytesPerKeyIsTheConfiguredSizeFromTheStartAlsoAfterARestore() throws Exception {
        var dedup = DedupHarnesses.builder(Duration.ofSeconds(3), 4).eventTime().expectedRate(100).fpp(0.01).build();
        org.apache.flink.runtime.checkpoint.OperatorSubtaskState snapshot;
        var first = open(dedup, new OperatorMetrics());
        first.processElement(Tuple3.of("k", 1L, 10L), 10L);
        snapshot = first.snapshot(1, 1);
        first.close();
        OperatorMetrics metrics = new OperatorMetrics();
        MockEnvironment env = new MockEnvironmentBuilder().setMaxParallelism(DedupHarnesses.MAX_PARALLELISM)
                .setMetricGroup(metrics).build();
        var h = new KeyedOneInputStreamOperatorTestHarness<>(new WriteBackOperator<>(dedup.function(TYPE)),
                dedup.scope(), Types.STRING, env);
        h.initializeState(snapshot);
        h.open();
        assertThat(metrics.count("itemsProcessed")).isZero();
        assertThat(metrics.gaugeValue("stateBytesPerKey")).isEqualTo(dedup.sizing().stateBytesPerKey());
        h.close();
    }
}
