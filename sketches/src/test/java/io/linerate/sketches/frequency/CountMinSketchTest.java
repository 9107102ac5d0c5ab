package io.linerate.sketches.frequency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.linerate.sketches.hash.ItemHasher;
import io.linerate.sketches.hash.Primes;
import java.time.Duration;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Count-Min against Kirsch's thesis §3.8.2 (research notes §2.7–2.8). */
class CountMinSketchTest {

    /** Distinct keys 0..n−1 with Zipf(s) weights scaled so the heaviest has {@code top}. */
    static long[] zipfWeights(int n, double s, long top) {
        long[] w = new long[n];
        for (int i = 0; i < n; i++) {
            w[i] = Math.max(1, Math.round(top / Math.pow(i + 1, s)));
        }
        return w;
    }

    static long[] uniformWeights(int n, SplittableRandom random) {
        long[] w = new long[n];
        for (int i = 0; i < n; i++) {
            w[i] = 1 + random.nextInt(20);
        }
        return w;
    }

    /** Fraction of the keys whose estimate exceeds truth + εN; asserts estimate ≥ truth for every key. */
    static double failureFraction(CountMinSketch sketch, long[] weights, long keyOffset, double epsilon) {
        for (int i = 0; i < weights.length; i++) {
            sketch.update(keyOffset + i, weights[i]);
        }
        double bound = epsilon * sketch.totalWeight();
        int failures = 0;
        for (int i = 0; i < weights.length; i++) {
            long estimate = sketch.estimate(keyOffset + i);
            assertThat(estimate).as("estimate >= true weight").isGreaterThanOrEqualTo(weights[i]);
            failures += estimate - weights[i] > bound ? 1 : 0;
        }
        return (double) failures / weights.length;
    }

    /**
     * Theorem 3.8.1 over 200 independent seeds: the mean fraction of failed point queries is at most
     * 2/(εw²) + (2/(εw))^d plus 4 standard errors of that mean (the per-seed fractions are i.i.d.).
     */
    @Test
    void theorem381BoundHoldsOverIndependentSeeds() {
        int w = 547; // smallest prime ≥ 2e/0.01
        int d = CountMinSketch.rowsPerCopy(0.01);
        assertThat(d).isEqualTo(5);
        double epsilon = 0.01;
        for (RowIndexing indexing : RowIndexing.values()) {
            for (String input : new String[] {"uniform", "zipf"}) {
                double[] fractions = new double[200];
                for (int seed = 0; seed < fractions.length; seed++) {
                    SplittableRandom random = new SplittableRandom(seed);
                    long[] weights = input.equals("uniform") ? uniformWeights(5000, random)
                            : zipfWeights(5000, 1.0, 100_000);
                    CountMinSketch sketch = CountMinSketch.withShape(w, d, 1000 + seed, indexing, false);
                    fractions[seed] = failureFraction(sketch, weights, (long) seed << 32, epsilon);
                }
                double mean = Arrays.stream(fractions).average().orElseThrow();
                double sd = Math.sqrt(Arrays.stream(fractions).map(f -> (f - mean) * (f - mean)).sum()
                        / (fractions.length - 1));
                double bound = 2 / (epsilon * w * w) + Math.pow(2 / (epsilon * w), d);
                assertThat(mean).as("%s %s: mean failure fraction vs Theorem 3.8.1 bound %s", indexing, input, bound)
                        .isLessThanOrEqualTo(bound + 4 * sd / Math.sqrt(fractions.length));
            }
        }
    }

