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
            Pair pair = Pair.of(seed);
            SplittableRandom rnd = pair.rnd;
            KeyKind kind = pair.kind;
            int capacity = pair.capacity;
            HeavyHitters a = pair.a;
            HeavyHitters b = pair.b;
            if (seed % 5 == 0) {
                a = read(a, a.toByteArray());
            }
            byte[] imageA = a.toByteArray();
            byte[] imageB = b.toByteArray();

            HeavyHitters union = a.union(b);
            HeavyHitters merged = a.copy();
            merged.merge(b);
            String what = pair.what;
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
        assertThatThrownBy(() -> c.union((HeavyHitters) null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("null");
        assertThatThrownBy(() -> a.union((List<HeavyHitters>) null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("others");
        // the first tracker of another seed, among others, is named as the pairwise union names it
        assertThatThrownBy(() -> c.union(List.of(CountMinHeap.create(KeyKind.longs(), 8, 211, 3, false, 1),
                CountMinHeap.create(KeyKind.longs(), 8, 211, 3, false, 2)))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("seed");
        assertThatThrownBy(() -> a.union(List.of(SpaceSaving.withCapacity(KeyKind.longs(), 8, 1),
                SpaceSaving.withCapacity(KeyKind.longs(), 9, 1)))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("capacity");
    }

    /**
     * The union of many at once ({@link HeavyHitters#union(List)}) runs its own code for three trackers or more: with
     * an empty third tracker (no items, bound 0, weight 0) it must give exactly the pairwise union of the other two.
     */
    @Test
    void aUnionAtOnceWithAnEmptyThirdIsThePairwiseUnion() {
        for (int seed = 1; seed <= 40; seed++) {
            Pair pair = Pair.of(seed);
            int capacity = pair.capacity;
            HeavyHitters a = pair.a;
            HeavyHitters b = pair.b;
            HeavyHitters empty = create(pair.spaceSaving, pair.kind, capacity, 5);
            String what = pair.what;
            assertThat(a.union(List.of(b, empty)).toByteArray()).as(what).isEqualTo(a.union(b).toByteArray());
            assertThat(a.union(List.of(empty, b)).topK(capacity)).as(what).isEqualTo(a.union(b).topK(capacity));
            assertThat(a.union(List.of(b)).toByteArray()).as(what).isEqualTo(a.union(b).toByteArray());
        }
    }

    /**
     * Many sub-windows at once, against the exact weights: every kept item's lower bound ≤ its weight ≤ its upper
     * bound, every other item's weight ≤ the unmonitored bound, the total the sum; and, for Space-Saving, against a
     * chain of pairwise unions of the same trackers, the kept items' bounds and the unmonitored bound as tight or
     * tighter (its Javadoc's claim). Inputs unchanged.
     */
    @Test
    void aUnionOfManyAtOnceHoldsItsBoundsAndIsNoLooserThanAChain() {
        for (int seed = 1; seed <= 30; seed++) {
            SplittableRandom rnd = new SplittableRandom(seed);
            boolean spaceSaving = seed % 2 == 0;
            int capacity = 5 + rnd.nextInt(60);
            int trackers = 3 + rnd.nextInt(8);
            List<HeavyHitters> subs = new java.util.ArrayList<>();
            java.util.Map<Long, Long> exact = new java.util.HashMap<>();
            for (int t = 0; t < trackers; t++) {
                HeavyHitters sub = create(spaceSaving, KeyKind.longs(), capacity, 5);
                int n = rnd.nextInt(8 * capacity);
                for (int i = 0; i < n; i++) {
                    long key = Math.min(rnd.nextInt(6 * capacity), rnd.nextInt(6 * capacity)); // skewed
                    long weight = 1 + rnd.nextInt(3);
                    sub.update(key, weight);
                    exact.merge(key, weight, Long::sum);
                }
                subs.add(sub);
            }
            List<byte[]> images = subs.stream().map(HeavyHitters::toByteArray).toList();
            HeavyHitters atOnce = subs.get(0).union(subs.subList(1, trackers));
            HeavyHitters chain = subs.get(0).union(subs.get(1));
            for (int t = 2; t < trackers; t++) {
                chain.merge(subs.get(t));
            }
            String what = "seed " + seed + ", " + trackers + " trackers, " + (spaceSaving ? "Space-Saving" : "CM-heap");
            long bound = spaceSaving ? ((SpaceSaving) atOnce).unmonitoredBound()
                    : ((CountMinHeap) atOnce).unmonitoredBound();
            assertThat(atOnce.totalWeight()).as(what).isEqualTo(exact.values().stream().mapToLong(Long::longValue).sum());
            java.util.Map<Long, HeavyHitter> kept = new java.util.HashMap<>();
            for (HeavyHitter h : atOnce.topK(capacity)) {
                kept.put((Long) h.item(), h);
            }
            assertThat(kept).as(what).hasSizeLessThanOrEqualTo(capacity);
            for (var e : exact.entrySet()) {
                HeavyHitter h = kept.get(e.getKey());
                if (h == null) {
                    assertThat(e.getValue()).as(what + ", unmonitored item " + e.getKey()).isLessThanOrEqualTo(bound);
                } else {
                    assertThat(e.getValue()).as(what + ", item " + e.getKey())
                            .isBetween(h.lowerBound(), h.upperBound());
                }
            }
            if (spaceSaving) {
                SpaceSaving c = (SpaceSaving) chain;
                assertThat(bound).as(what + ", unmonitored bound").isLessThanOrEqualTo(c.unmonitoredBound());
                java.util.Map<Long, HeavyHitter> chained = new java.util.HashMap<>();
                for (HeavyHitter h : c.topK(capacity)) {
                    chained.put((Long) h.item(), h);
                }
                for (HeavyHitter h : kept.values()) {
                    HeavyHitter other = chained.get((Long) h.item());
                    long otherUpper = other != null ? other.upperBound() : c.unmonitoredBound();
                    long otherLower = other != null ? other.lowerBound() : 0;
                    assertThat(h.upperBound()).as(what + ", upper bound of " + h.item()).isLessThanOrEqualTo(otherUpper);
                    assertThat(h.lowerBound()).as(what + ", lower bound of " + h.item())
                            .isGreaterThanOrEqualTo(otherLower);
                }
            }
            for (int t = 0; t < trackers; t++) {
                assertThat(subs.get(t).toByteArray()).as(what + ": tracker " + t + " unchanged").isEqualTo(images.get(t));
            }
        }
    }

    /**
     * Past {@link CombinedItems#MAX_ENTRIES} items a union goes in groups (a merge tree): with a limit lowered to a
     * little more than one tracker's items, so that every group is two trackers, the bounds still hold against the
     * exact weights; with a limit of every item, it is the union at once byte for byte. CM-heap's groups keep the
     * same items as at once, ranked by the same whole sum (the streams' weights are distinct enough here that no tie
     * falls at the cut).
     */
    @Test
    void aUnionInGroupsHoldsItsBounds() {
        for (int seed = 1; seed <= 20; seed++) {
            SplittableRandom rnd = new SplittableRandom(seed);
            int capacity = 10 + rnd.nextInt(40);
            List<SpaceSaving> spaceSaving = new java.util.ArrayList<>();
            List<CountMinHeap> cmHeap = new java.util.ArrayList<>();
            java.util.Map<Long, Long> exact = new java.util.HashMap<>();
            for (int t = 0; t < 6; t++) {
                SpaceSaving ss = SpaceSaving.withCapacity(KeyKind.longs(), capacity, 5);
                CountMinHeap cm = CountMinHeap.create(KeyKind.longs(), capacity, 211, 3, false, 5);
                for (int i = 0; i < 8 * capacity; i++) {
                    long key = Math.min(rnd.nextInt(6 * capacity), rnd.nextInt(6 * capacity));
                    long weight = 1 + rnd.nextInt(100);
                    ss.update(key, weight);
                    cm.update(key, weight);
                    exact.merge(key, weight, Long::sum);
                }
                spaceSaving.add(ss);
                cmHeap.add(cm);
            }
            String what = "seed " + seed;
            SpaceSaving grouped = SpaceSaving.unionInGroups(spaceSaving, capacity + 1);
            checkBounds(what + ", Space-Saving in groups", grouped, grouped.unmonitoredBound(), capacity, exact);
            assertThat(SpaceSaving.unionInGroups(spaceSaving, 6 * capacity).toByteArray()).as(what)
                    .isEqualTo(spaceSaving.get(0).union(spaceSaving.subList(1, 6)).toByteArray());
            CountMinHeap cmGrouped = CountMinHeap.unionInGroups(cmHeap, capacity + 1);
            CountMinHeap cmAtOnce = cmHeap.get(0).union(cmHeap.subList(1, 6));
            checkBounds(what + ", CM-heap in groups", cmGrouped, cmGrouped.unmonitoredBound(), capacity, exact);
            assertThat(cmGrouped.unmonitoredBound()).as(what).isEqualTo(cmAtOnce.unmonitoredBound());
            assertThat(cmGrouped.topK(capacity).stream().map(HeavyHitter::item).collect(java.util.stream.Collectors.toSet()))
                    .as(what).isEqualTo(cmAtOnce.topK(capacity).stream().map(HeavyHitter::item)
                            .collect(java.util.stream.Collectors.toSet()));
        }
    }

    private static void checkBounds(String what, HeavyHitters union, long bound, int capacity,
                                    java.util.Map<Long, Long> exact) {
        java.util.Map<Long, HeavyHitter> kept = new java.util.HashMap<>();
        for (HeavyHitter h : union.topK(capacity)) {
            kept.put((Long) h.item(), h);
        }
        assertThat(union.totalWeight()).as(what).isEqualTo(exact.values().stream().mapToLong(Long::longValue).sum());
        for (var e : exact.entrySet()) {
            HeavyHitter h = kept.get(e.getKey());
            if (h == null) {
                assertThat(e.getValue()).as(what + ", unmonitored item " + e.getKey()).isLessThanOrEqualTo(bound);
            } else {
                assertThat(e.getValue()).as(what + ", item " + e.getKey()).isBetween(h.lowerBound(), h.upperBound());
            }
        }
    }

    /**
     * Two trackers of one kind for a seed: Space-Saving for even seeds, CM-heap for odd ones, the key kinds in turn,
     * a capacity in [1, 120], each fed its own stream of ties ({@link #filled}); {@code rnd} continues the seed's draws.
     */
    private record Pair(boolean spaceSaving, KeyKind kind, int capacity, HeavyHitters a, HeavyHitters b,
                        SplittableRandom rnd, String what) {
        static Pair of(int seed) {
            SplittableRandom rnd = new SplittableRandom(seed);
            boolean spaceSaving = seed % 2 == 0;
            KeyKind kind = KINDS.get(seed % 3);
            int capacity = 1 + rnd.nextInt(120);
            HeavyHitters a = filled(spaceSaving, kind, capacity, rnd);
            HeavyHitters b = filled(spaceSaving, kind, capacity, rnd);
            return new Pair(spaceSaving, kind, capacity, a, b, rnd,
                    "seed " + seed + ", " + kind + ", " + (spaceSaving ? "Space-Saving" : "CM-heap"));
        }
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
