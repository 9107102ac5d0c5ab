package io.linerate.flink.heavyhitters;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

/**
 * The φ·N thresholds of the reports are exact at the decimal φ (HeavyHitters.ceilPhiN), but the fraction
 * alerts still compare with the double product: 0.07 · 100 = 7.000000000000001, so an item of weight 7 in a
 * sub-window of 100 (exactly 7%) does not alert at fraction 0.07, while the report marks it above φ = 0.07.
 */
class AlertFractionDecimalTest {

    private static List<String> alerts(KeyedOneInputStreamOperatorTestHarness<String, Tuple3<String, Long, Integer>,
            HeavyHitterReport<String>> h) {
        var out = h.getSideOutput(HeavyHitterDetector.alertTag(Types.STRING));
        return out == null ? List.of() : out.stream().map(StreamRecord::getValue)
                .map(a -> a.item + ":" + a.estimate + "/" + a.windowWeight + "≥" + a.threshold).toList();
    }

    @Test
    void anItemAtExactlyTheFractionAlerts() throws Exception {
        HeavyHitterDetector<Tuple3<String, Long, Integer>, String> detector = Fixtures.builder().weight(r -> r.f2)
                .tumbling(Duration.ofSeconds(1)).phi(0.07).capacity(100).alertAtFraction(0.07, 0).build();
        try (var h = Fixtures.harness(detector, 1, 0)) {
            h.open();
            h.processElement(new StreamRecord<>(Tuple3.of("a", 2L, 93), 100));
            h.processElement(new StreamRecord<>(Tuple3.of("a", 1L, 7), 200)); // 7 of 100: exactly 7%
            assertThat(alerts(h)).contains("1:7/100≥7");
        }
    }

    @Test
    void anItemHoldingExactlyTheFractionWhenTheMinimumIsReachedAlerts() throws Exception {
        HeavyHitterDetector<Tuple3<String, Long, Integer>, String> detector = Fixtures.builder().weight(r -> r.f2)
                .tumbling(Duration.ofSeconds(1)).phi(0.07).capacity(100).alertAtFraction(0.07, 100).build();
        try (var h = Fixtures.harness(detector, 1, 0)) {
            h.open();
            h.processElement(new StreamRecord<>(Tuple3.of("a", 1L, 7), 100));
            h.processElement(new StreamRecord<>(Tuple3.of("a", 2L, 93), 200)); // weight reaches 100: item 1 holds 7%
            assertThat(alerts(h)).contains("1:7/100≥7");
        }
    }
}
