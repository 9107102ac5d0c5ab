package io.linerate.sketches.frequency;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.apache.datasketches.frequencies.ErrorType;
import org.apache.datasketches.frequencies.LongsSketch;
import org.junit.jupiter.api.Test;

/**
 * Both trackers against exact counts and against DataSketches' {@code frequencies.LongsSketch} on 10M-item
 * Zipf streams over 1M keys (s = 0.8, 1.0, 1.2), every tracker within 64 KiB. LongsSketch's map sizes are powers
 * of two and it holds 18 bytes per map slot (two long arrays and a short array), so the largest map within
 * 64 KiB has 2048 slots (36,864 bytes).
 */
class HeavyHittersAccuracyTest {

    private static final int KEYS = 1_000_000;
    private static final int STREAM = 10_000_000;
    private static final long MEMORY = 64 * 1024;
    private static final int LONGS_SKETCH_MAP = 2048;

    record Quality(double recall, double precision, double averageRelativeError) {
    }

    @Test
    void zipf08() {
        compare(0.8);
    }

    @Test
    void zipf10() {
        compare(1.0);
    }

    @Test
    void zipf12() {
        compare(1.2);
    }

    private static void compare(double s) {
        ZipfStream stream = new ZipfStream(KEYS, s, 42);
        long[] exact = new long[KEYS];
        SpaceSaving spaceSaving = SpaceSaving.withMemory(KeyKind.longs(), MEMORY, 7);
        CountMinHeap cmHeap = CountMinHeap.withMemory(KeyKind.longs(), MEMORY, 7);
        LongsSketch longsSketch = new LongsSketch(LONGS_SKETCH_MAP);
        assertThat(spaceSaving.memoryBytes()).isLessThanOrEqualTo(MEMORY);
        assertThat(cmHeap.memoryBytes()).isLessThanOrEqualTo(MEMORY);
        for (int i = 0; i < STREAM; i++) {
            int rank = stream.nextRank();
            long key = stream.key(rank);
            exact[rank]++;
            spaceSaving.update(key, 1);
            cmHeap.update(key, 1);
            longsSketch.update(key, 1);
        }
        RankOfKey rankOfKey = new RankOfKey(stream);
        int[] byWeight = ranksByWeight(exact);
        Set<Long> trueTop = new HashSet<>();
        for (int i = 0; i < 100; i++) {
            trueTop.add(stream.key(byWeight[i]));
        }

        // the top-100 before the φ queries below, to check that queries leave the trackers' answers as they were
        List<long[]> ssBefore = topOf(spaceSaving);
        List<long[]> cmBefore = topOf(cmHeap);
        // φ = 1e-3: recall 1.0 for both trackers
        double phi = 1e-3;
        assertThat(cmHeap.isComplete(phi)).as("CM-heap answer provably complete at phi").isTrue();
        assertThat(phi * STREAM).as("SpaceSaving answer provably complete at phi")
                .isGreaterThan(spaceSaving.unmonitoredBound());
        for (HeavyHitters tracker : new HeavyHitters[] {spaceSaving, cmHeap}) {
            Set<Long> reported = new HashSet<>();
            for (HeavyHitter h : tracker.heavyHitters(phi)) {
                reported.add((Long) h.item());
                long truth = exact[rankOfKey.get((Long) h.item())];
                assertThat(truth).as("true weight within the reported bounds")
                        .isBetween(h.lowerBound(), h.upperBound());
            }
            for (int i = 0; i < KEYS && exact[byWeight[i]] >= phi * STREAM; i++) {
                assertThat(reported).as("%s, s=%s: heavy hitter of rank %d", tracker.getClass().getSimpleName(), s, i)
                        .contains(stream.key(byWeight[i]));
            }
        }
        assertThat(topOf(spaceSaving)).as("SpaceSaving's top-100 after the queries")
                .usingElementComparator(Arrays::compare).containsExactlyElementsOf(ssBefore);
        assertThat(topOf(cmHeap)).as("CountMinHeap's top-100 after the queries")
                .usingElementComparator(Arrays::compare).containsExactlyElementsOf(cmBefore);
        Quality ss = quality(ssBefore, trueTop, exact, rankOfKey);
        Quality cm = quality(cmBefore, trueTop, exact, rankOfKey);
        Quality ds = quality(topOf(longsSketch), trueTop, exact, rankOfKey);
        String report = String.format(Locale.ROOT,
                "s=%.1f top-100 recall/precision/ARE: SpaceSaving %s, CountMinHeap %s,"
                + " LongsSketch %s; unmonitored bounds %d, %d", s, ss, cm, ds, spaceSaving.unmonitoredBound(),
                cmHeap.unmonitoredBound());
        System.out.println(report);
        for (Quality q : new Quality[] {ss, cm}) {
            assertThat(q.recall()).as(report).isGreaterThanOrEqualTo(ds.recall());
            assertThat(q.precision()).as(report).isGreaterThanOrEqualTo(ds.precision());
            assertThat(q.averageRelativeError()).as(report).isLessThanOrEqualTo(ds.averageRelativeError());
        }
    }

