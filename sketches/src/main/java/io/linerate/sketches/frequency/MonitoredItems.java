package io.linerate.sketches.frequency;

import io.linerate.sketches.hash.ItemHasher;
import java.util.Arrays;

/**
 * A set of at most {@code capacity} items with a count each, in primitive arrays: keys in fixed-width runs of
 * longs, an open-addressing index from the item's hash to its slot (linear probing, at most {@link #MAX_LOAD}
 * full, backward-shift deletion), and an indexed binary min-heap on the counts so the lightest item is found in
 * O(1) and replaced in O(log capacity). No object per item.
 *
 * <p><b>Allocated slots.</b> The arrays hold {@link #allocated()} slots, at most {@code capacity}, sized by
 * {@link #forEntries}. A set for a new tracker is asked for its whole capacity: it allocates it at construction
 * and never again, so its memory is fixed, and adding a new item costs one extra int compare (replacing the
 * lightest item, the steady state of a full set, costs nothing extra). A set read from a byte image allocates only
 * for the items it is given and half as many again (at least {@link #INITIAL_SLOTS}, at most the capacity), a merge
 * keeps its set's arrays or allocates exactly the items it keeps ({@link #clearFor}), and either grows as new items
 * arrive: the slot arrays double, capped at the capacity, and the index is
 * rebuilt at the size for the new slot count (slots keep their numbers, each slot's hash is recomputed with
 * {@link #keyHash}), until the capacity is reached. Why: an image holds only the monitored entries while its
 * capacity field may declare up to {@link SpaceSaving#MAX_CAPACITY} counters, so allocating the capacity on read
 * would let an image of a few dozen bytes claim gigabytes; sized by its entries, every allocation on read is
 * bounded by a fixed amount plus a multiple of the image's length. Results, tie-breaking and images do not depend
 * on the number of allocated slots: slot numbers, heap positions and counts are the same either way.
 */
final class MonitoredItems {

    /** Index table load factor when every allocated slot is used. */
    static final double MAX_LOAD = 0.7;
    /**
     * Slots a set read from an image or built by a merge allocates at least (fewer if its capacity is smaller),
     * so a nearly empty read tracker does not regrow after every few new items.
     */
    static final int INITIAL_SLOTS = 64;

    final KeyKind kind;
    final int width;
    final int capacity;
    /** Keys of the allocated slots, {@code width} longs each; replaced when the set grows. */
    long[] keys;
    private final ItemHasher hasher;
    private final byte[] scratchBytes;
    /** Counts of the allocated slots (its length is the number of allocated slots); replaced when the set grows. */
    long[] counts;
    /** Errors of the allocated slots, or {@code null}; replaced when the set grows. */
    long[] errors;
    private int[] heap;
    private int[] pos;
    private int[] index;
    private int mask;
    /** The key of the item being updated, encoded like {@link #keys}. */
    final long[] probe;
    int size;

    private MonitoredItems(KeyKind kind, int capacity, boolean withErrors, ItemHasher hasher, int slots) {
        this.kind = kind;
        this.width = kind.width();
        this.capacity = capacity;
        this.hasher = hasher;
        // checked against the capacity, not the slots allocated now: the set must be able to grow to it
        if ((long) capacity * width > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("capacity " + capacity + " x key width " + width + " longs is "
                    + (long) capacity * width + " longs, above the array limit of " + (Integer.MAX_VALUE - 8));
        }
        this.scratchBytes = kind.type() == KeyKind.Type.BYTES ? new byte[kind.maxBytes()] : null;
        this.probe = new long[width];
        allocate(slots, withErrors);
    }

    /** An independent copy of {@code other}: the same allocated slots, keys, counts, errors, heap and index. */
    private MonitoredItems(MonitoredItems other) {
        this.kind = other.kind;
        this.width = other.width;
        this.capacity = other.capacity;
        this.hasher = other.hasher;
        this.scratchBytes = other.scratchBytes == null ? null : new byte[other.scratchBytes.length];
        this.probe = new long[width];
        this.keys = Arrays.copyOf(other.keys, other.keys.length);
        this.counts = Arrays.copyOf(other.counts, other.counts.length);
        this.errors = other.errors == null ? null : Arrays.copyOf(other.errors, other.errors.length);
        this.heap = Arrays.copyOf(other.heap, other.heap.length);
        this.pos = Arrays.copyOf(other.pos, other.pos.length);
        this.index = Arrays.copyOf(other.index, other.index.length);
        this.mask = other.mask;
        this.size = other.size;
    }

