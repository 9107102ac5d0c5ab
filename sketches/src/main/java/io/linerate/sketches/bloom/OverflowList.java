package io.linerate.sketches.bloom;

import java.util.Arrays;

/**
 * The Balanced Bloom filter's overflow list: an exact set of 128-bit item hashes with a fixed capacity,
 * open addressing with linear probing over a power-of-two table at most 3/4 full. Plays the part of the
 * paper's CAM; its memory is allocated once, so it can never grow past its bound.
 */
final class OverflowList {

    private final int capacity;
    private final long[] slots; // pairs (h1, h2); (0, 0) marks an empty slot
    private final int mask;
    private boolean zeroPresent; // the item whose hash is (0, 0)
    private int size;

    OverflowList(int capacity) {
        if (capacity < 0 || capacity > BalancedParameters.MAX_OVERFLOW_CAPACITY) {
            throw new IllegalArgumentException("overflowCapacity must be in [0, "
                    + BalancedParameters.MAX_OVERFLOW_CAPACITY + "], got " + capacity);
        }
        this.capacity = capacity;
        // the smallest power of two ≥ max(2, ⌈capacity / 0.75⌉), in long: at most 2^29 for the capacity limit
        long least = Math.max(2, (4L * capacity + 2) / 3);
        long tableSize = Long.highestOneBit(least * 2 - 1);
        this.slots = new long[Math.toIntExact(2 * tableSize)];
        this.mask = (int) tableSize - 1;
    }

    private OverflowList(OverflowList other) {
        this.capacity = other.capacity;
        this.slots = Arrays.copyOf(other.slots, other.slots.length);
        this.mask = other.mask;
        this.zeroPresent = other.zeroPresent;
        this.size = other.size;
    }

    /** An independent copy of this list. */
    OverflowList copy() {
        return new OverflowList(this);
    }

    int size() {
        return size;
    }

    int capacity() {
        return capacity;
    }

    boolean isFull() {
        return size >= capacity;
    }

    long memoryBytes() {
        return (long) slots.length * Long.BYTES;
    }

    boolean contains(long h1, long h2) {
        if (size == 0) {
            return false;
        }
        if ((h1 | h2) == 0) {
            return zeroPresent;
        }
        for (int i = (int) spread(h1) & mask; ; i = (i + 1) & mask) {
            long a = slots[2 * i];
            long b = slots[2 * i + 1];
            if ((a | b) == 0) {
                return false;
            }
            if (a == h1 && b == h2) {
                return true;
            }
        }
    }

    /** Adds the hash; the caller checks {@link #isFull()} and absence first. */
    void add(long h1, long h2) {
        if (size >= capacity) {
            throw new IllegalStateException("overflow list full at " + capacity);
        }
        size++;
        if ((h1 | h2) == 0) {
            zeroPresent = true;
            return;
        }
        int i = (int) spread(h1) & mask;
        while ((slots[2 * i] | slots[2 * i + 1]) != 0) {
            i = (i + 1) & mask;
        }
        slots[2 * i] = h1;
        slots[2 * i + 1] = h2;
    }

    /**
     * The stored hashes as pairs, for the byte image, in an order that rebuilds this exact table when added
     * back: the scan starts after an empty slot (there is one: the table is at most 3/4 full), so no probe run
     * is split at the wrap-around. A scan from slot 0 would list an entry that wrapped past the table's end
     * before the entry that pushed it there, and the table read back, though equal as a set, would write
     * different image bytes.
     */
    long[] entries() {
        long[] out = new long[2 * size];
        int o = 0;
        if (zeroPresent) {
            o += 2;
        }
        int empty = 0;
        while ((slots[2 * empty] | slots[2 * empty + 1]) != 0) {
            empty++;
        }
        for (int n = 1; n <= mask + 1; n++) {
            int i = (empty + n) & mask;
            if ((slots[2 * i] | slots[2 * i + 1]) != 0) {
                out[o++] = slots[2 * i];
                out[o++] = slots[2 * i + 1];
            }
        }
        return out;
    }

    /** Table index from bits that did not choose the item's blocks. */
    private static long spread(long h) {
        return (h ^ (h >>> 29)) * 0xBF58476D1CE4E5B9L >>> 32;
    }
}
