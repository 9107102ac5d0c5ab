package io.linerate.flink.heavyhitters;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

/**
 * heavy-hitters.md, "Alert thresholds changed across a restore": the alerted sets are state, the thresholds are
 * not, and an item is tested at its own records (plus the pass when the sub-window's weight crosses
 * minWindowWeight). So after a restore into lower thresholds an item already past them alerts at its next record
 * in the open sub-window, and not at all if it has none there.
 */
class AlertThresholdRestoreTest {

    private static List<String> alerts(KeyedOneInputStreamOperatorTestHarness<String, Tuple3<String, Long, Integer>,
            HeavyHitterReport<String>> h) {
        var out = h.getSideOutput(HeavyHitterDetector.alertTag(Types.STRING));
        return out == null ? List.of() : out.stream().map(StreamRecord::getValue)
                .map(a -> a.item + "@" + a.timestamp + ":" + a.kind).toList();
    }

    private static HeavyHitterDetector.Builder<Tuple3<String, Long, Integer>, String> builder() {
        return Fixtures.builder().weight(r -> r.f2).tumbling(Duration.ofSeconds(1)).phi(0.1).capacity(100);
    }

    /** Item 1 weighs 70 and item 2 weighs 30 of sub-window [0, 1000), under alertAtWeight 100: no alert. */
    private static OperatorSubtaskState before(HeavyHitterDetector<Tuple3<String, Long, Integer>, String> detector)
            throws Exception {
        try (var h = Fixtures.harness(detector, 1, 0)) {
            h.open();
            h.processElement(new StreamRecord<>(Tuple3.of("a", 1L, 70), 100));
            h.processElement(new StreamRecord<>(Tuple3.of("a", 2L, 30), 200));
            assertThat(alerts(h)).isEmpty();
            return h.snapshot(1, 1);
        }
    }

    @Test
    void aLoweredWeightAlertsAnItemPastItOnlyAtItsNextRecord() throws Exception {
        OperatorSubtaskState snapshot = before(builder().alertAtWeight(100).build());
        try (var h = Fixtures.harness(builder().alertAtWeight(50).build(), 1, 0)) {
            h.initializeState(snapshot);
            h.open();
            h.processElement(new StreamRecord<>(Tuple3.of("a", 2L, 1), 300)); // item 2: 31 < 50
            assertThat(alerts(h)).as("item 1 (70 ≥ 50) has had no record since the restore").isEmpty();
            h.processElement(new StreamRecord<>(Tuple3.of("a", 1L, 1), 400));
            assertThat(alerts(h)).containsExactly("1@400:absolute");
        }
    }

    @Test
    void fractionAlertsTurnedOnOverAHeavierSubWindowRunNoPass() throws Exception {
        OperatorSubtaskState snapshot = before(builder().alertAtWeight(100).build());
        // minWindowWeight 50 < the restored weight 100: no record crosses it, so no pass over items at the fraction
        try (var h = Fixtures.harness(builder().alertAtFraction(0.5, 50).build(), 1, 0)) {
            h.initializeState(snapshot);
            h.open();
            h.processElement(new StreamRecord<>(Tuple3.of("a", 2L, 1), 300)); // item 2: 31 of 101
            h.processWatermark(999);
            assertThat(alerts(h)).as("item 1 held 70 of 100 ≥ 0.5, and never alerted").isEmpty();
        }
    }
}
