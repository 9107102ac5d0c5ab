package io.linerate.flink.heavyhitters;

import static io.linerate.flink.heavyhitters.Fixtures.TYPE;
import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.flink.rejects.Rejected;
import java.time.Duration;
import java.util.List;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.junit.jupiter.api.Test;

/**
 * A key holds at most {@code maxOpenSubWindows} sub-windows (ring slots, each with a tracker and a timer): a record
 * that would open one more goes to the malformed output with the reason, counted in {@code subWindowLimitRecords};
 * records of sub-windows already open are still counted, and a slot freed by a report can be opened again.
 */
class SubWindowLimitTest {

    private static List<Rejected<Tuple3<String, Long, Integer>>> rejected(
            org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness<String,
                    Tuple3<String, Long, Integer>, HeavyHitterReport<String>> h) {
        var out = h.getSideOutput(Rejected.tag(TYPE));
        return out == null ? List.of() : out.stream().map(StreamRecord::getValue).toList();
    }

    @Test
    void aRecordThatWouldOpenOneSubWindowTooManyIsRejectedAndCounted() throws Exception {
        HeavyHitterDetector<Tuple3<String, Long, Integer>, String> detector = Fixtures.builder()
                .tumbling(Duration.ofSeconds(1)).phi(0.1).maxOpenSubWindows(3).build();
        try (var h = Fixtures.harness(detector, 1, 0)) {
            h.open();
            var op = (HeavyHittersOperator<?, ?>) h.getOperator();
            h.processElement(new StreamRecord<>(Tuple3.of("a", 1L, 1), 100));
            h.processElement(new StreamRecord<>(Tuple3.of("a", 2L, 1), 1100));
            h.processElement(new StreamRecord<>(Tuple3.of("a", 3L, 1), 2100));
            h.processElement(new StreamRecord<>(Tuple3.of("a", 4L, 1), 3100)); // a fourth sub-window: over the limit
            h.processElement(new StreamRecord<>(Tuple3.of("a", 5L, 1), 1200)); // an open one: counted
            h.processElement(new StreamRecord<>(Tuple3.of("b", 6L, 1), 3100)); // another key has its own ring
            assertThat(rejected(h)).extracting(r -> r.record.f1).containsExactly(4L);
            assertThat(rejected(h).get(0).reason).isEqualTo("sub-window [3000, 4000) of event time 3100 would be"
                    + " open sub-window 4 of this key, over maxOpenSubWindows 3 (watermark " + Long.MIN_VALUE + ")");
            assertThat(h.getSideOutput(Rejected.tag(TYPE)).peek().getTimestamp()).isEqualTo(3100);
            assertThat(op.subWindowLimitRecords()).isEqualTo(1);
            assertThat(op.malformedRecords()).isZero();
            assertThat(op.itemsProcessed()).isEqualTo(5);
            assertThat(h.numEventTimeTimers()).isEqualTo(3 + 1);

            h.processWatermark(new Watermark(999)); // window [0, 1000) reported: its slot is free again
            h.processElement(new StreamRecord<>(Tuple3.of("a", 4L, 1), 3100));
            assertThat(op.subWindowLimitRecords()).isEqualTo(1);
            h.processWatermark(new Watermark(Long.MAX_VALUE));
            assertThat(h.extractOutputValues()).filteredOn(r -> r.key.equals("a"))
                    .extracting(r -> r.windowStart + ":" + r.totalWeight)
                    .containsExactly("0:1", "1000:2", "2000:1", "3000:1");
        }
    }

    /**
     * Timestamps in microseconds against watermarks in milliseconds: every record is a new sub-window far ahead.
     * Without a limit, 2,000 records made 2,000 slots and timers in one key; with the default (n + 64 for a
     * tumbling window) the key holds 65, the other 1,935 records are rejected, and its state still snapshots and
     * restores.
     */
    @Test
    void theDefaultLimitBoundsAKeyWhoseTimestampsRunFarAhead() throws Exception {
        HeavyHitterDetector<Tuple3<String, Long, Integer>, String> detector = Fixtures.builder()
                .tumbling(Duration.ofSeconds(1)).phi(0.1).build();
        long nowMillis = 1_700_000_000_000L;
        OperatorSubtaskState snapshot;
        try (var h = Fixtures.harness(detector, 1, 0)) {
            h.open();
            h.processWatermark(new Watermark(nowMillis));
            for (long i = 0; i < 2_000; i++) {
                h.processElement(new StreamRecord<>(Tuple3.of("a", i, 1), (nowMillis + 1_000 * i) * 1_000));
            }
            assertThat(h.numEventTimeTimers()).as("one timer per open sub-window").isEqualTo(65);
            assertThat(rejected(h)).hasSize(2_000 - 65)
                    .allMatch(r -> r.reason.contains("over maxOpenSubWindows 65"));
            snapshot = h.snapshot(1, 1);
        }
        try (var h = Fixtures.harness(detector, 1, 0)) {
            h.initializeState(snapshot);
            h.open();
            assertThat(h.numEventTimeTimers()).isEqualTo(65);
            h.processWatermark(new Watermark(Long.MAX_VALUE));
            assertThat(h.extractOutputValues()).hasSize(65).allMatch(r -> r.totalWeight == 1);
        }
    }

    /** A ring grown under a higher limit keeps its slots after a restore; the lower limit counts open sub-windows. */
    @Test
    void aLowerLimitAfterARestoreHoldsForRingsThatGrewUnderTheHigherOne() throws Exception {
        OperatorSubtaskState snapshot;
        try (var h = Fixtures.harness(Fixtures.builder().tumbling(Duration.ofSeconds(1)).phi(0.1)
                .maxOpenSubWindows(10).build(), 1, 0)) {
            h.open();
            for (long s : new long[] {0, 1, 2, 3, 4, 5, 6, 7, 8, 100}) {
                h.processElement(new StreamRecord<>(Tuple3.of("a", s, 1), s * 1000 + 1));
            }
            snapshot = h.snapshot(1, 1);
        }
        try (var h = Fixtures.harness(Fixtures.builder().tumbling(Duration.ofSeconds(1)).phi(0.1)
                .maxOpenSubWindows(3).build(), 1, 0)) {
            h.initializeState(snapshot);
            h.open();
            h.processWatermark(new Watermark(9_999)); // frees the 9 slots of sub-windows 0..8; 100 stays open
            for (long s = 20; s < 30; s++) {
                h.processElement(new StreamRecord<>(Tuple3.of("a", s, 1), s * 1000 + 1));
            }
            assertThat(h.numEventTimeTimers()).as("open sub-windows").isEqualTo(3);
            assertThat(rejected(h)).extracting(r -> r.record.f1).containsExactly(22L, 23L, 24L, 25L, 26L, 27L, 28L,
                    29L);
            // the reason counts the open sub-windows (22 would be the 4th), not the ring's 10 slots ("sub-window 11")
            assertThat(rejected(h).get(0).reason).isEqualTo("sub-window [22000, 23000) of event time 22001 would be "
                    + "open sub-window 4 of this key, over maxOpenSubWindows 3 (watermark 9999)");
        }
    }
}
