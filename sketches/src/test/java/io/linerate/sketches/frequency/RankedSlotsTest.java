package io.linerate.sketches.frequency;

import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.sketches.hash.ItemHasher;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The rankings behind {@code topK} and {@code heavyHitters} ({@link MonitoredItems#topSlots},
 * {@link MonitoredItems#slotsWithCountAtLeast}): a heap selection of the first k slots replaced a sort of every
 * slot (boxed, with a comparator), so both must give exactly what that stable sort gave: guaranteed weight
 * (count − error) descending, then count descending, then the lower slot first. Sets full of ties (counts and
 * errors drawn from a few values), fixed seeds; the reference is the old sort, written out here. The same for the
 * ranking of the merges ({@link Ranking}), which replaced a boxed sort of the combined items by upper bound.
 */
class RankedSlotsTest {

    @Test
    void theFirstKSlotsAreThoseOfTheFullStableSortForEveryK() {
        for (int seed = 1; seed <= 50; seed++) {
            SplittableRandom rnd = new SplittableRandom(seed);
            MonitoredItems items = filled(rnd, 1 + rnd.nextInt(200), rnd.nextBoolean());
            List<Integer> reference = stableSort(items);
            for (int k : new int[] {0, 1, 2, 7, items.size - 1, items.size, items.size + 5, Integer.MAX_VALUE}) {
                List<Integer> want = reference.subList(0, Math.min(k, reference.size()));
                assertThat(IntStream.of(items.topSlots(k)).boxed().toList()).as("seed %d, size %d, k %d", seed,
                        items.size, k).isEqualTo(want);
            }
        }
    }

    @Test
    void theSlotsAboveAThresholdComeInTheOrderOfTheFullStableSort() {
        for (int seed = 1; seed <= 50; seed++) {
            SplittableRandom rnd = new SplittableRandom(seed);
            MonitoredItems items = filled(rnd, 1 + rnd.nextInt(200), rnd.nextBoolean());
            List<Integer> reference = stableSort(items);
            for (long threshold : new long[] {Long.MIN_VALUE, 0, 1, 3, 5, 8, 100}) {
                List<Integer> want = reference.stream().filter(s -> items.counts[s] >= threshold).toList();
                assertThat(IntStream.of(items.slotsWithCountAtLeast(threshold)).boxed().toList())
                        .as("seed %d, threshold %d", seed, threshold).isEqualTo(want);
            }
        }
    }

    /**
     * The merges' ranking ({@link Ranking#descending}): by key descending, ties by index, as the stable sort it
     * replaced. Keys full of ties; small spreads (one radix pass), spreads past 2^40 (six passes), and keys from
     * Long.MIN_VALUE to Long.MAX_VALUE, whose spread does not fit a signed long.
     */
    @Test
    void theMergesRankingIsTheStableSortByDescendingKey() {
        for (int seed = 1; seed <= 150; seed++) {
            SplittableRandom rnd = new SplittableRandom(seed);
            int n = rnd.nextInt(300);
            int spread = seed % 3;
            long[] keys = new long[n + 3]; // entries past n are not looked at
            for (int i = 0; i < keys.length; i++) {
                long small = rnd.nextInt(6);
                keys[i] = i >= n ? Long.MAX_VALUE : spread == 0 ? small
                        : spread == 1 ? small * (1L << 40) - 2
                        : small == 0 ? Long.MIN_VALUE : small == 5 ? Long.MAX_VALUE : small - 3;
            }
            List<Integer> reference = new ArrayList<>(IntStream.range(0, n).boxed().toList());
            reference.sort((a, b) -> Long.compare(keys[b], keys[a]));
            assertThat(IntStream.of(Ranking.descending(keys, n)).boxed().toList()).as("seed %d, n %d", seed, n)
                    .isEqualTo(reference);
        }
    }

    @Test
    void anEmptySetRanksNothing() {
        MonitoredItems items = MonitoredItems.forEntries(KeyKind.longs(), 8, true, ItemHasher.seeded(1), 8);
        assertThat(items.topSlots(10)).isEmpty();
        assertThat(items.slotsWithCountAtLeast(0)).isEmpty();
    }

    /** n distinct items whose counts (1..8) and errors (0..count, or none) repeat often. */
    private static MonitoredItems filled(SplittableRandom rnd, int n, boolean withErrors) {
        ItemHasher hasher = ItemHasher.seeded(7);
        MonitoredItems items = MonitoredItems.forEntries(KeyKind.longs(), n, withErrors, hasher, n);
        for (int i = 0; i < n; i++) {
            long count = 1 + rnd.nextInt(8);
            items.probe[0] = i;
            items.add(hasher.hash((long) i), count, withErrors ? rnd.nextLong(count + 1) : 0);
        }
        return items;
    }

    /** The ranking as it was computed before: every slot, boxed, sorted stably (ties keep the slot order). */
    private static List<Integer> stableSort(MonitoredItems items) {
        List<Integer> order = new ArrayList<>();
        for (int s = 0; s < items.size; s++) {
            order.add(s);
        }
        Comparator<Integer> byGuaranteed = Comparator.comparingLong(
                s -> -(items.counts[s] - (items.errors != null ? items.errors[s] : 0)));
        order.sort(byGuaranteed.thenComparingLong(s -> -items.counts[s]));
        return order;
    }
}
