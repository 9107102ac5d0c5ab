package io.linerate.sketches.bloom;

import java.util.Arrays;

/**
 * The shape of a {@link BalancedBloomFilter}, derived from the theory of Kanizo, Hay &amp; Keslassy,
 * "Access-Efficient Balanced Bloom Filters" (research notes part 1, §1.5–§1.10), or given explicitly.
 *
 * <p>From (M blocks of B bits, β bits per element, average access budget a, d choices):
 * <ul>
 *   <li>r = B/β elements per block, design capacity n = round(M·r), k = round(β·ln 2) bits per element;</li>
 *   <li>γ, the optimal overflow fraction of the MHT scheme: the fixed point γ = (1 − (1 − γ)/a)<sup>d</sup>
 *       (Theorem 5 with p(a) = 1 − (1−γ)/a; 0.4984% at a = 1.2, d = 3);</li>
 *   <li>k0, the largest k with E[min(X, k)] &lt; r(1 − γ), X ~ Poisson(a·r) (Theorem 1, Eq. 3), and the
 *       lower-bound load distribution P<sub>LB</sub> (Eq. 4);</li>
 *   <li>threshold h = k0 and coin probability p solving
 *       e<sup>−pλ</sup>·P[Poisson((1−p)λ) ≥ h]/(1−p)<sup>h</sup> = P<sub>LB</sub>(k0), λ = a·r (Theorem 4 (iii));</li>
 *   <li>subtable fractions α<sub>j</sub> = (1 − p(a))/(1 − p(a)<sup>d</sup>)·p(a)<sup>j−1</sup> (Theorem 5 (iv));</li>
 *   <li>b = ⌈log2(k0 + 2)⌉ counter bits per block, so L = B − b bits of local Bloom filter (§9.1).</li>
 * </ul>
 *
 * <p>The derivation uses {@link StrictMath} for exp, log and pow (and {@link Poisson} does too): the derived fields
 * are part of the filter's shape, which a restore compares with the configuration's, so every JVM must derive the
 * same bits ({@link Math}'s may differ by an ulp between JVMs, or between a JVM's intrinsics and its fallback).
 */
public final class BalancedParameters {

    /**
     * The largest overflow capacity: 3·2<sup>27</sup> entries, which the overflow list's open-addressing table
     * (a power of two of 128-bit slots at most 3/4 full) holds in 2<sup>29</sup> slots, a {@code long[2^30]} of
     * 8 GiB; one entry more would need 2<sup>30</sup> slots, a {@code long[]} beyond Java's array limit.
     */
    public static final int MAX_OVERFLOW_CAPACITY = 3 << 27;

    /** Defaults of the paper's experiments (§10). */
    public static final double DEFAULT_ACCESS_BUDGET = 1.2;
    public static final int DEFAULT_CHOICES = 3;

    private final int blockBits;
    private final long[] subtableBlocks;
    private final int k;
    private final int threshold;
    private final double coinProbability;
    private final int counterBits;
    private final long designCapacity;
    private final long accessBudget;
    private final int overflowCapacity;
    private final double averageAccesses;
    private final double overflowFraction;
    private final double[] loadDistribution;

    private BalancedParameters(int blockBits, long[] subtableBlocks, int k, int threshold, double coinProbability,
                               int counterBits, long designCapacity, long accessBudget, int overflowCapacity,
                               double averageAccesses, double overflowFraction, double[] loadDistribution) {
        this.blockBits = blockBits;
        this.subtableBlocks = subtableBlocks;
        this.k = k;
        this.threshold = threshold;
        this.coinProbability = coinProbability;
        this.counterBits = counterBits;
        this.designCapacity = designCapacity;
        this.accessBudget = accessBudget;
        this.overflowCapacity = overflowCapacity;
        this.averageAccesses = averageAccesses;
        this.overflowFraction = overflowFraction;
        this.loadDistribution = loadDistribution;
        validate();
    }

