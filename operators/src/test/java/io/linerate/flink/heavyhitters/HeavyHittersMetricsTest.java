package io.linerate.flink.heavyhitters;

import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.flink.state.OperatorMetrics;
import java.time.Duration;
import java.util.List;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.junit.jupiter.api.Test;

/** Review of the heavy-hitter operator's metrics against docs/operators/heavy-hitters.md and the README. */
class HeavyHittersMetricsTest {

    private static HeavyHitterDetector<Tuple3<String, Long, Integer>, String> detector() {
        return Fixtures.builder().tumbling(Duration.ofSeconds(1)).topK(3).phi(0.1).capacity(40)
                .maxOpenSubWindows(2).alertAtWeight(3).build();
    }

    @Test
    void everyDocumentedMetricIsRegisteredAndEachRecordIsCountedOnce() throws Exception {
        OperatorMetrics m = new OperatorMetrics();
        try (var h = Fixtures.harness(detector(), new HashMapStateBackend(), m)) {
            h.open();
            h.processElement(new StreamRecord<>(Tuple3.of("a", 1L, 5), 100));
            h.processElement(new StreamRecord<>(Tuple3.of("a", 1L, 5), 200));
            h.processElement(new StreamRecord<>(Tuple3.of("a", 1L, 5), 300));   // alert: weight 3
            h.processElement(new StreamRecord<>(Tuple3.of("a", 2L, 5)));        // no timestamp: malformed
            h.processElement(new StreamRecord<>(Tuple3.of("a", 3L, 5), 1_500)); // second sub-window
            h.processElement(new StreamRecord<>(Tuple3.of("a", 4L, 5), 2_500)); // a third: over the limit of 2
            h.processWatermark(new Watermark(999));                              // reports [0, 1000)
            h.processElement(new StreamRecord<>(Tuple3.of("a", 5L, 5), 10));   // late
            assertThat(m.count("itemsProcessed")).isEqualTo(4);
            assertThat(m.count("malformedRecords")).isEqualTo(1);
            assertThat(m.count("subWindowLimitRecords")).isEqualTo(1);
            assertThat(m.count("lateRecords")).isEqualTo(1);
            assertThat(m.count("reportsEmitted")).isEqualTo(1);
            assertThat(m.count("alertsEmitted")).isEqualTo(1);
            assertThat(m.count("alertsSuppressed")).isZero();
            assertThat(m.count("malformedBatches")).isZero();
            for (String g : List.of("stateBytesPerKey", "cachedScopes", "cachedBytes", "stateReads", "stateWrites")) {
                assertThat(m.gaugeValue(g)).as(g).isNotNull();
            }
            assertThat((Long) m.gaugeValue("stateBytesPerKey")).isPositive();
        }
    }

    /**
     * docs/operators/README.md: gauges that describe a scope's structure ({@code stateBytesPerKey}, ...) "read 0 until
     * the restarted task has handled its first record or timer". After a restore, records of a sub-window that was
     * already open leave the heavy-hitter gauge at 0 however many arrive.
     */
    @Test
    void afterARestoreTheStateBytesGaugeShowsTheKeyOnceARecordIsHandled() throws Exception {
        OperatorSubtaskState snapshot;
        try (var h = Fixtures.harness(detector(), new HashMapStateBackend(), new OperatorMetrics())) {
            h.open();
            h.processElement(new StreamRecord<>(Tuple3.of("a", 1L, 5), 100));
            snapshot = h.snapshot(1, 1);
        }
        OperatorMetrics m = new OperatorMetrics();
        try (var h = Fixtures.harness(detector(), new HashMapStateBackend(), m)) {
            h.initializeState(snapshot);
            h.open();
            assertThat((Long) m.gaugeValue("stateBytesPerKey")).isZero();
            for (int i = 0; i < 100; i++) {
                h.processElement(new StreamRecord<>(Tuple3.of("a", (long) i, 5), 200 + i));
            }
            assertThat(m.count("itemsProcessed")).isEqualTo(100);
            assertThat((Long) m.gaugeValue("stateBytesPerKey")).as("after 100 records of the restored key")
                    .isPositive();
        }
    }
}
