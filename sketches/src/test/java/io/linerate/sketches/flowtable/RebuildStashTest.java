package io.linerate.sketches.flowtable;

import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.sketches.hash.ItemHasher;
import org.junit.jupiter.api.Test;

/**
 * §4.10.1's rebuild visits the stash too: a stash entry whose bucket a lazy deletion (or the rebuild's own moves)
 * freed leaves the stash for it. The random-deletion trials of {@link MultilevelTableThesisTest} never have a stash
 * entry, so they cannot see a rebuild that skips the stash.
 */
class RebuildStashTest {

    @Test
    void aStashEntryMovesIntoTheBucketARebuildFrees() {
        // two one-slot sub-tables: the first item takes T1, the second T2, the third the stash
        TableLayout layout = TableLayout.of(1, 4, 1, 1);
        SlotItems items = SlotItems.forLayout(layout, 3);
        MultilevelTable table = new MultilevelTable(layout, InsertionScheme.STANDARD, items, null);
        long[] hashes = {0x1234_5678_9ABCL, 0x0FED_CBA9_8765L, 0x5555_AAAA_3333L};
        for (int id = 0; id < 3; id++) {
            assertThat(items.insert(table, id, hashes[id])).isGreaterThanOrEqualTo(0);
        }
        assertThat(table.levelOf(items.slotOf[2])).as("the third item is in the stash").isEqualTo(2);
        assertThat(table.stashSize()).isEqualTo(1);

        items.markDeleted(table, 0); // T1's slot: the T2 item moves into it, and the stash item into T2
        long moves = table.rebuild();

        assertThat(moves).isEqualTo(2);
        assertThat(table.stashSize()).as("the stash is emptied").isZero();
        assertThat(table.levelOf(items.slotOf[1])).isZero();
        assertThat(table.levelOf(items.slotOf[2])).isEqualTo(1);
        MultilevelTableThesisTest.checkRebuilt(table, items, new boolean[] {true, false, false}, 2);
        assertThat(items.hash[items.slotOf[2]]).isEqualTo(hashes[2]);
    }

    /** The summary rebuilt after a rebuild holds the sub-tables' items at their levels and no stash item (B0 too). */
    @Test
    void theRebuiltSummaryLeavesTheStashOut() {
        TableLayout layout = TableLayout.of(1, 4, 1, 1);
        SlotItems items = SlotItems.forLayout(layout, 3);
        TypeSummary summary = new TypeSummary(layout, 2, 3);
        MultilevelTable table = new MultilevelTable(layout, InsertionScheme.STANDARD, items, summary);
        long[] hashes = {0x1234_5678_9ABCL, 0x0FED_CBA9_8765L, 0x5555_AAAA_3333L};
        for (int id = 0; id < 3; id++) {
            assertThat(items.insert(table, id, hashes[id])).isEqualTo(id); // T1, T2, the stash
        }
        assertThat(table.rebuild()).isZero();
        for (int id = 0; id < 3; id++) {
            assertThat(summary.level(hashes[id], ItemHasher.h2(hashes[id]))).as("item %d", id)
                    .isEqualTo(id < 2 ? id : -1);
        }
    }
}
