package io.linerate.flink.dedup;

import static io.linerate.flink.dedup.DedupHarnesses.TYPE;
import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.flink.rejects.Rejected;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Queue;
import java.util.SplittableRandom;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The operator against an exact model of its documented contract, fed randomized streams (fixed seeds,
 * several keys, repeats scheduled just inside and just outside H and g·S, out-of-order event times, watermarks in
 * steps, late records, malformed records), in event and processing time, with snapshot/restore mid-stream.
 */
class DedupModelTest {

    sealed interface Step permits Rec, Wm, Pt {
    }

    /** ts null: a record without a Flink timestamp. */
    record Rec(String key, long item, Long ts) implements Step {
    }

    record Wm(long time) implements Step {
    }

    record Pt(long time) implements Step {
    }

    enum Out { MAIN, DUP, MALFORMED }

    /** Generates a scenario. {@code eventTime}: records carry ts; otherwise Pt steps set the processing time. */
    static List<Step> scenario(long seed, boolean eventTime, long start, long durationMs, int keys, double newPerMs,
                               long h, long span, int g, int jitter, long lag) {
        SplittableRandom rnd = new SplittableRandom(seed);
        List<Step> out = new ArrayList<>();
        PriorityQueue<long[]> due = new PriorityQueue<>((a, b) -> Long.compare(a[0], b[0])); // due, key, item
        long[] next = new long[keys];
        List<List<Long>> recent = new ArrayList<>();
        for (int k = 0; k < keys; k++) {
            recent.add(new ArrayList<>());
        }
        long wm = Long.MIN_VALUE;
        long gs = g * span;
        for (long t = start; t < start + durationMs; t++) {
            if (!eventTime) {
                out.add(new Pt(t));
            } else if (Math.floorMod(t, 97) == 0) { // watermarks in steps, sometimes a jump
                long w = t - lag - (rnd.nextInt(10) == 0 ? 0 : rnd.nextInt((int) lag));
                if (rnd.nextInt(40) == 0) {
                    w = t - 10; // jump close to the records: later jittered records become "late" vs watermark
                }
                if (w > wm) {
                    wm = w;
                    out.add(new Wm(w));
                }
            }
            List<long[]> emit = new ArrayList<>();
            for (int k = 0; k < keys; k++) {
                if (rnd.nextDouble() < newPerMs) {
                    long item = k * 1_000_000_000L + next[k]++;
                    emit.add(new long[] {k, item, 0});
                    recent.get(k).add(item);
                }
            }
            while (!due.isEmpty() && due.peek()[0] <= t) {
                long[] d = due.poll();
                emit.add(new long[] {d[1], d[2], 1, d[0]});
            }
            if (rnd.nextInt(200) == 0) { // a random repeat of a recent item
                int k = rnd.nextInt(keys);
                List<Long> r = recent.get(k);
                if (!r.isEmpty()) {
                    emit.add(new long[] {k, r.get(r.size() - 1 - rnd.nextInt(Math.min(r.size(), 500))), 0});
                }
            }
            for (long[] e : emit) {
                int k = (int) e[0];
                long ts;
                if (!eventTime) {
                    ts = t;
                } else if (e[2] == 1) {
                    ts = e[3]; // exactly the scheduled distance from the previous occurrence's ts
                } else {
                    ts = t - (jitter == 0 ? 0 : rnd.nextInt(jitter));
                    if (rnd.nextInt(300) == 0) {
                        ts = t - h - 1 - rnd.nextInt((int) (2 * h)); // a late record
                    }
                }
                Long stamp = eventTime && rnd.nextInt(500) == 0 ? null : ts;
                out.add(new Rec("k" + k, e[1], stamp));
                if (rnd.nextInt(100) < 45) { // schedule a repeat near the boundaries
                    long d = switch (rnd.nextInt(10)) {
                        case 0 -> h - 1;
                        case 1 -> h;
                        case 2 -> h + 1;
                        case 3 -> h - 1 - rnd.nextInt(3);
                        case 4 -> h + 1 + rnd.nextInt(3);
                        case 5 -> gs - 1;
                        case 6 -> gs;
                        case 7 -> gs + 1;
                        case 8 -> 1 + rnd.nextInt((int) h);
                        default -> h + rnd.nextInt((int) (2 * gs));
                    };
                    due.add(new long[] {ts + d, k, e[1]});
                }
            }
        }
        return out;
    }