    /**
     * The all-rows collision: with indexes (h1 + j·h2) mod w two items with equal h1 mod w and h2 mod w
     * share every row (probability 1/w² per pair), so a light key that fully collides with a key heavier
     * than εN has error above εN whatever d is. Expected number of such light keys: Σ over heavy keys of
     * (light keys)/w². Full-width row indexing needs the whole hash to agree.
     */
    @Test
    void fullWidthIndexingRemovesTheAllRowsCollision() {
        int w = 2053; // prime next to 2^11
        int d = 7;
        double epsilon = Math.E / w;
        long[] weights = zipfWeights(1_000_000, 1.1, 10_000_000);
        long total = Arrays.stream(weights).sum();
        long heavy = Arrays.stream(weights).filter(x -> x > epsilon * total).count();
        double expectedFullCollisions = (double) heavy * (weights.length - heavy) / ((double) w * w);
        int seeds = 3;
        double modPrime = 0;
        double fullWidth = 0;
        double mixed32 = 0;
        for (int seed = 0; seed < seeds; seed++) {
            modPrime += failures(CountMinSketch.withShape(w, d, seed, RowIndexing.MOD_PRIME, false), weights, epsilon);
            fullWidth += failures(CountMinSketch.withShape(w, d, seed, RowIndexing.FULL_WIDTH, false), weights,
                    epsilon);
            mixed32 += failures(CountMinSketch.withShape(w, d, seed, RowIndexing.MIXED_32, false), weights, epsilon);
        }
        // MOD_PRIME: at least the full collisions (Poisson mean λ·seeds, 4 SD below); FULL_WIDTH: far fewer
        double lambda = expectedFullCollisions * seeds;
        assertThat(lambda).as("the setting must make full collisions likely to be seen").isGreaterThan(10);
        assertThat(modPrime).as("light keys over εN with MOD_PRIME (expected ≥ %.1f)", lambda)
                .isGreaterThanOrEqualTo(lambda - 4 * Math.sqrt(lambda));
        assertThat(fullWidth).as("light keys over εN with FULL_WIDTH").isLessThan(modPrime / 4);
        assertThat(mixed32).as("light keys over εN with MIXED_32").isLessThan(modPrime / 4);
    }

    /**
     * Rows as independent hashes: among n items, the pairs that share all d rows number C(n, 2)/w<sup>d</sup> by
     * chance (Poisson, λ ≈ 62 here). MIXED_32 and FULL_WIDTH must stay within 5 SD of it; MOD_PRIME shows the
     * all-rows collision, C(n, 2)/w² pairs (about 125,000 here) whatever d is.
     */
    @Test
    void pairsSharingEveryRowAreAsRareAsWithIndependentRows() {
        int w = 1999;
        int d = 3;
        int n = 1_000_000;
        double lambda = (double) n * (n - 1) / 2 / Math.pow(w, d);
        for (RowIndexing indexing : RowIndexing.values()) {
            CountMinSketch sketch = CountMinSketch.withShape(w, d, 17, indexing, false);
            long[] cells = new long[n];
            for (int i = 0; i < n; i++) {
                long h1 = sketch.hasher().hash((long) i);
                int[] index = sketch.rowIndexes(h1, ItemHasher.h2(h1));
                long cell = 0;
                for (int j = 0; j < d; j++) {
                    cell = cell * w + (index[j] - (long) j * w);
                }
                cells[i] = cell;
            }
            Arrays.sort(cells);
            long pairs = 0;
            for (int i = 0, run = 1; i < n; i++, run++) {
                if (i == n - 1 || cells[i + 1] != cells[i]) {
                    pairs += (long) run * (run - 1) / 2;
                    run = 0;
                }
            }
            if (indexing == RowIndexing.MOD_PRIME) {
                assertThat(pairs).as("MOD_PRIME pairs sharing all rows").isGreaterThan((long) (100 * lambda));
            } else {
                assertThat((double) pairs).as("%s pairs sharing all %d rows (chance: %.1f)", indexing, d, lambda)
                        .isBetween(lambda - 5 * Math.sqrt(lambda), lambda + 5 * Math.sqrt(lambda));
            }
        }
    }

    private static int failures(CountMinSketch sketch, long[] weights, double epsilon) {
        for (int i = 0; i < weights.length; i++) {
            sketch.update(i, weights[i]);
        }
        double bound = epsilon * sketch.totalWeight();
        int failures = 0;
        for (int i = 0; i < weights.length; i++) {
            failures += sketch.estimate(i) - weights[i] > bound ? 1 : 0;
        }
        return failures;
    }

