package io.linerate.sketches.flowtable;

import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.sketches.hash.ItemHasher;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Where every item goes: a {@link MultilevelTable} against a reference written from the thesis's pseudocode
 * (research notes §5.1–5.5: Std, Cons, Figure 5.1's SC, SCExt, Std2, SC2; §5.9 deletion; §4.10.1 lazy deletion
 * and the natural reconstruction), slot for slot, under random sequences of insertions, immediate and lazy
 * deletions and rebuilds on small tables with a small stash. After every operation the slot an insertion got,
 * the item in every slot, every slot's state bits (occupied, lazily deleted, Conservative's mark), the stash's
 * order and the counters (size, lazily deleted, moves, overflows, rebuild moves) must agree with the reference.
 *
 * <p>The statistical tests ({@code MultilevelTableThesisTest}) see a scheme only through means over thousands of
 * trials, and the flow table's model tests only through lookups, which any legal placement answers alike: neither
 * notices an insertion that tries the buckets in another order, moves another occupant or an item that was not
 * to move, or a rebuild that moves an item to another of its free buckets. This test does.
 *
 * <p>Choices the thesis leaves open, as the table documents them: the first free slot of a bucket (left to
 * right) is taken, a lazily deleted item is never moved by an insertion (Cons marks its bucket and gives up), and an
 * SCExt occupant's z<sub>i</sub> is its leftmost free level, which after deletions may lie left of its own level.
 * SCExt looks at every occupant of x's buckets, as §5.6 says, also those right of z<sub>0</sub>: with insertions
 * only none of them can win, but after deletions one can have a free bucket left of z<sub>0</sub> (then x takes
 * its bucket, right of z<sub>0</sub>). The stash is compact: freeing a stash slot moves the last stash item into it.
 */
class MultilevelTablePlacementModelTest {

    private static final int OPS = 3_000;

    static Stream<Arguments> cases() {
        List<Arguments> all = new ArrayList<>();
        long seed = 0x51A7_0C0DEL;
        for (InsertionScheme scheme : InsertionScheme.values()) {
            for (int[] buckets : new int[][] {{7, 5, 3, 2}, {6, 4, 3}, {5, 3}}) {
                seed = seed * 0x9E3779B97F4A7C15L + 0x632BE59BD9B4E019L;
                all.add(Arguments.of(scheme, buckets, seed));
            }
        }
        return all.stream();
    }

    @ParameterizedTest(name = "{0} buckets={1} seed={2}")
    @MethodSource("cases")
    void placesEveryItemWhereTheThesisSays(InsertionScheme scheme, int[] buckets, long seed) {
        TableLayout layout = TableLayout.of(scheme.bucketCapacity(), 3, buckets);
        SplittableRandom random = new SplittableRandom(seed);
        SlotItems items = SlotItems.forLayout(layout, OPS + 1);
        MultilevelTable table = new MultilevelTable(layout, scheme, items, null);
        Reference ref = new Reference(table, items);
        List<Integer> stored = new ArrayList<>();
        int nextId = 0;
        int[] seen = new int[4];
        for (int op = 0; op < OPS; op++) {
            int kind = random.nextInt(100);
            String what;
            if (kind < 60 || stored.isEmpty()) {
                int id = nextId++;
                long h1 = random.nextLong();
                int expected = ref.place(id, h1);
                what = "insert " + id + " -> expected " + expected;
                assertThat(items.insert(table, id, h1)).as("op %d: %s", op, what).isEqualTo(expected);
                if (expected >= 0) {
                    stored.add(id);
                }
                seen[0]++;
            } else if (kind < 78) {
                int id = stored.remove(random.nextInt(stored.size()));
                what = "free " + id + " in slot " + items.slotOf[id];
                ref.free(items.slotOf[id]);
                items.free(table, id);
                seen[1]++;
            } else if (kind < 97) {
                int id = stored.get(random.nextInt(stored.size()));
                int slot = items.slotOf[id];
                if (!table.isLive(slot)) {
                    continue;
                }
                what = "markDeleted " + id + " in slot " + slot;
                ref.markDeleted(slot);
                items.markDeleted(table, id);
                if (slot >= table.stashBase()) {
                    stored.remove((Integer) id); // a stash slot is freed at once
                }
                seen[2]++;
            } else {
                what = "rebuild";
                long expectedMoves = ref.rebuild();
                assertThat(table.rebuild()).as("op %d: rebuild moves", op).isEqualTo(expectedMoves);
                stored.removeIf(id -> !table.isOccupied(items.slotOf[id]) || items.itemAt[items.slotOf[id]] != id);
                seen[3]++;
            }
            ref.assertSame(op, what);
        }
        assertThat(seen).as("inserts, frees, lazy deletions, rebuilds").doesNotContain(0);
        if (scheme == InsertionScheme.EXTREME_SECOND_CHANCE && buckets.length > 2) {
            assertThat(ref.movesRightOfZ0).as("SCExt moves of an occupant right of z0").isPositive();
        }
        assertThat(table.overflows()).as("insertions that overflowed").isPositive();
        if (scheme != InsertionScheme.STANDARD && scheme != InsertionScheme.STANDARD_2) {
            assertThat(table.moves()).as("moves").isPositive();
        }
    }