    /** The exact model of the contract; also records every outcome. */
    static final class Model {
        final long h;
        final long span;
        final int g;
        final long n;
        long watermark = Long.MIN_VALUE;
        final Map<String, Long> clock = new HashMap<>();
        final Map<String, Long> lastTs = new HashMap<>();
        final Map<String, Long> presentIn = new HashMap<>(); // key|item -> latest epoch made present in
        final Map<String, Long> distinctInSpan = new HashMap<>(); // key|epoch -> distinct items inserted
        final Map<String, Long> lastSpanOfItem = new HashMap<>();
        long mustFlag;
        long boundaryMustFlag;
        long outsideRing;
        long falsePositives;
        long late;
        long malformed;
        long maxDistinctInSpan;

        Model(DedupSizing s) {
            h = s.horizonMillis();
            span = s.spanMillis();
            g = s.generations();
            n = s.itemsPerGeneration();
        }

        void check(Rec r, Out got, boolean eventTime, long processingTime) {
            if (eventTime && r.ts() == null) {
                assertThat(got).as("record without timestamp %s", r).isEqualTo(Out.MALFORMED);
                malformed++;
                return;
            }
            assertThat(got).as("record %s", r).isNotEqualTo(Out.MALFORMED);
            long ts = eventTime ? r.ts() : processingTime;
            long c = Math.max(Math.max(clock.getOrDefault(r.key(), Long.MIN_VALUE), eventTime ? watermark
                    : Long.MIN_VALUE), ts);
            clock.put(r.key(), c);
            if (eventTime && ts < c - h) {
                late++;
            }
            String id = r.key() + "|" + r.item();
            Long prevTs = lastTs.get(id);
            Long prevEpoch = presentIn.get(id);
            long now = Math.floorDiv(c, span);
            boolean guaranteed = prevTs != null && prevTs >= c - h; // the documented guarantee 1
            // the documented retention: each occurrence leaves its item present in its own timestamp's generation
            boolean inRing = prevEpoch != null && prevEpoch > now - g;
            if (guaranteed) {
                mustFlag++;
                if (prevTs - (c - h) <= 2) {
                    boundaryMustFlag++;
                }
                assertThat(got).as("guarantee 1: %s, previous occurrence at ts %d, clock %d, H %d", r, prevTs, c, h)
                        .isEqualTo(Out.DUP);
            }
            if (inRing) {
                assertThat(got).as("retention: %s, present in epoch %d, clock %d", r, prevEpoch, c)
                        .isEqualTo(Out.DUP);
            } else {
                outsideRing++;
                falsePositives += got == Out.DUP ? 1 : 0;
            }
            // distinct items a generation takes (a repeat already in it is not inserted again): the generation of
            // the record's own time, kept within the ring
            long epoch = Math.max(Math.min(Math.floorDiv(ts, span), now), now - g + 1);
            Long prevSpan = lastSpanOfItem.get(id);
            if (prevSpan == null || prevSpan != epoch) {
                long d = distinctInSpan.merge(r.key() + "|" + epoch, 1L, Long::sum);
                maxDistinctInSpan = Math.max(maxDistinctInSpan, d);
                lastSpanOfItem.put(id, epoch);
            }
            lastTs.merge(id, ts, Math::max);
            presentIn.merge(id, epoch, Math::max);
        }

        /** Binomial bound: p·N plus 4 standard deviations sqrt(p(1 − p)N). */
        double bound(double p) {
            return p * outsideRing + 4 * Math.sqrt(p * (1 - p) * outsideRing);
        }
    }

    record Harness(KeyedOneInputStreamOperatorTestHarness<String, Tuple3<String, Long, Long>, Tuple3<String, Long, Long>>
                           h, DedupFunction<String, Tuple3<String, Long, Long>, Tuple3<String, Long, Long>> fn) {
    }

