package io.linerate.flink.heavyhitters;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

/** Alerts at the edges: a sub-window that weighs nothing, and an alerted set that is full. */
class AlertCornerCasesTest {

    private static List<String> alerts(KeyedOneInputStreamOperatorTestHarness<String, Tuple3<String, Long, Integer>,
            HeavyHitterReport<String>> h) {
        var out = h.getSideOutput(HeavyHitterDetector.alertTag(Types.STRING));
        return out == null ? List.of() : out.stream().map(StreamRecord::getValue)
                .map(a -> a.item + "@" + a.timestamp + ":" + a.estimate + "/" + a.windowWeight + "≥" + a.threshold)
                .toList();
    }

    /**
     * With minWindowWeight 0, a record of weight 0 first in its window would satisfy 0 ≥ fraction · 0: it must not
     * alert, nor use up the item's one alert, which comes when the item really crosses.
     */
    @Test
    void aZeroWeightRecordNeitherAlertsNorSuppressesTheItemsAlert() throws Exception {
        HeavyHitterDetector<Tuple3<String, Long, Integer>, String> detector = Fixtures.builder().weight(r -> r.f2)
                .tumbling(Duration.ofSeconds(1)).phi(0.1).capacity(100).alertAtFraction(0.5, 0).build();
        try (var h = Fixtures.harness(detector, 1, 0)) {
            h.open();
            h.processElement(new StreamRecord<>(Tuple3.of("a", 1L, 0), 100)); // window weight 0
            h.processElement(new StreamRecord<>(Tuple3.of("a", 2L, 0), 150)); // still 0
            assertThat(alerts(h)).isEmpty();
            h.processElement(new StreamRecord<>(Tuple3.of("a", 1L, 10), 200)); // 10 ≥ 0.5 · 10
            h.processElement(new StreamRecord<>(Tuple3.of("a", 2L, 0), 250)); // 0 < 5
            assertThat(alerts(h)).containsExactly("1@200:10/10≥5");
            assertThat(((HeavyHittersOperator<?, ?>) h.getOperator()).alertsEmitted()).isEqualTo(1);
        }
    }

    /**
     * The alerted set holds at most m items per sub-window (m = capacity 3 here): further items due an alert are
     * counted in alertsSuppressed, once per record (the set cannot remember them); an item already alerted is not.
     */
    @Test
    void alertsOverThePerSubWindowLimitAreCounted() throws Exception {
        HeavyHitterDetector<Tuple3<String, Long, Integer>, String> detector = Fixtures.builder()
                .tumbling(Duration.ofSeconds(1)).topK(1).phi(0.5).capacity(3).alertAtWeight(1).build();
        try (var h = Fixtures.harness(detector, 1, 0)) {
            h.open();
            var op = (HeavyHittersOperator<?, ?>) h.getOperator();
            for (long item = 1; item <= 5; item++) {
                h.processElement(new StreamRecord<>(Tuple3.of("a", item, 1), 10 * item));
            }
            assertThat(alerts(h)).extracting(a -> a.substring(0, a.indexOf(':')))
                    .containsExactly("1@10", "2@20", "3@30");
            assertThat(op.alertsSuppressed()).isEqualTo(2); // items 4 and 5
            h.processElement(new StreamRecord<>(Tuple3.of("a", 4L, 1), 60));
            assertThat(op.alertsSuppressed()).isEqualTo(3);
            h.processElement(new StreamRecord<>(Tuple3.of("a", 1L, 1), 70)); // alerted already: not suppressed
            assertThat(op.alertsSuppressed()).isEqualTo(3);
            h.processElement(new StreamRecord<>(Tuple3.of("a", 5L, 1), 1010)); // next window: a fresh set
            assertThat(op.alertsEmitted()).isEqualTo(4);
            assertThat(op.alertsSuppressed()).isEqualTo(3);
        }
    }

    /**
     * An item that already holds the fraction when the sub-window's weight reaches minWindowWeight (through other
     * items' records) alerts at that record, though it has no record of its own afterwards (it never alerted).
     */
    @Test
    void anItemHoldingTheFractionWhenTheMinimumWeightIsReachedAlertsThen() throws Exception {
        for (boolean spaceSaving : new boolean[] {true, false}) {
            var b = Fixtures.builder().tumbling(Duration.ofSeconds(1)).phi(0.1).capacity(100).alertAtFraction(0.5, 10);
            HeavyHitterDetector<Tuple3<String, Long, Integer>, String> detector =
                    (spaceSaving ? b.spaceSaving() : b.countMinHeap()).build();
            try (var h = Fixtures.harness(detector, 1, 0)) {
                h.open();
                for (int i = 0; i < 6; i++) {
                    h.processElement(new StreamRecord<>(Tuple3.of("a", 1L, 1), 10 + i)); // 6 of item 1: below 10
                }
                for (long item = 100; item < 104; item++) {
                    h.processElement(new StreamRecord<>(Tuple3.of("a", item, 1), 20 + item)); // the 10th is at 123
                }
                assertThat(alerts(h)).as(spaceSaving ? "Space-Saving" : "CM-heap").containsExactly("1@123:6/10≥5");
                h.processElement(new StreamRecord<>(Tuple3.of("a", 1L, 1), 200)); // already alerted: no second alert
                assertThat(alerts(h)).hasSize(1);
            }
        }
    }

