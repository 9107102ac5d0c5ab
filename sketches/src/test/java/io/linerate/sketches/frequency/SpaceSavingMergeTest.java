package io.linerate.sketches.frequency;

import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.sketches.hash.FiveTuple;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.LongFunction;
import org.junit.jupiter.api.Test;

/**
 * Space-Saving's merge (Agarwal et al. 2012, docs/frequency.md): upper bounds add (a side that does not monitor the
 * item contributes its unmonitored bound), lower bounds add, the m largest upper bounds are kept and the largest one
 * dropped becomes the bound of every unmonitored item. Small trackers whose streams differ, so that which side an
 * item is on, its slot and its error all matter.
 */
class SpaceSavingMergeTest {

    @Test
    void anItemMonitoredOnBothSidesGetsTheSumOfItsCountsWhateverItsSlot() {
        SpaceSaving a = SpaceSaving.withCapacity(KeyKind.longs(), 4, 1);
        SpaceSaving b = SpaceSaving.withCapacity(KeyKind.longs(), 4, 1);
        a.update(7, 10); // slot 0 on both sides
        a.update(8, 1);
        b.update(7, 20);
        b.update(9, 2);
        a.merge(b);
        assertThat(a.topK(10)).containsExactly(new HeavyHitter(7L, 30, 30, 30), new HeavyHitter(9L, 2, 2, 2),
                new HeavyHitter(8L, 1, 1, 1));
        assertThat(a.unmonitoredBound()).isZero();
        assertThat(a.totalWeight()).isEqualTo(33);
    }

    @Test
    void theLargestUpperBoundsOfTheUnionAreKept() {
        SpaceSaving a = SpaceSaving.withCapacity(KeyKind.longs(), 4, 1);
        SpaceSaving b = SpaceSaving.withCapacity(KeyKind.longs(), 4, 1);
        for (long item = 1; item <= 4; item++) {
            a.update(item, 1); // full, c_min 1
        }
        for (long item = 11; item <= 13; item++) {
            b.update(item, 100); // not full: nothing unmonitored has weight
        }
        a.merge(b);
        // upper bounds: 11..13 have 100 + a's bound 1, the light items 1 + 0: three heavy items and one light one
        List<HeavyHitter> top = a.topK(4);
        assertThat(top).hasSize(4);
        assertThat(top.subList(0, 3)).extracting(HeavyHitter::item).containsExactlyInAnyOrder(11L, 12L, 13L);
        assertThat(top.subList(0, 3)).allSatisfy(h -> {
            assertThat(h.lowerBound()).isEqualTo(100);
            assertThat(h.upperBound()).isEqualTo(101);
        });
        // N = 304: every item of weight ≥ 0.2 N is reported
        assertThat(a.heavyHitters(0.2)).extracting(HeavyHitter::item).containsExactlyInAnyOrder(11L, 12L, 13L);
        assertThat(a.unmonitoredBound()).isEqualTo(1); // the three light items dropped had upper bound 1
    }

    @Test
    void boundsOfTheUnionHoldForLongKeys() {
        boundsOfTheUnionHold(KeyKind.longs(), k -> k);
    }

    @Test
    void boundsOfTheUnionHoldForFiveTupleKeys() {
        boundsOfTheUnionHold(KeyKind.fiveTuples(), k -> FiveTuple.ipv4(0x0A000000 | (int) k, 0x0B000001,
                (int) (1000 + k), 80, 6));
    }

    /**
     * Two trackers of 8 counters over streams of 40 keys each, 20 of them shared, with errors on both sides; after the
     * merge every monitored item has lower ≤ true weight ≤ upper, every item heavier than the unmonitored bound is
     * monitored, and heavyHitters(φ) reports every item of weight ≥ φN for φ = 0.1.
     */
    private static void boundsOfTheUnionHold(KeyKind kind, LongFunction<Object> item) {
        for (long seed = 1; seed <= 20; seed++) {
            SplittableRandom random = new SplittableRandom(seed);
            SpaceSaving a = SpaceSaving.withCapacity(kind, 8, 5);
            SpaceSaving b = SpaceSaving.withCapacity(kind, 8, 5);
            Map<Object, Long> truth = new HashMap<>();
            for (int i = 0; i < 400; i++) {
                boolean left = i % 2 == 0;
                // skewed keys: key 0 (or 20) of each side is heavy, so some items are heavier than the bounds
                long key = (left ? 0 : 20) + (random.nextInt(3) == 0 ? 0 : random.nextInt(40));
                long weight = 1 + random.nextInt(5);
                Object it = item.apply(key);
                truth.merge(it, weight, Long::sum);
                update(left ? a : b, it, weight);
            }
            a.merge(b);
            long bound = a.unmonitoredBound();
            Map<Object, HeavyHitter> kept = new HashMap<>();
            for (HeavyHitter h : a.topK(8)) {
                assertThat(kept.put(h.item(), h)).as("seed %d: %s reported once", seed, h.item()).isNull();
                assertThat(truth.get(h.item())).as("seed %d: %s", seed, h).isBetween(h.lowerBound(), h.upperBound());
            }
            assertThat(kept).hasSize(8);
            long n = a.totalWeight();
            assertThat(n).isEqualTo(truth.values().stream().mapToLong(Long::longValue).sum());
            List<Object> reported = a.heavyHitters(0.1).stream().map(HeavyHitter::item).toList();
            for (Map.Entry<Object, Long> e : truth.entrySet()) {
                Object it = e.getKey();
                long w = e.getValue();
                if (w > bound) {
                    assertThat(kept).as("seed %d: %s of weight %d > bound %d", seed, it, w, bound).containsKey(it);
                }
                if (w >= 0.1 * n && 0.1 * n > bound) {
                    assertThat(reported).as("seed %d", seed).contains(it);
                }
            }
        }
    }

    private static void update(SpaceSaving t, Object item, long weight) {
        if (item instanceof Long l) {
            t.update(l, weight);
        } else {
            t.update((FiveTuple) item, weight);
        }
    }
}