    static Harness open(Deduplicator<Tuple3<String, Long, Long>, String> dedup, OperatorSubtaskState state,
                        StateBackend backend) throws Exception {
        DedupHarnesses.Run run = DedupHarnesses.open(dedup, 1, 0, state, backend);
        return new Harness(run.harness(), run.function());
    }

    private static int drain(Queue<?> q) {
        int n = 0;
        if (q != null) {
            while (q.poll() != null) {
                n++;
            }
        }
        return n;
    }

    /** Replays steps; returns the outcome of every record in order. Asserts exactly one output per record. */
    static List<Out> replay(Harness run, List<Step> steps, Model model, boolean eventTime) throws Exception {
        List<Out> outs = new ArrayList<>();
        long pt = run.h().getProcessingTime();
        for (Step s : steps) {
            if (s instanceof Wm w) {
                run.h().processWatermark(w.time());
                if (model != null) {
                    model.watermark = w.time();
                }
                assertNoRecords(run);
            } else if (s instanceof Pt p) {
                run.h().setProcessingTime(p.time());
                pt = p.time();
                assertNoRecords(run);
            } else if (s instanceof Rec r) {
                Tuple3<String, Long, Long> t = Tuple3.of(r.key(), r.item(), r.ts() == null ? -1L : r.ts());
                if (r.ts() == null) {
                    run.h().processElement(new StreamRecord<>(t));
                } else {
                    run.h().processElement(t, r.ts());
                }
                int main = 0;
                for (Object o; (o = run.h().getOutput().poll()) != null; ) {
                    if (o instanceof StreamRecord<?> sr) {
                        assertThat(sr.getValue()).isEqualTo(t);
                        main++;
                    }
                }
                int dups = drain(run.h().getSideOutput(Deduplicator.duplicatesTag(TYPE)));
                int bad = drain(run.h().getSideOutput(Rejected.tag(TYPE)));
                assertThat(main + dups + bad).as("outputs of %s: main %d dup %d malformed %d", r, main, dups, bad)
                        .isEqualTo(1);
                Out o = main == 1 ? Out.MAIN : dups == 1 ? Out.DUP : Out.MALFORMED;
                outs.add(o);
                if (model != null) {
                    model.check(r, o, eventTime, pt);
                }
            }
        }
        return outs;
    }

    private static void assertNoRecords(Harness run) {
        for (Object o : run.h().getOutput()) {
            assertThat(o).as("a timer or watermark emitted a record").isNotInstanceOf(StreamRecord.class);
        }
        assertThat(drain(run.h().getSideOutput(Deduplicator.duplicatesTag(TYPE)))).isZero();
        assertThat(drain(run.h().getSideOutput(Rejected.tag(TYPE)))).isZero();
    }

    static Deduplicator<Tuple3<String, Long, Long>, String> dedup(boolean eventTime, long hMillis, int g, double rate,
                                                                 double p) {
        var b = DedupHarnesses.builder(Duration.ofMillis(hMillis), g).expectedRate(rate).fpp(p);
        return (eventTime ? b.eventTime() : b.processingTime()).build();
    }

