package io.linerate.sketches.bloom;

import java.util.function.DoubleUnaryOperator;

/**
 * Sizing formulas of the standard Bloom filter (thesis §2.1.2): with m bits, n items and k indexes per
 * item, the false-positive probability is f = (1 − e<sup>−kn/m</sup>)<sup>k</sup>, minimised at
 * k = (m/n)·ln 2 where f = 2<sup>−k</sup>; reaching f needs m = −n·ln f / (ln 2)<sup>2</sup> bits.
 */
public final class BloomSizing {

    private static final double LN2 = StrictMath.log(2);
    /** The floor of {@link #maxItemsPerBlock}. */
    static final double MIN_ITEMS_PER_BLOCK = 1e-9;

    private BloomSizing() {
    }

    /** Bits for {@code n} items at false-positive probability {@code fpp}: ⌈−n·ln f / ln²2⌉. */
    public static long optimalBits(long n, double fpp) {
        Checks.expectedItems(n);
        Checks.fpp(fpp);
        double bits = Math.ceil(-n * StrictMath.log(fpp) / (LN2 * LN2));
        if (bits > BloomFilter.MAX_BITS) {
            throw Checks.tooManyBits(n, fpp, bits, false);
        }
        return Math.max(64, (long) bits);
    }

    /**
     * k = round((m/n)·ln 2), clamped to [1, {@link BloomFilter#MAX_HASH_COUNT}].
     *
     * @throws IllegalArgumentException if {@code n} is not in [1, 16·(2<sup>31</sup>−1)] (as for
     *     {@link #optimalBits}) or {@code bits} not in [1, {@link BloomFilter#MAX_BITS}]: n = 0 used to give
     *     k = 128 and a negative n or bits k = 1, silently
     */
    public static int optimalHashCount(long n, long bits) {
        Checks.expectedItems(n);
        Checks.bits(bits);
        long k = Math.round((double) bits / n * LN2);
        return (int) Math.max(1, Math.min(BloomFilter.MAX_HASH_COUNT, k));
    }

    /** (1 − e<sup>−kn/m</sup>)<sup>k</sup>. */
    public static double falsePositiveProbability(long n, long bits, int k) {
        return StrictMath.pow(-StrictMath.expm1(-(double) k * n / bits), k);
    }

    /**
     * For the blocked layouts: the largest mean load λ in [0, {@code maxLoad}] items per block at which the
     * layout's model false-positive probability {@code fprAtLoad(λ)} (increasing in λ) is at most {@code fpp}, by
     * 60 bisection steps; at least {@link #MIN_ITEMS_PER_BLOCK}, so that a caller dividing by it gets a size the
     * limit check rejects rather than an infinity (a size that is then only a lower bound of the need).
     */
    static double maxItemsPerBlock(DoubleUnaryOperator fprAtLoad, double maxLoad, double fpp) {
        double lo = 0;
        double hi = maxLoad;
        for (int iter = 0; iter < 60; iter++) {
            double mid = (lo + hi) / 2;
            if (fprAtLoad.applyAsDouble(mid) <= fpp) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        return Math.max(lo, MIN_ITEMS_PER_BLOCK);
    }
}
