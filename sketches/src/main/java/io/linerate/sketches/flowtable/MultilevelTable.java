package io.linerate.sketches.flowtable;

import io.linerate.sketches.hash.DoubleHashing;
import io.linerate.sketches.hash.ItemHasher;
import java.util.Arrays;

/**
 * The placement engine of a multilevel hash table (MHT): d sub-tables of buckets, an overflow stash, and
 * the insertion schemes of Kirsch's thesis chapter 5. It decides where items go and moves at most one
 * existing item per insertion; the items themselves live in the owner's arrays, reached through
 * {@link Occupants} by slot number.
 *
 * <p>Slots: sub-table i holds buckets [0, m<sub>i</sub>) of {@code bucketCapacity} slots each, numbered
 * left to right after the slots of the sub-tables before it; the stash's slots follow the last sub-table
 * and are kept compact ([stashBase, stashBase + stashSize)).
 *
 * <p>Hashing: the item's bucket in sub-table i is reduce(mix(h1 + i·h2), m<sub>i</sub>) — double hashing
 * of the item's one 128-bit hash value, with the mixer of {@link DoubleHashing#mix} so that two items that
 * share a bucket in two sub-tables are not forced to share it in all of them.
 *
 * <p>Deletions: {@link #free} removes an item at once (§5.9; a freed bucket can take the next insertion);
 * {@link #markDeleted} is the lazy deletion of §4.10.1 (the slot stays unusable until {@link #rebuild}).
 */
final class MultilevelTable {

    static final byte OCCUPIED = 1;
    static final byte DELETED = 2;   // lazily deleted: occupied for placement, absent for lookup
    static final byte MARKED = 4;    // Conservative scheme: the occupant is known not to move right

    private final TableLayout layout;
    private final InsertionScheme scheme;
    private final Occupants occupants;
    private final int levels;
    private final int capacity;
    private final int[] buckets;
    private final int[] firstSlot;
    private final int stashBase;
    private final int stashCapacity;
    private final byte[] state;
    private final TypeSummary summary;

    private int stashSize;
    private int size;
    private int lazilyDeleted;
    private long moves;
    private long overflows;
    private long rebuildMoves;
    /**
     * Whether a sub-table slot may have been emptied (a removal, a rebuild, a restore from an image): until then
     * every item in T<sub>i</sub> found T<sub>1</sub>..T<sub>i−1</sub> full, which stay full, so z<sub>i</sub> &gt; i
     * and SCExt need not hash the occupants right of z<sub>0</sub> ({@link #placeExtreme}). Not state: a copy keeps
     * it, an image read sets it.
     */
    private boolean mayHaveHoles;

    MultilevelTable(TableLayout layout, InsertionScheme scheme, Occupants occupants, TypeSummary summary) {
        check(layout, scheme);
        this.layout = layout;
        this.scheme = scheme;
        this.occupants = occupants;
        this.levels = layout.levels();
        this.capacity = layout.bucketCapacity();
        this.buckets = layout.buckets();
        this.firstSlot = new int[levels + 1];
        for (int i = 0; i < levels; i++) {
            firstSlot[i + 1] = firstSlot[i] + buckets[i] * capacity;
        }
        this.stashBase = firstSlot[levels];
        this.stashCapacity = layout.stashCapacity();
        this.state = new byte[stashBase + stashCapacity];
        this.summary = summary;
    }

    /** An independent copy of {@code other} over {@code occupants} and {@code summary} (the copy's own). */
    private MultilevelTable(MultilevelTable other, Occupants occupants, TypeSummary summary) {
        this.layout = other.layout;
        this.scheme = other.scheme;
        this.occupants = occupants;
        this.levels = other.levels;
        this.capacity = other.capacity;
        this.buckets = other.buckets; // never written after construction, as firstSlot
        this.firstSlot = other.firstSlot;
        this.stashBase = other.stashBase;
        this.stashCapacity = other.stashCapacity;
        this.state = Arrays.copyOf(other.state, other.state.length);
        this.summary = summary;
        this.stashSize = other.stashSize;
        this.size = other.size;
        this.lazilyDeleted = other.lazilyDeleted;
        this.moves = other.moves;
        this.overflows = other.overflows;
        this.rebuildMoves = other.rebuildMoves;
        this.mayHaveHoles = other.mayHaveHoles;
    }