    @ParameterizedTest(name = "seed {0} eventTime {1} start {2} H {3} g {4} rate {5}")
    @CsvSource({
            "1, true, 1000000, 3000, 4, 300",
            "2, true, -20000, 3000, 4, 300",
            "3, true, 0, 2500, 3, 330",
            "4, false, 1000000, 3000, 4, 300",
            "5, false, 7, 2500, 3, 330",
            "6, true, 1000000, 1000, 8, 420",
    })
    void matchesTheModel(long seed, boolean eventTime, long start, long h, int g, double rate) throws Exception {
        double p = 0.02;
        int keys = 4;
        double newPerMs = 0.12; // 120 new items / s / key; with refreshed repeats ~150 distinct / s
        var dedup = dedup(eventTime, h, g, rate, p);
        DedupSizing s = dedup.sizing();
        List<Step> steps = scenario(seed, eventTime, start, 40_000, keys, newPerMs, h, s.spanMillis(), g,
                eventTime ? 400 : 0, 600);
        Harness run = open(dedup, null, null);
        Model model = new Model(s);
        replay(run, steps, model, eventTime);
        assertThat(model.maxDistinctInSpan).as("precondition: the designed distinct rate holds")
                .isLessThanOrEqualTo(s.itemsPerGeneration());
        assertThat(model.boundaryMustFlag).as("repeats at the horizon's edge were exercised").isGreaterThan(50);
        assertThat(model.outsideRing).isGreaterThan(10_000);
        System.out.printf(Locale.ROOT,
                "seed %d et %s: mustFlag %d boundary %d outside %d fp %d (%.5f, p %.3f, bound %.1f) late %d"
                        + " maxDistinct %d n %d%n", seed, eventTime, model.mustFlag, model.boundaryMustFlag,
                model.outsideRing, model.falsePositives, (double) model.falsePositives / model.outsideRing, p,
                model.bound(p), model.late, model.maxDistinctInSpan, s.itemsPerGeneration());
        assertThat((double) model.falsePositives).isLessThanOrEqualTo(model.bound(p));
        assertThat(run.fn().lateRecords()).isEqualTo(model.late);
        assertThat(run.fn().malformedRecords()).isEqualTo(model.malformed);
        assertThat(run.fn().overCapacityGenerations()).isZero();
        assertThat(run.h().numEventTimeTimers() + run.h().numProcessingTimeTimers()).isLessThanOrEqualTo(keys);
        run.h().close();
    }

    @ParameterizedTest(name = "seed {0} eventTime {1} backend {2} cachedRings {3}")
    @CsvSource({
            "11, true, heap, -1",
            "12, false, heap, -1",
            "13, true, rocksdb, -1",
            "14, true, rocksdb, 1",
            "15, false, rocksdb, 2",
    })
    void snapshotRestoreContinuesIdentically(long seed, boolean eventTime, String backend, int cachedRings)
            throws Exception {
        long h = 2000;
        int g = 3;
        var b = DedupHarnesses.builder(Duration.ofMillis(h), g).expectedRate(60).fpp(0.05);
        var d0 = (eventTime ? b.eventTime() : b.processingTime()).build();
        if (cachedRings >= 0) {
            b.stateCacheBytes(cachedRings * Deduplicator.ringHeapBytes(d0.sizing()));
        }
        var dedup = (eventTime ? b.eventTime() : b.processingTime()).build();
        List<Step> steps = scenario(seed, eventTime, 500_000, 12_000, 6, 0.04, h, dedup.sizing().spanMillis(), g,
                eventTime ? 300 : 0, 500);
        Harness whole = open(dedup, null, backend.equals("heap") ? null : new EmbeddedRocksDBStateBackend());
        List<Out> expected = replay(whole, steps, new Model(dedup.sizing()), eventTime);
        whole.h().close();
        for (int cut : new int[] {steps.size() / 3, steps.size() / 2, 2 * steps.size() / 3}) {
            Harness first = open(dedup, null, backend.equals("heap") ? null : new EmbeddedRocksDBStateBackend());
            Model model = new Model(dedup.sizing());
            List<Out> got = replay(first, steps.subList(0, cut), model, eventTime);
            long pt = first.h().getProcessingTime();
            OperatorSubtaskState snap = first.h().snapshot(1, 1);
            first.h().close();
            Harness second = open(dedup, snap, backend.equals("heap") ? null : new EmbeddedRocksDBStateBackend());
            if (eventTime) {
                if (model.watermark != Long.MIN_VALUE) {
                    second.h().processWatermark(model.watermark); // the source re-emits its watermark
                }
            } else {
                second.h().setProcessingTime(pt);
            }
            got.addAll(replay(second, steps.subList(cut, steps.size()), model, eventTime));
            second.h().close();
            assertThat(got).as("cut at step %d", cut).isEqualTo(expected);
        }
        assertThat(expected.stream().filter(o -> o == Out.DUP).count()).isGreaterThan(500);
    }