    /**
     * The ranks, heaviest first, ties in increasing rank (the order a stable sort by descending weight gives). A
     * primitive sort of weight·2<sup>20</sup> + (KEYS − 1 − rank), read backwards: weights are at most STREAM
     * &lt; 2<sup>43</sup> and ranks &lt; 2<sup>20</sup>, so the packed values are exact. (Sorting a million boxed
     * ranks with a comparator, and the boxed map below, took more time than the test's own trackers' lookups.)
     */
    static int[] ranksByWeight(long[] exact) {
        assertThat(KEYS).isLessThanOrEqualTo(1 << 20);
        long[] packed = new long[exact.length];
        for (int r = 0; r < exact.length; r++) {
            packed[r] = exact[r] << 20 | (exact.length - 1 - r);
        }
        Arrays.sort(packed);
        int[] ranks = new int[exact.length];
        for (int i = 0; i < exact.length; i++) {
            ranks[i] = exact.length - 1 - (int) (packed[exact.length - 1 - i] & ((1 << 20) - 1));
        }
        return ranks;
    }

    /** Key to rank of a stream's keys: the keys sorted, with each one's rank; the keys must be distinct. */
    static final class RankOfKey {
        private final long[] sortedKeys;
        private final int[] rankAt;

        RankOfKey(ZipfStream stream) {
            sortedKeys = new long[KEYS];
            for (int r = 0; r < KEYS; r++) {
                sortedKeys[r] = stream.key(r);
            }
            Arrays.sort(sortedKeys);
            int repeats = 0;
            for (int i = 1; i < KEYS; i++) {
                repeats += sortedKeys[i] == sortedKeys[i - 1] ? 1 : 0;
            }
            assertThat(repeats).as("keys the stream gives two ranks").isZero();
            rankAt = new int[KEYS];
            for (int r = 0; r < KEYS; r++) {
                rankAt[Arrays.binarySearch(sortedKeys, stream.key(r))] = r;
            }
        }

        /** The rank of {@code key}, which must be one of the stream's. */
        int get(long key) {
            int i = Arrays.binarySearch(sortedKeys, key);
            assertThat(i).as("key %d is one of the stream's", key).isNotNegative();
            return rankAt[i];
        }
    }

    /** item, estimate pairs of a top-100, heaviest first. */
    private static List<long[]> topOf(HeavyHitters tracker) {
        List<long[]> out = new ArrayList<>();
        for (HeavyHitter h : tracker.topK(100)) {
            out.add(new long[] {(Long) h.item(), h.estimate()});
        }
        return out;
    }

    private static List<long[]> topOf(LongsSketch sketch) {
        LongsSketch.Row[] rows = sketch.getFrequentItems(0, ErrorType.NO_FALSE_NEGATIVES);
        Arrays.sort(rows, (a, b) -> Long.compare(b.getEstimate(), a.getEstimate()));
        List<long[]> out = new ArrayList<>();
        for (int i = 0; i < Math.min(100, rows.length); i++) {
            out.add(new long[] {rows[i].getItem(), rows[i].getEstimate()});
        }
        return out;
    }

    private static Quality quality(List<long[]> top, Set<Long> trueTop, long[] exact, RankOfKey rankOfKey) {
        int hits = 0;
        double relativeError = 0;
        for (long[] entry : top) {
            hits += trueTop.contains(entry[0]) ? 1 : 0;
            long truth = exact[rankOfKey.get(entry[0])];
            relativeError += Math.abs(entry[1] - truth) / (double) Math.max(1, truth);
        }
        return new Quality(hits / 100.0, top.isEmpty() ? 0 : hits / (double) top.size(),
                top.isEmpty() ? Double.POSITIVE_INFINITY : relativeError / top.size());
    }
}
