package io.linerate.sketches.bloom;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The prime partition scheme's finite-n false-positive rate (research notes §3.9): q<sup>k</sup> plus an excess
 * ≈ n/p² = k²/(c²n) from queries whose (h1, h2) mod p equals an item's. At small n and low fpp the excess dominates:
 * create(1000, 10<sup>−6</sup>) sized as the standard filter (k = 20, p = 1439) measured 4.7·10<sup>−4</sup> while
 * expectedFpp() said 1.0·10<sup>−6</sup>.
 */
class PartitionedFiniteNFppTest {

    /** The first-order column of the notes' §4.4(a) table, reproduced to its printed digits. */
    @Test
    void theFirstOrderRateReproducesTheNotesTable() {
        assertThat(PartitionedBloomFilter.falsePositiveProbability(1000, 11, 1459)).isCloseTo(0.000915313,
                org.assertj.core.data.Percentage.withPercentage(1e-3));
        assertThat(PartitionedBloomFilter.falsePositiveProbability(1000, 8, 1511)).isCloseTo(0.00344101,
                org.assertj.core.data.Percentage.withPercentage(1e-3));
        assertThat(PartitionedBloomFilter.falsePositiveProbability(100_000, 6, 133_337)).isCloseTo(0.0215796,
                org.assertj.core.data.Percentage.withPercentage(1e-3));
    }

    /**
     * The public formula refuses arguments outside its domain, naming them, as optimalHashCount does: it returned NaN
     * for p = 0, a negative "probability" for n &lt; 0 and 1.0 for k ≤ 0 or p &lt; 0, silently. n = 0 is an empty
     * filter: rate 0.
     */
    @Test
    void theFirstOrderRateRefusesArgumentsOutsideItsDomain() {
        org.assertj.core.api.Assertions.assertThatThrownBy(
                () -> PartitionedBloomFilter.falsePositiveProbability(1000, 4, 0)).hasMessageContaining("partitionBits");
        org.assertj.core.api.Assertions.assertThatThrownBy(
                () -> PartitionedBloomFilter.falsePositiveProbability(1000, 4, -7)).hasMessageContaining("partitionBits");
        org.assertj.core.api.Assertions.assertThatThrownBy(
                () -> PartitionedBloomFilter.falsePositiveProbability(-5, 4, 1009)).hasMessageContaining("n must");
        org.assertj.core.api.Assertions.assertThatThrownBy(
                () -> PartitionedBloomFilter.falsePositiveProbability(1000, 0, 1009)).hasMessageContaining("hashCount");
        org.assertj.core.api.Assertions.assertThatThrownBy(
                () -> PartitionedBloomFilter.falsePositiveProbability(1000, 129, 1009)).hasMessageContaining("hashCount");
        assertThat(PartitionedBloomFilter.falsePositiveProbability(0, 4, 1009)).isZero();
    }

    /**
     * create(1000, 10<sup>−6</sup>) now meets its target: its model rate is at most fpp, and the measured rate over
     * 4·10<sup>6</sup> queries is below 3·fpp (expected hits ≤ 4; P(Poisson(4) ≥ 12) ≈ 0.001).
     */
    @Test
    void createMeetsItsTargetAtSmallN() {
        long n = 1000;
        double fpp = 1e-6;
        PartitionedBloomFilter f = PartitionedBloomFilter.create(n, fpp, 7);
        assertThat(PartitionedBloomFilter.falsePositiveProbability(n, f.hashCount(), f.partitionBits()))
                .isLessThanOrEqualTo(fpp);
        // the example bloom-filters.md gives for this sizing
        assertThat(f.bitSize()).isEqualTo(159_812);
        assertThat(f.hashCount()).isEqualTo(4);
        SplittableRandom rnd = new SplittableRandom(1);
        for (long i = 0; i < n; i++) {
            f.put(rnd.nextLong());
        }
        long queries = 4_000_000;
        long positives = 0;
        for (long i = 0; i < queries; i++) {
            positives += f.mightContain(rnd.nextLong()) ? 1 : 0;
        }
        assertThat(positives).as("false positives in %d queries, %s", queries, f).isLessThan(12);
        assertThat(f.expectedFpp()).as("expectedFpp").isLessThan(1.1 * fpp);
    }

    /**
     * The old sizing's shape (k = 20, p = 1439, n = 1000): expectedFpp() now includes the excess and agrees with the
     * measured rate. Model ≈ 4.8·10<sup>−4</sup>, so ≈ 960 expected hits in 2·10<sup>6</sup> queries, σ ≈ 31; the
     * bound ±15% is about 4.6σ plus the first-order formula's error (under 2% in the notes' table).
     */
    @Test
    void expectedFppTracksTheMeasuredRateWhereTheExcessDominates() {
        PartitionedBloomFilter f = PartitionedBloomFilter.withBits(20 * 1439, 20, 7);
        assertThat(f.partitionBits()).isEqualTo(1439);
        SplittableRandom rnd = new SplittableRandom(2);
        for (long i = 0; i < 1000; i++) {
            f.put(rnd.nextLong());
        }
        long queries = 2_000_000;
        long positives = 0;
        for (long i = 0; i < queries; i++) {
            positives += f.mightContain(rnd.nextLong()) ? 1 : 0;
        }
        double measured = (double) positives / queries;
        assertThat(f.expectedFpp()).isGreaterThan(1e-4);
        assertThat(measured).as("measured vs expectedFpp %s", f.expectedFpp())
                .isBetween(0.85 * f.expectedFpp(), 1.15 * f.expectedFpp());
    }

    /** Where the excess is under 5% of fpp the sizing is the standard one, as before (shapes of existing jobs hold). */
    @Test
    void largeFiltersKeepTheStandardSizing() {
        for (long n : new long[] {10_000, 1_000_000}) {
            PartitionedBloomFilter f = PartitionedBloomFilter.create(n, 0.01, 1);
            long bits = BloomSizing.optimalBits(n, 0.01);
            assertThat(f.hashCount()).isEqualTo(BloomSizing.optimalHashCount(n, bits));
            assertThat(f.bitSize()).isBetween(bits, bits + 7L * 200);
        }
    }
}