    /** A copy of this table's slot states, stash and counters for a copied flow table. */
    MultilevelTable copy(Occupants occupants, TypeSummary summary) {
        return new MultilevelTable(this, occupants, summary);
    }

    /** Fails unless {@code scheme} can run on {@code layout} (bucket size, levels); allocates nothing. */
    static void check(TableLayout layout, InsertionScheme scheme) {
        if (layout.bucketCapacity() != scheme.bucketCapacity()) {
            throw new IllegalArgumentException("scheme " + scheme + " needs buckets of " + scheme.bucketCapacity()
                    + " items, layout has " + layout.bucketCapacity());
        }
        if (layout.levels() < 2 && scheme != InsertionScheme.STANDARD && scheme != InsertionScheme.STANDARD_2) {
            throw new IllegalArgumentException("scheme " + scheme + " needs at least 2 levels, got "
                    + layout.levels());
        }
    }

    TableLayout layout() {
        return layout;
    }

    InsertionScheme scheme() {
        return scheme;
    }

    int levels() {
        return levels;
    }

    int bucketCapacity() {
        return capacity;
    }

    /** Slots in sub-tables plus stash: the length the owner's per-slot arrays need. */
    int totalSlots() {
        return state.length;
    }

    int stashBase() {
        return stashBase;
    }

    int stashSize() {
        return stashSize;
    }

    /** Items stored, in sub-tables and stash, lazily deleted ones included. */
    int size() {
        return size;
    }

    int lazilyDeleted() {
        return lazilyDeleted;
    }

    long moves() {
        return moves;
    }

    /** Insertions that went to the stash (whether or not it had room). */
    long overflows() {
        return overflows;
    }

    long rebuildMoves() {
        return rebuildMoves;
    }

    TypeSummary summary() {
        return summary;
    }

    /** First slot of the item's bucket in sub-table {@code level} (0-based). */
    int bucketSlot(int level, long h1, long h2) {
        int b = (int) DoubleHashing.reduce(DoubleHashing.mix(h1 + level * h2), buckets[level]);
        return firstSlot[level] + b * capacity;
    }

    /** True if the slot holds an item that lookups should see (occupied and not lazily deleted). */
    boolean isLive(int slot) {
        return (state[slot] & (OCCUPIED | DELETED)) == OCCUPIED;
    }

    boolean isOccupied(int slot) {
        return (state[slot] & OCCUPIED) != 0;
    }

    /** Sub-table (0-based) of a slot, or {@code levels} for the stash. */
    int levelOf(int slot) {
        for (int i = 0; i < levels; i++) {
            if (slot < firstSlot[i + 1]) {
                return i;
            }
        }
        return levels;
    }

    /** Occupied slots of sub-table {@code level}. */
    int occupancy(int level) {
        int n = 0;
        for (int s = firstSlot[level]; s < firstSlot[level + 1]; s++) {
            n += state[s] & OCCUPIED;
        }
        return n;
    }

    int slotsOf(int level) {
        return buckets[level] * capacity;
    }

    int firstSlotOf(int level) {
        return firstSlot[level];
    }

    /**
     * Chooses the slot for a new item, moving at most one existing item, and marks it occupied. Counts an
     * overflow if every candidate bucket is full.
     *
     * @return the slot (in a sub-table or the stash), or −1 if every candidate bucket and the stash are full
     */
    int place(long h1, long h2) {
        return place(h1, h2, true);
    }

    /**
     * {@link #place(long, long)} again for the same item after a −1 and an eviction: the overflow was counted
     * by the first call, so it is not counted again (one overflow per insertion, wherever the victim was).
     */
    int placeAfterEviction(long h1, long h2) {
        return place(h1, h2, false);
    }

    private int place(long h1, long h2, boolean countOverflow) {
        // Every sub-table slot holding an item (live or lazily deleted) means no scheme finds a free bucket and none
        // can move an occupant (a move needs a free target): the search would fail, after re-hashing up to d - 1
        // occupants to try their moves, and under a flood of new flows that is every insertion. Skipping it leaves
        // the result and the state as they would be. Conservative still searches: it marks a bucket when it fails.
        boolean full = size - stashSize == stashBase && scheme != InsertionScheme.CONSERVATIVE;
        int slot = full ? -1 : placeInSubTables(h1, h2);
        if (slot < 0) {
            if (countOverflow) {
                overflows++;
            }
            if (stashSize == stashCapacity) {
                return -1;
            }
            slot = stashBase + stashSize++;
        } else if (summary != null) {
            summary.add(h1, h2, 0, levelOf(slot));
        }
        state[slot] = (byte) (OCCUPIED | (state[slot] & MARKED));
        size++;
        return slot;
    }

