package io.linerate.sketches.bloom;

/**
 * The exact false-positive model of a block of B bits whose items each set k positions drawn uniformly with
 * replacement ({@link BlockProbes}), and whose queries test k positions drawn the same way.
 *
 * <p>A block holding i items has had k·i positions set; the number X of distinct set bits has the occupancy
 * distribution of k·i balls thrown into B bins, and a query hits set bits only with probability (X/B)<sup>k</sup>.
 * So the rate at i items is E[(X/B)<sup>k</sup>], not (E[X]/B)<sup>k</sup>: by Jensen's inequality the second
 * is smaller, and sizing by it misses the target by 1–8 % (p = 10<sup>−2</sup>..10<sup>−6</sup>, 512-bit blocks).
 * The distribution of X is computed ball by ball: P<sub>j+1</sub>(x) = P<sub>j</sub>(x)·x/B +
 * P<sub>j</sub>(x − 1)·(B − x + 1)/B, all terms positive, so no cancellation; the values of x below the bulk
 * whose probability falls under 10<sup>−40</sup> are dropped (a relative error of that order).
 */
final class BlockOccupancy {

    /** Probabilities below this are dropped from the distribution of X (see {@link #queryHitByItems}). */
    private static final double NEGLIGIBLE = 1e-40;

    private BlockOccupancy() {
    }

    /**
     * E[(X/B)<sup>k</sup>] for a block holding i = 0..{@code maxItems} items: the chance a query of k positions finds
     * all of them set. O(k·maxItems·B) time, O(B) extra memory.
     */
    static double[] queryHitByItems(int k, int blockBits, int maxItems) {
        double[] hit = new double[maxItems + 1];
        double[] power = new double[blockBits + 1]; // (x/B)^k
        for (int x = 0; x <= blockBits; x++) {
            power[x] = StrictMath.pow((double) x / blockBits, k);
        }
        double[] p = new double[blockBits + 1]; // P(X = x) after the balls thrown so far, 0 outside [lo, hi]
        p[0] = 1;
        int lo = 0;
        int hi = 0;
        double inverse = 1.0 / blockBits;
        for (int items = 1; items <= maxItems; items++) {
            for (int ball = 0; ball < k; ball++) {
                if (hi < blockBits) {
                    hi++; // p[hi] is 0 before this ball
                }
                for (int x = hi; x > lo; x--) {
                    p[x] = p[x] * x * inverse + p[x - 1] * (blockBits - x + 1) * inverse;
                }
                p[lo] *= lo * inverse;
                // X concentrates within a few √B of its mean, so the low tail is cut: it weighs (x/B)^k, less than
                // the bulk, so the relative error stays below NEGLIGIBLE per ball. The high tail is kept: it weighs
                // more, and the hit rate may be as small as the tail (k bits of one item).
                while (lo < hi && p[lo] < NEGLIGIBLE) {
                    p[lo++] = 0;
                }
            }
            double sum = 0;
            for (int x = lo; x <= hi; x++) {
                sum += p[x] * power[x];
            }
            hit[items] = sum;
        }
        return hit;
    }

    /**
     * Σ<sub>i</sub> Poisson(λ; i)·{@code hitByItems[i]}: the rate of a filter whose blocks hold λ items on average
     * (the load of a block is Poisson when items pick blocks uniformly). {@code hitByItems} must reach
     * {@link Poisson#tailBound}(λ).
     */
    static double falsePositiveProbability(double itemsPerBlock, double[] hitByItems) {
        int max = Poisson.tailBound(itemsPerBlock);
        if (max >= hitByItems.length) {
            throw new IllegalArgumentException("the model reaches " + (hitByItems.length - 1)
                    + " items per block, the Poisson tail of load " + itemsPerBlock + " needs " + max);
        }
        double[] pmf = Poisson.pmf(itemsPerBlock, max);
        double sum = 0;
        for (int i = 0; i <= max; i++) {
            sum += pmf[i] * hitByItems[i];
        }
        return sum;
    }
}
