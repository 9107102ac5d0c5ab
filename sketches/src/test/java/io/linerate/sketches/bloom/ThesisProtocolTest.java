package io.linerate.sketches.bloom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.data.Offset.offset;

import io.linerate.sketches.hash.ItemHasher;
import io.linerate.sketches.hash.Probing;
import java.util.BitSet;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The experimental protocol of Kirsch's thesis §3.7 (research notes §4.1–4.4): for c = m/n ∈ {4, 8, 12, 16},
 * n = 5000, k minimising p = (1 − e<sup>−k/c</sup>)<sup>k</sup> over {⌊c ln 2⌋, ⌈c ln 2⌉}, each trial builds a
 * fresh filter (fresh seed), inserts n distinct keys, queries ⌈10/p⌉ keys never inserted and records the number
 * Q of false positives. The mean of Q over T trials estimates ⌈10/p⌉·Pr(F).
 *
 * <p>Statistics. Trials are independent, so the sample mean of Q has standard error SE = s/√T with s the sample
 * standard deviation; "within 4 SE" is a two-sided test at a false-alarm rate of about 6·10<sup>−5</sup> per
 * comparison (normal approximation, CLT over T ≥ 2000 trials). The sample variance s² has standard error
 * √((μ̂₄ − s⁴(T−3)/(T−1))/T) with μ̂₄ the sample fourth central moment (≈ σ²√(2/T) for a near-normal Q).
 * Every trial is seeded, so the run is deterministic; trials run in parallel but are collected in order.
 *
 * <p>Scheme models: "standard" is the thesis's k independent fully random positions, implemented here on a
 * {@link BitSet} with k positions drawn from a {@link SplittableRandom} seeded by the item's 64-bit hash;
 * "double" and the enhanced schemes are {@link StandardBloomFilter#withBits} with m = cn and
 * {@link Probing#DOUBLE}, {@link Probing#ENHANCED_QUADRATIC} (f(i) = i²), {@link Probing#ENHANCED_CUBIC}
 * (f(i) = i³); "partition" is {@link PartitionedBloomFilter#withBits}(cn, k), whose partitions have the smallest
 * prime p ≥ ⌈cn/k⌉ bits, compared with the exact finite-n formula of notes §3.4.
 */
class ThesisProtocolTest {

    static final int N = 5000;
    static final int TRIALS = 2000;

    enum Scheme { STANDARD, PARTITION, DOUBLE, ENHANCED_I2, ENHANCED_I3 }

    /** One (c, scheme) cell of the experiment: Q for every trial, computed once and shared by the tests. */
    record Result(int c, Scheme scheme, long[] q) {
        double mean() {
            double s = 0;
            for (long v : q) {
                s += v;
            }
            return s / q.length;
        }

        double variance() {
            double mu = mean();
            double s = 0;
            for (long v : q) {
                s += (v - mu) * (v - mu);
            }
            return s / (q.length - 1);
        }

        /** s/√T. */
        double standardError() {
            return Math.sqrt(variance() / q.length);
        }

        /** Standard error of the sample variance: √((μ̂₄ − s⁴(T−3)/(T−1))/T). */
        double varianceStandardError() {
            double mu = mean();
            double m4 = 0;
            for (long v : q) {
                double d = v - mu;
                m4 += d * d * d * d;
            }
            m4 /= q.length;
            double s2 = variance();
            int t = q.length;
            return Math.sqrt((m4 - s2 * s2 * (t - 3.0) / (t - 1.0)) / t);
        }
    }

    private static final Map<String, Result> RESULTS = new ConcurrentHashMap<>();

    // ---------------------------------------------------------------- parameters of §4.1

    /** k ∈ {⌊c ln 2⌋, ⌈c ln 2⌉} minimising (1 − e^{−k/c})^k (the OCR'd "{⌈c ln 2⌉, ⌈c ln 2⌉}" read as floor/ceil). */
    static int optimalK(int c) {
        int lo = (int) Math.floor(c * Math.log(2));
        int hi = (int) Math.ceil(c * Math.log(2));
        return asymptoticFp(c, lo) <= asymptoticFp(c, hi) ? lo : hi;
    }

    /** p = (1 − e^{−k/c})^k, the limit of Theorems 3.4.1/3.4.2. */
    static double asymptoticFp(int c, int k) {
        return Math.pow(-Math.expm1(-(double) k / c), k);
    }

    static int queries(int c) {
        return (int) Math.ceil(10 / asymptoticFp(c, optimalK(c)));
    }

    /**
     * Exact Pr(F) of the prime partition scheme (notes §3.4, inclusion–exclusion over which of the query's k
     * cells stay empty): 1 − Σ_{j=1..k} (−1)^{j+1} C(k,j) (1 − (1 + j(p−1))/p²)^n, where 1 + j(p−1) counts the
     * (h1, h2) pairs that hit at least one of j given cells of the query (the query's own pair hits all of them).
     */
    static double partitionExactFp(long p, int k, int n) {
        double sum = 1;
        double binom = k;
        for (int j = 1; j <= k; j++) {
            double avoid = (1.0 + j * (p - 1.0)) / ((double) p * p);
            double term = binom * Math.exp(n * Math.log1p(-avoid));
            sum += (j % 2 == 0) ? term : -term;
            binom = binom * (k - j) / (j + 1);
        }
        return sum;
    }

    @Test
    void derivedParametersMatchTheThesisAndNotes() {
        // §4.1 table: k = 3, 6, 8, 11 and ⌈10/p⌉ = 69, 464, 3183, 21801; thesis prints p ≈ 0.021577 at c = 8.
        assertThat(new int[] {optimalK(4), optimalK(8), optimalK(12), optimalK(16)}).containsExactly(3, 6, 8, 11);
        assertThat(new int[] {queries(4), queries(8), queries(12), queries(16)})
                .containsExactly(69, 464, 3183, 21801);
        assertThat(asymptoticFp(8, 6)).isCloseTo(0.021577, offset(5e-7));
        // notes §4.4(a): exact prime-partition values at n = 5000 (p = 6673, 7283 with m = kp).
        assertThat(PartitionedBloomFilter.withBits(8L * N, 6, 1).partitionBits()).isEqualTo(6673);
        assertThat(PartitionedBloomFilter.withBits(16L * N, 11, 1).partitionBits()).isEqualTo(7283);
        assertThat(partitionExactFp(6673, 6, N)).isCloseTo(0.021569, offset(1e-6));
        assertThat(partitionExactFp(7283, 11, N)).isCloseTo(0.000545352, offset(1e-9));
    }

    /** The exact partition formula against a direct simulation of the model it describes (notes §3.4 check). */
    @Test
    void exactPartitionFormulaMatchesSimulationOfItsModel() {
        // notes: p = 101, k = 5, n = 100 → 0.102128. Simulate R by querying every (b1, b2) pair of a filter
        // built from uniform pairs, averaged over seeded filters; SE from the per-filter sample variance.
        long p = 101;
        int k = 5;
        int n = 100;
        double exact = partitionExactFp(p, k, n);
        assertThat(exact).isCloseTo(0.102128, offset(1e-6));
        int filters = 3000;
        double[] r = IntStream.range(0, filters).mapToDouble(f -> {
            SplittableRandom rnd = new SplittableRandom(mix(0x5EED_0001L + f));
            boolean[][] cells = new boolean[k][(int) p];
            for (int x = 0; x < n; x++) {
                long a = rnd.nextLong(p);
                long b = rnd.nextLong(p);
                for (int i = 0; i < k; i++) {
                    cells[i][(int) ((a + i * b) % p)] = true;
                }
            }
            long fp = 0;
            for (long a = 0; a < p; a++) {
                for (long b = 0; b < p; b++) {
                    boolean all = true;
                    for (int i = 0; i < k && all; i++) {
                        all = cells[i][(int) ((a + i * b) % p)];
                    }
                    fp += all ? 1 : 0;
                }
            }
            return (double) fp / (p * p);
        }).toArray();
        double mean = java.util.Arrays.stream(r).average().orElseThrow();
        double var = java.util.Arrays.stream(r).map(v -> (v - mean) * (v - mean)).sum() / (filters - 1);
        double se = Math.sqrt(var / filters);
        // 4 SE of the mean of R over independent filters.
        assertThat(Math.abs(mean - exact)).as("mean R %.6f vs exact %.6f, SE %.2e", mean, exact, se)
                .isLessThanOrEqualTo(4 * se);
    }

    // ---------------------------------------------------------------- the experiment

    static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** Fresh seed per trial: the trial index mixed with a constant per setting (SplitMix64 finalizer). */
    static long trialSeed(int c, int trial) {
        return mix(0x7E57_0000_0000L + ((long) c << 32) + trial);
    }

    static Result result(int c, Scheme scheme) {
        return RESULTS.computeIfAbsent(c + "/" + scheme, key -> run(c, scheme));
    }

    private static Result run(int c, Scheme scheme) {
        int k = optimalK(c);
        int queries = queries(c);
        long m = (long) c * N;
        long[] q = IntStream.range(0, TRIALS).parallel()
                .mapToLong(t -> trial(scheme, m, k, queries, trialSeed(c, t)))
                .toArray();
        Result r = new Result(c, scheme, q);
        System.out.printf(Locale.ROOT,
                "thesis §3.7 c=%d k=%d queries=%d %-11s mean Q %.4f (SE %.4f) var %.3f -> FP/p %.4f%n",
                c, k, queries, scheme, r.mean(), r.standardError(), r.variance(),
                r.mean() / queries / asymptoticFp(c, k));
        return r;
    }

    /** One trial: insert keys 0..n−1, query the n..n+queries−1 (never inserted), return the false positives. */
    static long trial(Scheme scheme, long m, int k, int queries, long seed) {
        if (scheme == Scheme.STANDARD) {
            return standardReferenceTrial(m, k, queries, seed);
        }
        BloomFilter f = switch (scheme) {
            case PARTITION -> PartitionedBloomFilter.withBits(m, k, seed);
            case DOUBLE -> StandardBloomFilter.withBits(m, k, seed, Probing.DOUBLE);
            case ENHANCED_I2 -> StandardBloomFilter.withBits(m, k, seed, Probing.ENHANCED_QUADRATIC);
            case ENHANCED_I3 -> StandardBloomFilter.withBits(m, k, seed, Probing.ENHANCED_CUBIC);
            default -> throw new AssertionError(scheme);
        };
        for (long key = 0; key < N; key++) {
            f.put(key);
        }
        for (long key = 0; key < N; key++) {
            if (!f.mightContain(key)) {
                throw new AssertionError("false negative for key " + key + " in " + f);
            }
        }
        long fp = 0;
        for (long key = N; key < N + queries; key++) {
            fp += f.mightContain(key) ? 1 : 0;
        }
        return fp;
    }

    /** The thesis's standard Bloom filter: k fully random positions per item (repeats allowed). */
    static long standardReferenceTrial(long m, int k, int queries, long seed) {
        ItemHasher hasher = ItemHasher.seeded(seed);
        BitSet bits = new BitSet((int) m);
        for (long key = 0; key < N; key++) {
            SplittableRandom positions = new SplittableRandom(hasher.hash(key));
            for (int i = 0; i < k; i++) {
                bits.set(positions.nextInt((int) m));
            }
        }
        long fp = 0;
        for (long key = N; key < N + queries; key++) {
            SplittableRandom positions = new SplittableRandom(hasher.hash(key));
            boolean all = true;
            for (int i = 0; i < k && all; i++) {
                all = bits.get(positions.nextInt((int) m));
            }
            fp += all ? 1 : 0;
        }
        return fp;
    }

    // ---------------------------------------------------------------- assertions

    /** |mean Q − expected| ≤ 4 SE. */
    static void assertMeanWithin4Se(Result r, double expectedMean, String what) {
        assertThat(Math.abs(r.mean() - expectedMean))
                .as("%s c=%d: mean Q %.4f vs %s %.4f, 4 SE = %.4f", r.scheme(), r.c(), r.mean(), what,
                        expectedMean, 4 * r.standardError())
                .isLessThanOrEqualTo(4 * r.standardError());
    }

    /** |s² − σ²| ≤ 4 SE(s²). */
    static void assertVarianceWithin4Se(Result r, double expectedVariance) {
        assertThat(Math.abs(r.variance() - expectedVariance))
                .as("%s c=%d: var Q %.4f vs %.4f, 4 SE = %.4f", r.scheme(), r.c(), r.variance(), expectedVariance,
                        4 * r.varianceStandardError())
                .isLessThanOrEqualTo(4 * r.varianceStandardError());
    }

    static double exactPartitionMean(int c) {
        int k = optimalK(c);
        long p = PartitionedBloomFilter.withBits((long) c * N, k, 1).partitionBits();
        return queries(c) * partitionExactFp(p, k, N);
    }

    /**
     * Figure 3.2 setting, n = 5000, c = 8, k = 6, 464 queries: the standard reference, double hashing and both
     * enhanced schemes have mean Q within 4 SE of the published 464·p = 10.01, and a sample variance within
     * 4 SE(s²) of the Binomial(464, p) variance 464p(1−p) = 9.80 (the extra variance 464²·Var(R) ≈ 0.03 from
     * the fluctuation of the rate, notes §4.3, is far below that tolerance); a χ² goodness-of-fit test against
     * Binomial(464, p) passes. The partition scheme is compared with its exact finite-n value.
     */
    @Test
    void figure32SettingMatchesPublishedMeanAndDistribution() {
        int c = 8;
        int k = optimalK(c);
        int queries = queries(c);
        double p = asymptoticFp(c, k);
        double mean = queries * p;
        assertThat(mean).isCloseTo(10.01, offset(0.005));
        for (Scheme s : new Scheme[] {Scheme.STANDARD, Scheme.DOUBLE, Scheme.ENHANCED_I2, Scheme.ENHANCED_I3}) {
            Result r = result(c, s);
            assertMeanWithin4Se(r, mean, "464p");
            assertVarianceWithin4Se(r, queries * p * (1 - p));
            assertChiSquareFitsBinomial(r, queries, p);
        }
        Result partition = result(c, Scheme.PARTITION);
        double pExact = exactPartitionMean(c) / queries;
        assertMeanWithin4Se(partition, queries * pExact, "exact partition");
        assertVarianceWithin4Se(partition, queries * pExact * (1 - pExact));
        assertChiSquareFitsBinomial(partition, queries, pExact);
    }

    /**
     * χ² goodness of fit of the histogram of Q against Binomial(queries, p), bins Q ≤ lo, lo+1 .. hi−1, Q ≥ hi
     * chosen so every bin expects ≥ 20 trials. Critical value: the χ²(df) quantile at z = 4 (one-sided
     * 3·10<sup>−5</sup>) by the Wilson–Hilferty approximation df·(1 − 2/(9df) + z√(2/(9df)))³.
     */
    static void assertChiSquareFitsBinomial(Result r, int queries, double p) {
        double[] pmf = new double[queries + 1];
        double logP = Math.log(p);
        double logQ = Math.log1p(-p);
        double logBinom = 0;
        for (int x = 0; x <= queries; x++) {
            pmf[x] = Math.exp(logBinom + x * logP + (queries - x) * logQ);
            logBinom += Math.log(queries - x) - Math.log(x + 1.0);
        }
        int t = r.q().length;
        int lo = 0;
        double cum = pmf[0];
        while (cum * t < 20) {
            cum += pmf[++lo];
        }
        int hi = queries;
        double tail = pmf[queries];
        while (tail * t < 20) {
            tail += pmf[--hi];
        }
        long[] observed = new long[hi - lo + 1];
        for (long v : r.q()) {
            observed[(int) Math.max(lo, Math.min(hi, v)) - lo]++;
        }
        double chi2 = 0;
        for (int b = 0; b < observed.length; b++) {
            int x = lo + b;
            double expected;
            if (x == lo) {
                expected = cum * t;
            } else if (x == hi) {
                expected = tail * t;
            } else {
                expected = pmf[x] * t;
            }
            chi2 += (observed[b] - expected) * (observed[b] - expected) / expected;
        }
        int df = observed.length - 1;
        double a = 2.0 / (9 * df);
        double critical = df * Math.pow(1 - a + 4 * Math.sqrt(a), 3);
        assertThat(chi2).as("%s c=%d: chi2 %.2f with %d df, critical %.2f", r.scheme(), r.c(), chi2, df, critical)
                .isLessThanOrEqualTo(critical);
    }

    /**
     * The other three settings: standard and enhanced within 4 SE of ⌈10/p⌉·p; partition within 4 SE of its
     * exact value; plain double hashing within 4 SE at c = 4 and 12 (c = 16 has its own bound below).
     *
     * <p>Power note: at T = 2000 trials 4 SE is about 2.8% of the mean. The enhanced i² scheme has a real
     * finite-n excess at c = 16 (notes §4.4(b): FP/p = 1.0139 ± 0.003 at n = 5000; measured here ≈ 1.014), about
     * 2 SE at this T; raising T well beyond ~5000 would need an excess-aware bound for it, as for plain double
     * hashing below.
     */
    @ParameterizedTest(name = "c = {0}")
    @ValueSource(ints = {4, 12, 16})
    void otherSettingsMatchAsymptoticAndExactValues(int c) {
        int k = optimalK(c);
        int queries = queries(c);
        double mean = queries * asymptoticFp(c, k);
        for (Scheme s : new Scheme[] {Scheme.STANDARD, Scheme.ENHANCED_I2, Scheme.ENHANCED_I3}) {
            assertMeanWithin4Se(result(c, s), mean, "⌈10/p⌉·p");
        }
        if (c != 16) {
            assertMeanWithin4Se(result(c, Scheme.DOUBLE), mean, "⌈10/p⌉·p");
        }
        assertMeanWithin4Se(result(c, Scheme.PARTITION), exactPartitionMean(c), "exact partition");
    }

    /**
     * At c = 16, n = 5000 the prime partition scheme has its known finite-n excess: exact Pr(F) = 5.45·10<sup>−4</sup>
     * vs the asymptotic 4.59·10<sup>−4</sup> (notes §4.4(a), simulated ×1.19 in §4.4(b)), so its mean Q is more
     * than 4 SE above ⌈10/p⌉·p, and at least 10% above it.
     */
    @Test
    void partitionSchemeShowsFiniteNExcessAtC16() {
        int c = 16;
        Result r = result(c, Scheme.PARTITION);
        double asymptotic = queries(c) * asymptoticFp(c, optimalK(c));
        assertThat(r.mean() - 4 * r.standardError()).as("mean Q %.3f vs asymptotic %.3f", r.mean(), asymptotic)
                .isGreaterThan(asymptotic);
        assertThat(r.mean() / asymptotic).isGreaterThan(1.10);
        // ... while the standard reference is not in excess (it is within 4 SE of the asymptotic value).
        assertMeanWithin4Se(result(c, Scheme.STANDARD), asymptotic, "⌈10/p⌉·p");
    }

    /**
     * Plain double hashing at c = 16: the notes' re-run (§4.4(b), 10,000 trials, SE ≈ 0.003 in FP/p) measured
     * FP/p = 1.0462 at n = 5000, for the analysed model with h2 = 0 allowed. This implementation replaces a
     * zero stride by 1, which removes part of that excess (h2 ≡ 0 alone contributes ≈ (1/m)·½/p ≈ 1.4%), so
     * its true ratio is at most about 1.046 + 4·0.003 ≈ 1.058 and, like every scheme here, not below the fully
     * random value. Bound: (1 − 4 SE/μ) ≤ mean/μ ≤ 1.058 + 4 SE/μ with μ = ⌈10/p⌉·p.
     */
    @Test
    void doubleHashingAtC16IsWithinTheMeasuredExcess() {
        int c = 16;
        Result r = result(c, Scheme.DOUBLE);
        double mu = queries(c) * asymptoticFp(c, optimalK(c));
        double ratio = r.mean() / mu;
        double slack = 4 * r.standardError() / mu;
        assertThat(ratio).as("double hashing FP/p at c=16 (SE %.4f)", r.standardError() / mu)
                .isBetween(1 - slack, 1.058 + slack);
    }
}