    /**
     * SCExt at Table 5.1(b), d = 4 (n = 10,000, the printed α, a stash of 2048): with insertions only, the thesis's
     * rule (every occupant of x's buckets) and the earlier one (occupants left of z<sub>0</sub> only) put every
     * item in the same slot and make the same moves, so the Table 5.1(b) reproduction is unchanged. Then model 1 of
     * §5.10 (insert a new item, free a random other one, 2n times): the table still follows the thesis slot for
     * slot, some insertions move an occupant right of z<sub>0</sub>, and the earlier rule places some insertion
     * elsewhere.
     */
    @ParameterizedTest(name = "seed={0}")
    @ValueSource(longs = {0x5CE7_0001L, 0x5CE7_0002L, 0x5CE7_0003L})
    void extremeSecondChanceDiffersFromTheLeftOfZ0RuleOnlyAfterDeletions(long seed) {
        int n = 10_000;
        InsertionScheme scheme = InsertionScheme.EXTREME_SECOND_CHANCE;
        TableLayout layout = TableLayout.forItems(n, scheme, scheme.defaultAlphas(4), 2048);
        SplittableRandom random = new SplittableRandom(seed);
        SlotItems items = SlotItems.forLayout(layout, n + 1);
        MultilevelTable table = new MultilevelTable(layout, scheme, items, null);
        Reference thesis = new Reference(table, items);
        Reference leftOfZ0 = new Reference(table, items, true);
        for (int id = 0; id < n; id++) {
            long h1 = random.nextLong();
            int expected = thesis.place(id, h1);
            assertThat(leftOfZ0.place(id, h1)).as("insertion %d: the two rules", id).isEqualTo(expected);
            assertThat(items.insert(table, id, h1)).as("insertion %d", id).isEqualTo(expected);
        }
        thesis.assertSame(n, "after the insertions");
        leftOfZ0.assertSame(n, "after the insertions");
        assertThat(thesis.movesRightOfZ0).isZero();
        assertThat(table.moves()).as("moves (Table 5.1(b): m = 17.8%)").isBetween(1_600L, 1_950L);

        int[] present = new int[n];
        for (int i = 0; i < n; i++) {
            present[i] = i;
        }
        int spare = n;
        int firstDifference = -1;
        for (int step = 1; step <= 2 * n; step++) {
            long h1 = random.nextLong();
            int expected = thesis.place(spare, h1);
            if (firstDifference < 0 && leftOfZ0.place(spare, h1) != expected) {
                firstDifference = step; // the states part here: stop feeding the earlier rule
            }
            assertThat(items.insert(table, spare, h1)).as("model 1 step %d", step).isEqualTo(expected);
            int k = random.nextInt(n);
            int victim = present[k];
            present[k] = spare;
            thesis.free(items.slotOf[victim]);
            if (firstDifference < 0) {
                leftOfZ0.free(items.slotOf[victim]);
            }
            items.free(table, victim);
            spare = victim;
            if (step % 1_000 == 0) {
                thesis.assertSame(n + step, "model 1");
            }
        }
        assertThat(thesis.movesRightOfZ0).as("moves of an occupant right of z0 under deletions").isPositive();
        assertThat(firstDifference).as("first model-1 step the earlier rule places elsewhere").isPositive();
    }

    /** The thesis's schemes over plain per-slot arrays; slots numbered as the table numbers them. */
    private static final class Reference {
        private final MultilevelTable table;
        private final SlotItems items;
        private final int levels;
        private final int cap;
        private final int stashBase;
        private final int stashCapacity;
        private final int[] item;       // id in a sub-table slot, or -1
        private final boolean[] deleted;
        private final boolean[] marked;
        private final long[] hash;      // h1 of each id
        private final List<Integer> stash = new ArrayList<>();
        private final List<Boolean> stashDeleted = new ArrayList<>();
        private final boolean occupantsLeftOfZ0Only;
        private long moves;
        private long overflows;
        private long rebuildMoves;
        /** SCExt moves of an occupant right of x's leftmost free level z0 (possible only after deletions). */
        private long movesRightOfZ0;

