package io.linerate.benchmarks.frequency;

import io.linerate.sketches.hash.ItemHasher;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A feasibility prototype, not product code: the Misra–Gries summary with batched decrements ("reverse purge"),
 * the algorithm of DataSketches' {@code LongsSketch} (Anderson et al., "A high-performance algorithm for
 * identifying frequent items in data streams", 2017), written the way a linerate tracker would be: the item's
 * seeded XXH3 value (the one hash per item every linerate structure derives from), keys and counts in two
 * primitive arrays with linear probing, no per-item objects. It exists to measure whether such a tracker could
 * reach issue 3's target for heavy hitters (1.5× {@code LongsSketch}'s update throughput at the same memory) before
 * anyone decides to add one (the decision asked of the CEO); see BENCHMARKS.md, "A purge-based tracker, measured".
 *
 * <p>Guarantee (as {@code LongsSketch}): every purge subtracts the same amount from every tracked item, so for every
 * item {@code count ≤ true weight ≤ count + offset} (count 0 if untracked, offset the sum of the amounts). When the
 * sample holds every item (at most {@value #SAMPLE} of them, i.e. up to 1,024 slots) the amount is their median,
 * so each purge removes it from at least half of them and {@code offset ≤ N / (maxItems / 2 + 1)}; in larger
 * tables the median of the first {@value #SAMPLE} items only approximates that.
 */
final class PurgeTrackerPrototype {

    private static final int SAMPLE = 1024;

    private final ItemHasher hasher;
    private final long[] keys;
    private final long[] counts; // 0 marks an empty slot (weights are positive)
    private final int mask;
    private final int shift;
    private final int maxItems;
    private final long[] sample = new long[SAMPLE];
    private final long[] survivorKeys;
    private final long[] survivorCounts;
    private int size;
    private long offset;
    private long totalWeight;

    /** @param slots a power of two; at most 3/4 of them hold items */
    PurgeTrackerPrototype(int slots, long seed) {
        if (Integer.bitCount(slots) != 1 || slots < 16) {
            throw new IllegalArgumentException("slots must be a power of two ≥ 16, got " + slots);
        }
        this.hasher = ItemHasher.seeded(seed);
        this.keys = new long[slots];
        this.counts = new long[slots];
        this.mask = slots - 1;
        this.shift = 64 - Integer.numberOfTrailingZeros(slots);
        this.maxItems = slots / 4 * 3;
        this.survivorKeys = new long[maxItems + 1];
        this.survivorCounts = new long[maxItems + 1];
    }

    long memoryBytes() {
        return 16L * keys.length;
    }

    void update(long key, long weight) {
        if (weight <= 0) { // a count of 0 marks an empty slot
            throw new IllegalArgumentException("weight must be positive, got " + weight);
        }
        totalWeight += weight;
        int i = (int) (hasher.hash(key) >>> shift);
        while (true) {
            long c = counts[i];
            if (c == 0) {
                keys[i] = key;
                counts[i] = weight;
                if (++size > maxItems) {
                    purge();
                }
                return;
            }
            if (keys[i] == key) {
                counts[i] = c + weight;
                return;
            }
            i = (i + 1) & mask;
        }
    }

    /** The item's count (0 if untracked): a lower bound of its weight; count + {@link #offset()} an upper one. */
    long count(long key) {
        for (int i = (int) (hasher.hash(key) >>> shift); counts[i] != 0; i = (i + 1) & mask) {
            if (keys[i] == key) {
                return counts[i];
            }
        }
        return 0;
    }

    /** Subtracts the median of a sample of the counts from every count, drops the items at or below it. */
    private void purge() {
        int n = 0;
        for (int i = 0; i <= mask && n < SAMPLE; i++) {
            if (counts[i] != 0) {
                sample[n++] = counts[i];
            }
        }
        long median = select(sample, n, n / 2);
        offset += median;
        int kept = 0;
        for (int i = 0; i <= mask; i++) {
            long c = counts[i] - median;
            if (counts[i] != 0 && c > 0) {
                survivorKeys[kept] = keys[i];
                survivorCounts[kept++] = c;
            }
        }
        Arrays.fill(counts, 0);
        for (int s = 0; s < kept; s++) {
            int i = (int) (hasher.hash(survivorKeys[s]) >>> shift);
            while (counts[i] != 0) {
                i = (i + 1) & mask;
            }
            keys[i] = survivorKeys[s];
            counts[i] = survivorCounts[s];
        }
        size = kept;
    }

    /** The k-th smallest of {@code a[0, n)} (Hoare's quickselect; reorders a). */
    static long select(long[] a, int n, int k) {
        int lo = 0;
        int hi = n - 1;
        while (lo < hi) {
            long pivot = a[(lo + hi) >>> 1];
            int i = lo;
            int j = hi;
            while (i <= j) {
                while (a[i] < pivot) {
                    i++;
                }
                while (a[j] > pivot) {
                    j--;
                }
                if (i <= j) {
                    long t = a[i];
                    a[i++] = a[j];
                    a[j--] = t;
                }
            }
            if (k <= j) {
                hi = j;
            } else if (k >= i) {
                lo = i;
            } else {
                return a[k];
            }
        }
        return a[k];
    }

    /** The k items with the largest counts, (key, count + offset) like LongsSketch's upper-bound estimate. */
    List<long[]> top(int k) {
        List<long[]> all = new ArrayList<>();
        for (int i = 0; i <= mask; i++) {
            if (counts[i] != 0) {
                all.add(new long[] {keys[i], counts[i] + offset});
            }
        }
        all.sort((a, b) -> Long.compare(b[1], a[1]));
        return all.subList(0, Math.min(k, all.size()));
    }

    long offset() {
        return offset;
    }

    long totalWeight() {
        return totalWeight;
    }
}
