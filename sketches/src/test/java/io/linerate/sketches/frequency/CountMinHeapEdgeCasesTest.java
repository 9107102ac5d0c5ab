package io.linerate.sketches.frequency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.linerate.sketches.image.Family;
import io.linerate.sketches.image.ImageWriter;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The CM-heap (docs/frequency.md) at its edges: an estimate equal to the lightest candidate's is turned away (only
 * a larger one displaces it), completeness at φN equal to the bound, φ and k at the ends of their ranges, the
 * bounds of candidates admitted with an error, images of merged and weight-0 candidates, images a writer never
 * produces, and the split of a memory budget.
 */
class CountMinHeapEdgeCasesTest {

    private static final KeyKind LONGS = KeyKind.longs();

    /** One candidate over a sketch wide enough that items 1 and 2 share no counter (estimates exact). */
    private static CountMinHeap single() {
        CountMinHeap h = CountMinHeap.create(LONGS, 1, 1009, 4, true, 1);
        h.update(1L, 5);
        h.update(2L, 5);
        return h;
    }

    @Test
    void anEstimateEqualToTheLightestCandidatesIsTurnedAway() {
        CountMinHeap h = single();
        assertThat(h.topK(5)).containsExactly(new HeavyHitter(1L, 5, 5, 5));
        assertThat(h.unmonitoredBound()).isEqualTo(5);
    }

    @Test
    void completenessIsNotClaimedWhenPhiNEqualsTheBound() {
        CountMinHeap h = single();
        // item 2, outside, weighs 5 = 0.5 N: heavyHitters(0.5) misses it, so it is not complete
        assertThat(h.isComplete(0.5)).isFalse();
        assertThat(h.isComplete(0.51)).isTrue();
    }

    @Test
    void phiAndKOutsideTheirRangesAreRefused() {
        CountMinHeap h = single();
        for (double phi : new double[] {0, 1, -0.5, 1.5, Double.NaN}) {
            assertThatThrownBy(() -> h.heavyHitters(phi)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> h.isComplete(phi)).isInstanceOf(IllegalArgumentException.class);
        }
        assertThat(h.topK(0)).isEmpty();
        assertThatThrownBy(() -> h.topK(-1)).isInstanceOf(IllegalArgumentException.class);
    }

    /**
     * A 7 x 2 sketch under 40 keys overestimates, so candidates are admitted with errors; after every update each
     * candidate still has lower bound ≤ true weight ≤ upper bound, and the lower bound is at most the weight counted
     * since admission.
     */
    @Test
    void boundsOfCandidatesAdmittedWithAnErrorHold() {
        for (long seed = 1; seed <= 10; seed++) {
            CountMinHeap h = CountMinHeap.create(LONGS, 4, 7, 2, true, seed);
            SplittableRandom random = new SplittableRandom(seed);
            Map<Long, Long> truth = new HashMap<>();
            for (int i = 0; i < 2000; i++) {
                long key = random.nextInt(3) == 0 ? random.nextInt(4) : random.nextInt(40);
                long weight = 1 + random.nextInt(3);
                truth.merge(key, weight, Long::sum);
                h.update(key, weight);
                for (HeavyHitter c : h.topK(4)) {
                    assertThat(truth.get((Long) c.item())).as("seed %d step %d: %s", seed, i, c)
                            .isBetween(c.lowerBound(), c.upperBound());
                }
            }
        }
    }

    @Test
    void imagesOfMergedAndWeightZeroCandidatesReadBack() {
        CountMinHeap a = CountMinHeap.create(LONGS, 4, 1009, 4, true, 1);
        CountMinHeap b = CountMinHeap.create(LONGS, 4, 1009, 4, true, 1);
        a.update(1L, 5);
        b.update(1L, 5);
        b.update(2L, 0); // count 0, error 0
        assertRoundTrip(b);
        a.merge(b); // merged candidates: error = count (only the sketch's bound is known)
        assertThat(a.topK(4)).containsExactly(new HeavyHitter(1L, 10, 0, 10), new HeavyHitter(2L, 0, 0, 0));
        assertRoundTrip(a);
    }

