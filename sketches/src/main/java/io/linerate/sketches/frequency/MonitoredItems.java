package io.linerate.sketches.frequency;

import io.linerate.sketches.hash.ItemHasher;

/**
 * A fixed set of at most {@code capacity} items with a count each, in primitive arrays: keys in fixed-width
 * runs of longs, an open-addressing index from the item's hash to its slot (linear probing, at most half
 * full, backward-shift deletion), and an indexed binary min-heap on the counts so the lightest item is
 * found in O(1) and replaced in O(log capacity). No object per item; memory fixed at construction.
 */
final class MonitoredItems {

    /** Index table load factor at full capacity. */
    static final double MAX_LOAD = 0.7;

    final KeyKind kind;
    final int width;
    final int capacity;
    final long[] keys;
    private final ItemHasher hasher;
    private final byte[] scratchBytes;
    final long[] counts;
    final long[] errors;
    private final int[] heap;
    private final int[] pos;
    private final int[] index;
    private final int mask;
    /** The key of the item being updated, encoded like {@link #keys}. */
    final long[] probe;
    int size;

    MonitoredItems(KeyKind kind, int capacity, boolean withErrors, ItemHasher hasher) {
        this.kind = kind;
        this.width = kind.width();
        this.capacity = capacity;
        this.hasher = hasher;
        if ((long) capacity * width > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("capacity " + capacity + " x key width " + width + " longs is "
                    + (long) capacity * width + " longs, above the array limit of " + (Integer.MAX_VALUE - 8));
        }
        this.keys = new long[capacity * width];
        this.scratchBytes = kind.type() == KeyKind.Type.BYTES ? new byte[kind.maxBytes()] : null;
        this.counts = new long[capacity];
        this.errors = withErrors ? new long[capacity] : null;
        this.heap = new int[capacity];
        this.pos = new int[capacity];
        int tableSize = tableSize(capacity);
        this.index = new int[tableSize];
        this.mask = tableSize - 1;
        this.probe = new long[width];
    }

    /** The smallest power of two that keeps the index at most {@link #MAX_LOAD} full. */
    static int tableSize(int capacity) {
        int min = (int) Math.ceil(capacity / MAX_LOAD) + 1;
        return Integer.highestOneBit(Math.max(2, min - 1)) << 1;
    }

    /** Bytes of the arrays of a set of this capacity: the exact value of {@link #memoryBytes()}. */
    static long bytesFor(KeyKind kind, int capacity, boolean withErrors) {
        long perItem = 8L * kind.width() + 8 + (withErrors ? 8 : 0) + 4 + 4;
        return perItem * capacity + 4L * tableSize(capacity) + 8L * kind.width()
                + (kind.type() == KeyKind.Type.BYTES ? kind.maxBytes() : 0);
    }

    long memoryBytes() {
        return bytesFor(kind, capacity, errors != null);
    }

    /** h1 of the key in slot {@code s}, as the hasher computes it for the original item; no allocation. */
    long keyHash(int s) {
        return kind.hash(hasher, keys, s * width, scratchBytes);
    }

    private static int home(long h1) {
        return (int) ((h1 ^ (h1 >>> 31)) * 0x9E3779B97F4A7C15L >>> 33);
    }

    private boolean keyAt(int slot) {
        int base = slot * width;
        for (int i = 0; i < width; i++) {
            if (keys[base + i] != probe[i]) {
                return false;
            }
        }
        return true;
    }

    /** The slot holding the item in {@link #probe} with hash {@code h1}, or −1. */
    int find(long h1) {
        for (int i = home(h1) & mask; ; i = (i + 1) & mask) {
            int e = index[i];
            if (e == 0) {
                return -1;
            }
            int s = e - 1;
            if (keyAt(s)) {
                return s;
            }
        }
    }

    /** The slot of the item whose key is {@code key} (width longs) and hash {@code h1}, or −1. */
    int findKey(long h1, long[] key) {
        System.arraycopy(key, 0, probe, 0, width);
        return find(h1);
    }

    /** Replaces this set's content with {@code other}'s (same kind and capacity). */
    void copyFrom(MonitoredItems other) {
        System.arraycopy(other.keys, 0, keys, 0, keys.length);
        System.arraycopy(other.counts, 0, counts, 0, counts.length);
        if (errors != null) {
            System.arraycopy(other.errors, 0, errors, 0, errors.length);
        }
        System.arraycopy(other.heap, 0, heap, 0, heap.length);
        System.arraycopy(other.pos, 0, pos, 0, pos.length);
        System.arraycopy(other.index, 0, index, 0, index.length);
        size = other.size;
    }

    /**
     * The slot at each heap position, for byte images: a reader that restores it ({@link #restoreHeap}) gets
     * the same heap, so ties at the minimum are broken the same way after a restore as before it — what a
     * restored Flink job needs to produce the same output as an uninterrupted one.
     */
    int[] heapOrder() {
        return java.util.Arrays.copyOf(heap, size);
    }

