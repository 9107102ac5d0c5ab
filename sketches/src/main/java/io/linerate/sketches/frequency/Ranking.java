package io.linerate.sketches.frequency;

/**
 * Rankings of ints (slots, indexes) without boxing: the first k of n in a given total order, through a heap of k,
 * in O(n · log k), for the trackers' {@code topK} and {@code heavyHitters} ({@link MonitoredItems#topSlots}); and
 * every index of n by a {@code long} key, for the merges ({@link #descending}), in a few linear passes. Before, each sorted
 * every index, boxed, with a comparator.
 */
final class Ranking {

    /** Most bits of the keys' distances sorted per pass of {@link #descending}: 2,048 buckets, 8 KiB of counts. */
    private static final int MAX_DIGIT_BITS = 11;

    private Ranking() {
    }

    /** A total order of ints: whether {@code a} ranks before {@code b} (for a ≠ b, exactly one of the two does). */
    interface Order {
        boolean before(int a, int b);
    }

    /**
     * The first {@code k} (k ≤ n) of {@code items[0..n)} in {@code order}, best first; item i is i itself when
     * {@code items} is null. A binary heap keeps the k best so far, the last-ranked of them at its root; each item
     * that ranks before the root replaces it. Taking the root off k times then fills the result from its end.
     */
    static int[] first(int[] items, int n, int k, Order order) {
        int[] heap = new int[k];
        if (k == 0) {
            return heap;
        }
        int filled = 0;
        for (int i = 0; i < n; i++) {
            int s = items == null ? i : items[i];
            if (filled < k) {
                heap[filled] = s;
                up(heap, filled++, order);
            } else if (order.before(s, heap[0])) {
                heap[0] = s;
                down(heap, k, order);
            }
        }
        for (int end = k - 1; end > 0; end--) {
            int last = heap[0];
            heap[0] = heap[end];
            heap[end] = last;
            down(heap, end, order);
        }
        return heap;
    }

    /**
     * Every index of {@code keys[0..n)}, largest key first, the lower index first among equal keys: what a stable
     * sort of the indexes by descending key gives. The merges take its first {@code capacity} entries as the items
     * they keep, and the key of the next entry as the largest one they leave out.
     *
     * <p>A stable least-significant-digit radix sort of the distances {@code max − key}: only as many passes as
     * the spread of the keys (max − min) needs at most {@link #MAX_DIGIT_BITS} bits each (two for the counts of a
     * window up to 2^22), the histograms of every pass counted in one read, a pass skipped where all its digits are
     * equal. Stability is what puts equal keys in index order. It replaced a sort of packed (key, index) pairs that
     * took about 40% of a Space-Saving union's time (JFR, 64 KiB trackers).
     */
    static int[] descending(long[] keys, int n) {
        int[] order = new int[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
        }
        if (n < 2) {
            return order;
        }
        long max = keys[0];
        long min = keys[0];
        for (int i = 1; i < n; i++) {
            max = Math.max(max, keys[i]);
            min = Math.min(min, keys[i]);
        }
        // max − key as an unsigned value: in [0, max − min] even where the subtraction wraps
        int bits = 64 - Long.numberOfLeadingZeros(max - min);
        if (bits == 0) {
            return order;
        }
        int passes = (bits + MAX_DIGIT_BITS - 1) / MAX_DIGIT_BITS;
        int digitBits = (bits + passes - 1) / passes;
        int radix = 1 << digitBits;
        long[] distance = new long[n];
        int[] next = new int[passes * radix];
        for (int i = 0; i < n; i++) {
            long d = max - keys[i];
            distance[i] = d;
            for (int p = 0; p < passes; p++) {
                next[p * radix + digit(d, p * digitBits, radix)]++;
            }
        }
        long[] sortedDistance = new long[n];
        int[] sorted = new int[n];
        for (int p = 0; p < passes; p++) {
            int base = p * radix;
            int shift = p * digitBits;
            if (next[base + digit(distance[0], shift, radix)] == n) {
                continue; // one digit for all: the order stays as it is
            }
            for (int d = base, start = 0; d < base + radix; d++) {
                int count = next[d];
                next[d] = start;
                start += count;
            }
            for (int i = 0; i < n; i++) {
                long d = distance[i];
                int to = next[base + digit(d, shift, radix)]++;
                sorted[to] = order[i];
                sortedDistance[to] = d;
            }
            int[] swapOrder = order;
            order = sorted;
            sorted = swapOrder;
            long[] swapDistance = distance;
            distance = sortedDistance;
            sortedDistance = swapDistance;
        }
        return order;
    }

    private static int digit(long distance, int shift, int radix) {
        return (int) (distance >>> shift) & (radix - 1);
    }

    /** Restores the heap (every parent ranks after its children) above position i. */
    private static void up(int[] heap, int i, Order order) {
        int s = heap[i];
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            if (!order.before(heap[parent], s)) {
                break;
            }
            heap[i] = heap[parent];
            i = parent;
        }
        heap[i] = s;
    }

    /** Restores the heap below its root, within its first n entries. */
    private static void down(int[] heap, int n, Order order) {
        int i = 0;
        int s = heap[0];
        while (true) {
            int child = 2 * i + 1;
            if (child >= n) {
                break;
            }
            if (child + 1 < n && order.before(heap[child], heap[child + 1])) {
                child++; // the right child ranks after the left: it is the one to compare
            }
            if (!order.before(s, heap[child])) {
                break;
            }
            heap[i] = heap[child];
            i = child;
        }
        heap[i] = s;
    }
}
