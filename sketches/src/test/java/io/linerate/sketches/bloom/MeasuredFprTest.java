package io.linerate.sketches.bloom;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Locale;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Filters sized by create(n, 1%, seed) at n = 200,000, queried with 10<sup>6</sup> keys never inserted.
 *
 * <p>Given the filter, each absent key is a false positive independently with probability R (the false-positive
 * rate, thesis Def. 3.6.1), so the count is Binomial(10<sup>6</sup>, R): the measured rate must lie within
 * 4·√(R(1−R)/N) of R, with R estimated by the filter's own {@link BloomFilter#expectedFpp()}.
 */
class MeasuredFprTest {

    static final long N = 200_000;
    static final int QUERIES = 1_000_000;
    static final double TARGET = 0.01;

    /**
     * Inserted keys are 0..n−1; absent keys start at 2^40. Hashing is seeded, so key order is irrelevant.
     * Sequential: filters are not thread-safe, even for queries (the blocked filter reuses a scratch array).
     */
    static double measuredFpr(BloomFilter f) {
        long fp = LongStream.range(1L << 40, (1L << 40) + QUERIES).filter(f::mightContain).count();
        return (double) fp / QUERIES;
    }

    static BloomFilter filled(Variant v, long seed) {
        BloomFilter f = v.create(N, TARGET, seed);
        for (long i = 0; i < N; i++) {
            f.put(i);
        }
        return f;
    }

    @ParameterizedTest
    @EnumSource(Variant.class)
    void measuredRateIsWithinABinomialIntervalOfExpectedFppAndNearTheTarget(Variant v) {
        BloomFilter f = filled(v, 0xF00D + v.ordinal());
        for (long i = 0; i < N; i++) {
            assertThat(f.mightContain(i)).isTrue();
        }
        double expected = f.expectedFpp();
        double measured = measuredFpr(f);
        double se = Math.sqrt(expected * (1 - expected) / QUERIES);
        System.out.printf(Locale.ROOT, "%s: m=%d k=%d measured FPR %.5f, expectedFpp %.5f (SE %.5f)%n", v, f.bitSize(),
                f.hashCount(), measured, expected, se);
        assertThat(Math.abs(measured - expected)).as("%s measured %.5f vs expectedFpp %.5f", v, measured, expected)
                .isLessThanOrEqualTo(4 * se);
        double cap = 1.1; // every variant is sized by an exact model of its rate (BlockedSizingTest for the blocked one)
        assertThat(measured).as("%s measured FPR vs target", v).isLessThanOrEqualTo(cap * TARGET);
    }

    /**
     * Sizing of notes part 3 item 11: for ε = 1% the standard filter uses ≈ −ln ε/ln²2 = 9.585 bits per element
     * and k = round(9.585·ln 2) = 7; its model FPP (1 − e^{−kn/m})^k is then ≤ 1.1ε.
     */
    @Test
    void sizingForOnePercent() {
        StandardBloomFilter f = StandardBloomFilter.create(N, TARGET, 1);
        double bitsPerItem = (double) f.bitSize() / N;
        assertThat(bitsPerItem).isCloseTo(-Math.log(TARGET) / (Math.log(2) * Math.log(2)),
                org.assertj.core.data.Offset.offset(1e-4));
        assertThat(bitsPerItem).isBetween(9.58, 9.59);
        assertThat(f.hashCount()).isEqualTo(7);
        assertThat(BloomSizing.falsePositiveProbability(N, f.bitSize(), f.hashCount())).isBetween(0.0095, 0.011);
        assertThat(PartitionedBloomFilter.create(N, TARGET, 1).bitSize()).isBetween(f.bitSize(), f.bitSize() + 7 * 200);
        assertThat(CountingBloomFilter.create(N, TARGET, 1).bitSize()).isEqualTo(f.bitSize());
        // the blocked variant is sized by its own model and needs more bits than the standard one
        BlockedBloomFilter b = BlockedBloomFilter.create(N, TARGET, 1);
        assertThat(b.bitSize()).isGreaterThan(f.bitSize());
        assertThat(BlockedBloomFilter.falsePositiveProbability((double) N / b.blocks(), b.hashCount(), b.blockBits()))
                .isLessThanOrEqualTo(TARGET);
    }

    /**
     * Fill ratio of the standard filter ≈ 1 − e^{−kn/m} (notes part 3 item 10; ≈ ½ at the optimal k). The number
     * of set bits has variance at most that of Binomial(m, q) (occupancy counts are negatively correlated), so the
     * tolerance is 4·√(q(1−q)/m), plus the O(1/m) gap between 1 − (1 − 1/m)^{kn} and 1 − e^{−kn/m}.
     */
    @Test
    void standardFillRatioMatchesTheFormulaAndElementCountIsEstimated() {
        BloomFilter f = filled(Variant.STANDARD, 0xF11L);
        long m = f.bitSize();
        int k = f.hashCount();
        double q = -Math.expm1(-(double) k * N / m);
        double exact = 1 - Math.pow(1 - 1.0 / m, (double) k * N);
        double fill = (double) f.bitCount() / m;
        double tolerance = 4 * Math.sqrt(q * (1 - q) / m) + Math.abs(exact - q);
        assertThat(Math.abs(fill - q)).as("fill %.5f vs 1 - e^{-kn/m} = %.5f", fill, q).isLessThanOrEqualTo(tolerance);
        assertThat(fill).isBetween(0.45, 0.55);
        // n̂ = −(m/k) ln(1 − X/m): by the delta method SE(n̂) = (m/k)·SD(X)/(m − X) ≤ √(m q/(1−q))/k.
        double se = Math.sqrt(m * q / (1 - q)) / k;
        assertThat(Math.abs(f.approximateElementCount() - N)).isLessThanOrEqualTo(4 * se);
        // expectedFpp is (X/m)^k
        assertThat(f.expectedFpp()).isCloseTo(Math.pow(fill, k), org.assertj.core.data.Offset.offset(1e-12));
    }