    @Test
    void sizingFromErrorsFollowsTheCorrectedConditions() {
        // notes §2.8 table: (ε, δ) = (0.001, 0.001) → w = 5437, d = 7, one copy; (0.01, 1e-6) → 547, 5, 3 copies
        CountMinSketch a = CountMinSketch.fromErrors(0.001, 0.001, 1);
        assertThat(a.width()).isEqualTo(5437);
        assertThat(a.depth()).isEqualTo(7);
        CountMinSketch b = CountMinSketch.fromErrors(0.01, 1e-6, 1);
        assertThat(b.width()).isEqualTo(547);
        assertThat(b.depth()).isEqualTo(15);
        assertThat(CountMinSketch.fromErrors(0.001, 0.01, 1).memoryBytes()).isEqualTo(5437L * 7 * 8);
    }

    @Test
    void fromErrorsRejectsAnEpsilonWhoseWidthIsAboveTheLimitWithoutSearchingForAPrime() {
        // 2e/ε saturates a long below ~5.9e-19: the prime search used to wrap negative and run for ever
        for (double epsilon : new double[] {1e-19, 5e-19, 1e-300, Double.MIN_VALUE, 1e-9}) {
            assertTimeoutPreemptively(Duration.ofSeconds(10), () ->
                    assertThatThrownBy(() -> CountMinSketch.fromErrors(epsilon, 0.01, 1))
                            .isInstanceOf(IllegalArgumentException.class)
                            .hasMessageContaining("epsilon=" + epsilon)
                            .hasMessageContaining(String.valueOf(CountMinSketch.MAX_COUNTERS)));
        }
    }

