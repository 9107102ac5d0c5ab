package io.linerate.sketches.flowtable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.linerate.sketches.hash.ItemHasher;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Single insertions of the move schemes, in situations built item by item (thesis chapter 5): Second Chance
 * (Figure 5.1) pushes an occupant right only when the new item's next bucket is full, and Extreme Second Chance
 * (§5.6) moves the occupant of the first sub-table when that beats the new item's leftmost free level, and after a
 * deletion also an occupant right of that level. Also the levels a scheme needs and freeing an empty slot.
 */
class MultilevelTableSchemeTest {

    private final SplittableRandom random = new SplittableRandom(17);

    /** A hash whose bucket in sub-table i is {@code wanted[i]} (−1: any other than {@code avoid[i]}, if given). */
    private long hashWith(MultilevelTable table, int[] wanted, int[] avoid) {
        for (int tries = 0; tries < 1_000_000; tries++) {
            long h1 = random.nextLong();
            long h2 = ItemHasher.h2(h1);
            boolean ok = true;
            for (int i = 0; i < wanted.length && ok; i++) {
                int slot = table.bucketSlot(i, h1, h2);
                ok = wanted[i] >= 0 ? slot == wanted[i] : slot != avoid[i];
            }
            if (ok) {
                return h1;
            }
        }
        throw new AssertionError("no hash found");
    }

    private static int bucket(MultilevelTable table, int level, long h1) {
        return table.bucketSlot(level, h1, ItemHasher.h2(h1));
    }

    @Test
    void secondChanceTakesAFreeNextBucketWithoutMovingAnything() {
        TableLayout layout = TableLayout.of(1, 4, 8, 8);
        SlotItems items = SlotItems.forLayout(layout, 2);
        MultilevelTable table = new MultilevelTable(layout, InsertionScheme.SECOND_CHANCE, items, null);
        long y = random.nextLong();
        int b = items.insert(table, 0, y);
        long x = hashWith(table, new int[] {b, -1}, new int[] {-1, bucket(table, 1, y)});
        assertThat(items.insert(table, 1, x)).isEqualTo(bucket(table, 1, x));
        assertThat(items.slotOf[0]).isEqualTo(b);
        assertThat(table.moves()).isZero();
    }

    @Test
    void secondChancePushesTheOccupantRightWhenTheNextBucketIsFull() {
        TableLayout layout = TableLayout.of(1, 4, 8, 8);
        SlotItems items = SlotItems.forLayout(layout, 3);
        MultilevelTable table = new MultilevelTable(layout, InsertionScheme.SECOND_CHANCE, items, null);
        long y = random.nextLong();
        int b = items.insert(table, 0, y);
        int u = bucket(table, 1, y);
        long w = hashWith(table, new int[] {b, -1}, new int[] {-1, u});
        int t = items.insert(table, 1, w); // b is taken, w's next bucket free: w goes to T2
        assertThat(table.levelOf(t)).isEqualTo(1);
        long x = hashWith(table, new int[] {b, t}, null);
        assertThat(items.insert(table, 2, x)).as("x takes y's bucket").isEqualTo(b);
        assertThat(items.slotOf[0]).as("y moved to its T2 bucket").isEqualTo(u);
        assertThat(table.moves()).isEqualTo(1);
    }

    @Test
    void extremeSecondChanceMovesTheFirstSubTablesOccupantWhenThatIsBetter() {
        TableLayout layout = TableLayout.of(1, 4, 8, 8, 8);
        SlotItems items = SlotItems.forLayout(layout, 3);
        MultilevelTable table = new MultilevelTable(layout, InsertionScheme.EXTREME_SECOND_CHANCE, items, null);
        long y = random.nextLong();
        int b = items.insert(table, 0, y);
        int u = bucket(table, 1, y);
        long w = hashWith(table, new int[] {b, -1}, new int[] {-1, u});
        int t = items.insert(table, 1, w);
        assertThat(table.levelOf(t)).isEqualTo(1);
        // x: T1 and T2 buckets full, so its own leftmost free level is T3; y can go to T2, which is better
        long x = hashWith(table, new int[] {b, t, -1}, new int[] {-1, -1, -1});
        assertThat(items.insert(table, 2, x)).isEqualTo(b);
        assertThat(items.slotOf[0]).isEqualTo(u);
        assertThat(table.moves()).isEqualTo(1);
    }