    /**
     * At exactly the designed distinct rate (n new items per span per key, evenly spread), the documented bound is
     * per record: P(flagged) <= p for a new item. Measured over every new item, and over the last 20% of each span
     * (all g generations nearly full: the documented peak, still <= p).
     */
    @ParameterizedTest(name = "eventTime {0} p {1} g {2}")
    @CsvSource({
            "true, 0.01, 4",
            "false, 0.01, 4",
            "true, 0.001, 4",
            "true, 0.01, 2",
            "true, 0.05, 8",
    })
    void newItemsAtTheDesignedRateAreFlaggedAtMostWithP(boolean eventTime, double p, int g) throws Exception {
        long h = 3000L * (g - 1) / 3; // S = 1 s
        var dedup = dedup(eventTime, h, g, 1000, p);
        DedupSizing s = dedup.sizing();
        assertThat(s.spanMillis()).isEqualTo(1000);
        long n = s.itemsPerGeneration();
        Harness run = open(dedup, null, null);
        int keys = 4;
        int spans = p < 0.005 ? 120 : 40;
        SplittableRandom rnd = new SplittableRandom(99);
        long all = 0;
        long allFlagged = 0;
        long peak = 0;
        long peakFlagged = 0;
        long item = 0;
        for (long t = 0; t < spans * 1000L; t++) { // one new item per ms per key: exactly n per span
            if (eventTime && t % 50 == 0) {
                run.h().processWatermark(t - 1);
            } else if (!eventTime) {
                run.h().setProcessingTime(t);
            }
            for (int k = 0; k < keys; k++) {
                long it = (rnd.nextLong() & Long.MAX_VALUE) ^ item++;
                var rec = Tuple3.of("k" + k, it, t);
                run.h().processElement(rec, t);
                int dups = drain(run.h().getSideOutput(Deduplicator.duplicatesTag(TYPE)));
                run.h().getOutput().clear();
                if (t >= g * 1000L) { // steady state: g full generations behind
                    all++;
                    allFlagged += dups;
                    if (t % 1000 >= 800) {
                        peak++;
                        peakFlagged += dups;
                    }
                }
            }
        }
        double allBound = p * all + 4 * Math.sqrt(p * (1 - p) * all);
        double peakBound = p * peak + 4 * Math.sqrt(p * (1 - p) * peak);
        System.out.printf(Locale.ROOT,
                "eventTime %s p %.3f g %d n %d: all %d flagged %d (%.5f), peak %d flagged %d (%.5f),"
                        + " estimatedFpp %.5f%n", eventTime, p, g, n, all, allFlagged, (double) allFlagged / all, peak,
                peakFlagged, (double) peakFlagged / peak, run.fn().estimatedFpp());
        assertThat(run.fn().overCapacityGenerations()).isZero();
        assertThat((double) allFlagged).isLessThanOrEqualTo(allBound);
        assertThat((double) peakFlagged).isLessThanOrEqualTo(peakBound);
        run.h().close();
    }

    /** Watermarks that jump far ahead of the records (idle keys cleared, records late against the watermark). */
    @ParameterizedTest(name = "seed {0}")
    @CsvSource({"21", "22", "23"})
    void watermarkJumpsMatchTheModel(long seed) throws Exception {
        long h = 3000;
        int g = 4;
        var dedup = dedup(true, h, g, 300, 0.02);
        List<Step> base = scenario(seed, true, 1_000_000, 30_000, 4, 0.1, h, dedup.sizing().spanMillis(), g, 400, 600);
        SplittableRandom rnd = new SplittableRandom(seed);
        List<Step> steps = new ArrayList<>();
        long wm = Long.MIN_VALUE;
        for (Step st : base) {
            if (st instanceof Wm w) {
                long x = rnd.nextInt(30) == 0 ? w.time() + 1000 + rnd.nextInt(15_000) : w.time();
                if (x > wm) {
                    wm = x;
                    steps.add(new Wm(x));
                }
            } else {
                steps.add(st);
            }
        }
        Harness run = open(dedup, null, null);
        Model model = new Model(dedup.sizing());
        replay(run, steps, model, true);
        assertThat(run.fn().lateRecords()).isEqualTo(model.late);
        System.out.printf(Locale.ROOT,
                "jumps seed %d: mustFlag %d late %d fp %d/%d%n", seed, model.mustFlag, model.late,
                model.falsePositives, model.outsideRing);
        run.h().close();
    }

