package io.linerate.sketches.frequency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.linerate.sketches.hash.ItemHasher;
import io.linerate.sketches.image.TestImages;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The cache-blocked Count-Min against the bounds its class comment derives. */
class BlockedCountMinSketchTest {

    private static final int KEYS = 5_000;

    /** Updates every key once with its weight; asserts estimate ≥ truth for every key; returns the errors. */
    private static long[] errors(BlockedCountMinSketch sketch, long[] weights, long keyOffset) {
        for (int i = 0; i < weights.length; i++) {
            sketch.update(keyOffset + i, weights[i]);
        }
        long[] errors = new long[weights.length];
        for (int i = 0; i < weights.length; i++) {
            long estimate = sketch.estimate(keyOffset + i);
            assertThat(estimate).as("estimate >= true weight").isGreaterThanOrEqualTo(weights[i]);
            errors[i] = estimate - weights[i];
        }
        return errors;
    }

    /**
     * Over 200 independent seeds (uniform and Zipf weights): the mean fraction of point queries whose error exceeds
     * εN is at most the derived bound 5·(8Bε)^(−4/5) plus 4 standard errors of that mean (the per-seed fractions
     * are i.i.d.); and the mean error is at most N/(4B), the expected excess of any one of an item's counters (each
     * other item lands in one of its two blocks with probability ≤ 2/B and then on the counter with probability
     * 1/8), which bounds the expected minimum.
     */
    @Test
    void derivedBoundsHoldOverIndependentSeeds() {
        int blocks = 256;
        double epsilon = 0.02;
        double bound = BlockedCountMinSketch.withBlocks(blocks, 0).failureProbability(epsilon);
        assertThat(bound).isCloseTo(5 * Math.pow(8 * 256 * 0.02, -0.8), org.assertj.core.data.Offset.offset(1e-12))
                .isLessThan(0.3);
        for (String input : new String[] {"uniform", "zipf"}) {
            int seeds = 200;
            double[] fractions = new double[seeds];
            double meanError = 0;
            double meanExpected = 0;
            for (int s = 0; s < seeds; s++) {
                SplittableRandom random = new SplittableRandom(1_000 + s);
                long[] weights = input.equals("uniform") ? CountMinSketchTest.uniformWeights(KEYS, random)
                        : CountMinSketchTest.zipfWeights(KEYS, 1.1, 20_000);
                BlockedCountMinSketch sketch = BlockedCountMinSketch.withBlocks(blocks, 77 + s);
                long[] errors = errors(sketch, weights, random.nextLong());
                long n = sketch.totalWeight();
                fractions[s] = Arrays.stream(errors).filter(e -> e > epsilon * n).count() / (double) KEYS;
                meanError += Arrays.stream(errors).average().orElseThrow() / seeds;
                meanExpected += n / (4.0 * blocks) / seeds;
            }
            double mean = Arrays.stream(fractions).average().orElseThrow();
            double sd = Math.sqrt(Arrays.stream(fractions).map(f -> (f - mean) * (f - mean)).sum() / (seeds - 1));
            assertThat(mean).as(input + ": failure fraction").isLessThanOrEqualTo(bound + 4 * sd / Math.sqrt(seeds));
            assertThat(meanError).as(input + ": mean error").isLessThanOrEqualTo(meanExpected);
        }
    }

    /**
     * Two items share all four counters only by chance: both blocks and all four positions, in the same or the
     * swapped order of lines. An item's ordered block pair (a, b) has probability 1/B², except (a, a + 1), which the
     * "next block when equal" rule makes 2/B²; summing p(a, b)·(p(a, b) + p(b, a)) over the ordered pairs gives
     * (2B + 3)/B³ for B ≥ 3, times 8⁻⁴ for the positions, per pair of items. Counted over 200,000 items at B = 32
     * against that rate, within 6 standard deviations (a Poisson count); a correlated indexing (the same bits
     * picking both lines' blocks or positions, or the second block tied to the first) would be far above it.
     */
    @Test
    void pairsSharingEveryCounterAreAtTheChanceRate() {
        int blocks = 32;
        int n = 200_000;
        BlockedCountMinSketch sketch = BlockedCountMinSketch.withBlocks(blocks, 5);
        ItemHasher hasher = sketch.hasher();
        Map<Long, Integer> sets = new HashMap<>();
        for (int i = 0; i < n; i++) {
            long h1 = hasher.hash((long) i);
            int[] idx = sketch.counterIndexes(h1);
            Arrays.sort(idx);
            assertThat(idx[0] != idx[1] && idx[1] != idx[2] && idx[2] != idx[3]).as("four distinct counters").isTrue();
            long key = 0;
            for (int v : idx) {
                key = key * (blocks * 16L) + v;
            }
            sets.merge(key, 1, Integer::sum);
        }
        long pairs = sets.values().stream().mapToLong(k -> (long) k * (k - 1) / 2).sum();
        double expected = (double) n * (n - 1) / 2 * (2.0 * blocks + 3) / Math.pow(blocks, 3) / 4096;
        assertThat((double) pairs).isBetween(expected - 6 * Math.sqrt(expected), expected + 6 * Math.sqrt(expected));
    }