    /**
     * The scheme's choice of a sub-table slot for the item (after at most one move), or −1; marks the slot taken only
     * through {@link #place}. Package-private for the test of the full-table shortcut ({@code FullTableTest}).
     */
    int placeInSubTables(long h1, long h2) {
        switch (scheme) {
            case STANDARD:
            case STANDARD_2:
                return placeStandard(h1, h2);
            case CONSERVATIVE:
                return placeConservative(h1, h2);
            case SECOND_CHANCE:
            case SECOND_CHANCE_2:
                return placeSecondChance(h1, h2);
            case EXTREME_SECOND_CHANCE:
                return placeExtreme(h1, h2);
            default:
                throw new AssertionError(scheme);
        }
    }

    /** A free slot of the bucket starting at {@code base}, or −1 if it is full. */
    private int freeSlot(int base) {
        for (int c = 0; c < capacity; c++) {
            if (state[base + c] == 0 || state[base + c] == MARKED) {
                return base + c;
            }
        }
        return -1;
    }

    private int placeStandard(long h1, long h2) {
        for (int i = 0; i < levels; i++) {
            int free = freeSlot(bucketSlot(i, h1, h2));
            if (free >= 0) {
                return free;
            }
        }
        return -1;
    }

    /** Figure 5.1 (and §5.7 for two items per bucket): one chance per level to push an occupant right. */
    private int placeSecondChance(long h1, long h2) {
        int here = bucketSlot(0, h1, h2);
        for (int i = 0; i < levels - 1; i++) {
            int free = freeSlot(here);
            if (free >= 0) {
                return free;
            }
            int next = bucketSlot(i + 1, h1, h2);
            if (freeSlot(next) < 0) {
                for (int c = 0; c < capacity; c++) {
                    int y = here + c;
                    if (moveRight(y, i, i + 1)) {
                        return y;
                    }
                }
            }
            here = next;
        }
        return freeSlot(here);
    }

    /** Moves the item in {@code slot} (sub-table {@code from}) to its bucket in sub-table {@code to} if free. */
    private boolean moveRight(int slot, int from, int to) {
        if ((state[slot] & DELETED) != 0) {
            return false; // a lazily deleted item is not moved; rebuild will drop it
        }
        long yh1 = occupants.hashOf(slot);
        long yh2 = ItemHasher.h2(yh1);
        int target = freeSlot(bucketSlot(to, yh1, yh2));
        if (target < 0) {
            return false;
        }
        relocate(slot, target, yh1, yh2, from, to);
        return true;
    }

    private void relocate(int from, int to, long yh1, long yh2, int fromLevel, int toLevel) {
        occupants.move(from, to);
        state[to] = (byte) (OCCUPIED | (state[to] & MARKED));
        state[from] = (byte) (state[from] & MARKED);
        moves++;
        if (summary != null) {
            summary.moved(yh1, yh2, fromLevel, toLevel);
        }
    }

    /** §5.4: bump the occupant of the leftmost unmarked bucket to its leftmost empty bucket further right. */
    private int placeConservative(long h1, long h2) {
        int free = placeStandard(h1, h2);
        if (free >= 0) {
            return free;
        }
        for (int j = 0; j < levels - 1; j++) {
            int y = bucketSlot(j, h1, h2);
            if ((state[y] & MARKED) != 0) {
                continue;
            }
            state[y] |= MARKED;
            if ((state[y] & DELETED) != 0) {
                return -1;
            }
            long yh1 = occupants.hashOf(y);
            long yh2 = ItemHasher.h2(yh1);
            for (int k = j + 1; k < levels; k++) {
                int target = bucketSlot(k, yh1, yh2);
                if (state[target] == 0 || state[target] == MARKED) {
                    relocate(y, target, yh1, yh2, j, k);
                    return y;
                }
            }
            return -1;
        }
        return -1;
    }

