package io.linerate.flink.dedup;

import static io.linerate.flink.dedup.DedupHarnesses.TYPE;
import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.flink.dedup.DedupHarnesses.Run;
import io.linerate.flink.items.ItemSelector;
import io.linerate.flink.rejects.Rejected;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.runtime.jobgraph.OperatorID;
import org.apache.flink.runtime.metrics.groups.InternalOperatorMetricGroup;
import org.apache.flink.runtime.metrics.groups.UnregisteredMetricGroups;
import org.apache.flink.runtime.metrics.util.InterceptingOperatorMetricGroup;
import org.apache.flink.runtime.operators.testutils.MockEnvironment;
import org.apache.flink.runtime.operators.testutils.MockEnvironmentBuilder;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

/**
 * The operator against an exact model of its ring, in processing and event time: zero duplicates pass inside the
 * horizon, unique items are flagged no more often than the binomial bound allows, rotation happens at the
 * watermark / processing time ticks with one timer per key, idle keys are cleared, malformed records go aside.
 */
class DedupFunctionTest {

    private static final Duration H = Duration.ofSeconds(3);
    private static final int G = 4; // span S = 1 s

    /**
     * The exact model: each occurrence leaves its item present in the generation of its own timestamp's epoch,
     * kept within the ring [⌊T/S⌋ − g + 1, ⌊T/S⌋] at the key clock T it was processed at; an item is in the ring
     * iff the latest such epoch e has e &gt; ⌊clock/S⌋ − g. In the ring it must be flagged (Bloom filters have no false negatives); outside,
     * a flag is a false positive. Independently, guarantee 1: an earlier occurrence with timestamp ≥ clock − H
     * must make the record flagged.
     */
    private static final class Model {
        final long span;
        final int g;
        final long horizon;
        final Map<String, Long> clock = new HashMap<>();
        final Map<String, Long> insertedAt = new HashMap<>(); // key|item -> latest epoch it was made present in
        final Map<String, Long> latestTs = new HashMap<>();   // key|item -> largest timestamp among occurrences
        long watermark = Long.MIN_VALUE;
        long uniques;
        long falsePositives;
        long mustFlag;

        Model(DedupSizing sizing) {
            this.span = sizing.spanMillis();
            this.g = sizing.generations();
            this.horizon = sizing.horizonMillis();
        }

        void check(String key, long item, long ts, boolean flagged) {
            long c = Math.max(Math.max(clock.getOrDefault(key, Long.MIN_VALUE), watermark), ts);
            clock.put(key, c);
            String id = key + "|" + item;
            Long at = insertedAt.get(id);
            long now = Math.floorDiv(c, span);
            boolean inRing = at != null && at > now - g;
            Long prevTs = latestTs.get(id);
            boolean guaranteed = prevTs != null && prevTs >= c - horizon;
            assertThat(!guaranteed || inRing).as("theory: an occurrence within H of the clock is in the ring").isTrue();
            if (guaranteed) {
                mustFlag++;
            }
            if (inRing) {
                assertThat(flagged).as("item %s of key %s at %d is in the ring (present in epoch %d), clock %d", item, key,
                        ts, at, c).isTrue();
            } else {
                uniques++;
                falsePositives += flagged ? 1 : 0;
            }
            long own = Math.max(Math.min(Math.floorDiv(ts, span), now), now - g + 1);
            insertedAt.merge(id, own, Math::max);
            latestTs.merge(id, ts, Math::max);
        }

        /** Binomial bound on false positives among the uniques: p·n + 4·sqrt(p·n) (mean plus 4 SD, SD ≤ sqrt(pn)). */
        double bound(double p) {
            double mean = p * uniques;
            return mean + 4 * Math.sqrt(mean);
        }
    }