    /**
     * The documented trade against the row-major sketch at the same memory (docs/frequency.md): on a Zipf(1.1) stream
     * the blocked sketch's typical error is much smaller (twice the counters: its mean error at most half the
     * row-major sketch's) and no estimate falls below the truth; its worst error may be larger and is not compared.
     * 10⁶ updates over 10⁵ keys, 16 KiB each (256 blocks against 7 rows of 283, the largest prime width that fits),
     * fixed seeds.
     */
    @Test
    void typicalErrorIsSmallerThanTheRowMajorSketchsAtTheSameMemory() {
        ZipfStream stream = new ZipfStream(100_000, 1.1, 5);
        BlockedCountMinSketch blocked = BlockedCountMinSketch.withMemory(16 * 1024, 3);
        CountMinSketch rows = CountMinSketch.withMemory(16 * 1024, 7, 3);
        assertThat(blocked.memoryBytes()).isEqualTo(16 * 1024);
        assertThat(rows.memoryBytes()).isBetween(16 * 1024L - 7 * 8 * 20, 16 * 1024L);
        long[] truth = new long[100_000];
        for (int i = 0; i < 1_000_000; i++) {
            int rank = stream.nextRank();
            truth[rank]++;
            blocked.update(stream.key(rank), 1);
            rows.update(stream.key(rank), 1);
        }
        double blockedError = 0;
        double rowsError = 0;
        int occurring = 0;
        for (int r = 0; r < truth.length; r++) {
            if (truth[r] == 0) {
                continue;
            }
            long b = blocked.estimate(stream.key(r));
            assertThat(b).isGreaterThanOrEqualTo(truth[r]);
            blockedError += b - truth[r];
            rowsError += rows.estimate(stream.key(r)) - truth[r];
            occurring++;
        }
        assertThat(occurring).isGreaterThan(50_000);
        assertThat(blockedError / occurring).as("mean error, blocked against row-major %.1f", rowsError / occurring)
                .isLessThan(0.5 * rowsError / occurring);
    }

    @Test
    void blocksAreUsedUniformly() {
        int blocks = 100; // not a power of two
        BlockedCountMinSketch sketch = BlockedCountMinSketch.withBlocks(blocks, 9);
        for (long i = 0; i < 400_000; i++) {
            sketch.update(i, 1);
        }
        // each update adds 1 to two counters in each of two blocks: 16,000 per block on average (8,000 items)
        double expected = 2.0 * 2 * 400_000 / blocks;
        for (int b = 0; b < blocks; b++) {
            long sum = 0;
            for (int j = 0; j < 16; j++) {
                sum += sketch.counter(b * 16 + j);
            }
            assertThat((double) sum).as("block %d", b).isBetween(expected - 6 * Math.sqrt(2 * expected),
                    expected + 6 * Math.sqrt(2 * expected));
        }
    }

