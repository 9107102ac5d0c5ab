package io.linerate.sketches.frequency;

import static io.linerate.sketches.frequency.TrackerGrowthTest.create;
import static io.linerate.sketches.frequency.TrackerGrowthTest.feed;
import static io.linerate.sketches.frequency.TrackerGrowthTest.read;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@link HeavyHitters#union}: a new tracker equal to {@code copy()} then {@code merge} (same image byte for byte,
 * same answers, same images after the same later updates), both inputs unchanged, and allocated for the items it
 * keeps, not for its capacity. Both trackers, the three key kinds, trackers created new and read from images,
 * keys full of ties (few distinct weights), fixed seeds.
 */
class TrackerUnionTest {

    private static final List<KeyKind> KINDS = List.of(KeyKind.longs(), KeyKind.fiveTuples(), KeyKind.bytes(24));

    @Test
    void aUnionIsACopyMergedWithTheOtherAndLeavesBothAsTheyWere() {
        int cases = 0;
        for (int seed = 1; seed <= 60; seed++) {
            SplittableRandom rnd = new SplittableRandom(seed);
            boolean spaceSaving = seed % 2 == 0;
            KeyKind kind = KINDS.get(seed % 3);
            int capacity = 1 + rnd.nextInt(120);
            HeavyHitters a = filled(spaceSaving, kind, capacity, rnd);
            HeavyHitters b = filled(spaceSaving, kind, capacity, rnd);
            if (seed % 5 == 0) {
                a = read(a, a.toByteArray());
            }
            byte[] imageA = a.toByteArray();
            byte[] imageB = b.toByteArray();

            HeavyHitters union = a.union(b);
            HeavyHitters merged = a.copy();
            merged.merge(b);
            String what = "seed " + seed + ", " + kind + ", " + (spaceSaving ? "Space-Saving" : "CM-heap");
            assertThat(union.getClass()).isEqualTo(a.getClass());
            assertThat(union.toByteArray()).as(what).isEqualTo(merged.toByteArray());
            assertThat(union.topK(capacity)).as(what).isEqualTo(merged.topK(capacity));
            assertThat(union.heavyHitters(0.01)).as(what).isEqualTo(merged.heavyHitters(0.01));
            assertThat(union.totalWeight()).isEqualTo(merged.totalWeight());
            assertThat(union.memoryBytes()).as(what).isLessThanOrEqualTo(merged.memoryBytes());
            assertThat(union.lastEstimate()).isZero();
            assertThat(union.lastItemHash()).isZero();
            assertThat(a.toByteArray()).as(what + ": a unchanged").isEqualTo(imageA);
            assertThat(b.toByteArray()).as(what + ": b unchanged").isEqualTo(imageB);

            // the same later updates (new items evict, known ones grow), then a second union of each with b
            for (int i = 0; i < 200; i++) {
                long key = rnd.nextInt(3 * capacity);
                long weight = 1 + rnd.nextInt(3);
                feed(union, kind, key, weight);
                feed(merged, kind, key, weight);
            }
            assertThat(union.toByteArray()).as(what + ", after updates").isEqualTo(merged.toByteArray());
            HeavyHitters again = union.union(b);
            merged.merge(b);
            assertThat(again.toByteArray()).as(what + ", second union").isEqualTo(merged.toByteArray());
            cases++;
        }
        assertThat(cases).isEqualTo(60);
    }

    @Test
    void aTrackerUnitedWithItselfIsItsCopyMergedWithIt() {
        for (boolean spaceSaving : new boolean[] {true, false}) {
            HeavyHitters a = filled(spaceSaving, KeyKind.longs(), 50, new SplittableRandom(3));
            HeavyHitters merged = a.copy();
            merged.merge(a);
            assertThat(a.union(a).toByteArray()).isEqualTo(merged.toByteArray());
        }
    }

    /** The reason for the method: sub-windows of a large capacity that hold few items unite without it. */
    @Test
    void aUnionOfSparseTrackersAllocatesForItsItemsNotItsCapacity() {
        int capacity = 1 << 20;
        for (boolean spaceSaving : new boolean[] {true, false}) {
            HeavyHitters a = create(spaceSaving, KeyKind.longs(), capacity, 11);
            HeavyHitters b = create(spaceSaving, KeyKind.longs(), capacity, 11);
            for (long item = 0; item < 500; item++) {
                a.update(item, 1 + item % 3);
                b.update(item + 250, 1);
            }
            HeavyHitters union = a.union(b);
            assertThat(union.topK(750)).hasSize(750);
            long sketchBytes = spaceSaving ? 0 : ((CountMinHeap) a).memoryBytes()
                    - MonitoredItems.bytesFor(KeyKind.longs(), capacity, true);
            // 750 items held: exactly 750 slots allocated (MonitoredItems.clearFor), against 2^20 in a copy
            assertThat(union.memoryBytes() - sketchBytes).as(spaceSaving ? "Space-Saving" : "CM-heap")
                    .isEqualTo(MonitoredItems.bytesFor(KeyKind.longs(), 750, true))
                    .isLessThan(a.copy().memoryBytes() / 100);
        }
    }

    @Test
    void anIncompatibleUnionFailsAsTheMergeDoes() {
        SpaceSaving a = SpaceSaving.withCapacity(KeyKind.longs(), 8, 1);
        assertThatThrownBy(() -> a.union(SpaceSaving.withCapacity(KeyKind.longs(), 8, 2)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("seed");
        assertThatThrownBy(() -> a.union(SpaceSaving.withCapacity(KeyKind.longs(), 9, 1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("capacity");
        CountMinHeap c = CountMinHeap.create(KeyKind.longs(), 8, 211, 3, false, 1);
        assertThatThrownBy(() -> a.union(c)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("cannot merge a SpaceSaving with a CountMinHeap");
        assertThatThrownBy(() -> c.union(CountMinHeap.create(KeyKind.longs(), 8, 211, 3, false, 2)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("seed");
        assertThatThrownBy(() -> c.union(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("null");
    }

    /** A tracker fed a stream of few distinct weights, so that many counts tie. */
    private static HeavyHitters filled(boolean spaceSaving, KeyKind kind, int capacity, SplittableRandom rnd) {
        HeavyHitters t = create(spaceSaving, kind, capacity, 5);
        int n = rnd.nextInt(6 * capacity);
        for (int i = 0; i < n; i++) {
            feed(t, kind, rnd.nextInt(4 * capacity), 1 + rnd.nextInt(3));
        }
        return t;
    }
}
