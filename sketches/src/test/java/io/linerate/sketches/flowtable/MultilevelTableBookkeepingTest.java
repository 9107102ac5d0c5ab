package io.linerate.sketches.flowtable;

import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.sketches.hash.ItemHasher;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * What a multilevel table keeps beside the placements, under every scheme with moves, immediate and lazy deletions
 * and rebuilds: its counters (size, lazily deleted, per-level occupancy, moves), the summary (it names the level of
 * every stored item, and forgets freed ones), and the rule that a lazily deleted item is never moved and never
 * becomes visible again. A wrong summary or counter changes no lookup's answer, so the flow table's own tests
 * cannot see it.
 */
class MultilevelTableBookkeepingTest {

    private static final int ITEMS = 2_000;

    @Test
    void countersAndSummaryFollowEveryOperation() {
        for (InsertionScheme scheme : new InsertionScheme[] {InsertionScheme.STANDARD, InsertionScheme.CONSERVATIVE,
                InsertionScheme.SECOND_CHANCE, InsertionScheme.EXTREME_SECOND_CHANCE, InsertionScheme.SECOND_CHANCE_2,
                InsertionScheme.STANDARD_2}) {
            run(scheme);
        }
    }

    private static void run(InsertionScheme scheme) {
        // sized for 1,000 items, filled with up to 1,200: the last sub-tables and the stash fill, so schemes move
        TableLayout layout = TableLayout.forItems(ITEMS / 2, scheme, 4);
        SlotItems items = SlotItems.forLayout(layout, ITEMS);
        CountingOccupants occupants = new CountingOccupants(items);
        TypeSummary summary = new TypeSummary(layout, ITEMS / 2, 9);
        MultilevelTable table = new MultilevelTable(layout, scheme, occupants, summary);
        SplittableRandom random = new SplittableRandom(scheme.ordinal());
        byte[] status = new byte[ITEMS]; // 0 never inserted or dropped, 1 live, 2 lazily deleted, 3 freed
        int next = 0;
        long placeMoves = 0;
        for (int round = 0; round < 4; round++) {
            for (int i = 0; i < 300 && next < ITEMS; i++, next++) {
                long before = occupants.moves;
                if (items.insert(table, next, random.nextLong()) >= 0) {
                    status[next] = 1;
                }
                placeMoves += occupants.moves - before;
            }
            for (int id = 0; id < next; id++) {
                if (status[id] == 1 && random.nextInt(6) == 0) {
                    if (random.nextBoolean()) {
                        boolean inStash = items.slotOf[id] >= table.stashBase();
                        items.markDeleted(table, id);
                        status[id] = (byte) (inStash ? 3 : 2); // a stash item is freed at once
                    } else {
                        items.free(table, id);
                        status[id] = 3;
                    }
                }
            }
            String what = scheme + " round " + round;
            assertThat(table.moves()).as(what).isEqualTo(placeMoves);
            check(table, items, status, what);
            if (round % 2 == 1) {
                long rebuildBefore = table.rebuildMoves();
                long moved = table.rebuild();
                assertThat(table.rebuildMoves()).isEqualTo(rebuildBefore + moved);
                for (int id = 0; id < next; id++) {
                    if (status[id] == 2) {
                        status[id] = 0; // dropped
                    }
                }
                check(table, items, status, what + " after rebuild");
            }
        }
        if (scheme != InsertionScheme.STANDARD && scheme != InsertionScheme.STANDARD_2) {
            assertThat(placeMoves).as(scheme + " moved items").isPositive();
        }
    }

    private static void check(MultilevelTable table, SlotItems items, byte[] status, String what) {
        int live = 0;
        int lazy = 0;
        int[] occupied = new int[table.levels()];
        for (int slot = 0; slot < table.stashBase() + table.stashSize(); slot++) {
            if (!table.isOccupied(slot)) {
                continue;
            }
            int id = items.itemAt[slot];
            int level = table.levelOf(slot);
            if (level < table.levels()) {
                occupied[level]++;
                long h1 = items.hash[slot];
                assertThat(table.summary().level(h1, ItemHasher.h2(h1))).as("%s: summary level of item %d", what, id)
                        .isEqualTo(level);
            }
            if (table.isLive(slot)) {
                live++;
                assertThat(status[id]).as("%s: item %d live", what, id).isEqualTo((byte) 1);
            } else {
                lazy++;
                assertThat(status[id]).as("%s: item %d lazily deleted", what, id).isEqualTo((byte) 2);
            }
        }
        int expectedLive = 0;
        int expectedLazy = 0;
        int freed = 0;
        int freedNamed = 0;
        for (int id = 0; id < status.length; id++) {
            if (status[id] == 1 || status[id] == 2) {
                // still stored where the items think it is (moves kept the slot map right)
                assertThat(items.itemAt[items.slotOf[id]]).as("%s: item %d", what, id).isEqualTo(id);
                assertThat(table.isLive(items.slotOf[id])).as("%s: item %d visible", what, id)
                        .isEqualTo(status[id] == 1);
            }
            expectedLive += status[id] == 1 ? 1 : 0;
            expectedLazy += status[id] == 2 ? 1 : 0;
            if (status[id] == 3) {
                freed++;
                long h1 = items.hashOfItem[id];
                freedNamed += table.summary().level(h1, ItemHasher.h2(h1)) >= 0 ? 1 : 0;
            }
        }
        assertThat(live).as(what).isEqualTo(expectedLive);
        assertThat(lazy).as(what).isEqualTo(expectedLazy);
        assertThat(table.size()).as(what + ": size").isEqualTo(live + lazy);
        assertThat(table.lazilyDeleted()).as(what + ": lazily deleted").isEqualTo(lazy);
        for (int level = 0; level < table.levels(); level++) {
            assertThat(table.occupancy(level)).as("%s: occupancy of T%d", what, level + 1).isEqualTo(occupied[level]);
        }
        // a freed item is in no filter: only B0's false positives (0.6% by design) still name a level
        assertThat(freedNamed).as(what + ": freed items the summary still names").isLessThanOrEqualTo(freed / 20 + 3);
    }
}
