package io.linerate.flink.heavyhitters;

import static io.linerate.flink.heavyhitters.Fixtures.TYPE;
import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.flink.heavyhitters.Fixtures.Event;
import io.linerate.flink.items.ItemSelector;
import io.linerate.flink.rejects.Rejected;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

/** The operator in Flink's keyed test harness against an exact model. */
class HeavyHittersOperatorTest {

    private static final double PHI = 0.01;

    /**
     * Tumbling windows, byte weights, Zipf(1.1) items: each report's N is exact; every listed item has
     * lower ≤ true ≤ upper and upper − lower ≤ N/m; unmonitoredBound ≤ N/m (Space-Saving, Metwally et al.: c_min ≤ N/m);
     * every item of true weight ≥ φ·N is listed (recall 1.0) and the report says complete.
     */
    @Test
    void tumblingReportsMatchTheExactModelWithinSpaceSavingBounds() throws Exception {
        HeavyHitterDetector<Tuple3<String, Long, Integer>, String> detector = Fixtures.builder()
                .weight(r -> r.f2).tumbling(Duration.ofSeconds(1)).topK(10).phi(PHI).build();
        assertThat(detector.capacity()).isEqualTo(400); // 4 · max(10, ⌈1/0.01⌉)
        List<Event> events = Fixtures.zipfStream(List.of("a", "b"), 3, 1000, 6_000, 11);
        var model = Fixtures.exact(events, 1000, true);
        List<HeavyHitterReport<String>> reports = run(detector, events);

        assertThat(reports).hasSize(6);
        for (HeavyHitterReport<String> r : reports) {
            long sub = r.windowStart / 1000;
            assertThat(r.windowEnd).isEqualTo(r.windowStart + 1000);
            checkAgainstModel(r, Fixtures.window(model.get(r.key), sub, sub), detector.capacity(), 1.0);
        }
    }

    /**
     * Sliding windows of 3 s every 1 s: a report per window end, each the merge of up to three sub-windows; N is exact,
     * bounds hold for every listed item, recall 1.0 above φ·N. Merged Space-Saving bounds are within 2N/m (each
     * sub-window contributes ≤ N_i/m, and the dropped upper bound is ≤ N/(m+1) + the sides' bounds).
     */
    @Test
    void slidingReportsMergeTheRingAndMatchTheExactModel() throws Exception {
        HeavyHitterDetector<Tuple3<String, Long, Integer>, String> detector = Fixtures.builder()
                .sliding(Duration.ofSeconds(3), Duration.ofSeconds(1)).topK(5).phi(PHI).build();
        List<Event> events = new ArrayList<>(Fixtures.zipfStream(List.of("a"), 5, 1000, 5_000, 12));
        events.add(Event.watermark(Long.MAX_VALUE));
        var model = Fixtures.exact(events, 1000, false);
        List<HeavyHitterReport<String>> reports = run(detector, events);

        // data in sub-windows 0..4: windows ending at 1 s … 7 s
        assertThat(reports).extracting(r -> r.windowEnd)
                .containsExactly(1000L, 2000L, 3000L, 4000L, 5000L, 6000L, 7000L);
        for (HeavyHitterReport<String> r : reports) {
            assertThat(r.windowEnd - r.windowStart).isEqualTo(3000);
            long last = r.windowEnd / 1000 - 1;
            checkAgainstModel(r, Fixtures.window(model.get("a"), last - 2, last), detector.capacity(), 2.0);
        }
    }

