package io.linerate.sketches.frequency;

/**
 * The distinct items of several trackers' sets, for their merge or union ({@link SpaceSaving#union(java.util.List)},
 * {@link CountMinHeap#union(java.util.List)}, and the merge of two): keys in fixed-width runs of longs in first-seen
 * order, each with its hash, behind an open-addressing index (linear probing, at most {@link MonitoredItems#MAX_LOAD}
 * full). Sized once for the sum of the sets' sizes; nothing is removed. (Index entries packing 32 bits of the hash beside the position,
 * so that a probe meeting another key need not read it, made a union of 60 trackers slower: a table twice the size.)
 */
final class CombinedItems {

    /**
     * The most items a union takes at once (trackers holding more are united in groups): temporary arrays of about
     * 90 bytes per item for {@code long} keys and 120 for 5-tuples (keys, hashes, bounds, index, ranking), so about
     * 45–60 MB at most, where a window of 1,024 sub-windows of 100,000 counters would take 9 GB at once. 2^19 items
     * are 320 Space-Saving trackers of 64 KiB.
     */
    static final int MAX_ENTRIES = 1 << 19;

    final int width;
    final long[] keys;
    final long[] hashes;
    int size;
    /** Per entry: the key's position + 1 (0: empty). */
    private final int[] index;
    private final int mask;

    CombinedItems(int width, int maxItems) {
        this.width = width;
        this.keys = new long[maxItems * width];
        this.hashes = new long[maxItems];
        int tableSize = MonitoredItems.tableSize(Math.max(1, maxItems));
        this.index = new int[tableSize];
        this.mask = tableSize - 1;
    }

    /**
     * The position of the key {@code from[offset .. offset + width)} with hash {@code h1}; a key not seen before
     * is appended, and its position p returned as {@code -p - 1}.
     */
    int addOrFind(long[] from, int offset, long h1) {
        int i = MonitoredItems.home(h1) & mask;
        for (; ; i = (i + 1) & mask) {
            int e = index[i];
            if (e == 0) {
                int p = size++;
                MonitoredItems.copyKey(from, offset, keys, p * width, width);
                hashes[p] = h1;
                index[i] = p + 1;
                return -p - 1;
            }
            if (sameKey(e - 1, from, offset)) {
                return e - 1;
            }
        }
    }

    private boolean sameKey(int p, long[] from, int offset) {
        int base = p * width;
        for (int j = 0; j < width; j++) {
            if (keys[base + j] != from[offset + j]) {
                return false;
            }
        }
        return true;
    }
}
