package io.linerate.flink.heavyhitters;

import static io.linerate.flink.heavyhitters.Fixtures.TYPE;
import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.flink.items.ItemSelector;
import io.linerate.flink.rejects.Rejected;
import java.time.Duration;
import java.util.List;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

/**
 * Inputs at the edges: event times whose windows 64-bit milliseconds cannot bound, items that are not valid text,
 * selectors that throw without a message. Each goes to the malformed output with a reason; none is counted and
 * then lost, none reported with a window that ends before it starts.
 */
class ExtremeInputTest {

    private static List<Rejected<Tuple3<String, Long, Integer>>> rejected(
            KeyedOneInputStreamOperatorTestHarness<String, Tuple3<String, Long, Integer>, HeavyHitterReport<String>> h) {
        var out = h.getSideOutput(Rejected.tag(TYPE));
        return out == null ? List.of() : out.stream().map(StreamRecord::getValue).toList();
    }

    /**
     * A sliding window of 3 s every 1 s: the earliest window holding sub-window s starts at (s − 2)·1000, the latest
     * ends at (s + 3)·1000. Beyond the range where both fit in a long, a record is rejected; at the range's edges it
     * is reported with a proper window.
     */
    @Test
    void eventTimesWhoseWindowsCannotBeBoundedAreRejected() throws Exception {
        HeavyHitterDetector<Tuple3<String, Long, Integer>, String> detector = Fixtures.builder()
                .sliding(Duration.ofSeconds(3), Duration.ofSeconds(1)).phi(0.1).build();
        long lowest = (Long.MIN_VALUE / 1000 + 3) * 1000; // the first sub-window whose windows all start ≥ MIN
        long highest = (Long.MAX_VALUE / 1000 - 3) * 1000 + 999;
        try (var h = Fixtures.harness(detector, 1, 0)) {
            h.open();
            var op = (HeavyHittersOperator<?, ?>) h.getOperator();
            h.processWatermark(new Watermark(0));
            h.processElement(new StreamRecord<>(Tuple3.of("a", 1L, 1), Long.MAX_VALUE - 5)); // its end wrapped
            h.processElement(new StreamRecord<>(Tuple3.of("a", 2L, 1), highest + 1));
            h.processElement(new StreamRecord<>(Tuple3.of("a", 3L, 1), highest));
            assertThat(op.lateRecords()).isZero();
            assertThat(rejected(h)).extracting(r -> r.record.f1).containsExactly(1L, 2L);
            assertThat(rejected(h).get(0).reason).isEqualTo("timestamp: event time " + (Long.MAX_VALUE - 5)
                    + " ms is outside [" + lowest + ", " + highest + "], where every window holding it has a start"
                    + " and an end that 64-bit milliseconds can hold");
            h.processWatermark(new Watermark(Long.MAX_VALUE));
            assertThat(h.extractOutputValues()).hasSize(3).allSatisfy(r -> {
                assertThat(r.windowStart).isLessThan(r.windowEnd);
                assertThat(r.totalWeight).isEqualTo(1);
            });
        }
        try (var h = Fixtures.harness(detector, 1, 0)) {
            h.open();
            var op = (HeavyHittersOperator<?, ?>) h.getOperator();
            h.processElement(new StreamRecord<>(Tuple3.of("a", 1L, 1), Long.MIN_VALUE + 1));
            h.processElement(new StreamRecord<>(Tuple3.of("a", 2L, 1), lowest - 1));
            h.processElement(new StreamRecord<>(Tuple3.of("a", 3L, 1), lowest));
            assertThat(rejected(h)).extracting(r -> r.record.f1).containsExactly(1L, 2L);
            assertThat(op.malformedRecords()).isEqualTo(2);
            assertThat(op.itemsProcessed()).isEqualTo(1);
            h.processWatermark(new Watermark(Long.MAX_VALUE));
            assertThat(h.extractOutputValues()).hasSize(3).allSatisfy(r -> {
                assertThat(r.windowStart).isLessThan(r.windowEnd);
                assertThat(r.windowStart).isGreaterThanOrEqualTo(Long.MIN_VALUE);
            });
            assertThat(h.extractOutputValues().get(0).windowStart).isEqualTo(lowest - 2000);
        }
    }

    /** Two lone surrogates would both become "?" in UTF-8 and be counted as one item: they are rejected instead. */
    @Test
    void textThatIsNotValidUtf16IsRejectedNotMerged() throws Exception {
        HeavyHitterDetector<Tuple3<String, Long, Integer>, String> detector = HeavyHitterDetector
                .builder(Fixtures.LINK, ItemSelector.<Tuple3<String, Long, Integer>>strings(
                        r -> r.f1 == 1 ? "\uD800" : r.f1 == 2 ? "x\uDC00" : "ok \uD83D\uDE00"))
                .tumbling(Duration.ofSeconds(1)).phi(0.1).build();
        try (var h = Fixtures.harness(detector, 1, 0)) {
            h.open();
            h.processElement(new StreamRecord<>(Tuple3.of("a", 1L, 1), 10));
            h.processElement(new StreamRecord<>(Tuple3.of("a", 2L, 1), 11));
            h.processElement(new StreamRecord<>(Tuple3.of("a", 3L, 1), 12)); // a valid pair: counted
            assertThat(rejected(h)).extracting(r -> r.reason).containsExactly(
                    "item: item is not valid UTF-16: a lone surrogate \\uD800 at index 0",
                    "item: item is not valid UTF-16: a lone surrogate \\uDC00 at index 1");
            h.processWatermark(new Watermark(Long.MAX_VALUE));
            HeavyHitterReport<String> report = h.extractOutputValues().get(0);
            assertThat(report.totalWeight).isEqualTo(1);
            assertThat(report.items).extracting(i -> i.item).containsExactly("ok \uD83D\uDE00");
        }
    }

    @Test
    void aSelectorExceptionWithoutAMessageIsNamedInTheReason() throws Exception {
        HeavyHitterDetector<Tuple3<String, Long, Integer>, String> detector = HeavyHitterDetector
                .builder(Fixtures.LINK, ItemSelector.<Tuple3<String, Long, Integer>>longs(r -> {
                    throw new IllegalStateException();
                })).tumbling(Duration.ofSeconds(1)).phi(0.1).build();
        try (var h = Fixtures.harness(detector, 1, 0)) {
            h.open();
            h.processElement(new StreamRecord<>(Tuple3.of("a", 1L, 1), 10));
            assertThat(rejected(h)).extracting(r -> r.reason).containsExactly("item: java.lang.IllegalStateException");
        }
    }
}