    private static void checkAgainstModel(HeavyHitterReport<String> r, Map<Long, Long> truth, int m,
                                          double errorFactor) {
        long n = truth.values().stream().mapToLong(Long::longValue).sum();
        assertThat(r.totalWeight).as("N of %s", r).isEqualTo(n);
        assertThat(r.unmonitoredBound).as("unmonitored bound ≤ %s·N/m", errorFactor)
                .isLessThanOrEqualTo((long) (errorFactor * n / m));
        assertThat(r.complete).isTrue();
        Map<String, ReportedItem> listed = r.items.stream().collect(Collectors.toMap(i -> i.item, i -> i));
        for (ReportedItem item : r.items) {
            long t = truth.getOrDefault(Long.parseLong(item.item), 0L);
            assertThat(t).as("true weight of %s", item).isBetween(item.lowerBound, item.upperBound);
            assertThat(item.upperBound - item.lowerBound).as("error of %s", item)
                    .isLessThanOrEqualTo((long) (errorFactor * n / m));
            assertThat(item.heavy).isEqualTo(item.upperBound >= PHI * n);
        }
        long heavy = 0;
        for (var e : truth.entrySet()) {
            if (e.getValue() >= PHI * n) {
                heavy++;
                assertThat(listed).as("recall: item %s of weight %s ≥ φN", e.getKey(), e.getValue())
                        .containsKey(Fixtures.render(e.getKey()));
            }
        }
        assertThat(heavy).as("the stream has heavy hitters to find").isGreaterThan(3);
        assertThat(r.items.size()).isGreaterThanOrEqualTo((int) heavy);
        // heaviest first
        for (int i = 1; i < r.items.size(); i++) {
            assertThat(r.items.get(i).estimate).isLessThanOrEqualTo(r.items.get(i - 1).estimate);
        }
    }

    /** One timer per key per window end: nothing before the watermark reaches end − 1, the report right then. */
    @Test
    void reportsFireWhenTheWatermarkPassesTheWindowEnd() throws Exception {
        HeavyHitterDetector<Tuple3<String, Long, Integer>, String> detector = Fixtures.builder()
                .tumbling(Duration.ofSeconds(1)).topK(2).phi(0.3).build();
        try (var h = Fixtures.harness(detector, 1, 0)) {
            h.open();
            for (int i = 0; i < 10; i++) {
                h.processElement(new StreamRecord<>(Tuple3.of("a", i < 6 ? 1L : 2L, 100), 100 + i));
                h.processElement(new StreamRecord<>(Tuple3.of("b", 3L, 100), 200 + i));
            }
            assertThat(h.numEventTimeTimers()).as("one timer per key per window end").isEqualTo(2);
            h.processWatermark(new Watermark(998));
            assertThat(h.extractOutputValues()).isEmpty();
            h.processWatermark(new Watermark(999));
            List<HeavyHitterReport<String>> out = h.extractOutputValues();
            assertThat(out).hasSize(2);
            HeavyHitterReport<String> a = out.stream().filter(r -> r.key.equals("a")).findFirst().orElseThrow();
            assertThat(a.windowStart).isZero();
            assertThat(a.windowEnd).isEqualTo(1000);
            assertThat(a.totalWeight).isEqualTo(10);
            assertThat(a.items).containsExactly(new ReportedItem("1", 6, 6, 6, true),
                    new ReportedItem("2", 4, 4, 4, true));
            assertThat(a.toString()).isEqualTo("HH{a [0,1000) N=10 bound=0 complete: [1=6[6..6]*, 2=4[4..4]*]}");
            assertThat(h.numKeyedStateEntries()).as("state cleared after the last window").isZero();
            assertThat(h.numEventTimeTimers()).isZero();
            var op = (HeavyHittersOperator<?, ?>) h.getOperator();
            assertThat(op.itemsProcessed()).isEqualTo(20);
            assertThat(op.reportsEmitted()).isEqualTo(2);
        }
    }

