package io.linerate.sketches.bloom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.Locale;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * The blocked filter's sizing model against its filled state. A filled filter's {@link BlockedBloomFilter#expectedFpp()}
 * is the mean over its blocks of (X<sub>b</sub>/B)<sup>k</sup>, the exact false-positive rate of that state for a
 * query drawn at random; its expectation over seeds is the model's rate at the filter's load (loads multinomial
 * rather than Poisson: a relative difference of order 1/blocks). So the mean over independent seeds must lie
 * within 4 standard errors (the seeds' sample SD / √seeds) of {@link BlockedBloomFilter#falsePositiveProbability},
 * and so at or below the target the filter was created for.
 */
class BlockedSizingTest {

    static final long N = 1_000_000;
    static final int SEEDS = 16;

    @ParameterizedTest
    @ValueSource(doubles = {1e-2, 1e-3, 1e-4})
    void filledFiltersMeetTheTargetAndTheExactModel(double target) {
        double[] rates = new double[SEEDS];
        BlockedBloomFilter shape = BlockedBloomFilter.create(N, target, 0);
        for (int s = 0; s < SEEDS; s++) {
            BlockedBloomFilter f = BlockedBloomFilter.create(N, target, 0x5EED + s);
            for (long i = 0; i < N; i++) {
                f.put(i);
            }
            rates[s] = f.expectedFpp();
        }
        double mean = 0;
        for (double r : rates) {
            mean += r;
        }
        mean /= SEEDS;
        double var = 0;
        for (double r : rates) {
            var += (r - mean) * (r - mean);
        }
        double se = Math.sqrt(var / (SEEDS - 1) / SEEDS);
        double load = (double) N / shape.blocks();
        double exact = BlockedBloomFilter.falsePositiveProbability(load, shape.hashCount(), shape.blockBits());
        double meanFill = BlockedBloomFilter.meanFillFpp(load, shape.hashCount(), shape.blockBits());
        System.out.printf(Locale.ROOT,
                "blocked at p=%.0e: k=%d, %.3f bits/item, filled rate %.4e (SE %.1e), exact model %.4e,"
                + " mean-fill model %.4e%n", target, shape.hashCount(), (double) shape.bitSize() / N, mean, se, exact,
                meanFill);
        assertThat(exact).isLessThanOrEqualTo(target);
        assertThat(Math.abs(mean - exact)).as("filled %.4e vs exact model %.4e", mean, exact)
                .isLessThanOrEqualTo(4 * se);
        assertThat(mean).as("filled rate vs target").isLessThanOrEqualTo(target + 4 * se);
        // the mean-fill model (the sizing before 2026-11-27) is measurably below the state's rate
        assertThat(mean - meanFill).as("filled %.4e vs mean-fill model %.4e", mean, meanFill)
                .isGreaterThan(4 * se);
    }

    /** One bit per item: X/B has the mean 1 − (1 − 1/B)^i and no Jensen gap, so both models agree exactly. */
    @Test
    void withOneBitPerItemTheOccupancyModelIsTheMeanFill() {
        double[] hit = BlockOccupancy.queryHitByItems(1, 512, 300);
        for (int i = 0; i <= 300; i++) {
            assertThat(hit[i]).isCloseTo(1 - Math.pow(1 - 1.0 / 512, i), within(1e-12));
        }
        assertThat(BlockedBloomFilter.falsePositiveProbability(40, 1, 512))
                .isCloseTo(BlockedBloomFilter.meanFillFpp(40, 1, 512), within(1e-12));
    }

    /**
     * Two bits per item and one item: X is 1 (both bits equal, probability 1/B) or 2, so E[(X/B)^2] =
     * (1/B)·(1/B)² + (1 − 1/B)·(2/B)².
     */
    @Test
    void oneItemOfTwoBitsMatchesTheHandCount() {
        double b = 64;
        double[] hit = BlockOccupancy.queryHitByItems(2, 64, 1);
        assertThat(hit[0]).isZero();
        assertThat(hit[1]).isCloseTo((1 / b) / (b * b) + (1 - 1 / b) * 4 / (b * b), within(1e-15));
    }

    @Test
    void wideBlocksAtASmallRateMeetTheirTarget() {
        long start = System.nanoTime();
        BlockedBloomFilter f = BlockedBloomFilter.create(1_000_000, 1e-6, 1, 4096);
        long millis = (System.nanoTime() - start) / 1_000_000;
        System.out.printf(Locale.ROOT,
                "create(1M, 1e-6, 4096-bit blocks): k=%d, %d blocks in %d ms%n", f.hashCount(), f.blocks(),
                millis);
        assertThat(BlockedBloomFilter.falsePositiveProbability((double) 1_000_000 / f.blocks(), f.hashCount(), 4096))
                .isLessThanOrEqualTo(1e-6);
    }

    /** size(..) is create(..)'s choice without the allocation: the same bits, k and memory. */
    @org.junit.jupiter.api.Test
    void theSizeIsTheCreatedFiltersShape() {
        for (long n : new long[] {1, 1_000, 123_457}) {
            for (double p : new double[] {0.1, 0.01, 1e-4}) {
                BlockedBloomFilter f = BlockedBloomFilter.create(n, p, 7, 512);
                BlockedBloomFilter.Size size = BlockedBloomFilter.size(n, p, 512);
                org.assertj.core.api.Assertions.assertThat(size.bitSize()).isEqualTo(f.bitSize());
                org.assertj.core.api.Assertions.assertThat(size.hashCount()).isEqualTo(f.hashCount());
                org.assertj.core.api.Assertions.assertThat(size.blockBits()).isEqualTo(f.blockBits());
                org.assertj.core.api.Assertions.assertThat(size.memoryBytes()).isEqualTo(f.memoryBytes());
            }
        }
    }
}