        Reference(MultilevelTable table, SlotItems items) {
            this(table, items, false);
        }

        /**
         * @param occupantsLeftOfZ0Only SCExt as the table placed items before it followed §5.6 for every occupant:
         *                              only the occupants of x's buckets left of z0 were considered
         */
        Reference(MultilevelTable table, SlotItems items, boolean occupantsLeftOfZ0Only) {
            this.occupantsLeftOfZ0Only = occupantsLeftOfZ0Only;
            this.table = table;
            this.items = items;
            this.levels = table.levels();
            this.cap = table.bucketCapacity();
            this.stashBase = table.stashBase();
            this.stashCapacity = table.layout().stashCapacity();
            this.item = new int[stashBase];
            Arrays.fill(item, -1);
            this.deleted = new boolean[stashBase];
            this.marked = new boolean[stashBase];
            this.hash = new long[items.slotOf.length];
        }

        private int bucket(int level, long h1) {
            return table.bucketSlot(level, h1, ItemHasher.h2(h1));
        }

        /** The first slot of the bucket holding no item, or -1. */
        private int freeIn(int base) {
            for (int c = 0; c < cap; c++) {
                if (item[base + c] < 0) {
                    return base + c;
                }
            }
            return -1;
        }

        private void move(int from, int to) {
            item[to] = item[from];
            item[from] = -1;
            moves++;
        }

        int place(int id, long h1) {
            hash[id] = h1;
            int slot = switch (table.scheme()) {
                case STANDARD, STANDARD_2 -> standard(h1);
                case CONSERVATIVE -> conservative(h1);
                case SECOND_CHANCE, SECOND_CHANCE_2 -> secondChance(h1);
                case EXTREME_SECOND_CHANCE -> extreme(h1);
            };
            if (slot >= 0) {
                item[slot] = id;
                return slot;
            }
            overflows++;
            if (stash.size() == stashCapacity) {
                return -1;
            }
            stash.add(id);
            stashDeleted.add(false);
            return stashBase + stash.size() - 1;
        }

        private int standard(long h1) {
            for (int i = 0; i < levels; i++) {
                int s = freeIn(bucket(i, h1));
                if (s >= 0) {
                    return s;
                }
            }
            return -1;
        }

        private int conservative(long h1) {
            int s = standard(h1);
            if (s >= 0) {
                return s;
            }
            for (int j = 0; j < levels - 1; j++) {
                int y = bucket(j, h1);
                if (marked[y]) {
                    continue;
                }
                marked[y] = true;
                if (deleted[y]) {
                    return -1;
                }
                long yh1 = hash[item[y]];
                for (int k = j + 1; k < levels; k++) {
                    int target = bucket(k, yh1);
                    if (item[target] < 0) {
                        move(y, target);
                        return y;
                    }
                }
                return -1;
            }
            return -1;
        }

        private int secondChance(long h1) {
            for (int i = 0; i < levels - 1; i++) {
                int here = bucket(i, h1);
                int s = freeIn(here);
                if (s >= 0) {
                    return s;
                }
                if (freeIn(bucket(i + 1, h1)) < 0) {
                    for (int c = 0; c < cap; c++) {
                        int y = here + c;
                        if (deleted[y]) {
                            continue;
                        }
                        int target = freeIn(bucket(i + 1, hash[item[y]]));
                        if (target >= 0) {
                            move(y, target);
                            return y;
                        }
                    }
                }
            }
            return freeIn(bucket(levels - 1, h1));
        }

        private int extreme(long h1) {
            int z0 = levels;
            for (int i = 0; i < levels; i++) {
                if (freeIn(bucket(i, h1)) >= 0) {
                    z0 = i;
                    break;
                }
            }
            int best = -1;
            int bestZ = z0;
            // §5.6: every occupied bucket of x; the earlier rule looked only left of z0
            for (int i = 0; i < (occupantsLeftOfZ0Only ? z0 : levels); i++) {
                int y = bucket(i, h1);
                if (item[y] < 0 || deleted[y]) {
                    continue;
                }
                int zi = levels;
                for (int k = 0; k < levels; k++) {
                    if (k != i && freeIn(bucket(k, hash[item[y]])) >= 0) {
                        zi = k;
                        break;
                    }
                }
                if (zi < bestZ) {
                    best = i;
                    bestZ = zi;
                }
            }
            if (best >= 0) {
                int y = bucket(best, h1);
                move(y, freeIn(bucket(bestZ, hash[item[y]])));
                if (best > z0) {
                    movesRightOfZ0++;
                }
                return y;
            }
            return z0 < levels ? freeIn(bucket(z0, h1)) : -1;
        }