    /**
     * Absolute alert: with capacity above the distinct items Space-Saving counts exactly, so the alert comes at the
     * very record where the item's count reaches the threshold, once per item per window, again in the next window.
     */
    @Test
    void absoluteAlertFiresOncePerItemPerWindow() throws Exception {
        HeavyHitterDetector<Tuple3<String, Long, Integer>, String> detector = Fixtures.builder()
                .tumbling(Duration.ofSeconds(1)).phi(0.1).capacity(100).alertAtWeight(5).build();
        try (var h = Fixtures.harness(detector, 1, 0)) {
            h.open();
            for (int i = 0; i < 20; i++) { // item 7 every record, item 8 every other, item 9 every fourth
                long t = i * 10L;
                h.processElement(new StreamRecord<>(Tuple3.of("a", 7L, 1), t));
                if (i % 2 == 0) {
                    h.processElement(new StreamRecord<>(Tuple3.of("a", 8L, 1), t + 1));
                }
                if (i % 4 == 0) {
                    h.processElement(new StreamRecord<>(Tuple3.of("a", 9L, 1), t + 2));
                }
            }
            h.processElement(new StreamRecord<>(Tuple3.of("a", 7L, 1), 1500)); // next window: counts restart
            for (int i = 0; i < 5; i++) {
                h.processElement(new StreamRecord<>(Tuple3.of("a", 7L, 1), 1600 + i));
            }
            var alerts = h.getSideOutput(HeavyHitterDetector.alertTag(Types.STRING)).stream()
                    .map(StreamRecord::getValue).toList();
            assertThat(alerts).extracting(a -> a.item + "@" + a.timestamp)
                    .containsExactly("7@40", "8@81", "9@162", "7@1603");
            HeavyHitterAlert<String> first = alerts.get(0);
            assertThat(first.estimate).isEqualTo(5);
            assertThat(first.threshold).isEqualTo(5);
            assertThat(first.kind).isEqualTo(HeavyHitterAlert.ABSOLUTE);
            assertThat(first.windowStart).isZero();
            assertThat(first.windowEnd).isEqualTo(1000);
            assertThat(first.windowWeight).isEqualTo(5 + 2 + 1); // 7 ×5, 8 at i = 0, 2, 9 at i = 0
            assertThat(((HeavyHittersOperator<?, ?>) h.getOperator()).alertsEmitted()).isEqualTo(4);
        }
    }

    /** Relative alert: estimate ≥ fraction · (window weight so far), once the window weighs minWindowWeight. */
    @Test
    void fractionAlertUsesTheWindowWeightSoFar() throws Exception {
        HeavyHitterDetector<Tuple3<String, Long, Integer>, String> detector = Fixtures.builder()
                .tumbling(Duration.ofSeconds(1)).phi(0.1).capacity(100).alertAtFraction(0.5, 10).build();
        try (var h = Fixtures.harness(detector, 1, 0)) {
            h.open();
            long t = 0;
            for (int i = 0; i < 5; i++) {
                h.processElement(new StreamRecord<>(Tuple3.of("a", 1L, 1), t++));
            }
            for (int i = 0; i < 5; i++) { // N = 10 at the last: item 2 has 5 ≥ 0.5 · 10, and so has item 1
                h.processElement(new StreamRecord<>(Tuple3.of("a", 2L, 1), t++));
            }
            h.processElement(new StreamRecord<>(Tuple3.of("a", 1L, 1), t++)); // 6 ≥ 5.5, already alerted
            h.processElement(new StreamRecord<>(Tuple3.of("a", 1L, 1), t++)); // already alerted
            h.processElement(new StreamRecord<>(Tuple3.of("a", 3L, 1), t++)); // 1 < 6.5
            var alerts = h.getSideOutput(HeavyHitterDetector.alertTag(Types.STRING)).stream()
                    .map(StreamRecord::getValue).toList();
            // item 1 held the fraction when the window reached minWindowWeight: it alerts then, not at its next record
            assertThat(alerts).extracting(a -> a.item + "@" + a.timestamp + ":" + a.estimate + "/" + a.windowWeight
                    + "≥" + a.threshold).containsExactly("2@9:5/10≥5", "1@9:5/10≥5");
            assertThat(alerts).allMatch(a -> a.kind.equals(HeavyHitterAlert.FRACTION));
        }
    }