    /** An independent copy of this set, as allocated now (so with the same {@link #memoryBytes()}). */
    MonitoredItems copy() {
        return new MonitoredItems(this);
    }

    /**
     * A set of {@code capacity} items that allocates for {@code entries} of them and half as many again (at least
     * {@link #INITIAL_SLOTS}, at most {@code capacity}) and grows as more arrive: for sets read from an image,
     * whose allocation must be bounded by the image's length rather than by the capacity it declares. The headroom spares a tracker that is read and then takes a few new items (on
     * RocksDB, every access reads the state) a regrowth and rehash of all its keys each time.
     *
     * @param entries the items the caller is about to add, in [0, capacity]; {@code capacity} for a new tracker,
     *                which then has all its slots now and never allocates again
     */
    static MonitoredItems forEntries(KeyKind kind, int capacity, boolean withErrors, ItemHasher hasher,
                                     int entries) {
        if (capacity < 1 || entries < 0 || entries > capacity) {
            throw new IllegalArgumentException("entries must be in [0, capacity=" + capacity + "], got " + entries);
        }
        long slots = Math.max(entries + (long) entries / 2, INITIAL_SLOTS);
        return new MonitoredItems(kind, capacity, withErrors, hasher, (int) Math.min(capacity, slots));
    }

    /** Fresh, empty arrays for {@code slots} slots (their content is not kept). */
    private void allocate(int slots, boolean withErrors) {
        keys = new long[slots * width];
        counts = new long[slots];
        errors = withErrors ? new long[slots] : null;
        heap = new int[slots];
        pos = new int[slots];
        int tableSize = tableSize(slots);
        index = new int[tableSize];
        mask = tableSize - 1;
    }

    /** Slots allocated now: at most {@link #capacity}, and never fewer than {@link #size}. */
    int allocated() {
        return counts.length;
    }

    /**
     * Makes room for one more item when every allocated slot is used: doubles the slots (capped at the
     * capacity), keeping every slot's number, key, count, error and heap position, and rebuilds the index for
     * the new table size. Called only while {@code size < capacity}.
     */
    private void grow() {
        int slots = (int) Math.min(capacity, Math.max(1, 2L * counts.length));
        long[] oldKeys = keys;
        long[] oldCounts = counts;
        long[] oldErrors = errors;
        int[] oldHeap = heap;
        int[] oldPos = pos;
        allocate(slots, oldErrors != null);
        System.arraycopy(oldKeys, 0, keys, 0, size * width);
        System.arraycopy(oldCounts, 0, counts, 0, size);
        if (oldErrors != null) {
            System.arraycopy(oldErrors, 0, errors, 0, size);
        }
        System.arraycopy(oldHeap, 0, heap, 0, size);
        System.arraycopy(oldPos, 0, pos, 0, size);
        rebuildIndex();
    }

    /** Fills the (cleared) index with the slots [0, size), each by its key's hash. */
    private void rebuildIndex() {
        for (int s = 0; s < size; s++) {
            indexInsert(s, keyHash(s));
        }
    }

    /** The smallest power of two that keeps the index at most {@link #MAX_LOAD} full. */
    static int tableSize(int capacity) {
        int least = (int) Math.ceil(capacity / MAX_LOAD); // ≥ 2 for capacity ≥ 1
        // the smallest power of two ≥ least (highestOneBit(least) << 1 doubled it when least was one)
        return least <= 2 ? 2 : Integer.highestOneBit(least - 1) << 1;
    }

    /**
     * Bytes of the arrays of a set with {@code capacity} allocated slots: the exact value of {@link #memoryBytes()}
     * of a set of that capacity created with all of it allocated, and the most any set of that capacity holds.
     */
    static long bytesFor(KeyKind kind, int capacity, boolean withErrors) {
        long perItem = 8L * kind.width() + 8 + (withErrors ? 8 : 0) + 4 + 4;
        return perItem * capacity + 4L * tableSize(capacity) + 8L * kind.width()
                + (kind.type() == KeyKind.Type.BYTES ? kind.maxBytes() : 0);
    }