    /**
     * §5.6: z<sub>0</sub> = x's leftmost free level; z<sub>i</sub> = the leftmost level (other than i) where the
     * occupant y<sub>i</sub> of x's bucket in sub-table i has a free bucket, for every occupied bucket of x. If
     * some z<sub>i</sub> &lt; z<sub>0</sub>, the smallest (ties to the smallest i) moves y<sub>i</sub> there and x
     * takes its bucket; otherwise x goes to z<sub>0</sub>. With insertions only, z<sub>i</sub> &gt; i for every
     * occupant, so only occupants left of z<sub>0</sub> can win; after deletions ({@link #free}, or the holes a
     * {@link #rebuild} leaves) an occupant right of z<sub>0</sub> can have a free bucket left of z<sub>0</sub>:
     * it moves there and x takes its bucket, right of z<sub>0</sub> (the bucket filled is further left than x's
     * own). A lazily deleted occupant is never moved.
     */
    private int placeExtreme(long h1, long h2) {
        int z0 = levels;
        for (int i = 0; i < levels; i++) {
            if (freeSlot(bucketSlot(i, h1, h2)) >= 0) {
                z0 = i;
                break;
            }
        }
        int bestLevel = -1;
        int bestZ = z0;
        int bestTarget = -1;
        long bestH1 = 0; // the chosen occupant's h1, kept: hashing it again to move it was a second hash
        // every occupant of x's buckets, as the thesis says: with insertions only those right of z0 never win
        // (z_i > i), so they are not hashed until a slot may have been emptied; after that one of them can have a
        // free bucket left of z0. bestZ = 0: none can win.
        int last = mayHaveHoles ? levels : z0;
        for (int i = 0; i < last && bestZ > 0; i++) {
            int y = bucketSlot(i, h1, h2);
            if ((state[y] & (OCCUPIED | DELETED)) != OCCUPIED) {
                continue; // x's free bucket (i = z0, or right of it) or a lazily deleted item, which is not moved
            }
            long yh1 = occupants.hashOf(y);
            long yh2 = ItemHasher.h2(yh1);
            for (int k = 0; k < bestZ; k++) {
                if (k == i) {
                    continue;
                }
                int target = freeSlot(bucketSlot(k, yh1, yh2));
                if (target >= 0) {
                    bestLevel = i;
                    bestZ = k;
                    bestTarget = target;
                    bestH1 = yh1;
                    break;
                }
            }
        }
        if (bestLevel >= 0) {
            int y = bucketSlot(bestLevel, h1, h2);
            relocate(y, bestTarget, bestH1, ItemHasher.h2(bestH1), bestLevel, bestZ);
            return y;
        }
        return z0 < levels ? freeSlot(bucketSlot(z0, h1, h2)) : -1;
    }

    /**
     * Removes the item in {@code slot} at once (§5.9). A stash slot is refilled with the stash's last item
     * (moved through {@link Occupants#move}), so slot numbers of stash items can change.
     */
    void free(int slot, long h1, long h2) {
        int s = state[slot];
        if ((s & OCCUPIED) == 0) {
            throw new IllegalStateException("slot " + slot + " is empty");
        }
        if ((s & DELETED) != 0) {
            lazilyDeleted--;
        }
        size--;
        if (slot >= stashBase) {
            int last = stashBase + --stashSize;
            if (last != slot) {
                occupants.move(last, slot);
                state[slot] = state[last];
            }
            state[last] = 0;
            return;
        }
        state[slot] = 0; // an empty bucket forgets its Conservative mark
        mayHaveHoles = true;
        if (summary != null) {
            summary.remove(h1, h2, levelOf(slot));
        }
    }

    /** Lazy deletion (§4.10.1): lookups stop seeing the item; its slot stays taken until {@link #rebuild}. */
    void markDeleted(int slot, long h1, long h2) {
        if (!isLive(slot)) {
            throw new IllegalStateException("slot " + slot + " holds no live item");
        }
        if (slot >= stashBase) {
            free(slot, h1, h2); // a stash slot costs nothing to free
            return;
        }
        state[slot] |= DELETED;
        lazilyDeleted++;
    }