    /** A record whose window was reported goes to the late output, counted; a later one is counted normally. */
    @Test
    void lateRecordsGoToTheirSideOutput() throws Exception {
        HeavyHitterDetector<Tuple3<String, Long, Integer>, String> detector = Fixtures.builder()
                .sliding(Duration.ofSeconds(2), Duration.ofSeconds(1)).phi(0.1).build();
        try (var h = Fixtures.harness(detector, 1, 0)) {
            h.open();
            h.processElement(new StreamRecord<>(Tuple3.of("a", 1L, 1), 500));
            h.processWatermark(new Watermark(999)); // window [-1000, 1000) reported
            h.processElement(new StreamRecord<>(Tuple3.of("a", 2L, 1), 999)); // late: its first window is reported
            h.processElement(new StreamRecord<>(Tuple3.of("a", 3L, 1), 1000)); // on time
            h.processWatermark(new Watermark(1999));
            var late = h.getSideOutput(HeavyHitterDetector.lateTag(TYPE));
            assertThat(late).containsExactly(new StreamRecord<>(Tuple3.of("a", 2L, 1), 999));
            var op = (HeavyHittersOperator<?, ?>) h.getOperator();
            assertThat(op.lateRecords()).isEqualTo(1);
            assertThat(op.itemsProcessed()).isEqualTo(2);
            List<HeavyHitterReport<String>> out = h.extractOutputValues();
            assertThat(out).extracting(r -> r.windowStart + ".." + r.windowEnd + ":" + r.items)
                    .containsExactly("-1000..1000:[1=1[1..1]*]", "0..2000:[1=1[1..1]*, 3=1[1..1]*]");
        }
    }

    /** No timestamp, a negative weight, a selector that throws, an item too long: each to the malformed output. */
    @Test
    void malformedRecordsAreRejectedWithTheirReason() throws Exception {
        var detector = HeavyHitterDetector.<Tuple3<String, String, Integer>, String>builder(r -> r.f0,
                        ItemSelector.strings(r -> {
                            if (r.f1.equals("boom")) {
                                throw new IllegalStateException("selector failed");
                            }
                            return r.f1;
                        }, 8))
                .weight(r -> r.f2).tumbling(Duration.ofSeconds(1)).phi(0.1).alertAtWeight(3).build();
        TypeInformation<Tuple3<String, String, Integer>> type = Types.TUPLE(Types.STRING, Types.STRING, Types.INT);
        try (var h = new KeyedOneInputStreamOperatorTestHarness<>(detector.operator(type, Types.STRING),
                (Tuple3<String, String, Integer> r) -> r.f0, Types.STRING)) {
            h.open();
            h.processElement(new StreamRecord<>(Tuple3.of("a", "ok", 10)));
            h.processElement(new StreamRecord<>(Tuple3.of("a", "ok", -1), 5));
            h.processElement(new StreamRecord<>(Tuple3.of("a", "boom", 1), 6));
            h.processElement(new StreamRecord<>(Tuple3.of("a", "much too long", 1), 7));
            h.processElement(new StreamRecord<>(Tuple3.of("a", "fine", 3), 8));
            h.processWatermark(new Watermark(999));
            var rejected = h.getSideOutput(Rejected.tag(type)).stream().map(StreamRecord::getValue).toList();
            assertThat(rejected).extracting(r -> r.record.f1).containsExactly("ok", "ok", "boom", "much too long");
            assertThat(rejected.get(0).reason).startsWith("timestamp");
            assertThat(rejected.get(1).reason).isEqualTo("weight must be ≥ 0, got -1");
            assertThat(rejected.get(2).reason).contains("selector failed");
            assertThat(rejected.get(3).reason).contains("exceeds maxBytes 8");
            assertThat(h.extractOutputValues()).extracting(r -> r.totalWeight + ":" + r.items)
                    .containsExactly("3:[fine=3[3..3]*]");
            assertThat(((HeavyHittersOperator<?, ?>) h.getOperator()).malformedRecords()).isEqualTo(4);
            assertThat(h.getSideOutput(HeavyHitterDetector.alertTag(Types.STRING))).extracting(a -> a.getValue().item)
                    .as("alerts render items as reports do").containsExactly("fine");
        }
    }