    /**
     * Replaces the heap built by {@link #add} with {@code order} (from {@link #heapOrder}), after checking
     * that it is a permutation of the slots [0, size) that satisfies the min-heap property on the counts.
     */
    void restoreHeap(int[] order) {
        if (order.length != size) {
            throw new IllegalArgumentException("image corrupt: heap order has " + order.length + " entries for "
                    + size + " items");
        }
        boolean[] seen = new boolean[size];
        for (int i = 0; i < size; i++) {
            int s = order[i];
            if (s < 0 || s >= size || seen[s]) {
                throw new IllegalArgumentException("image corrupt: heap order entry " + i + " is " + s
                        + ", not an unused slot in [0, " + size + ")");
            }
            seen[s] = true;
            if (i > 0 && counts[order[(i - 1) / 2]] > counts[s]) {
                throw new IllegalArgumentException("image corrupt: heap order entry " + i
                        + " is lighter than its parent");
            }
        }
        for (int i = 0; i < size; i++) {
            heap[i] = order[i];
            pos[order[i]] = i;
        }
    }

    /** The lightest item's slot (size &gt; 0). */
    int minSlot() {
        return heap[0];
    }

    long minCount() {
        return size == 0 ? 0 : counts[heap[0]];
    }

    /** Adds the item in {@link #probe} with the given count; the caller checks size &lt; capacity. */
    int add(long h1, long count, long error) {
        int s = size++;
        store(s, h1, count, error);
        heap[s] = s;
        pos[s] = s;
        siftUp(s);
        indexInsert(s, h1);
        return s;
    }

    /**
     * Replaces the lightest item by the item in {@link #probe}. When the last heap leaf is as light as the
     * root (common: stream tails leave many items at the minimum), the leaf moves to the root and the new
     * item starts at the leaf, so the common case costs O(1) instead of a sift from the root.
     */
    int replaceMin(long h1, long count, long error) {
        int s = heap[0];
        indexRemove(s, keyHash(s));
        long min = counts[s];
        store(s, h1, count, error);
        int last = heap[size - 1];
        if (size > 1 && counts[last] == min) {
            heap[0] = last;
            pos[last] = 0;
            heap[size - 1] = s;
            pos[s] = size - 1;
            siftUp(size - 1);
        } else {
            siftDown(0);
        }
        indexInsert(s, h1);
        return s;
    }

    /** Sets slot {@code s}'s count to a larger value. */
    void increase(int s, long count) {
        counts[s] = count;
        siftDown(pos[s]);
    }

    private void store(int s, long h1, long count, long error) {
        System.arraycopy(probe, 0, keys, s * width, width);
        counts[s] = count;
        if (errors != null) {
            errors[s] = error;
        }
    }

    private void siftUp(int i) {
        int s = heap[i];
        long c = counts[s];
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            int ps = heap[parent];
            if (counts[ps] <= c) {
                break;
            }
            heap[i] = ps;
            pos[ps] = i;
            i = parent;
        }
        heap[i] = s;
        pos[s] = i;
    }

    private void siftDown(int i) {
        int s = heap[i];
        long c = counts[s];
        int half = size >>> 1;
        while (i < half) {
            int child = 2 * i + 1;
            int cs = heap[child];
            int right = child + 1;
            if (right < size && counts[heap[right]] < counts[cs]) {
                child = right;
                cs = heap[right];
            }
            if (c <= counts[cs]) {
                break;
            }
            heap[i] = cs;
            pos[cs] = i;
            i = child;
        }
        heap[i] = s;
        pos[s] = i;
    }

    private void indexInsert(int s, long h1) {
        int i = home(h1) & mask;
        while (index[i] != 0) {
            i = (i + 1) & mask;
        }
        index[i] = s + 1;
    }

    private void indexRemove(int s, long h1) {
        int i = home(h1) & mask;
        while (index[i] != s + 1) {
            i = (i + 1) & mask;
        }
        // backward-shift deletion keeps every probe sequence unbroken without tombstones
        int j = i;
        while (true) {
            j = (j + 1) & mask;
            int e = index[j];
            if (e == 0) {
                break;
            }
            int k = home(keyHash(e - 1)) & mask;
            boolean movable = i <= j ? (k <= i || k > j) : (k <= i && k > j);
            if (movable) {
                index[i] = e;
                i = j;
            }
        }
        index[i] = 0;
    }

    /**
     * Slots ordered by guaranteed weight (count − error), then by count, heaviest first: an item that just
     * displaced another carries the other's count as error and ranks by what it has certainly seen.
     */
    int[] slotsByCountDescending() {
        Integer[] order = new Integer[size];
        for (int i = 0; i < size; i++) {
            order[i] = i;
        }
        java.util.Arrays.sort(order, (a, b) -> {
            long la = counts[a] - (errors != null ? errors[a] : 0);
            long lb = counts[b] - (errors != null ? errors[b] : 0);
            return la != lb ? Long.compare(lb, la) : Long.compare(counts[b], counts[a]);
        });
        int[] out = new int[size];
        for (int i = 0; i < size; i++) {
            out[i] = order[i];
        }
        return out;
    }
}