    /**
     * Parameters for a filter of finite design capacity n: the paper's theory (see {@link #asymptotic}) for
     * a design budget a' = a − 1.5·√((a − 1)(d − a)/n), with the hard access cap kept at ⌊a·n⌋.
     *
     * <p>Why the margin: the theory is a fluid limit in which the a·n accesses run out exactly at the n-th
     * element. At finite n the access count fluctuates by √n·σ around its mean, σ² ≤ (a − 1)(d − a) by the
     * Bhatia–Davis inequality, and whenever it runs high the last elements are sent to the overflow list
     * unread. At the paper's §10 setting (n = 6554) that lifted the mean overflow from 0.50% to 0.57–0.60%;
     * designing 1.5σ below the cap brings it to ≈ 0.44% at a small cost in false positives (2.5·10<sup>−7</sup>
     * instead of 2.3·10<sup>−7</sup> at B = 256), while the average stays ≤ a and the worst case ≤ d. For
     * large n the margin vanishes (a' = 1.1997 at n = 10<sup>7</sup>).
     */
    public static BalancedParameters of(long blocks, int blockBits, double bitsPerElement, double accessBudget,
                                        int choices) {
        checkShape(blocks, blockBits, bitsPerElement, accessBudget, choices);
        long n = Math.max(1, Math.round(blocks * (blockBits / bitsPerElement)));
        double design = accessBudget - 1.5 * Math.sqrt((accessBudget - 1) * (choices - accessBudget) / n);
        return derive(blocks, blockBits, bitsPerElement, accessBudget, Math.max(1, design), choices);
    }

    /**
     * Parameters exactly as the paper's theory gives them, for an access budget a that the insertions use
     * up exactly at the n-th element (the fluid limit).
     *
     * @param blocks         M, total memory blocks (≥ d)
     * @param blockBits      B, a multiple of 64 in [64, 4096]
     * @param bitsPerElement β &gt; 0; the design capacity is M·B/β
     * @param accessBudget   a, average block accesses per insertion, in [1, d)
     * @param choices        d, in [1, 8]
     */
    public static BalancedParameters asymptotic(long blocks, int blockBits, double bitsPerElement,
                                                double accessBudget, int choices) {
        checkShape(blocks, blockBits, bitsPerElement, accessBudget, choices);
        return derive(blocks, blockBits, bitsPerElement, accessBudget, accessBudget, choices);
    }

    private static void checkShape(long blocks, int blockBits, double bitsPerElement, double accessBudget,
                                   int choices) {
        checkBlockBits(blockBits);
        if (choices < 1 || choices > 8) {
            throw new IllegalArgumentException("choices (d) must be in [1, 8], got " + choices);
        }
        Checks.positive("blocks", blocks, MAX_BLOCKS);
        if (blocks < choices) {
            throw new IllegalArgumentException("blocks must be at least choices=" + choices + ", got " + blocks);
        }
        if (!(bitsPerElement >= 1 && bitsPerElement <= blockBits)) {
            throw new IllegalArgumentException("bitsPerElement must be in [1, blockBits=" + blockBits + "], got "
                    + bitsPerElement);
        }
        if (!(accessBudget >= 1 && (accessBudget < choices || choices == 1 && accessBudget == 1))) {
            throw new IllegalArgumentException("accessBudget (a) must be in [1, choices=" + choices + "), got "
                    + accessBudget);
        }
    }

    /** The theory for design budget {@code design}; the hard cap is ⌊{@code cap}·n⌋. */
    private static BalancedParameters derive(long blocks, int blockBits, double bitsPerElement, double cap,
                                             double design, int choices) {
        double r = blockBits / bitsPerElement;
        long n = Math.max(1, Math.round(blocks * r));
        double gamma = optimalOverflowFraction(design, choices);
        double lambda = design * r;
        double[] pLb = lowerBoundLoad(lambda, r * (1 - gamma));
        int k0 = pLb.length - 2;
        double p = coinProbability(lambda, k0, pLb[k0]);
        int counterBits = 64 - Long.numberOfLeadingZeros(k0 + 1); // ⌈log2(k0 + 2)⌉
        int k = (int) Math.max(1, Math.min(MAX_HASH_COUNT_IN_BLOCK,
                Math.round(bitsPerElement * StrictMath.log(2))));
        k = Math.min(k, blockBits - counterBits);
        long[] sizes = subtableSizes(blocks, design, gamma, choices);
        long budget = (long) Math.floor(cap * n);
        int overflowCapacity = (int) Math.min(MAX_OVERFLOW_CAPACITY, 2 * Math.ceil(gamma * n) + 16);
        return new BalancedParameters(blockBits, sizes, k, k0, p, counterBits, n, budget, overflowCapacity,
                cap, gamma, pLb);
    }

    /**
     * Parameters given directly (for experiments such as the paper's Fig. 1 toy and §2 simple variant).
     * The access budget caps block accesses over all insertions; {@code Long.MAX_VALUE} means none. The overflow
     * capacity must be at most {@link #MAX_OVERFLOW_CAPACITY} and at most 2·bits + 16 (bits = blocks·blockBits).
     */
    public static BalancedParameters explicit(int blockBits, long[] subtableBlocks, int k, int threshold,
                                              double coinProbability, long designCapacity, long accessBudget,
                                              int overflowCapacity) {
        checkBlockBits(blockBits);
        int counterBits = 64 - Long.numberOfLeadingZeros(threshold + 1L);
        return new BalancedParameters(blockBits, subtableBlocks.clone(), k, threshold, coinProbability,
                counterBits, designCapacity, accessBudget, overflowCapacity,
                Double.NaN, Double.NaN, new double[0]);
    }