    /** Random keys and items: half new, half repeats of a recent item of the key, at random gaps. */
    private static List<DedupHarnesses.Element> stream(long seed, int records, int maxStepMillis, int maxJitter) {
        SplittableRandom rnd = new SplittableRandom(seed);
        String[] keys = {"a", "b", "c"};
        Map<String, List<Long>> history = new HashMap<>();
        List<DedupHarnesses.Element> out = new ArrayList<>();
        long t = 1_000_000;
        long next = 1;
        for (int i = 0; i < records; i++) {
            t += 1 + rnd.nextInt(maxStepMillis);
            String key = keys[rnd.nextInt(keys.length)];
            List<Long> seen = history.computeIfAbsent(key, k -> new ArrayList<>());
            long item;
            if (seen.isEmpty() || rnd.nextBoolean()) {
                item = next++;
                seen.add(item);
            } else {
                item = seen.get(seen.size() - 1 - rnd.nextInt(Math.min(seen.size(), 400)));
            }
            long ts = maxJitter == 0 ? t : t - rnd.nextInt(maxJitter);
            out.add(new DedupHarnesses.Element(key, item, ts));
        }
        return out;
    }

    @Test
    void processingTimeMatchesTheExactModel() throws Exception {
        var dedup = DedupHarnesses.builder(H, G).processingTime().expectedRate(100).fpp(0.01).build();
        Run run = DedupHarnesses.open(dedup);
        Model model = new Model(dedup.sizing());
        for (DedupHarnesses.Element e : stream(1, 8000, 10, 0)) {
            run.harness().setProcessingTime(e.ts());
            model.check(e.key(), e.item(), e.ts(), run.process(e.record(), e.ts()));
        }
        assertThat(model.mustFlag).as("the stream has repeats inside the horizon").isGreaterThan(1000);
        assertThat(model.uniques).isGreaterThan(3000);
        assertThat((double) model.falsePositives).isLessThanOrEqualTo(model.bound(0.01));
        assertThat(run.function().itemsProcessed()).isEqualTo(8000);
        assertThat(run.function().lateRecords()).isZero();
        assertThat(run.harness().numProcessingTimeTimers()).as("one rotation timer per live key").isEqualTo(3);
        run.harness().setProcessingTime(2_000_000_000L);
        assertThat(run.harness().numKeyedStateEntries()).as("idle keys are cleared").isZero();
        assertThat(run.harness().numProcessingTimeTimers()).isZero();
        run.close();
    }

    @Test
    void eventTimeWithOutOfOrderRecordsMatchesTheExactModel() throws Exception {
        var dedup = DedupHarnesses.builder(H, G).eventTime().expectedRate(100).fpp(0.01).build();
        Run run = DedupHarnesses.open(dedup);
        Model model = new Model(dedup.sizing());
        long lastWatermark = Long.MIN_VALUE;
        int i = 0;
        for (DedupHarnesses.Element e : stream(2, 8000, 10, 2500)) {
            if (++i % 50 == 0) { // a watermark lagging the records by 3 s, every 50 records
                long w = e.ts() - 3000;
                if (w > lastWatermark) {
                    run.harness().processWatermark(w);
                    model.watermark = w;
                    lastWatermark = w;
                }
            }
            model.check(e.key(), e.item(), e.ts(), run.process(e.record(), e.ts()));
        }
        assertThat(model.mustFlag).isGreaterThan(1000);
        assertThat((double) model.falsePositives).isLessThanOrEqualTo(model.bound(0.01));
        assertThat(run.function().lateRecords()).as("jitter up to 2.5 s < H: nothing is H behind").isZero();
        assertThat(run.harness().numEventTimeTimers()).isEqualTo(3);
        run.close();
    }