    /**
     * §5.6 after a deletion: x's leftmost free level is T2 (z<sub>0</sub> = 2), but the occupant y of x's T3
     * bucket, right of z<sub>0</sub>, has a free T1 bucket (its blocker was freed): z<sub>y</sub> = 1 &lt;
     * z<sub>0</sub>, so the thesis moves y to T1 and x takes y's T3 bucket. With insertions only this cannot
     * happen (every item's buckets left of its own are full).
     */
    @Test
    void extremeSecondChanceMovesAnOccupantRightOfZ0IntoAHoleLeftOfIt() {
        TableLayout layout = TableLayout.of(1, 4, 8, 8, 8);
        SlotItems items = SlotItems.forLayout(layout, 5);
        MultilevelTable table = new MultilevelTable(layout, InsertionScheme.EXTREME_SECOND_CHANCE, items, null);
        long a = random.nextLong();
        int a1 = items.insert(table, 0, a);
        int a2 = bucket(table, 1, a);
        // b and y share a's T1 and T2 buckets: b goes to T2, y to T3 (no occupant can move left of their z0)
        long b = hashWith(table, new int[] {a1, a2}, null);
        assertThat(items.insert(table, 1, b)).isEqualTo(a2);
        long y = hashWith(table, new int[] {a1, a2}, null);
        int y3 = items.insert(table, 2, y);
        assertThat(table.levelOf(y3)).as("y in T3").isEqualTo(2);
        items.free(table, 0); // a leaves a hole in y's T1 bucket
        long c = hashWith(table, new int[] {-1}, new int[] {a1});
        int c1 = items.insert(table, 3, c);
        assertThat(table.levelOf(c1)).isZero();
        assertThat(table.moves()).isZero();
        // x: T1 bucket full (c, which has no free bucket left of T2), T2 bucket free, T3 bucket holds y
        long x = hashWith(table, new int[] {c1, -1, y3}, new int[] {-1, a2, -1});
        assertThat(items.insert(table, 4, x)).as("x takes y's T3 bucket, not its own free T2 bucket").isEqualTo(y3);
        assertThat(items.slotOf[2]).as("y moved left into the hole in T1").isEqualTo(a1);
        assertThat(items.slotOf[3]).as("c stays").isEqualTo(c1);
        assertThat(table.isOccupied(bucket(table, 1, x))).as("x's T2 bucket stays free").isFalse();
        assertThat(table.moves()).isEqualTo(1);
    }

    @Test
    void moveSchemesNeedTwoLevelsAndTwoAreEnough() {
        for (InsertionScheme scheme : new InsertionScheme[] {InsertionScheme.SECOND_CHANCE,
                InsertionScheme.CONSERVATIVE, InsertionScheme.EXTREME_SECOND_CHANCE}) {
            MultilevelTable.check(TableLayout.of(1, 4, 8, 8), scheme);
            assertThatThrownBy(() -> MultilevelTable.check(TableLayout.of(1, 4, 8), scheme))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("needs at least 2 levels");
        }
        MultilevelTable.check(TableLayout.of(1, 4, 8), InsertionScheme.STANDARD);
    }

    @Test
    void freeingAnEmptySlotIsRefused() {
        TableLayout layout = TableLayout.of(1, 4, 8, 8);
        MultilevelTable table = new MultilevelTable(layout, InsertionScheme.STANDARD,
                SlotItems.forLayout(layout, 1), null);
        assertThatThrownBy(() -> table.free(3, 1, 2)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("is empty");
        assertThat(table.size()).isZero();
    }
}