    /**
     * The "natural MHT reconstruction" of §4.10.1: sub-table by sub-table from the left, every live item
     * moves to the leftmost sub-table where its bucket is empty or holds a deleted item; deleted items are
     * then dropped. Stash items get the same chance (as sub-table d + 1). The summary is rebuilt from the
     * live items. The Conservative scheme's marks (§5.4) are dropped on the slots a move or a drop touches and
     * kept elsewhere: after deletions a mark is only a hint (the thesis leaves Cons out of its deletion analysis),
     * a stale one saves a bump attempt that could have succeeded and never loses an item.
     *
     * @return the number of items moved
     */
    long rebuild() {
        long moved = 0;
        for (int i = 1; i <= levels; i++) {
            int end = i < levels ? firstSlot[i + 1] : stashBase + stashSize;
            for (int slot = firstSlot[i]; slot < end; slot++) {
                if (!isLive(slot)) {
                    continue;
                }
                long yh1 = occupants.hashOf(slot);
                long yh2 = ItemHasher.h2(yh1);
                for (int j = 0; j < i; j++) {
                    int target = reusableSlot(bucketSlot(j, yh1, yh2));
                    if (target >= 0) {
                        if ((state[target] & OCCUPIED) == 0) {
                            size++; // the old slot stays counted until it is dropped below
                        } // else the lazily deleted item in target is overwritten, and its count moves to the old slot
                        occupants.move(slot, target);
                        state[target] = OCCUPIED;
                        state[slot] = DELETED | OCCUPIED; // dropped below; a later item may take it
                        moved++;
                        break;
                    }
                }
            }
        }
        for (int slot = 0; slot < stashBase; slot++) {
            if ((state[slot] & DELETED) != 0) {
                state[slot] = 0;
                size--;
            }
        }
        int kept = 0; // compact the stash
        for (int slot = stashBase; slot < stashBase + stashSize; slot++) {
            if ((state[slot] & DELETED) != 0) {
                state[slot] = 0;
                size--;
                continue;
            }
            int to = stashBase + kept++;
            if (to != slot) {
                occupants.move(slot, to);
                state[to] = state[slot];
                state[slot] = 0;
            }
        }
        stashSize = kept;
        // every slot marked deleted, before or during the loop, was dropped: nothing reads the count in between
        lazilyDeleted = 0;
        rebuildMoves += moved;
        mayHaveHoles = true; // moved items and dropped deleted ones leave empty slots
        if (summary != null) {
            rebuildSummary();
        }
        return moved;
    }

    private int reusableSlot(int base) {
        for (int c = 0; c < capacity; c++) {
            int s = state[base + c];
            if ((s & OCCUPIED) == 0 || (s & DELETED) != 0) {
                return base + c;
            }
        }
        return -1;
    }

    /** Re-inserts every item of the sub-tables (lazily deleted ones too) into a cleared summary. */
    void rebuildSummary() {
        summary.clear();
        for (int i = 0; i < levels; i++) {
            for (int slot = firstSlot[i]; slot < firstSlot[i + 1]; slot++) {
                if ((state[slot] & OCCUPIED) != 0) {
                    long yh1 = occupants.hashOf(slot);
                    summary.add(yh1, ItemHasher.h2(yh1), 0, i);
                }
            }
        }
    }

    byte[] state() {
        return state;
    }

    /**
     * Restores counters and state from an image; {@code state} was validated by the caller, who counted its
     * occupied ({@code restoredSize}) and lazily deleted slots.
     */
    void restore(byte[] restoredState, int restoredStashSize, int restoredSize, int restoredLazilyDeleted,
                 long restoredMoves, long restoredOverflows, long restoredRebuildMoves) {
        System.arraycopy(restoredState, 0, state, 0, state.length);
        mayHaveHoles = true; // the image does not say whether its table ever removed an item
        stashSize = restoredStashSize;
        moves = restoredMoves;
        overflows = restoredOverflows;
        rebuildMoves = restoredRebuildMoves;
        size = restoredSize;
        lazilyDeleted = restoredLazilyDeleted;
        if (summary != null) {
            rebuildSummary();
        }
    }

    long memoryBytes() {
        // buckets, firstSlot and the layout's own copy of the bucket counts
        return state.length + (long) (2 * buckets.length + firstSlot.length) * Integer.BYTES
                + (summary != null ? summary.memoryBytes() : 0);
    }
}