        void free(int slot) {
            if (slot >= stashBase) {
                int i = slot - stashBase;
                int last = stash.size() - 1;
                stash.set(i, stash.get(last));
                stashDeleted.set(i, stashDeleted.get(last));
                stash.remove(last);
                stashDeleted.remove(last);
                return;
            }
            item[slot] = -1;
            deleted[slot] = false;
            marked[slot] = false; // an empty bucket forgets its mark
        }

        void markDeleted(int slot) {
            if (slot >= stashBase) {
                free(slot);
            } else {
                deleted[slot] = true;
            }
        }

        /** §4.10.1 with the stash as sub-table d + 1: each live item to its leftmost reusable bucket. */
        long rebuild() {
            long moved = 0;
            for (int i = 1; i <= levels; i++) {
                int n = i < levels ? table.slotsOf(i) : stash.size();
                for (int s = 0; s < n; s++) {
                    int slot = i < levels ? table.firstSlotOf(i) + s : stashBase + s;
                    boolean live = i < levels ? item[slot] >= 0 && !deleted[slot] : !stashDeleted.get(s);
                    if (!live) {
                        continue;
                    }
                    int id = i < levels ? item[slot] : stash.get(s);
                    for (int j = 0; j < i; j++) {
                        int target = reusable(bucket(j, hash[id]));
                        if (target >= 0) {
                            item[target] = id;
                            deleted[target] = false;
                            marked[target] = false;
                            if (i < levels) {
                                deleted[slot] = true;
                            } else {
                                stashDeleted.set(s, true);
                            }
                            moved++;
                            break;
                        }
                    }
                }
            }
            for (int slot = 0; slot < stashBase; slot++) {
                if (deleted[slot]) {
                    item[slot] = -1;
                    deleted[slot] = false;
                    marked[slot] = false;
                }
            }
            for (int s = stash.size() - 1; s >= 0; s--) {
                if (stashDeleted.get(s)) {
                    stash.remove(s);
                    stashDeleted.remove(s);
                }
            }
            rebuildMoves += moved;
            return moved;
        }

        private int reusable(int base) {
            for (int c = 0; c < cap; c++) {
                if (item[base + c] < 0 || deleted[base + c]) {
                    return base + c;
                }
            }
            return -1;
        }

        void assertSame(int op, String what) {
            byte[] state = table.state();
            int size = 0;
            int lazily = 0;
            for (int slot = 0; slot < stashBase; slot++) {
                int expected = (item[slot] >= 0 ? MultilevelTable.OCCUPIED : 0)
                        | (deleted[slot] ? MultilevelTable.DELETED : 0)
                        | (marked[slot] ? MultilevelTable.MARKED : 0);
                assertThat(state[slot]).as("op %d (%s): state of slot %d", op, what, slot).isEqualTo((byte) expected);
                if (item[slot] >= 0) {
                    assertThat(items.itemAt[slot]).as("op %d (%s): item in slot %d", op, what, slot)
                            .isEqualTo(item[slot]);
                    size++;
                    lazily += deleted[slot] ? 1 : 0;
                }
            }
            assertThat(table.stashSize()).as("op %d (%s): stash size", op, what).isEqualTo(stash.size());
            for (int s = 0; s < stashCapacity; s++) {
                int slot = stashBase + s;
                if (s < stash.size()) {
                    assertThat(state[slot]).as("op %d (%s): state of stash slot %d", op, what, s)
                            .isEqualTo(MultilevelTable.OCCUPIED);
                    assertThat(items.itemAt[slot]).as("op %d (%s): item in stash slot %d", op, what, s)
                            .isEqualTo(stash.get(s));
                } else {
                    assertThat(state[slot]).as("op %d (%s): state of free stash slot %d", op, what, s).isZero();
                }
            }
            size += stash.size();
            assertThat(table.size()).as("op %d (%s): size", op, what).isEqualTo(size);
            assertThat(table.lazilyDeleted()).as("op %d (%s): lazily deleted", op, what).isEqualTo(lazily);
            assertThat(table.moves()).as("op %d (%s): moves", op, what).isEqualTo(moves);
            assertThat(table.overflows()).as("op %d (%s): overflows", op, what).isEqualTo(overflows);
            assertThat(table.rebuildMoves()).as("op %d (%s): rebuild moves", op, what).isEqualTo(rebuildMoves);
        }
    }
}