    /** Beyond 2³² − 1 in all, counters saturate instead of wrapping and estimates stay upper bounds. */
    @Test
    void countersSaturateAndEstimatesStayUpperBounds() {
        BlockedCountMinSketch sketch = BlockedCountMinSketch.withBlocks(4, 3);
        long big = BlockedCountMinSketch.MAX_COUNTER - 10;
        sketch.update(1L, big);
        assertThat(sketch.mayBeSaturated()).isFalse();
        assertThat(sketch.estimate(1L)).isEqualTo(big);
        sketch.update(1L, 100);
        sketch.update(2L, 5_000_000_000L);
        assertThat(sketch.mayBeSaturated()).isTrue();
        assertThat(sketch.totalWeight()).isEqualTo(big + 100 + 5_000_000_000L);
        assertThat(sketch.estimate(1L)).isGreaterThanOrEqualTo(big + 100).isLessThanOrEqualTo(sketch.totalWeight());
        assertThat(sketch.estimate(2L)).isEqualTo(sketch.totalWeight()); // every counter saturated: N
        for (int i = 0; i < 64; i++) {
            assertThat(sketch.counter(i)).isLessThanOrEqualTo(BlockedCountMinSketch.MAX_COUNTER);
        }
        sketch.update(3L, Long.MAX_VALUE);
        assertThat(sketch.totalWeight()).isEqualTo(Long.MAX_VALUE);
        assertThat(sketch.estimate(3L)).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void mergeEqualsTheSketchOfBothStreams() {
        BlockedCountMinSketch a = BlockedCountMinSketch.withBlocks(64, 11);
        BlockedCountMinSketch b = BlockedCountMinSketch.withBlocks(64, 11);
        BlockedCountMinSketch both = BlockedCountMinSketch.withBlocks(64, 11);
        SplittableRandom random = new SplittableRandom(3);
        for (int i = 0; i < 10_000; i++) {
            long key = random.nextInt(3_000);
            long w = 1 + random.nextInt(1_500);
            (i % 2 == 0 ? a : b).update(key, w);
            both.update(key, w);
        }
        a.merge(b);
        assertThat(a.toByteArray()).isEqualTo(both.toByteArray());
        assertThatThrownBy(() -> a.merge(BlockedCountMinSketch.withBlocks(65, 11)))
                .hasMessage("cannot merge blocked Count-Min sketches of different size: 64 vs 65 blocks");
        assertThatThrownBy(() -> a.merge(BlockedCountMinSketch.withBlocks(64, 12)))
                .hasMessage("cannot merge blocked Count-Min sketches with different seeds: 11 vs 12");
    }

    @Test
    void everyKeyKindCountsAndImagesRoundTrip() {
        BlockedCountMinSketch s = BlockedCountMinSketch.withMemory(4096, 21);
        assertThat(s.blocks()).isEqualTo(64);
        assertThat(s.memoryBytes()).isEqualTo(4096);
        s.update(42L, 3);
        s.update("flow", 4);
        s.update(new byte[] {1, 2, 3, 4}, 1, 2, 5);
        s.update(io.linerate.sketches.hash.FiveTuple.ipv4(0x0A000001, 0x0A000002, 1234, 80, 6), 6);
        assertThat(s.estimate(42L)).isGreaterThanOrEqualTo(3);
        assertThat(s.estimate("flow")).isGreaterThanOrEqualTo(4);
        assertThat(s.estimate(new byte[] {9, 2, 3, 9}, 1, 2)).isGreaterThanOrEqualTo(5);
        assertThat(s.estimate(io.linerate.sketches.hash.FiveTuple.ipv4(0x0A000001, 0x0A000002, 1234, 80, 6)))
                .isGreaterThanOrEqualTo(6);
        assertThat(s.totalWeight()).isEqualTo(18);

        byte[] image = s.toByteArray();
        BlockedCountMinSketch back = BlockedCountMinSketch.fromByteArray(image);
        assertThat(back.toByteArray()).isEqualTo(image);
        assertThat(back.estimate(42L)).isEqualTo(s.estimate(42L));
        BlockedCountMinSketch copy = s.copy();
        copy.update(42L, 100);
        assertThat(s.toByteArray()).isEqualTo(image);
    }

    @Test
    void badImagesAndArgumentsAreRefusedNamingTheField() {
        BlockedCountMinSketch s = BlockedCountMinSketch.withBlocks(2, 1);
        s.update(7L, 10);
        byte[] image = s.toByteArray();
        // the last counter (before the 4-byte checksum) set above N = 10, the checksum recomputed
        byte[] bumped = TestImages.edit(image, b -> b.putInt(image.length - 8, 11));
        assertThatThrownBy(() -> BlockedCountMinSketch.fromByteArray(bumped))
                .hasMessage("image corrupt: counter 31 (block 1) is 11, above totalWeight = 10");
        byte[] unsigned = TestImages.edit(image, b -> b.putInt(image.length - 8, -1)); // 2^32 - 1 unsigned
        assertThatThrownBy(() -> BlockedCountMinSketch.fromByteArray(unsigned))
                .hasMessage("image corrupt: counter 31 (block 1) is 4294967295, above totalWeight = 10");
        // every counter within N, but the weight gone: estimates would fall below the truth
        byte[] emptied = TestImages.edit(image, b -> {
            for (int i = 0; i < 2 * BlockedCountMinSketch.BLOCK_COUNTERS; i++) {
                b.putInt(image.length - 4 - 4 * (i + 1), 0);
            }
        });
        assertThatThrownBy(() -> BlockedCountMinSketch.fromByteArray(emptied))
                .hasMessage("image corrupt: the counters of the blocks' first halves sum to 0 and of their second "
                        + "halves to 0, each must be 2 × totalWeight = 20");
        byte[] hugeBlocks = TestImages.edit(image, b -> b.putInt(TestImages.FIELDS + 8, 1 << 24));
        assertThatThrownBy(() -> BlockedCountMinSketch.fromByteArray(hugeBlocks))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("counts");
        assertThatThrownBy(() -> BlockedCountMinSketch.fromByteArray(Arrays.copyOf(image, image.length - 4)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> BlockedCountMinSketch.withBlocks(1, 0))
                .hasMessage("blocks must be in [2, 16777216], got 1");
        assertThatThrownBy(() -> BlockedCountMinSketch.withMemory(100, 0))
                .hasMessage("bytes must hold [2, 16777216] blocks of 64 bytes, that is [128, 1073741824] bytes, "
                        + "got 100");
        assertThatThrownBy(() -> s.update(1L, -1)).hasMessage("weight must be ≥ 0, got -1");
        assertThatThrownBy(() -> s.failureProbability(0)).hasMessage("epsilon must be > 0, got 0.0");
    }
}
