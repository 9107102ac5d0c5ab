package io.linerate.sketches.frequency;

/**
 * Rankings of ints (slots, indexes) without boxing: the first k of n in a given total order, through a heap of k,
 * in O(n · log k). The trackers' {@code topK} and {@code heavyHitters} rank their slots with it
 * ({@link MonitoredItems#topSlots}), and their merges rank the combined items by a {@code long} key
 * ({@link #largest}); before, each sorted every index, boxed, with a comparator.
 */
final class Ranking {

    /** Bits of an index in a packed (key, index) pair; keys below 2^(63 − INDEX_BITS) fit beside it. */
    private static final int INDEX_BITS = 26;
    private static final long MAX_PACKED_KEY = (1L << (63 - INDEX_BITS)) - 1;

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
     * The indexes of the {@code k} largest of {@code keys[0..n)} (all n if k ≥ n), largest first, the lower index
     * first among equal keys: what a stable sort of the indexes by descending key gives, cut to its first k.
     */
    static int[] largest(long[] keys, int n, int k) {
        int size = Math.min(k, n);
        if (size > 0 && n <= 1 << INDEX_BITS && allPacked(keys, n)) {
            return bySortedPairs(keys, n, size);
        }
        return first(null, n, size, (a, b) -> keys[a] != keys[b] ? keys[a] > keys[b] : a < b);
    }

    private static boolean allPacked(long[] keys, int n) {
        for (int i = 0; i < n; i++) {
            if (keys[i] < 0 || keys[i] > MAX_PACKED_KEY) {
                return false;
            }
        }
        return true;
    }

    /**
     * The common case of {@link #largest}, every key in [0, 2^37) (weights up to 137·10^9): each (key, index)
     * packed in one non-negative {@code long} that orders as the ranking does, (MAX − key) above the index, and
     * sorted as primitives, which the merges measured faster than the heap.
     */
    private static int[] bySortedPairs(long[] keys, int n, int size) {
        long[] pairs = new long[n];
        for (int i = 0; i < n; i++) {
            pairs[i] = (MAX_PACKED_KEY - keys[i]) << INDEX_BITS | i;
        }
        java.util.Arrays.sort(pairs);
        int[] out = new int[size];
        long mask = (1L << INDEX_BITS) - 1;
        for (int r = 0; r < size; r++) {
            out[r] = (int) (pairs[r] & mask);
        }
        return out;
    }

    /** The largest key among the indexes of [0, n) not in {@code chosen}, or {@code Long.MIN_VALUE} if none. */
    static long largestLeftOut(long[] keys, int n, int[] chosen) {
        boolean[] in = new boolean[n];
        for (int i : chosen) {
            in[i] = true;
        }
        long max = Long.MIN_VALUE;
        for (int i = 0; i < n; i++) {
            if (!in[i]) {
                max = Math.max(max, keys[i]);
            }
        }
        return max;
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
