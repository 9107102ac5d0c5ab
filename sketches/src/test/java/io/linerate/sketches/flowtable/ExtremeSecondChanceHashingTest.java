package io.linerate.sketches.flowtable;

import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.sketches.hash.ItemHasher;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * SCExt (§5.6) hashes an occupant of x's buckets to find its leftmost free bucket z<sub>i</sub>. With insertions
 * only, an occupant right of x's leftmost free bucket z<sub>0</sub> cannot win (z<sub>i</sub> &gt; i), so the table
 * hashes only the occupants left of z<sub>0</sub> until a slot has been emptied; after a removal it considers every
 * occupant, as the thesis's rule says. Counted through the table's one way to hash an occupant,
 * {@link Occupants#hashOf}.
 */
class ExtremeSecondChanceHashingTest {

    /** Occupied, not lazily deleted buckets of x left of its leftmost free bucket (all levels if none is free). */
    private static int occupantsLeftOfFirstFree(MultilevelTable table, long h1) {
        long h2 = ItemHasher.h2(h1);
        int n = 0;
        for (int level = 0; level < table.levels(); level++) {
            int slot = table.bucketSlot(level, h1, h2);
            if (!table.isOccupied(slot)) {
                return n;
            }
            n += table.isLive(slot) ? 1 : 0;
        }
        return n;
    }

    @Test
    void occupantsRightOfTheFirstFreeBucketAreHashedOnlyOnceASlotWasEmptied() {
        int n = 10_000;
        TableLayout layout = TableLayout.forItems(n, InsertionScheme.EXTREME_SECOND_CHANCE, 4);
        SlotItems items = SlotItems.forLayout(layout, 2 * n);
        CountingOccupants occupants = new CountingOccupants(items);
        MultilevelTable table = new MultilevelTable(layout, InsertionScheme.EXTREME_SECOND_CHANCE, occupants, null);
        SplittableRandom random = new SplittableRandom(5);
        for (int id = 0; id < n; id++) { // insertions only, up to the design load
            long h1 = random.nextLong();
            long expected = occupantsLeftOfFirstFree(table, h1);
            long before = occupants.hashes;
            items.insert(table, id, h1);
            assertThat(occupants.hashes - before).as("occupant hashes of insertion %d", id).isEqualTo(expected);
        }
        for (int id = 0; id < n; id += 2) {
            items.free(table, id);
        }
        long beyond = 0;
        for (int id = n; id < 2 * n; id++) {
            long h1 = random.nextLong();
            long left = occupantsLeftOfFirstFree(table, h1);
            long before = occupants.hashes;
            items.insert(table, id, h1);
            beyond += Math.max(0, occupants.hashes - before - left);
        }
        assertThat(beyond).as("occupants right of z0 hashed after removals").isPositive();
    }
}