    /**
     * Guarantee 2 in event time with out-of-order input: exactly 1000 distinct items per event-time second (one per
     * ms), 300 ms out of order at every other span boundary (the first record of the next span arrives 300 ms
     * early, before the last 300 ms of the span). Items went into the generation of the key's clock, so a
     * generation took the stragglers of the span before: sized for the rate (n = 1000), 99 generations closed over
     * n and 1.28% of new items were flagged at p = 1% (bound: 1.09%). Each item now goes into the generation of its
     * own timestamp: no generation over n, and new items flagged within p.
     */
    @org.junit.jupiter.api.Test
    void outOfOrderInputAtTheDesignedRateKeepsGenerationsWithinCapacity() throws Exception {
        double p = 0.01;
        long[] atTheRate = outOfOrderRun(1000, p);
        assertThat(atTheRate[2]).as("generations over n = rate·S at the rate, 300 ms out of order").isZero();
        assertThat((double) atTheRate[0]).as("new items flagged").isLessThanOrEqualTo(
                p * atTheRate[1] + 4 * Math.sqrt(p * (1 - p) * atTheRate[1]));
    }

    /** @return flagged new items, new items counted, over-capacity generations */
    private static long[] outOfOrderRun(double rate, double p) throws Exception {
        var dedup = dedup(true, 3000, 4, rate, p);
        Harness run = open(dedup, null, null);
        SplittableRandom rnd = new SplittableRandom(5);
        long[] items = new long[200_000];
        for (int i = 0; i < items.length; i++) {
            items[i] = rnd.nextLong();
        }
        List<Long> order = new ArrayList<>();
        for (long t = 0; t < items.length; t++) {
            long inSpan = t % 1000;
            long span = t / 1000;
            if (inSpan == 0 && span % 2 == 1) {
                continue; // arrives early, below
            }
            order.add(t);
            if (inSpan == 699 && span % 2 == 0 && t + 301 < items.length) {
                order.add(t + 301); // the first record of the next (odd) span, 300 ms early
            }
        }
        long flagged = 0;
        long counted = 0;
        for (long t : order) {
            if (t % 100 == 0) {
                run.h().processWatermark(t - 500);
            }
            run.h().processElement(Tuple3.of("k", items[(int) t], t), t);
            int dups = drain(run.h().getSideOutput(Deduplicator.duplicatesTag(TYPE)));
            run.h().getOutput().clear();
            if (t >= 4000) {
                counted++;
                flagged += dups;
            }
        }
        System.out.printf(Locale.ROOT,
                "out of order, rate %.0f: %d of %d new items flagged (%.5f), overCapacity %d%n", rate,
                flagged, counted, (double) flagged / counted, run.fn().overCapacityGenerations());
        assertThat(run.fn().lateRecords()).isZero();
        long over = run.fn().overCapacityGenerations();
        run.h().close();
        return new long[] {flagged, counted, over};
    }

    /**
     * dedup.md: "changing it (or horizon, generations, or event and processing time) makes a restore incompatible".
     * What the restore checks is the span S = ⌈H / (g − 1)⌉, not H: a horizon changed within the same span restores.
     */
    @org.junit.jupiter.api.Test
    void aHorizonChangedWithinTheSameSpanRestores() throws Exception {
        var before = dedup(true, 3000, 4, 100, 0.01);
        var after = dedup(true, 2998, 4, 100, 0.01);
        assertThat(after.sizing().spanMillis()).isEqualTo(before.sizing().spanMillis());
        Harness first = open(before, null, null);
        first.h().processElement(Tuple3.of("k", 1L, 1000L), 1000L);
        OperatorSubtaskState snap = first.h().snapshot(1, 1);
        first.h().close();
        Harness second = open(after, snap, null); // documented: incompatible; it restores
        second.h().processElement(Tuple3.of("k", 1L, 2000L), 2000L);
        assertThat(drain(second.h().getSideOutput(Deduplicator.duplicatesTag(TYPE)))).isEqualTo(1);
        second.h().close();
    }
}