    /**
     * A record that takes its sub-window to minWindowWeight is tested once for its own item and then, with every item
     * holding the fraction, once more: with the alerted set full, its one suppressed alert must count once in
     * alertsSuppressed, not at both tests (docs: the records due an alert while the set was full).
     */
    @Test
    void aSuppressedAlertAtTheMinimumWeightRecordCountsOnce() throws Exception {
        HeavyHitterDetector<Tuple3<String, Long, Integer>, String> detector = Fixtures.builder().weight(r -> r.f2)
                .tumbling(Duration.ofSeconds(1)).topK(1).phi(0.5).capacity(3).alertAtWeight(10)
                .alertAtFraction(0.1, 41).build();
        try (var h = Fixtures.harness(detector, 1, 0)) {
            h.open();
            var op = (HeavyHittersOperator<?, ?>) h.getOperator();
            for (long item = 1; item <= 3; item++) {
                h.processElement(new StreamRecord<>(Tuple3.of("a", item, 10), 10 * item)); // alerted: the set is full
            }
            assertThat(op.alertsEmitted()).isEqualTo(3);
            assertThat(op.alertsSuppressed()).isZero();
            // item 4 takes the window to 41 = minWindowWeight and is due an alert (estimate 21 ≥ 10): suppressed
            h.processElement(new StreamRecord<>(Tuple3.of("a", 4L, 11), 40));
            assertThat(op.alertsEmitted()).isEqualTo(3);
            assertThat(op.alertsSuppressed()).isEqualTo(1);
        }
    }
    /**
     * The pass over the items already at the fraction runs once, when the sub-window's weight reaches
     * minWindowWeight. A total saturated at Long.MAX_VALUE must not look like a new crossing at every later record
     * (it did: n − weight fell below the minimum), which repeated the pass and counted the full set's refusal of
     * the heavy item again in alertsSuppressed at each record, though that item had no record of its own.
     */
    @Test
    void aSaturatedSubWindowRunsTheFractionPassOnce() throws Exception {
        HeavyHitterDetector<Tuple3<String, Long, Integer>, String> detector = Fixtures.builder()
                .weight(r -> r.f2 < 0 ? Long.MAX_VALUE : r.f2).tumbling(Duration.ofSeconds(1)).topK(1).phi(0.5)
                .capacity(3).alertAtWeight(10).alertAtFraction(0.1, Long.MAX_VALUE).build();
        try (var h = Fixtures.harness(detector, 1, 0)) {
            h.open();
            var op = (HeavyHittersOperator<?, ?>) h.getOperator();
            for (long item = 1; item <= 3; item++) {
                h.processElement(new StreamRecord<>(Tuple3.of("a", item, 10), 10 * item)); // alerted: the set is full
            }
            // item 4 saturates the total (the crossing of minWindowWeight): its own alert is refused, once
            h.processElement(new StreamRecord<>(Tuple3.of("a", 4L, -1), 40));
            assertThat(op.alertsSuppressed()).isEqualTo(1);
            for (int i = 0; i < 5; i++) { // item 2 alerted already: nothing is due, the total stays saturated
                h.processElement(new StreamRecord<>(Tuple3.of("a", 2L, 1), 50 + i));
            }
            assertThat(op.alertsEmitted()).isEqualTo(3);
            assertThat(op.alertsSuppressed()).as("no second pass over item 4").isEqualTo(1);
        }
    }

    /**
     * alertAtFraction accepts a fraction of 1 (an item that is the whole sub-window). When the sub-window's weight
     * reaches minWindowWeight the operator tests every item already holding the fraction: with fraction 1 that must
     * alert the lone item, not fail the task (the trackers' heavyHitters(φ) takes φ in (0, 1) only).
     */
    @Test
    void aFractionOfOneAlertsAtTheMinimumWeightInsteadOfFailingTheTask() throws Exception {
        for (boolean spaceSaving : new boolean[] {true, false}) {
            var b = Fixtures.builder().tumbling(Duration.ofSeconds(1)).phi(0.1).capacity(100).alertAtFraction(1.0, 5);
            HeavyHitterDetector<Tuple3<String, Long, Integer>, String> detector =
                    (spaceSaving ? b.spaceSaving() : b.countMinHeap()).build();
            try (var h = Fixtures.harness(detector, 1, 0)) {
                h.open();
                for (int i = 0; i < 5; i++) { // the 5th record takes the window to minWindowWeight 5
                    h.processElement(new StreamRecord<>(Tuple3.of("a", 7L, 1), 10 + i));
                }
                assertThat(alerts(h)).as(spaceSaving ? "Space-Saving" : "CM-heap").containsExactly("7@14:5/5≥5");
                h.processElement(new StreamRecord<>(Tuple3.of("a", 8L, 1), 20)); // 1 < 6: no alert, no failure
                h.processWatermark(999);
                assertThat(alerts(h)).hasSize(1);
                assertThat(((HeavyHittersOperator<?, ?>) h.getOperator()).reportsEmitted()).isEqualTo(1);
            }
        }
    }
}
