package io.linerate.sketches.frequency;

/**
 * The k largest of n {@code long} keys, by index, without boxing: what a stable sort of the indexes by descending
 * key gives (among equal keys the lower index first), cut to its first k, in O(n · log k). The trackers' merges
 * rank their combined items with it; a sort of every index, boxed for a comparator, took most of a merge's time.
 */
final class Ranking {

    private Ranking() {
    }

    /**
     * The indexes of the {@code k} largest of {@code keys[0..n)} (all n if k ≥ n), largest first, the lower index
     * first among equal keys. A binary heap holds the k best so far, the last-ranked at its root; an index that
     * ranks before the root replaces it; taking the root off k times then fills the result from its end.
     */
    static int[] largest(long[] keys, int n, int k) {
        int size = Math.min(k, n);
        if (size == 0) {
            return new int[0];
        }
        if (n <= 1 << INDEX_BITS && allPacked(keys, n)) {
            return bySortedPairs(keys, n, size);
        }
        int[] heap = new int[size];
        for (int i = 0; i < size; i++) {
            heap[i] = i;
            up(keys, heap, i);
        }
        for (int i = size; i < n; i++) {
            if (before(keys, i, heap[0])) {
                heap[0] = i;
                down(keys, heap, size);
            }
        }
        for (int end = size - 1; end > 0; end--) {
            int last = heap[0];
            heap[0] = heap[end];
            heap[end] = last;
            down(keys, heap, end);
        }
        return heap;
    }

    /** Bits of an index in a packed (key, index) pair; keys below 2^(63 − INDEX_BITS) fit beside it. */
    private static final int INDEX_BITS = 26;
    private static final long MAX_PACKED_KEY = (1L << (63 - INDEX_BITS)) - 1;

    private static boolean allPacked(long[] keys, int n) {
        for (int i = 0; i < n; i++) {
            if (keys[i] < 0 || keys[i] > MAX_PACKED_KEY) {
                return false;
            }
        }
        return true;
    }

    /**
     * The common case, every key in [0, 2^37) (weights up to 137·10^9): each (key, index) packed in one
     * non-negative {@code long} that orders as the ranking does, (MAX − key) above the index, and sorted as
     * primitives, several times faster than the heap, which serves the rest.
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

    private static boolean before(long[] keys, int a, int b) {
        return keys[a] != keys[b] ? keys[a] > keys[b] : a < b;
    }

    private static void up(long[] keys, int[] heap, int i) {
        int s = heap[i];
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            if (!before(keys, heap[parent], s)) {
                break;
            }
            heap[i] = heap[parent];
            i = parent;
        }
        heap[i] = s;
    }

    /** Restores the heap (every parent ranks after its children) below its root, within its first n entries. */
    private static void down(long[] keys, int[] heap, int n) {
        int i = 0;
        int s = heap[0];
        while (true) {
            int child = 2 * i + 1;
            if (child >= n) {
                break;
            }
            if (child + 1 < n && before(keys, heap[child], heap[child + 1])) {
                child++;
            }
            if (!before(keys, s, heap[child])) {
                break;
            }
            heap[i] = heap[child];
            i = child;
        }
        heap[i] = s;
    }
}