    @Test
    void rotationHappensWhenTheWatermarkPassesAnEpochBoundary() throws Exception {
        var dedup = DedupHarnesses.builder(H, G).eventTime().expectedRate(100).fpp(1e-6).build();
        assertThat(dedup.sizing().spanMillis()).isEqualTo(1000);
        Run run = DedupHarnesses.open(dedup);
        assertThat(run.process(Tuple3.of("x", 1L, 500L), 500L)).isFalse();  // epoch 0
        assertThat(run.process(Tuple3.of("y", 1L, 999L), 999L)).isFalse();  // epoch 0, another key
        assertThat(run.process(Tuple3.of("x", 2L, 700L), 700L)).isFalse();
        assertThat(run.harness().numEventTimeTimers()).as("one timer per key, not per record").isEqualTo(2);
        run.harness().processWatermark(3999); // epochs 0..3 kept
        assertThat(run.harness().numEventTimeTimers()).isEqualTo(2);
        assertThat(run.process(Tuple3.of("x", 1L, 3999L), 3999L)).as("3.5 s later, still in generation 0").isTrue();
        run.harness().processWatermark(4000); // epoch 4: generation 0 dropped
        assertThat(run.process(Tuple3.of("y", 1L, 4000L), 4000L)).as("y's generation 0 rotated out").isFalse();
        assertThat(run.process(Tuple3.of("x", 2L, 4000L), 4000L)).as("x:2 only in generation 0").isFalse();
        assertThat(run.process(Tuple3.of("x", 1L, 4001L), 4001L)).as("refreshed at 3999 in epoch 3").isTrue();
        // records ahead of the watermark: the key's clock follows its timestamps
        assertThat(run.process(Tuple3.of("z", 9L, 10_000L), 10_000L)).isFalse();
        assertThat(run.process(Tuple3.of("z", 9L, 12_999L), 12_999L)).as("within H, watermark still at 4 s").isTrue();
        assertThat(run.process(Tuple3.of("z", 8L, 9_000L), 9_000L)).as("late, still deduplicated").isFalse();
        assertThat(run.function().lateRecords()).as("9 s is more than H behind z's clock of 13 s").isEqualTo(1);
        // idle keys: g ticks after their last item the state is gone, and with it the timers
        run.harness().processWatermark(20_000);
        assertThat(run.harness().numKeyedStateEntries()).isZero();
        assertThat(run.harness().numEventTimeTimers()).isZero();
        assertThat(run.function().duplicatesFlagged()).isEqualTo(3);
        run.close();
    }