    /** The optional CM-heap tracker: same model checks on bounds, N and recall. */
    @Test
    void countMinHeapTrackerKeepsItsBounds() throws Exception {
        HeavyHitterDetector<Tuple3<String, Long, Integer>, String> detector = Fixtures.builder()
                .tumbling(Duration.ofSeconds(1)).phi(PHI).countMinHeap().build();
        List<Event> events = Fixtures.zipfStream(List.of("a"), 2, 1000, 10_000, 13);
        var model = Fixtures.exact(events, 1000, false);
        List<HeavyHitterReport<String>> reports = run(detector, events);
        assertThat(reports).hasSize(2);
        for (HeavyHitterReport<String> r : reports) {
            Map<Long, Long> truth = Fixtures.window(model.get("a"), r.windowStart / 1000, r.windowStart / 1000);
            assertThat(r.totalWeight).isEqualTo(10_000);
            assertThat(r.complete).isTrue();
            for (ReportedItem item : r.items) {
                assertThat(truth.getOrDefault(Long.parseLong(item.item), 0L)).isBetween(item.lowerBound, item.upperBound);
            }
            Map<String, Long> heavy = new HashMap<>();
            truth.forEach((i, w) -> {
                if (w >= PHI * r.totalWeight) {
                    heavy.put(Long.toString(i), w);
                }
            });
            assertThat(r.items).extracting(i -> i.item).containsAll(heavy.keySet());
        }
    }

    /**
     * A key's state bytes are its open sub-windows' tracker arrays and 8 bytes for each one's index (the
     * stateBytesPerKey gauge); a sub-window the record did not read counts as a full tracker.
     */
    @Test
    void stateBytesPerKeyCountsTheOpenTrackers() throws Exception {
        HeavyHitterDetector<Tuple3<String, Long, Integer>, String> detector = Fixtures.builder()
                .sliding(Duration.ofSeconds(3), Duration.ofSeconds(1)).phi(0.1).capacity(50).build();
        try (var h = Fixtures.harness(detector, 1, 0)) {
            h.open();
            var op = (HeavyHittersOperator<?, ?>) h.getOperator();
            h.processElement(new StreamRecord<>(Tuple3.of("a", 1L, 1), 10));
            long one = op.stateBytesPerKey();
            assertThat(one).isEqualTo(detector.trackerBytes() + 8L);
            h.processElement(new StreamRecord<>(Tuple3.of("a", 1L, 1), 1010));
            assertThat(op.stateBytesPerKey()).isEqualTo(2 * detector.trackerBytes() + 8L * 2);
            assertThat(h.numKeyedStateEntries()).as("the index and the map of one key").isEqualTo(2);
        }
    }

    /**
     * The hot path allocates nothing per record on the heap backend: 200,000 records of items already monitored
     * (capacity above the distinct items, so nothing is replaced) through one reused StreamRecord, with alerts on,
     * allocate less than 2 bytes per record on this thread (ThreadMXBean; a boxed timestamp alone would be 16).
     */
    @Test
    void hotPathAllocatesNothingPerRecord() throws Exception {
        HeavyHitterDetector<Tuple3<String, Long, Integer>, String> detector = Fixtures.builder()
                .weight(r -> r.f2).tumbling(Duration.ofHours(1)).phi(0.01).capacity(1000)
                .alertAtWeight(Long.MAX_VALUE / 2).build();
        var threads = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        try (var h = Fixtures.harness(detector, 1, 0)) {
            h.open();
            List<Tuple3<String, Long, Integer>> records = new ArrayList<>();
            for (long i = 0; i < 500; i++) {
                records.add(Tuple3.of("a", i, 100)); // boxed once here, not per record
            }
            StreamRecord<Tuple3<String, Long, Integer>> element = new StreamRecord<>(records.get(0), 0);
            for (int round = 0; round < 2; round++) {
                long before = threads.getCurrentThreadAllocatedBytes();
                for (int i = 0; i < 200_000; i++) {
                    h.processElement(element.replace(records.get(i % 500), 1000 + i));
                }
                long perRecord = (threads.getCurrentThreadAllocatedBytes() - before) / 200_000;
                if (round == 1) { // round 0 warms up the JIT
                    assertThat(perRecord).as("bytes allocated per record").isLessThan(2);
                }
            }
        }
    }

    static List<HeavyHitterReport<String>> run(HeavyHitterDetector<Tuple3<String, Long, Integer>, String> detector,
                                               List<Event> events) throws Exception {
        try (var h = Fixtures.harness(detector, 1, 0)) {
            h.open();
            Fixtures.feed(h, events);
            return h.extractOutputValues();
        }
    }
}