    static final long MAX_BLOCKS = BloomFilter.MAX_BITS / 64;
    static final int MAX_HASH_COUNT_IN_BLOCK = BloomFilter.MAX_HASH_COUNT;

    private static void checkBlockBits(int blockBits) {
        if (blockBits < 64 || blockBits > 4096 || blockBits % 64 != 0) {
            throw new IllegalArgumentException("blockBits must be a multiple of 64 in [64, 4096], got " + blockBits);
        }
    }

    private void validate() {
        if (subtableBlocks.length < 1 || subtableBlocks.length > 8) {
            throw new IllegalArgumentException("choices (subtables) must be in [1, 8], got " + subtableBlocks.length);
        }
        long total = 0;
        for (int j = 0; j < subtableBlocks.length; j++) {
            Checks.positive("subtableBlocks[" + j + "]", subtableBlocks[j], MAX_BLOCKS);
            total += subtableBlocks[j];
        }
        if (total * blockBits > BloomFilter.MAX_BITS) {
            throw new IllegalArgumentException("blocks x blockBits = " + total * blockBits + " bits, above the limit of "
                    + BloomFilter.MAX_BITS);
        }
        if (counterBits < 1 || counterBits > 16) {
            throw new IllegalArgumentException("threshold must be in [0, 65534], got " + threshold);
        }
        if (k < 1 || k > Math.min(MAX_HASH_COUNT_IN_BLOCK, blockBits - counterBits)) {
            throw new IllegalArgumentException("hashCount must be in [1, " + Math.min(MAX_HASH_COUNT_IN_BLOCK,
                    blockBits - counterBits) + "], got " + k);
        }
        if (!(coinProbability >= 0 && coinProbability <= 1)) {
            throw new IllegalArgumentException("coinProbability must be in [0, 1], got " + coinProbability);
        }
        Checks.positive("designCapacity", designCapacity, Long.MAX_VALUE);
        if (accessBudget < 0) {
            throw new IllegalArgumentException("accessBudget must be ≥ 0, got " + accessBudget);
        }
        if (overflowCapacity < 0 || overflowCapacity > MAX_OVERFLOW_CAPACITY) {
            throw new IllegalArgumentException("overflowCapacity must be in [0, " + MAX_OVERFLOW_CAPACITY
                    + "] (the most a table of 2^29 slots holds at 3/4 load), got " + overflowCapacity);
        }
        // The overflow list is allocated at its capacity; tie it to the filter's size so that a small image cannot
        // declare a list of gigabytes. Every derived capacity, 2·⌈γ·n⌉ + 16 with γ < 1 and n ≤ bits (at least
        // one bit per element), is within this bound, so it is the tightest that rejects no parameters a writer
        // can produce. It still lets the table (≤ 128/3 bytes per entry) reach ~680 times the image's block
        // bytes; a bound on the design capacity instead would not help, as that is the image's to declare too.
        long maxOverflow = 2 * total * blockBits + 16;
        if (overflowCapacity > maxOverflow) {
            throw new IllegalArgumentException("overflowCapacity must be at most 2 x blocks x blockBits + 16 = "
                    + maxOverflow + ", got " + overflowCapacity);
        }
    }

    /** γ = (1 − (1 − γ)/a)<sup>d</sup>, the MHT scheme's minimal overflow fraction (notes §1.8). */
    public static double optimalOverflowFraction(double a, int d) {
        double g = 0;
        for (int i = 0; i < 10_000; i++) {
            double next = StrictMath.pow(1 - (1 - g) / a, d);
            if (Math.abs(next - g) < 1e-15) {
                return next;
            }
            g = next;
        }
        return g;
    }