    @Test
    void fromErrorsRejectsADeltaThatNeedsMoreThanMaxDepthRows() {
        // (0.001, 1e-30): 7 rows per copy × 10 copies = 70 rows; capping at 64 would leave δ = 0.001^9 > 1e-30
        assertThatThrownBy(() -> CountMinSketch.fromErrors(0.001, 1e-30, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("delta must be ≥ epsilon^9 = ")
                .hasMessageContaining("got 1.0E-30, which needs 70 rows");
        // ε near 1: the count of copies (~6.9e14, an int once) times the rows per copy does not fit in an int
        assertThatThrownBy(() -> CountMinSketch.fromErrors(1 - 1e-12, 1e-300, 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("delta must be ≥");
        // exactly at the limit: 0.001^9 needs 63 rows, and its guarantee is met
        CountMinSketch atLimit = CountMinSketch.fromErrors(0.001, 1.1e-27, 1);
        assertThat(atLimit.depth()).isEqualTo(63);
    }

    @Test
    void withMemoryClampsToMaxCountersBeforeRoundingDownToAPrime() {
        // a budget above 2^28 counters: the width is the largest prime ≤ 2^28 / depth, not 2^28 / depth itself
        for (int depth : new int[] {1, 4, 7, 64}) {
            int w = CountMinSketch.widthForMemory(Long.MAX_VALUE, depth);
            assertThat(Primes.isPrime(w)).as("depth %d: width %d prime", depth, w).isTrue();
            assertThat((long) w * depth).isLessThanOrEqualTo(CountMinSketch.MAX_COUNTERS);
            for (long v = w + 1; v <= CountMinSketch.MAX_COUNTERS / depth; v++) {
                assertThat(Primes.isPrime(v)).as("a larger prime %d fits at depth %d", v, depth).isFalse();
            }
        }
        assertThat(CountMinSketch.widthForMemory(Long.MAX_VALUE, 1)).isEqualTo(268_435_399);
        assertThat(CountMinSketch.widthForMemory(4L << 20, 4)).isEqualTo(131_071);
    }

    @Test
    void mergeEqualsTheSketchOfTheUnion() {
        for (boolean conservative : new boolean[] {false}) {
            CountMinSketch a = CountMinSketch.withShape(1021, 5, 7, RowIndexing.FULL_WIDTH, conservative);
            CountMinSketch b = CountMinSketch.withShape(1021, 5, 7, RowIndexing.FULL_WIDTH, conservative);
            CountMinSketch union = CountMinSketch.withShape(1021, 5, 7, RowIndexing.FULL_WIDTH, conservative);
            SplittableRandom random = new SplittableRandom(5);
            for (int i = 0; i < 50_000; i++) {
                long key = random.nextInt(20_000);
                long weight = 1 + random.nextInt(1500);
                (i % 3 == 0 ? a : b).update(key, weight);
                union.update(key, weight);
            }
            a.merge(b);
            assertThat(a.toByteArray()).isEqualTo(union.toByteArray());
        }
    }

    /** Merging sketches whose conservative flags differ keeps both bounds of the joint stream (merge's Javadoc). */
    @Test
    void mergeOfConservativeAndPlainSketchesKeepsBothBounds() {
        for (boolean conservativeFirst : new boolean[] {false, true}) {
            CountMinSketch a = CountMinSketch.withShape(211, 4, 9, RowIndexing.MIXED_32, conservativeFirst);
            CountMinSketch b = CountMinSketch.withShape(211, 4, 9, RowIndexing.MIXED_32, !conservativeFirst);
            CountMinSketch plainUnion = CountMinSketch.withShape(211, 4, 9, RowIndexing.MIXED_32, false);
            long[] truth = new long[5_000];
            SplittableRandom random = new SplittableRandom(11);
            for (int i = 0; i < 100_000; i++) {
                int key = (int) Math.min(truth.length - 1, (long) (1 / Math.pow(random.nextDouble() + 1e-9, 0.9)));
                long weight = 1 + random.nextInt(1500);
                truth[key] += weight;
                (i % 2 == 0 ? a : b).update(key, weight);
                plainUnion.update(key, weight);
            }
            a.merge(b);
            assertThat(a.isConservative()).isEqualTo(conservativeFirst);
            assertThat(a.totalWeight()).isEqualTo(plainUnion.totalWeight());
            for (int key = 0; key < truth.length; key++) {
                assertThat(a.estimate(key)).as("key %d", key).isBetween(truth[key], plainUnion.estimate(key));
            }
        }
    }

    @Test
    void conservativeUpdateNeverUnderestimatesAndNeverHasMoreError() {
        CountMinSketch plain = CountMinSketch.withShape(503, 4, 3, RowIndexing.FULL_WIDTH, false);
        CountMinSketch cu = CountMinSketch.withShape(503, 4, 3, RowIndexing.FULL_WIDTH, true);
        long[] truth = new long[10_000];
        SplittableRandom random = new SplittableRandom(3);
        for (int i = 0; i < 200_000; i++) {
            int key = (int) Math.min(truth.length - 1, (long) (1 / Math.pow(random.nextDouble() + 1e-9, 0.9)));
            long weight = 40 + random.nextInt(1460);
            truth[key] += weight;
            plain.update(key, weight);
            cu.update(key, weight);
        }
        for (int key = 0; key < truth.length; key++) {
            assertThat(cu.estimate(key)).isBetween(truth[key], plain.estimate(key));
        }
    }

    /**
     * The conservative update, counter for counter, against its definition (Estan and Varghese): each of the
     * item's d counters becomes max(counter, old estimate + weight) and no other counter changes. The item's
     * counters are found with a plain sketch of the same shape and seed that holds only that item.
     */
    @Test
    void conservativeUpdateRaisesExactlyTheItemsCountersToTheNewEstimate() {
        for (RowIndexing indexing : RowIndexing.values()) {
            int width = 31;
            int depth = 4;
            CountMinSketch cu = CountMinSketch.withShape(width, depth, 11, indexing, true);
            long[][] model = new long[depth][width];
            SplittableRandom random = new SplittableRandom(5);
            for (int step = 0; step < 3_000; step++) {
                long key = random.nextInt(400);
                long weight = random.nextInt(5) == 0 ? 0 : 1 + random.nextInt(1_000);
                CountMinSketch alone = CountMinSketch.withShape(width, depth, 11, indexing, false);
                alone.update(key, 1);
                long estimate = Long.MAX_VALUE;
                for (int row = 0; row < depth; row++) {
                    for (int column = 0; column < width; column++) {
                        if (alone.counter(row, column) == 1) {
                            estimate = Math.min(estimate, model[row][column]);
                        }
                    }
                }
                long target = estimate + weight;
                for (int row = 0; row < depth; row++) {
                    for (int column = 0; column < width; column++) {
                        if (alone.counter(row, column) == 1) {
                            model[row][column] = Math.max(model[row][column], target);
                        }
                    }
                }
                long h1 = cu.hasher().hash(key);
                assertThat(cu.updateAndEstimate(h1, ItemHasher.h2(h1), weight)).isEqualTo(target);
            }
            for (int row = 0; row < depth; row++) {
                for (int column = 0; column < width; column++) {
                    assertThat(cu.counter(row, column)).as("%s counter (%d, %d)", indexing, row, column)
                            .isEqualTo(model[row][column]);
                }
            }
        }
    }

    @Test
    void countersSaturateInsteadOfWrapping() {
        for (RowIndexing indexing : RowIndexing.values()) {
            for (boolean conservative : new boolean[] {false, true}) {
                CountMinSketch s = CountMinSketch.withShape(11, 2, 1, indexing, conservative);
                s.update(1L, Long.MAX_VALUE - 5);
                s.update(1L, 100);
                s.update(2L, 7);
                assertThat(s.estimate(1L)).as("%s %s", indexing, conservative).isEqualTo(Long.MAX_VALUE);
                assertThat(s.totalWeight()).isEqualTo(Long.MAX_VALUE);
                // a merge that saturates N: later updates must saturate too, never wrap
                CountMinSketch a = CountMinSketch.withShape(11, 2, 1, indexing, conservative);
                CountMinSketch b = CountMinSketch.withShape(11, 2, 1, indexing, conservative);
                a.update(3L, Long.MAX_VALUE / 2 + 1);
                b.update(3L, Long.MAX_VALUE / 2 + 1);
                a.merge(b);
                a.update(3L, 1);
                assertThat(a.estimate(3L)).as("%s %s after merge", indexing, conservative).isEqualTo(Long.MAX_VALUE);
            }
        }
    }

    /**
     * {@code update} (unchecked adds while N + weight fits) and {@code updateAndEstimate} (checked adds) leave the
     * same counters and N for the same input, for every indexing, also when N reaches and passes the point where
     * the unchecked path stops (N = MAX − weight exactly, then beyond).
     */
    @Test
    void updateAndUpdateAndEstimateLeaveTheSameCounters() {
        for (RowIndexing indexing : RowIndexing.values()) {
            CountMinSketch unchecked = CountMinSketch.withShape(31, 4, 9, indexing, false);
            CountMinSketch checked = CountMinSketch.withShape(31, 4, 9, indexing, false);
            SplittableRandom random = new SplittableRandom(21);
            long[] weights = new long[2_000];
            for (int i = 0; i < weights.length; i++) {
                weights[i] = random.nextInt(3) == 0 ? 0 : 1 + random.nextInt(1_000_000);
            }
            weights[1_500] = Long.MAX_VALUE - 7 - Arrays.stream(weights, 0, 1_500).sum(); // N = MAX − 7 after it
            weights[1_501] = 7; // N = MAX exactly: the last update the unchecked path may take
            weights[1_502] = 1; // beyond: saturates
            for (int i = 0; i < weights.length; i++) {
                long key = random.nextInt(300);
                long h1 = unchecked.hasher().hash(key);
                unchecked.update(h1, ItemHasher.h2(h1), weights[i]);
                checked.updateAndEstimate(h1, ItemHasher.h2(h1), weights[i]);
                if (i == 1_501) {
                    assertThat(unchecked.totalWeight()).isEqualTo(Long.MAX_VALUE);
                }
            }
            assertThat(unchecked.toByteArray()).as("%s: counters and N", indexing).isEqualTo(checked.toByteArray());
            for (int row = 0; row < 4; row++) {
                for (int column = 0; column < 31; column++) {
                    assertThat(unchecked.counter(row, column)).isBetween(0L, unchecked.totalWeight());
                }
            }
        }
    }

    /** Every counter is at most N, which lets updates skip per-counter overflow checks; images must keep it. */
    @Test
    void imageWithACounterAboveTheTotalWeightIsRejected() {
        CountMinSketch s = CountMinSketch.withShape(11, 2, 1, RowIndexing.MIXED_32, false);
        s.update(1L, 5);
        byte[] image = s.toByteArray();
        int counters = image.length - 4 - 8 * 22; // the counters are the last 8·w·d bytes before the CRC
        byte[] raised = io.linerate.sketches.image.TestImages.edit(image, b -> b.putLong(counters + 8 * 13, 6));
        assertThatThrownBy(() -> CountMinSketch.fromByteArray(raised))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("counter 13 (row 1)").hasMessageContaining("totalWeight = 5");
    }

    /** Each row holds at most N in all (exactly N without conservative update): a row with more is corrupt. */
    @Test
    void imageWithARowHoldingMoreThanTheTotalWeightIsRejected() {
        CountMinSketch s = CountMinSketch.withShape(11, 2, 1, RowIndexing.MIXED_32, false);
        s.update(1L, 5);
        byte[] image = s.toByteArray();
        int counters = image.length - 4 - 8 * 22;
        byte[] doubled = io.linerate.sketches.image.TestImages.edit(image, b -> {
            for (int i = 11; i < 22; i++) {
                if (b.getLong(counters + 8 * i) == 0) {
                    b.putLong(counters + 8 * i, 5); // each counter still within N = 5; the row now holds 10
                    return;
                }
            }
        });
        assertThatThrownBy(() -> CountMinSketch.fromByteArray(doubled))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("image corrupt: the counters of row 1 sum to 10, above totalWeight = 5");
        assertThat(CountMinSketch.fromByteArray(image).estimate(1L)).isEqualTo(5);
    }

    @Test
    void imageRoundTripAndValidation() {
        CountMinSketch s = CountMinSketch.fromErrors(0.01, 0.01, 42);
        for (int i = 0; i < 10_000; i++) {
            s.update("key-" + (i % 777), i);
        }
        byte[] image = s.toByteArray();
        CountMinSketch back = CountMinSketch.fromByteArray(image);
        assertThat(back.toByteArray()).isEqualTo(image);
        assertThat(back.estimate("key-5")).isEqualTo(s.estimate("key-5"));
        for (int cut = 0; cut < image.length; cut += 101) {
            byte[] truncated = Arrays.copyOf(image, cut);
            assertThatThrownBy(() -> CountMinSketch.fromByteArray(truncated))
                    .isInstanceOf(IllegalArgumentException.class);
        }
        byte[] flipped = image.clone();
        flipped[40] ^= 1;
        assertThatThrownBy(() -> CountMinSketch.fromByteArray(flipped))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("CRC32C");
    }

    @Test
    void badInputNamesTheParameter() {
        assertThatThrownBy(() -> CountMinSketch.fromErrors(0, 0.01, 1)).hasMessageContaining("epsilon");
        assertThatThrownBy(() -> CountMinSketch.fromErrors(0.01, 1.0, 1)).hasMessageContaining("delta");
        assertThatThrownBy(() -> CountMinSketch.fromErrors(Double.NaN, 0.1, 1)).hasMessageContaining("epsilon");
        assertThatThrownBy(() -> CountMinSketch.withShape(0, 5, 1, RowIndexing.FULL_WIDTH, false))
                .hasMessageContaining("width");
        assertThatThrownBy(() -> CountMinSketch.withShape(100, 5, 1, RowIndexing.MOD_PRIME, false))
                .hasMessageContaining("prime");
        assertThatThrownBy(() -> CountMinSketch.withShape(101, 0, 1, RowIndexing.FULL_WIDTH, false))
                .hasMessageContaining("depth");
        CountMinSketch s = CountMinSketch.withShape(101, 3, 1, RowIndexing.FULL_WIDTH, false);
        assertThatThrownBy(() -> s.update(1L, -1)).hasMessageContaining("weight");
        CountMinSketch other = CountMinSketch.withShape(101, 3, 2, RowIndexing.FULL_WIDTH, false);
        assertThatThrownBy(() -> s.merge(other)).hasMessageContaining("seed");
        CountMinSketch shape = CountMinSketch.withShape(103, 3, 1, RowIndexing.FULL_WIDTH, false);
        assertThatThrownBy(() -> s.merge(shape)).hasMessageContaining("shape");
        assertThat(ItemHasher.seeded(1)).isEqualTo(s.hasher());
    }

    @org.junit.jupiter.api.Test
    void failureProbabilityNeedsAPositiveEpsilon() {
        CountMinSketch cm = CountMinSketch.withShape(101, 3, 1, RowIndexing.FULL_WIDTH, false);
        for (double bad : new double[] {-0.5, 0, Double.NaN}) {
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> cm.failureProbability(bad))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("epsilon must be > 0");
        }
        org.assertj.core.api.Assertions.assertThat(cm.failureProbability(0.1)).isBetween(0.0, 1.0);
    }

    /**
     * The reported guarantee is Theorem 3.8.1's, not merely a probability: ε = 2e/w, the bound εN on the total
     * weight N added, and Pr(â &gt; a + εN) ≤ 2/(εw²) + (2/(εw))<sup>d</sup> for MOD_PRIME, the all-rows term
     * dropped for the mixed indexings, each base capped at 1. (Only "between 0 and 1" was checked, which a
     * constant 0 passed.)
     */
    @Test
    void reportedErrorBoundsAreTheoremThreeEightOnesAtTheSketchsShape() {
        int w = 101;
        int d = 3;
        double eps = 0.1;
        double rows = Math.pow(2 / (eps * w), d);
        CountMinSketch prime = CountMinSketch.withShape(w, d, 1, RowIndexing.MOD_PRIME, false);
        CountMinSketch full = CountMinSketch.withShape(w, d, 1, RowIndexing.FULL_WIDTH, false);
        assertThat(prime.failureProbability(eps)).isCloseTo(2 / (eps * w * w) + rows, within(1e-15));
        assertThat(full.failureProbability(eps)).isCloseTo(rows, within(1e-15));
        // εw ≤ 2: every row may fail, the bound is the trivial 1
        assertThat(full.failureProbability(1.5 / w)).isEqualTo(1.0);
        assertThat(prime.failureProbability(1.5 / w)).isEqualTo(1.0);

        assertThat(full.epsilon()).isCloseTo(2 * Math.E / w, within(1e-15));
        assertThat(full.errorBound()).isZero();
        full.update(1, 2, 600);
        full.update(3, 4, 400);
        assertThat(full.errorBound()).isCloseTo(2 * Math.E / w * 1000, within(1e-9));
    }

    /** The largest sketch still has an image a Java array can hold; imageBytes is the image's length. */
    @org.junit.jupiter.api.Test
    void theLargestSketchsImageFitsAnArray() {
        CountMinSketch small = CountMinSketch.withShape(101, 3, 1, RowIndexing.FULL_WIDTH, false);
        org.assertj.core.api.Assertions.assertThat(small.imageBytes()).isEqualTo(small.toByteArray().length);
        long largestImage = small.imageBytes() - 8L * 101 * 3 + 8L * CountMinSketch.MAX_COUNTERS;
        org.assertj.core.api.Assertions.assertThat(largestImage).isLessThanOrEqualTo(Integer.MAX_VALUE - 8);
        org.assertj.core.api.Assertions.assertThat(largestImage + 8 * 16).isGreaterThan(Integer.MAX_VALUE - 8);
    }
}
