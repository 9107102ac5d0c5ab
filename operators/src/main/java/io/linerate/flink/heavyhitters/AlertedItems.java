package io.linerate.flink.heavyhitters;

import java.util.Arrays;

/**
 * The items (by their 64-bit hash h1) already alerted in one sub-window: an open-addressing set of {@code long}s
 * with linear probing, at most {@code limit} entries (the tracker's capacity), no allocation per query.
 * A hash of 0 is kept in a flag, since 0 marks a free cell.
 */
final class AlertedItems {

    private long[] cells;
    private int size;
    private boolean hasZero;

    AlertedItems() {
        cells = new long[8];
    }

    /** Number of items in the set. */
    int size() {
        return size + (hasZero ? 1 : 0);
    }

    /**
     * Adds {@code hash} unless present or the set holds {@code limit} items already.
     *
     * @return whether it was added (so the caller alerts once)
     */
    boolean add(long hash, int limit) {
        if (hash == 0) {
            if (hasZero || size() >= limit) {
                return false;
            }
            hasZero = true;
            return true;
        }
        int mask = cells.length - 1;
        int i = mix(hash) & mask;
        while (cells[i] != 0) {
            if (cells[i] == hash) {
                return false;
            }
            i = (i + 1) & mask;
        }
        if (size() >= limit) {
            return false;
        }
        cells[i] = hash;
        size++;
        if (size * 2 > cells.length) {
            grow();
        }
        return true;
    }

    boolean contains(long hash) {
        if (hash == 0) {
            return hasZero;
        }
        int mask = cells.length - 1;
        for (int i = mix(hash) & mask; cells[i] != 0; i = (i + 1) & mask) {
            if (cells[i] == hash) {
                return true;
            }
        }
        return false;
    }

    /** The hashes in the set, in no particular order. */
    long[] toArray() {
        long[] out = new long[size()];
        int n = 0;
        for (long c : cells) {
            if (c != 0) {
                out[n++] = c;
            }
        }
        if (hasZero) {
            out[n] = 0;
        }
        return out;
    }

    static AlertedItems of(long[] hashes) {
        AlertedItems set = new AlertedItems();
        for (long h : hashes) {
            set.add(h, Integer.MAX_VALUE);
        }
        return set;
    }

    long memoryBytes() {
        return 8L * cells.length;
    }

    private void grow() {
        long[] old = cells;
        cells = new long[old.length * 2];
        int mask = cells.length - 1;
        for (long c : old) {
            if (c != 0) {
                int i = mix(c) & mask;
                while (cells[i] != 0) {
                    i = (i + 1) & mask;
                }
                cells[i] = c;
            }
        }
    }

    private static int mix(long h) {
        return (int) (h ^ (h >>> 32));
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof AlertedItems other) || other.size() != size()) {
            return false;
        }
        long[] mine = toArray();
        long[] theirs = other.toArray();
        Arrays.sort(mine);
        Arrays.sort(theirs);
        return Arrays.equals(mine, theirs);
    }

    @Override
    public int hashCode() {
        long[] mine = toArray();
        Arrays.sort(mine);
        return Arrays.hashCode(mine);
    }
}