    /**
     * A record stamped at the end of time (as GlobalWindows' output is): its key's clock is in the last epoch a long
     * reaches, which no rotation follows, so the function keeps no timer for it, and the end-of-input watermark lets
     * the task finish (a timer at Long.MAX_VALUE fired again and again). Also with a span of 1 ms (H = g − 1 ms),
     * whose last epoch is Long.MAX_VALUE itself.
     */
    @Test
    void aClockAtTheEndOfTimeKeepsNoTimerAndTheTaskFinishes() throws Exception {
        for (Duration horizon : new Duration[] {H, Duration.ofMillis(G - 1)}) {
            var dedup = DedupHarnesses.builder(horizon, G).eventTime().expectedRate(100).fpp(1e-6).build();
            Run run = DedupHarnesses.open(dedup);
            org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofSeconds(10), () -> {
                assertThat(run.process(Tuple3.of("x", 1L, 0L), 0L)).isFalse();
                assertThat(run.process(Tuple3.of("x", 1L, Long.MAX_VALUE), Long.MAX_VALUE)).as(horizon + ": far later")
                        .isFalse();
                assertThat(run.process(Tuple3.of("x", 1L, Long.MAX_VALUE), Long.MAX_VALUE)).isTrue();
                run.harness().processWatermark(Long.MAX_VALUE);
            });
            assertThat(run.harness().numEventTimeTimers()).as(horizon.toString()).isZero();
            assertThat(run.function().duplicatesFlagged()).isEqualTo(1);
            run.close();
        }
    }

    @Test
    void uniqueItemsAtTheDesignedRateAreFlaggedAtMostWithProbabilityP() throws Exception {
        double p = 0.01;
        var dedup = DedupHarnesses.builder(H, G).processingTime().expectedRate(1000).fpp(p).build();
        assertThat(dedup.sizing().itemsPerGeneration()).isEqualTo(1000);
        Run run = DedupHarnesses.open(dedup);
        int n = 20_000;
        int flagged = 0;
        for (int t = 0; t < n; t++) { // 1000 new items per second per key: exactly the designed load
            run.harness().setProcessingTime(t);
            flagged += run.process(Tuple3.of("k", (long) t, (long) t), (long) t) ? 1 : 0;
        }
        double bound = p * n + 4 * Math.sqrt(p * n); // binomial: mean p·n plus 4 standard deviations
        assertThat((double) flagged).isLessThanOrEqualTo(bound);
        assertThat(flagged).as("the rotating filters are not empty: some false positives occur").isPositive();
        assertThat(run.function().overCapacityGenerations()).isZero();
        // at a rotation all g generations are full: the estimate is the peak, about p
        assertThat(run.function().estimatedFpp()).isBetween(0.5 * p, 1.25 * p);
        run.close();
    }

    @Test
    void theRateIsDistinctItemsRepeatsInsideASpanDoNotLoadTheFilters() throws Exception {
        double p = 0.01;
        var dedup = DedupHarnesses.builder(H, G).processingTime().expectedRate(1000).fpp(p).build();
        Run run = DedupHarnesses.open(dedup);
        SplittableRandom rnd = new SplittableRandom(17);
        int n = 10_000;
        int flaggedFirsts = 0;
        int records = 0;
        for (int t = 0; t < n; t++) { // 1000 distinct items per second, each span S = 1 s holds 1000 of them
            run.harness().setProcessingTime(t);
            flaggedFirsts += run.process(Tuple3.of("k", (long) t, (long) t), (long) t) ? 1 : 0;
            long spanStart = t - t % 1000;
            for (int r = 0; r < 7; r++) { // and 7 repeats per new item (8000 records/s) of items of this span
                long item = spanStart + rnd.nextInt(t - (int) spanStart + 1);
                assertThat(run.process(Tuple3.of("k", item, (long) t), (long) t)).as("repeat within H").isTrue();
            }
            records += 8;
        }
        // binomial bound on the n first occurrences: mean p·n plus 4 standard deviations, at the DISTINCT rate
        assertThat((double) flaggedFirsts).isLessThanOrEqualTo(p * n + 4 * Math.sqrt(p * n));
        assertThat(run.function().itemsProcessed()).isEqualTo(records);
        assertThat(run.function().overCapacityGenerations()).as("8000 records/s, 1000 distinct/s").isZero();
        assertThat(run.function().estimatedFpp()).isBetween(0.5 * p, 1.25 * p);
        run.close();
    }

    /**
     * One key whose records run far ahead of the watermark closes a far epoch: the gauge files rotations under an
     * epoch no later than the watermark's, so the other keys' rotations still show (it read 3e-11 instead of 0.8).
     */
    @Test
    void oneKeyFarAheadDoesNotFreezeTheFppGauge() throws Exception {
        var d = DedupHarnesses.builder(Duration.ofSeconds(3), 4).eventTime().expectedRate(100).fpp(0.01).build();
        Run run = DedupHarnesses.open(d);
        run.process(Tuple3.of("x", 1L, 1_000_000_000L), 1_000_000_000L);
        run.process(Tuple3.of("x", 2L, 1_000_002_000L), 1_000_002_000L); // closes epoch 1e6
        long item = 10;
        for (long t = 0; t < 20_000; t += 2) { // key "a" at 5× its rate
            run.process(Tuple3.of("a", item++, t), t);
            if (t % 1000 == 0) {
                run.harness().processWatermark(t);
            }
        }
        assertThat(run.function().estimatedFpp()).isGreaterThan(0.05);
        run.close();
    }

    @Test
    void aboveTheRateTheFppGrowsAndIsReported() throws Exception {
        double p = 0.01;
        var dedup = DedupHarnesses.builder(H, G).processingTime().expectedRate(1000).fpp(p).build();
        Run run = DedupHarnesses.open(dedup);
        int n = 30_000;
        int flagged = 0;
        for (int i = 0; i < n; i++) { // 3000 new items per second: three times the designed rate
            long t = i / 3;
            run.harness().setProcessingTime(t);
            flagged += run.process(Tuple3.of("k", (long) i, t), t) ? 1 : 0;
        }
        assertThat(run.function().overCapacityGenerations()).isGreaterThanOrEqualTo(9);
        assertThat(run.function().estimatedFpp()).isGreaterThan(5 * p);
        assertThat((double) flagged).isGreaterThan(p * n + 4 * Math.sqrt(p * n));
        run.close();
    }

    @Test
    void malformedRecordsGoToTheRejectedOutputWithTheReason() throws Exception {
        var dedup = Deduplicator.<Tuple3<String, Long, Long>, String>builder()
                .scope(r -> r.f0, Types.STRING)
                .item(ItemSelector.strings(r -> r.f1 < 0 ? null : "id" + r.f1))
                .horizon(H).eventTime().expectedRate(10).fpp(0.001).build();
        Run run = DedupHarnesses.open(dedup);
        assertThat(run.process(Tuple3.of("k", 1L, 5L), 5L)).isFalse();
        run.harness().processElement(new StreamRecord<>(Tuple3.of("k", 2L, 6L))); // no timestamp
        run.harness().processElement(Tuple3.of("k", -1L, 7L), 7L);                // null item
        var rejected = run.harness().getSideOutput(Rejected.tag(TYPE));
        assertThat(rejected).extracting(r -> r.getValue().reason).containsExactly(
                "timestamp: missing; event-time deduplication needs record timestamps", "item: item is null");
        assertThat(rejected).extracting(r -> r.getValue().record.f1).containsExactly(2L, -1L);
        assertThat(run.function().malformedRecords()).isEqualTo(2);
        assertThat(run.function().itemsProcessed()).isEqualTo(1);
        run.close();
    }

    @Test
    void metricsAreRegisteredUnderTheirNames() throws Exception {
        InterceptingOperatorMetricGroup metrics = new InterceptingOperatorMetricGroup();
        MockEnvironment env = new MockEnvironmentBuilder().setMaxParallelism(DedupHarnesses.MAX_PARALLELISM)
                .setMetricGroup(new UnregisteredMetricGroups.UnregisteredTaskMetricGroup() {
                    @Override
                    public InternalOperatorMetricGroup getOrAddOperator(OperatorID id, String name,
                                                                        Map<String, String> variables) {
                        return metrics;
                    }
                }).build();
        var dedup = DedupHarnesses.builder(H, G).eventTime().expectedRate(2).fpp(0.01).build();
        var harness = new KeyedOneInputStreamOperatorTestHarness<>(new KeyedProcessOperator<>(dedup.function(TYPE)),
                dedup.scope(), Types.STRING, env);
        harness.open();
        for (long i = 0; i < 40; i++) { // 10 distinct items per second against a designed 2: over capacity
            harness.processElement(Tuple3.of("k", i % 30, i * 100), i * 100);
        }
        harness.processElement(Tuple3.of("k", 0L, 0L), 0L);          // late: 3.9 s behind the clock
        harness.processElement(new StreamRecord<>(Tuple3.of("k", 1L, 0L))); // no timestamp
        harness.processWatermark(10_000);
        assertThat(((Counter) metrics.get("itemsProcessed")).getCount()).isEqualTo(41);
        assertThat(((Counter) metrics.get("duplicatesFlagged")).getCount()).isGreaterThanOrEqualTo(10);
        assertThat(((Counter) metrics.get("malformedRecords")).getCount()).isEqualTo(1);
        assertThat(((Counter) metrics.get("lateRecords")).getCount()).isEqualTo(1);
        assertThat(((Counter) metrics.get("overCapacityGenerations")).getCount()).isPositive();
        assertThat(((Gauge<?>) metrics.get("stateBytesPerKey")).getValue())
                .isEqualTo(dedup.sizing().stateBytesPerKey());
        // wired to the rotations (its value is checked against p in the designed-rate and over-rate tests)
        assertThat((Double) ((Gauge<?>) metrics.get("estimatedFpp")).getValue()).isPositive();
        harness.close();
    }

    /**
     * In event time before any watermark (no watermark strategy, or after a restore until the first one) the
     * estimatedFpp gauge follows the rate again after an overload: every rotation was filed under the epoch of
     * Long.MIN_VALUE and merged by max, so one overloaded span pinned the gauge for good.
     */
    @Test
    void withoutWatermarksTheFppGaugeComesBackDownAfterAnOverload() throws Exception {
        double p = 0.01;
        var dedup = DedupHarnesses.builder(java.time.Duration.ofSeconds(3), 4).eventTime().expectedRate(1000).fpp(p)
                .build();
        DedupHarnesses.Run run = DedupHarnesses.open(dedup);
        long item = 0;
        for (long i = 0; i < 15_000; i++) { // 5 s at three times the rate
            long t = i / 3;
            run.process(org.apache.flink.api.java.tuple.Tuple3.of("k", item++, t), t);
        }
        assertThat(run.function().estimatedFpp()).isGreaterThan(10 * p);
        for (long t = 5_000; t < 25_000; t++) { // then 20 s at the designed rate
            run.process(org.apache.flink.api.java.tuple.Tuple3.of("k", item++, t), t);
        }
        // at the designed rate a closing generation holds n items: its fpp is p_g ≤ p (1.25 p: sampling slack)
        assertThat(run.function().estimatedFpp()).isLessThan(1.25 * p);
        run.close();
    }
}