    /**
     * P<sub>LB</sub> of Theorem 1 (Eq. 4) for a Poisson(λ) access load reduced to mean {@code mean}: returns
     * P<sub>LB</sub>(0..k0+1), so k0 = length − 2.
     */
    public static double[] lowerBoundLoad(double lambda, double mean) {
        int max = Poisson.tailBound(lambda);
        double[] pmf = Poisson.pmf(lambda, max);
        // E[min(X, k)] = Σ_{i<k} i·P(i) + k·P(X ≥ k); k0 is the largest k with E[min(X,k)] < mean.
        int k0 = 0;
        double partialMean = 0;
        double cdf = 0;
        while (k0 + 1 <= max) {
            int next = k0 + 1;
            double pm = partialMean + k0 * pmf[k0];
            double c = cdf + pmf[k0];
            if (pm + next * (1 - c) >= mean) {
                break;
            }
            k0 = next;
            partialMean = pm;
            cdf = c;
        }
        double e0 = partialMean + k0 * pmf[k0]; // Σ_{i≤k0} i·P(i) = λ·Q(k0, λ)
        double p0 = cdf + pmf[k0];              // P(X ≤ k0)
        double[] pLb = new double[k0 + 2];
        System.arraycopy(pmf, 0, pLb, 0, k0);
        pLb[k0] = pmf[k0] + e0 + k0 + 1 - k0 * p0 - p0 - mean;
        pLb[k0 + 1] = -e0 - k0 + k0 * p0 + mean;
        return pLb;
    }

    /** Root in [0, 1) of e<sup>−pλ</sup>·P[Poisson((1−p)λ) ≥ h]/(1−p)<sup>h</sup> = target, by bisection. */
    static double coinProbability(double lambda, int h, double target) {
        double lo = 0;
        double hi = 1 - 1e-12;
        if (singleLoadAtThreshold(lambda, h, lo) <= target) {
            return 0;
        }
        for (int i = 0; i < 200; i++) {
            double mid = (lo + hi) / 2;
            if (singleLoadAtThreshold(lambda, h, mid) > target) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        return (lo + hi) / 2;
    }

    /** f<sub>h</sub> of the SINGLE scheme at load λ (Eq. 7), in its stable form. */
    static double singleLoadAtThreshold(double lambda, int h, double p) {
        double mu = (1 - p) * lambda;
        double[] pmf = Poisson.pmf(mu, Math.max(h, 1));
        double below = 0;
        for (int i = 0; i < h; i++) {
            below += pmf[i];
        }
        return StrictMath.exp(-p * lambda) * Math.max(0, 1 - below) / StrictMath.pow(1 - p, h);
    }

    /** Rounded M·α<sub>j</sub>; the rounding remainder goes to the first subtable. */
    static long[] subtableSizes(long blocks, double a, double gamma, int d) {
        double pa = 1 - (1 - gamma) / a;
        long[] sizes = new long[d];
        long assigned = 0;
        for (int j = 0; j < d; j++) {
            double alpha = d == 1 ? 1 : (1 - pa) / (1 - StrictMath.pow(pa, d)) * StrictMath.pow(pa, j);
            sizes[j] = Math.max(1, Math.round(blocks * alpha));
            assigned += sizes[j];
        }
        sizes[0] += blocks - assigned;
        if (sizes[0] < 1) {
            throw new IllegalArgumentException("blocks=" + blocks + " too few for " + d + " subtables");
        }
        return sizes;
    }

    public int blockBits() { return blockBits; }
    public int choices() { return subtableBlocks.length; }
    public long[] subtableBlocks() { return subtableBlocks.clone(); }
    public long blocks() { return Arrays.stream(subtableBlocks).sum(); }
    /** k: bits set per element inside its block. */
    public int hashCount() { return k; }
    /** h: the load below which a block always accepts. */
    public int threshold() { return threshold; }
    /** p: chance that a block at load exactly h accepts. */
    public double coinProbability() { return coinProbability; }
    /** b: bits of the per-block load counter. */
    public int counterBits() { return counterBits; }
    /** n: elements the filter is designed for; the access budget is ⌊a·n⌋. */
    public long designCapacity() { return designCapacity; }
    /** Total block accesses insertions may use before new elements go straight to the overflow list. */
    public long accessBudget() { return accessBudget; }
    /** Entries the overflow list holds before insertions fall back to forced placement. */
    public int overflowCapacity() { return overflowCapacity; }
    /** a, or NaN for explicit parameters. */
    public double averageAccesses() { return averageAccesses; }
    /** γ, the theoretical overflow fraction, or NaN for explicit parameters. */
    public double overflowFraction() { return overflowFraction; }
    /** P<sub>LB</sub>(0..k0+1), the theoretical final block-load distribution (empty if explicit). */
    public double[] loadDistribution() { return loadDistribution.clone(); }

    @Override
    public String toString() {
        return "BalancedParameters[B=" + blockBits + ", subtables=" + Arrays.toString(subtableBlocks) + ", k=" + k
                + ", h=" + threshold + ", p=" + coinProbability + ", b=" + counterBits + ", n=" + designCapacity
                + ", budget=" + accessBudget + ", overflowCapacity=" + overflowCapacity + "]";
    }
}