    /**
     * Split-block sizing: the fewest 512-bit blocks whose model rate Σᵢ Poisson(λ; i)·(1 − (1 − 1/64)^i)^8 is at most
     * the target, λ = n / blocks; from that model 10.10 bits per item at 1% and 15.72 at 0.1% (rounding up to whole
     * blocks adds up to 512/n = 0.0026 here). At 0.1% the measured rate is checked against the model with the
     * binomial bound of the class comment.
     */
    @Test
    void splitBlockSizingFollowsItsModel() {
        double[] targets = {0.01, 0.001};
        double[] bitsPerItem = {10.10, 15.72};
        for (int t = 0; t < targets.length; t++) {
            SplitBlockBloomFilter f = SplitBlockBloomFilter.create(N, targets[t], 3);
            assertThat(SplitBlockBloomFilter.falsePositiveProbability((double) N / f.blocks())).isLessThanOrEqualTo(targets[t]);
            assertThat(SplitBlockBloomFilter.falsePositiveProbability((double) N / (f.blocks() - 1))).isGreaterThan(targets[t]);
            // the model's value rounded to two decimals (±0.005), plus up to one block's 512/N from rounding up
            assertThat((double) f.bitSize() / N).isCloseTo(bitsPerItem[t], org.assertj.core.data.Offset.offset(0.005 + 512.0 / N));
            assertThat(f.hashCount()).isEqualTo(8);
            assertThat(f.memoryBytes()).isEqualTo(f.blocks() * 64);
        }
        SplitBlockBloomFilter f = SplitBlockBloomFilter.create(N, 0.001, 4);
        for (long i = 0; i < N; i++) {
            f.put(i);
        }
        double model = SplitBlockBloomFilter.falsePositiveProbability((double) N / f.blocks());
        double measured = measuredFpr(f);
        double se = Math.sqrt(model * (1 - model) / QUERIES);
        System.out.printf(Locale.ROOT,
                "split-block at 0.1%%: %.2f bits/item, measured FPR %.5f, model %.5f (SE %.5f)%n",
                (double) f.bitSize() / N, measured, model, se);
        assertThat(Math.abs(measured - model)).isLessThanOrEqualTo(4 * se);
    }

    /**
     * The split-block estimate n̂ = Σ_words ln(1 − X_w/64)/ln(1 − 1/64) / 8. Each word is a 64-bin linear counter of
     * its block's items, whose estimate has variance ≈ 64(e^{λ/64} − 1 − λ/64) at load λ (Whang, Vander-Zanden and
     * Taylor 1990); the 8 words of a block see the same items, so the block's average has at most that variance
     * (Cauchy–Schwarz), and blocks are independent given their loads: Var(n̂) ≤ blocks · 64(e^{λ/64} − 1 − λ/64)
     * with λ = n / blocks. The test allows 4 standard deviations.
     */
    @Test
    void splitBlockElementCountIsEstimatedFromItsWords() {
        SplitBlockBloomFilter f = SplitBlockBloomFilter.create(N, TARGET, 0x5B1L);
        for (long i = 0; i < N; i++) {
            f.put(i);
        }
        double lambda = (double) N / f.blocks();
        double x = lambda / 64;
        double sd = Math.sqrt(f.blocks() * 64 * (Math.exp(x) - 1 - x));
        System.out.printf(Locale.ROOT, "split-block: n^ = %.0f for n = %d (bound 4 SD = %.0f)%n", f.approximateElementCount(), N, 4 * sd);
        assertThat(Math.abs(f.approximateElementCount() - N)).isLessThanOrEqualTo(4 * sd);
    }

    @Test
    void emptyFiltersReportNothingAndFullFiltersEverything() {
        for (Variant v : Variant.values()) {
            BloomFilter f = v.withBits(4096, 3, 5);
            assertThat(f.bitCount()).isZero();
            assertThat(f.expectedFpp()).isZero();
            assertThat(f.approximateElementCount()).isZero();
            assertThat(LongStream.range(0, 10_000).noneMatch(f::mightContain)).isTrue();
            for (long i = 0; i < 200_000; i++) {
                f.put(i);
            }
            assertThat(f.bitCount()).isEqualTo(f.bitSize());
            assertThat(f.approximateElementCount()).isInfinite();
            assertThat(f.expectedFpp()).isEqualTo(1.0);
            assertThat(LongStream.range(1L << 40, (1L << 40) + 1000).allMatch(f::mightContain)).isTrue();
        }
    }

    @Test
    void memoryBytesIsTheSizeOfTheStateArrays() {
        assertThat(StandardBloomFilter.withBits(1000, 3, 1).memoryBytes()).isEqualTo(16 * 8);
        assertThat(StandardBloomFilter.withBits(1024, 3, 1).memoryBytes()).isEqualTo(16 * 8);
        assertThat(BlockedBloomFilter.withBits(1000, 3, 1, 512).memoryBytes()).isEqualTo(16 * 8);
        assertThat(SplitBlockBloomFilter.withBits(1000, 1).memoryBytes()).isEqualTo(16 * 8);
        assertThat(SplitBlockBloomFilter.withBits(1025, 1).memoryBytes()).isEqualTo(24 * 8);
        assertThat(CountingBloomFilter.withCounters(1000, 3, 4, 1).memoryBytes()).isEqualTo(63 * 8);
        assertThat(CountingBloomFilter.withCounters(1000, 3, 16, 1).memoryBytes()).isEqualTo(250 * 8);
    }
}