    /**
     * Bytes of the arrays allocated now (exact): {@code bytesFor(kind, allocated(), withErrors)}, which grows with
     * the set up to and never above {@code bytesFor(kind, capacity, withErrors)}.
     */
    long memoryBytes() {
        return bytesFor(kind, counts.length, errors != null);
    }

    /** h1 of the key in slot {@code s}, as the hasher computes it for the original item; no allocation. */
    long keyHash(int s) {
        return kind.hash(hasher, keys, s * width, scratchBytes);
    }

    static int home(long h1) {
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

    /**
     * Copies one key of {@code width} longs. A plain loop: for keys of one to five longs the JIT makes it a few
     * moves, where {@code System.arraycopy} paid its checks and call for every key (measured in the merges).
     */
    static void copyKey(long[] from, int fromIndex, long[] to, int toIndex, int width) {
        for (int i = 0; i < width; i++) {
            to[toIndex + i] = from[fromIndex + i];
        }
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
        copyKey(key, 0, probe, 0, width);
        return find(h1);
    }

    /**
     * Empties the set for the {@code entries} items a merge is about to {@link #add}: keeps its arrays when they
     * have room for them (so a set created with its whole capacity keeps it), otherwise allocates exactly
     * {@code entries} slots. The merges add their kept items straight into their own set this way; before, they
     * filled a temporary set and copied it over, allocating and copying every array once more.
     */
    void clearFor(int entries) {
        if (entries < 0 || entries > capacity) {
            throw new IllegalArgumentException("entries must be in [0, capacity=" + capacity + "], got " + entries);
        }
        if (entries > counts.length) {
            allocate(entries, errors != null);
        } else {
            Arrays.fill(index, 0);
        }
        size = 0;
    }

    /**
     * The slot at each heap position, for byte images: a reader that restores it ({@link #restoreHeap}) gets
     * the same heap, so ties at the minimum are broken the same way after a restore as before it — what a
     * restored Flink job needs to produce the same output as an uninterrupted one.
     */
    int[] heapOrder() {
        return Arrays.copyOf(heap, size);
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

    /**
     * Adds the item in {@link #probe} with the given count; the caller checks size &lt; capacity. Allocates
     * only in a set that has fewer slots than its capacity, when they are all used ({@link #grow}).
     */
    int add(long h1, long count, long error) {
        if (size == counts.length) {
            grow();
        }
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
        copyKey(probe, 0, keys, s * width, width);
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
     * Whether slot {@code a} ranks before slot {@code b}: the larger guaranteed weight (count − error) first, an
     * item that just displaced another carrying the other's count as error and ranking by what it has certainly
     * seen; then the larger count; then the lower slot, so that the order is total and every ranking deterministic.
     */
    private boolean ranksBefore(int a, int b) {
        long la = counts[a] - (errors != null ? errors[a] : 0);
        long lb = counts[b] - (errors != null ? errors[b] : 0);
        if (la != lb) {
            return la > lb;
        }
        return counts[a] != counts[b] ? counts[a] > counts[b] : a < b;
    }

    /**
     * The first {@code k} slots in rank order ({@link #ranksBefore}), all of them if k ≥ size: a selection over a
     * heap of k slots ({@link Ranking#first}); allocates only the k ints returned. (A sort of every slot, boxed for a
     * comparator, took about 0.3 ms at 4,096 slots for a top 10.)
     */
    int[] topSlots(int k) {
        return Ranking.first(null, size, Math.min(k, size), this::ranksBefore);
    }

    /** The slots whose count is at least {@code threshold}, in rank order ({@link #ranksBefore}). */
    int[] slotsWithCountAtLeast(long threshold) {
        int n = 0;
        for (int s = 0; s < size; s++) {
            n += counts[s] >= threshold ? 1 : 0;
        }
        int[] chosen = new int[n];
        for (int s = 0, i = 0; i < n; s++) {
            if (counts[s] >= threshold) {
                chosen[i++] = s;
            }
        }
        return Ranking.first(chosen, n, n, this::ranksBefore);
    }
}
