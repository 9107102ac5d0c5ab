package io.linerate.sketches.bloom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The Balanced filter's overflow list (its CAM): an exact set of 128-bit hashes, including the hash (0, 0) that
 * also marks an empty slot, with a fixed capacity and a power-of-two table at most 3/4 full, whose entries()
 * rebuild the same table.
 */
class OverflowListTest {

    @Test
    void hashesWithZeroHalvesAreDistinctMembers() {
        OverflowList list = new OverflowList(8);
        assertThat(list.contains(0, 0)).isFalse();
        long[][] members = {{0, 0}, {1, 2}, {0, 7}, {8, 0}, {-1, 1}};
        for (long[] m : members) {
            assertThat(list.contains(m[0], m[1])).as("%d,%d before", m[0], m[1]).isFalse();
            list.add(m[0], m[1]);
        }
        assertThat(list.size()).isEqualTo(members.length);
        for (long[] m : members) {
            assertThat(list.contains(m[0], m[1])).as("%d,%d", m[0], m[1]).isTrue();
        }
        // the same halves swapped or with one half zero are other items
        for (long[] other : new long[][] {{2, 1}, {7, 0}, {0, 8}, {1, -1}, {0, 1}, {3, 4}}) {
            assertThat(list.contains(other[0], other[1])).as("%d,%d", other[0], other[1]).isFalse();
        }
        long[] entries = list.entries();
        assertThat(entries).hasSize(2 * members.length);
        OverflowList rebuilt = new OverflowList(8);
        for (int i = 0; i < entries.length; i += 2) {
            rebuilt.add(entries[i], entries[i + 1]);
        }
        for (long[] m : members) {
            assertThat(rebuilt.contains(m[0], m[1])).isTrue();
        }
    }

    @Test
    void anEmptyListHoldsNotEvenTheZeroHash() {
        OverflowList list = new OverflowList(4);
        list.add(5, 5);
        assertThat(list.contains(0, 0)).isFalse();
        assertThat(list.entries()).containsExactly(5, 5);
    }

    @Test
    void capacityIsFixedAndTheTableIsThePowerOfTwoAtMostThreeQuartersFull() {
        for (int capacity = 0; capacity <= 100; capacity++) {
            OverflowList list = new OverflowList(capacity);
            assertThat(list.capacity()).isEqualTo(capacity);
            long table = 2;
            while (4 * capacity > 3 * table) {
                table *= 2;
            }
            assertThat(list.memoryBytes()).as("capacity %d", capacity).isEqualTo(table * 2 * Long.BYTES);
            SplittableRandom rnd = new SplittableRandom(capacity);
            for (int i = 0; i < capacity; i++) {
                assertThat(list.isFull()).isFalse();
                list.add(rnd.nextLong() | 1, rnd.nextLong());
            }
            assertThat(list.isFull()).isTrue();
            assertThatThrownBy(() -> list.add(3, 3)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("overflow list full at " + capacity);
        }
        assertThatThrownBy(() -> new OverflowList(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("overflowCapacity must be in [0, ");
        assertThatThrownBy(() -> new OverflowList(BalancedParameters.MAX_OVERFLOW_CAPACITY + 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("got "
                        + (BalancedParameters.MAX_OVERFLOW_CAPACITY + 1));
    }

    /** entries() lists probe runs that wrap past the table's end in an order that rebuilds the same table. */
    @Test
    void entriesRebuildTheSameTable() {
        SplittableRandom rnd = new SplittableRandom(99);
        for (int trial = 0; trial < 2000; trial++) {
            int capacity = 1 + rnd.nextInt(6);
            OverflowList list = new OverflowList(capacity);
            for (int i = 0; i < capacity; i++) {
                long h1 = rnd.nextLong();
                long h2 = rnd.nextLong();
                if (!list.contains(h1, h2)) {
                    list.add(h1, h2);
                }
            }
            long[] entries = list.entries();
            OverflowList rebuilt = new OverflowList(capacity);
            for (int i = 0; i < entries.length; i += 2) {
                rebuilt.add(entries[i], entries[i + 1]);
            }
            assertThat(rebuilt.entries()).as("trial %d", trial).containsExactly(entries);
        }
    }
}
