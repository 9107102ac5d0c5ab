package io.linerate.sketches.flowtable;

import io.linerate.sketches.hash.ItemHasher;

/**
 * Test storage behind a {@link MultilevelTable}: per slot the item's h1 and an item id, per id its current
 * slot. Items are "fully random" in the thesis's sense: h1 is drawn from a seeded PRNG and h2 = ItemHasher.h2(h1).
 */
final class SlotItems implements Occupants {

    final long[] hash;
    final int[] itemAt;
    final int[] slotOf;
    final long[] hashOfItem;

    /**
     * @param slots {@link MultilevelTable#totalSlots()} (or table slots + stash capacity)
     * @param items the largest item id + 1
     */
    SlotItems(int slots, int items) {
        hash = new long[slots];
        itemAt = new int[slots];
        slotOf = new int[items];
        hashOfItem = new long[items];
    }

    static SlotItems forLayout(TableLayout layout, int items) {
        return new SlotItems(layout.tableSlots() + layout.stashCapacity(), items);
    }

    @Override
    public long hashOf(int slot) {
        return hash[slot];
    }

    @Override
    public void move(int from, int to) {
        hash[to] = hash[from];
        int id = itemAt[from];
        itemAt[to] = id;
        slotOf[id] = to;
    }

    /** Places item {@code id} with hash {@code h1}; returns its slot, or −1 (stash full, nothing stored). */
    int insert(MultilevelTable table, int id, long h1) {
        int slot = table.place(h1, ItemHasher.h2(h1));
        if (slot >= 0) {
            hash[slot] = h1;
            itemAt[slot] = id;
            slotOf[id] = slot;
            hashOfItem[id] = h1;
        }
        return slot;
    }

    /** Deletes item {@code id} at once ({@link MultilevelTable#free}). */
    void free(MultilevelTable table, int id) {
        long h1 = hashOfItem[id];
        table.free(slotOf[id], h1, ItemHasher.h2(h1));
    }

    /** Lazily deletes item {@code id} ({@link MultilevelTable#markDeleted}). */
    void markDeleted(MultilevelTable table, int id) {
        long h1 = hashOfItem[id];
        table.markDeleted(slotOf[id], h1, ItemHasher.h2(h1));
    }
}