    private static void assertRoundTrip(CountMinHeap h) {
        CountMinHeap read = CountMinHeap.fromByteArray(h.toByteArray());
        assertThat(read.topK(10)).isEqualTo(h.topK(10));
        assertThat(read.toByteArray()).isEqualTo(h.toByteArray());
    }

    @Test
    void anImageRepeatingItsFirstCandidateIsRefused() {
        CountMinSketch sketch = CountMinSketch.withShape(64, 2, 1, RowIndexing.MIXED_32, true);
        sketch.update(42L, 6);
        byte[] image = TrackerImages.countMinHeap(LONGS, 4, 0, sketch, new long[] {42, 3, 0}, new long[] {42, 3, 0});
        assertThatThrownBy(() -> CountMinHeap.fromByteArray(image)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("candidate 1 repeats an item");
    }

    @Test
    void anImageWithBytesAfterItsLastFieldIsRefused() {
        CountMinSketch sketch = CountMinSketch.withShape(64, 2, 1, RowIndexing.MIXED_32, true);
        sketch.update(42L, 6);
        byte[] cm = sketch.toByteArray();
        long[] packed = new long[(cm.length + 7) / 8];
        ByteBuffer.wrap(Arrays.copyOf(cm, packed.length * 8)).order(ByteOrder.LITTLE_ENDIAN).asLongBuffer()
                .get(packed);
        // a valid one-candidate image (as TrackerImages.countMinHeap writes it), then 8 more field bytes
        ImageWriter out = new ImageWriter(Family.COUNT_MIN_HEAP, CountMinHeap.IMAGE_VERSION,
                4 + 4 + 4 + 8 + 4 + 8L * packed.length + 4 + 28 + 8)
                .putInt(LONGS.id()).putInt(LONGS.maxBytes()).putInt(4).putLong(0).putInt(cm.length)
                .putLongs(packed, 0, packed.length).putInt(1).putLongs(new long[] {42, 3, 0}, 0, 3).putInt(0)
                .putLong(0);
        byte[] image = out.finish();
        assertThatThrownBy(() -> CountMinHeap.fromByteArray(image)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("trailing");
    }

    /** A third of the budget for candidates: the largest capacity whose arrays fit in it. */
    @Test
    void theCandidatesTakeTheLargestCapacityThatFitsAThirdOfTheBudget() {
        for (KeyKind kind : new KeyKind[] {LONGS, KeyKind.fiveTuples()}) {
            long[] budgets = {3 * SpaceSaving.bytesFor(kind, 1000), 3 * SpaceSaving.bytesFor(kind, 1024),
                    10_000, 123_457, 1 << 20, 98_765_432};
            for (long bytes : budgets) {
                int c = CountMinHeap.sizeForMemory(kind, bytes).capacity();
                assertThat(SpaceSaving.bytesFor(kind, c)).as("%s %d", kind, bytes).isLessThanOrEqualTo(bytes / 3);
                assertThat(SpaceSaving.bytesFor(kind, c + 1)).as("%s %d", kind, bytes).isGreaterThan(bytes / 3);
                assertThat(CountMinHeap.withMemory(kind, bytes, 1).memoryBytes()).isLessThanOrEqualTo(bytes);
            }
        }
        assertThat(CountMinHeap.sizeForMemory(LONGS, 3 * SpaceSaving.bytesFor(LONGS, 1000)).capacity())
                .isEqualTo(1000);
    }

    /** The smallest budget: one candidate and a 2 x 4 sketch of 64 bytes, exactly. */
    @Test
    void theSmallestBudgetHoldsOneCandidateAndTheSmallestSketch() {
        long least = SpaceSaving.bytesFor(LONGS, 1) + 64;
        CountMinHeap.Size size = CountMinHeap.sizeForMemory(LONGS, least);
        assertThat(size.capacity()).isEqualTo(1);
        assertThat(size.sketch().depth()).isEqualTo(4);
        assertThatThrownBy(() -> CountMinHeap.sizeForMemory(LONGS, least - 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("needs at least " + least);
    }
}
