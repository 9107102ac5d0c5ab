package io.linerate.sketches.flowtable;

import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.sketches.hash.ItemHasher;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * When every sub-table slot holds an item, {@link MultilevelTable#place} sends a new item straight to the stash
 * without running its scheme's search (under a flood of new flows that search re-hashed up to d − 1 occupants per
 * insertion, to try moves that cannot succeed). These tests run the search itself on full tables and check what the
 * shortcut assumes: it finds nothing and changes nothing, for every scheme the shortcut applies to, also with lazily
 * deleted items; and that Conservative, which keeps its search, does change the table when it fails.
 */
class FullTableTest {

    private static final int ITEMS = 1_000;

    @Test
    void aFullTablesSearchFindsNothingAndChangesNothing() {
        for (InsertionScheme scheme : InsertionScheme.values()) {
            if (scheme == InsertionScheme.CONSERVATIVE) {
                continue;
            }
            for (boolean lazilyDeleted : new boolean[] {false, true}) {
                SplittableRandom rnd = new SplittableRandom(scheme.ordinal() * 2L + (lazilyDeleted ? 1 : 0));
                SlotItems items = newItems(scheme);
                MultilevelTable table = fill(scheme, items, rnd);
                if (lazilyDeleted) {
                    items.markDeleted(table, items.itemAt[0]); // slot 0 stays taken until a rebuild
                }
                byte[] states = table.state().clone();
                long moves = table.moves();
                for (int i = 0; i < ITEMS; i++) {
                    long h1 = rnd.nextLong();
                    assertThat(table.placeInSubTables(h1, ItemHasher.h2(h1))).as(scheme + " search").isEqualTo(-1);
                }
                assertThat(table.state()).as(scheme + " slot states").isEqualTo(states);
                assertThat(table.moves()).as(scheme + " moves").isEqualTo(moves);

                // and place() itself: to the stash, one overflow each, until the stash is full
                int stash = table.stashSize();
                long overflows = table.overflows();
                long h1 = rnd.nextLong();
                int slot = items.insert(table, ITEMS + 1, h1);
                assertThat(slot).as(scheme + " place").isEqualTo(table.stashBase() + stash);
                assertThat(table.overflows()).isEqualTo(overflows + 1);
                assertThat(table.moves()).isEqualTo(moves);
            }
        }
    }

    @Test
    void conservativeStillSearchesAndMarksABucketWhenItFails() {
        SplittableRandom rnd = new SplittableRandom(99);
        SlotItems items = newItems(InsertionScheme.CONSERVATIVE);
        MultilevelTable table = fill(InsertionScheme.CONSERVATIVE, items, rnd);
        int tableSlots = table.stashBase();
        byte[] states = table.state().clone();
        boolean marked = false;
        for (int i = 0; i < 64 && !marked; i++) {
            assertThat(items.insert(table, ITEMS + i, rnd.nextLong())).isGreaterThanOrEqualTo(tableSlots); // stash
            marked = !java.util.Arrays.equals(states, 0, tableSlots, table.state(), 0, tableSlots);
        }
        assertThat(marked).as("place() on a full Conservative table marks a bucket, as its search does").isTrue();
    }

    /** Storage for a small table of the scheme (sub-tables of 8, 6, 4 and 2 buckets) with room in the stash. */
    private static SlotItems newItems(InsertionScheme scheme) {
        return SlotItems.forLayout(layout(scheme), 2 * ITEMS);
    }

    private static TableLayout layout(InsertionScheme scheme) {
        return TableLayout.of(scheme.bucketCapacity(), 4 * ITEMS, 8, 6, 4, 2);
    }

    /** Random items until every sub-table slot holds one (the rest go to the stash). */
    private static MultilevelTable fill(InsertionScheme scheme, SlotItems items, SplittableRandom rnd) {
        MultilevelTable table = new MultilevelTable(layout(scheme), scheme, items, null);
        int id = 0;
        while (table.size() - table.stashSize() < table.stashBase()) {
            assertThat(id).as(scheme + ": the sub-tables did not fill with " + ITEMS + " items").isLessThan(ITEMS);
            items.insert(table, id++, rnd.nextLong());
        }
        return table;
    }
}
