package io.linerate.sketches.flowtable;

import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.sketches.bloom.CountingBloomFilter;
import io.linerate.sketches.hash.ItemHasher;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The multiple-Bloom-filter summary (thesis §4.7.2 with counting filters, docs/flowtable.md) on its own: the level
 * it names for an item added, removed, moved either way and cleared, its false-positive rate on absent items, the
 * saturation count, and the filters' sizing by recursion (4.2). (Its errors never change a flow table's answer,
 * only its cost, so the flow table's tests alone cannot see most of them.)
 */
class TypeSummaryTest {

    private static final TableLayout LAYOUT = TableLayout.of(2, 0, 10_000, 5_000, 2_500, 1_000);

    private static long[] items(int n, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        long[] h1 = new long[n];
        for (int i = 0; i < n; i++) {
            h1[i] = random.nextLong();
        }
        return h1;
    }

    private static int level(TypeSummary s, long h1) {
        return s.level(h1, ItemHasher.h2(h1));
    }

    @Test
    void anItemAddedToSubTableJIsNamedJAndAbsentItemsRarelyAnything() {
        TypeSummary s = new TypeSummary(LAYOUT, 20_000, 3);
        // B1..B3 are sized for about 14,700, 4,300 and 800 items (recursion (4.2) for 20,000): each holds fewer
        long[] present = items(8_000, 1);
        for (int i = 0; i < present.length; i++) {
            s.add(present[i], ItemHasher.h2(present[i]), 0, levelOf(i));
        }
        for (int i = 0; i < present.length; i++) {
            // a wrong level needs a false positive of a deep filter (10^-9 each): none in 8,000
            assertThat(level(s, present[i])).as("item %d", i).isEqualTo(levelOf(i));
        }
        // B0 is sized for 20,000 items at 0.6% and holds 8,000: its false-positive rate is below 0.6%;
        // over 20,000 absent items the count is ≤ 120 expected, ≤ 200 is > 7 standard deviations above it
        int falsePositives = 0;
        for (long h1 : items(20_000, 2)) {
            if (level(s, h1) >= 0) {
                falsePositives++;
            }
        }
        assertThat(falsePositives).isLessThanOrEqualTo(200);
    }

    /** 400 items in sub-table 3, 1,000 in 2, 2,000 in 1, the rest in 0. */
    private static int levelOf(int i) {
        return i < 400 ? 3 : i < 1_400 ? 2 : i < 3_400 ? 1 : 0;
    }

    @Test
    void removingAnItemForgetsItInEveryFilterOfItsLevel() {
        TypeSummary s = new TypeSummary(LAYOUT, 20_000, 3);
        long[] h = items(300, 4);
        for (int i = 0; i < h.length; i++) {
            s.add(h[i], ItemHasher.h2(h[i]), 0, 1 + i % 3);
        }
        for (int i = 0; i < h.length; i += 2) {
            s.remove(h[i], ItemHasher.h2(h[i]), 1 + i % 3);
        }
        for (int i = 0; i < h.length; i++) {
            assertThat(level(s, h[i])).as("item %d", i).isEqualTo(i % 2 == 0 ? -1 : 1 + i % 3);
        }
        // added again at level 0, a removed item is at level 0: none of B1..B3 kept it
        for (int i = 0; i < h.length; i += 2) {
            s.add(h[i], ItemHasher.h2(h[i]), 0, 0);
            assertThat(level(s, h[i])).as("item %d", i).isZero();
        }
    }

    @Test
    void aMovedItemIsNamedAtItsNewLevelEitherWay() {
        TypeSummary s = new TypeSummary(LAYOUT, 20_000, 3);
        long[] h = items(100, 5);
        for (long h1 : h) {
            long h2 = ItemHasher.h2(h1);
            s.add(h1, h2, 0, 0);
            s.moved(h1, h2, 0, 3);
            assertThat(level(s, h1)).isEqualTo(3);
            s.moved(h1, h2, 3, 1);
            assertThat(level(s, h1)).isEqualTo(1);
            s.moved(h1, h2, 1, 1);
            assertThat(level(s, h1)).isEqualTo(1);
            s.moved(h1, h2, 1, 0);
            assertThat(level(s, h1)).isZero();
            s.moved(h1, h2, 0, 2);
            assertThat(level(s, h1)).isEqualTo(2);
        }
        for (long h1 : h) {
            s.remove(h1, ItemHasher.h2(h1), 2);
        }
        // every filter is back to empty: nothing left behind by the moves
        assertThat(s.copy()).satisfies(c -> assertThat(c.saturatedCounters()).isZero());
        for (long h1 : h) {
            assertThat(level(s, h1)).isEqualTo(-1);
        }
    }

    @Test
    void clearEmptiesEveryFilterAndSaturationIsCounted() {
        TypeSummary s = new TypeSummary(LAYOUT, 20_000, 3);
        assertThat(s.saturatedCounters()).isZero();
        long h1 = 0x1234_5678_9ABC_DEF0L;
        for (int i = 0; i < 16; i++) {
            s.add(h1, ItemHasher.h2(h1), 0, 3); // 4-bit counters stop at 15
        }
        assertThat(s.saturatedCounters()).isPositive();
        assertThat(level(s, h1)).isEqualTo(3);
        s.clear();
        assertThat(level(s, h1)).isEqualTo(-1);
        assertThat(s.saturatedCounters()).isZero();
    }

    /**
     * B0 for all n items at 0.6%, B_j (j ≥ 1) for twice the items expected right of sub-table j − 1 (at least 64)
     * at 10^-9, where r_0 = n and r_j = r_{j−1} − s_j [1 − (1 − 1/s_j)^{r_{j−1}}] with s_j the slots of sub-table j
     * (research notes, multilevel-hash-tables §3.1, recursion (4.2)).
     */
    @Test
    void theFiltersAreSizedByTheRecursionOfTheExpectedItems() {
        long n = 15_000;
        long expected = filterBytes(CountingBloomFilter.create(n, TypeSummary.FIRST_FPP, 3));
        double r = n;
        for (int j = 1; j < LAYOUT.levels(); j++) {
            double slots = 2.0 * LAYOUT.buckets(j - 1);
            r = r - slots * (1 - Math.pow(1 - 1 / slots, r));
            expected += filterBytes(CountingBloomFilter.create(Math.max(64, (long) Math.ceil(2 * r)),
                    TypeSummary.DEEP_FPP, 3));
        }
        assertThat(new TypeSummary(LAYOUT, n, 3).memoryBytes()).isEqualTo(expected);
    }

    private static long filterBytes(CountingBloomFilter f) {
        return f.memoryBytes() + 2L * f.hashCount() * Long.BYTES;
    }
}
