package io.linerate.sketches.flowtable;

import io.linerate.sketches.bloom.CountingBloomFilter;
import io.linerate.sketches.hash.DoubleHashing;
import io.linerate.sketches.hash.ItemHasher;

/**
 * The multiple-Bloom-filter summary of thesis §4.7.2 with counting filters (§4.10.2), so a lookup reads
 * one bucket: filter B<sub>0</sub> holds every item in the sub-tables, B<sub>j</sub> (j ≥ 1) every item in
 * sub-table j or further right (0-based). An item's sub-table is the largest j whose filters
 * B<sub>0</sub>..B<sub>j</sub> all contain it; absent from B<sub>0</sub> means not in any sub-table.
 *
 * <p>Errors (counted by the owner): a <em>false positive</em> sends a lookup for an absent item to one
 * wasted bucket; a <em>failure</em> sends a present item to the wrong sub-table (a false positive of
 * B<sub>j</sub> on an item of sub-table j). The flow table then falls back to reading all d buckets, so
 * neither error changes an answer, only its cost.
 *
 * <p>Sizing (§4.8's design rule, in expected items; n is capped at the sub-tables' slots, which bound what
 * the filters can ever hold): B<sub>0</sub> for all n items at the thesis's
 * 0.6% false-positive rate; B<sub>j</sub> for twice the items expected right of sub-table j−1 by the
 * recursion (4.2) (at least 64) at 10<sup>−9</sup>, since its errors are failures. The filters' hash values
 * are derived from the item's 128-bit value by a mixer of their own, independent of the sub-table indexes
 * (§4.4: summary and table hashes are separate). Counting filters have 4-bit saturating counters.
 */
final class TypeSummary {

    static final double FIRST_FPP = 0.006;
    static final double DEEP_FPP = 1e-9;
    private static final long SALT = 0x3C6EF372FE94F82BL;

    private final CountingBloomFilter[] filters;

    /**
     * @param items the flows the table is sized for; the filters are sized for at most the sub-tables' slots,
     *     since no more items can ever be in them (with explicit bucket counts, or from a hostile image, the
     *     capacity can be far larger than the table)
     */
    TypeSummary(TableLayout layout, long items, long seed) {
        items = Math.min(items, layout.tableSlots());
        int d = layout.levels();
        filters = new CountingBloomFilter[d];
        filters[0] = CountingBloomFilter.create(Math.max(1, items), FIRST_FPP, seed);
        double remaining = items;
        for (int j = 1; j < d; j++) {
            double slots = (double) layout.buckets(j - 1) * layout.bucketCapacity();
            // at least 0: a one-slot sub-table takes a whole item however few are left, and a negative remainder
            // made pow(0, remaining) infinite at the next one-slot sub-table (expected items Long.MAX_VALUE)
            remaining = Math.max(0, remaining - slots * (1 - StrictMath.pow(1 - 1 / slots, remaining)));
            long expected = Math.max(64, (long) Math.ceil(2 * Math.max(0, remaining)));
            filters[j] = CountingBloomFilter.create(expected, DEEP_FPP, seed);
        }
    }

    private TypeSummary(TypeSummary other) {
        filters = new CountingBloomFilter[other.filters.length];
        for (int j = 0; j < filters.length; j++) {
            filters[j] = other.filters[j].copy();
        }
    }

    /** An independent copy of the filters. */
    TypeSummary copy() {
        return new TypeSummary(this);
    }

    private static long s1(long h1, long h2) {
        return DoubleHashing.mix(h2 ^ SALT) ^ h1;
    }

    /** Adds the item to B<sub>from</sub>..B<sub>to</sub>. */
    void add(long h1, long h2, int from, int to) {
        long a = s1(h1, h2);
        long b = ItemHasher.h2(a);
        for (int j = from; j <= to; j++) {
            filters[j].put(a, b);
        }
    }

    /** Removes the item of sub-table {@code level} from B<sub>0</sub>..B<sub>level</sub>. */
    void remove(long h1, long h2, int level) {
        long a = s1(h1, h2);
        long b = ItemHasher.h2(a);
        for (int j = 0; j <= level; j++) {
            filters[j].remove(a, b);
        }
    }

    void moved(long h1, long h2, int from, int to) {
        if (to > from) {
            add(h1, h2, from + 1, to);
        } else if (to < from) {
            long a = s1(h1, h2);
            long b = ItemHasher.h2(a);
            for (int j = to + 1; j <= from; j++) {
                filters[j].remove(a, b);
            }
        }
    }

    /** The sub-table the summary names for the item, or −1 if B<sub>0</sub> says it is in none. */
    int level(long h1, long h2) {
        long a = s1(h1, h2);
        long b = ItemHasher.h2(a);
        if (!filters[0].mightContain(a, b)) {
            return -1;
        }
        int level = 0;
        while (level + 1 < filters.length && filters[level + 1].mightContain(a, b)) {
            level++;
        }
        return level;
    }

    void clear() {
        for (int j = 0; j < filters.length; j++) {
            filters[j] = CountingBloomFilter.withCounters(filters[j].bitSize(), filters[j].hashCount(),
                    filters[j].counterBits(), filters[j].hasher().seed());
        }
    }

    /** Counters that reached their maximum and froze (they never decrement again). */
    long saturatedCounters() {
        long n = 0;
        for (CountingBloomFilter f : filters) {
            n += f.saturatedCounters();
        }
        return n;
    }

    long memoryBytes() {
        long n = 0;
        for (CountingBloomFilter f : filters) {
            // the counters, and the k probe offsets and k scratch indexes each filter holds
            n += f.memoryBytes() + 2L * f.hashCount() * Long.BYTES;
        }
        return n;
    }
}
