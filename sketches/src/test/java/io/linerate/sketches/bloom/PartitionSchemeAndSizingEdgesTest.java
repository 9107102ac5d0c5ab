package io.linerate.sketches.bloom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.linerate.sketches.hash.DoubleHashing;
import java.util.Locale;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Sizing helpers, the prime partition scheme and the counting filter's count at their edges. */
class PartitionSchemeAndSizingEdgesTest {

    /** n = 0 gave k = 128 (bits / 0 = ∞, clamped), a negative n or bits gave k = 1, with no error. */
    @Test
    void optimalHashCountRejectsNonPositiveItemsAndBitsByName() {
        for (long n : new long[] {0, -1, Long.MIN_VALUE, Integer.MAX_VALUE * 16L + 1}) {
            assertThatThrownBy(() -> BloomSizing.optimalHashCount(n, 1000)).as("n = %d", n)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("expectedItems").hasMessageContaining(Long.toString(n));
        }
        for (long bits : new long[] {0, -1, BloomFilter.MAX_BITS + 1}) {
            assertThatThrownBy(() -> BloomSizing.optimalHashCount(1000, bits)).as("bits = %d", bits)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("bits").hasMessageContaining(Long.toString(bits));
        }
        assertThat(BloomSizing.optimalHashCount(10_000, 80_000)).isEqualTo(6);
        assertThat(BloomSizing.optimalHashCount(1, BloomFilter.MAX_BITS)).isEqualTo(BloomFilter.MAX_HASH_COUNT);
    }

    /**
     * A partitioned filter whose excess n/p² alone needs more bits than the limit is refused naming the partition size
     * it would need, √(n/fpp): at fpp = Double.MIN_VALUE the quotient n/fpp overflows a double, and the message said
     * "p ≥ √(n/fpp) = Infinity". √n/√fpp stays finite for every legal n and fpp.
     */
    @Test
    void theRefusalOfAPartitionedFilterNamesAFinitePartitionSize() {
        for (long n : new long[] {1, 1000, 100_000}) {
            double need = Math.sqrt(n) / Math.sqrt(Double.MIN_VALUE);
            assertThatThrownBy(() -> PartitionedBloomFilter.create(n, Double.MIN_VALUE, 1)).as("n = %d", n)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageNotContaining("Infinity")
                    .hasMessageContaining("p ≥ √(n/fpp) = " + String.format(Locale.ROOT, "%.4g", need)
                            + " bits per partition");
        }
    }

    /** Pins what withBits now documents: whole 512-bit blocks, at least 3 (one per choice). */
    @Test
    void balancedWithBitsRoundsUpToWholeBlocksAndAtLeastThree() {
        assertThat(BalancedBloomFilter.withBits(1, 7, 1).bitSize()).isEqualTo(3 * 512);
        assertThat(BalancedBloomFilter.withBits(64, 7, 1).bitSize()).isEqualTo(3 * 512);
        assertThat(BalancedBloomFilter.withBits(3 * 512, 7, 1).bitSize()).isEqualTo(3 * 512);
        assertThat(BalancedBloomFilter.withBits(3 * 512 + 1, 7, 1).bitSize()).isEqualTo(4 * 512);
    }

    /**
     * The prime partition scheme's property (0, exactly 1 or all k shared cells) holds for every filter withBits and
     * create build. withBits(100, 20) had p = 5 < k = 20: two items whose lines differ shared 4 cells (partitions
     * i, i + 5, i + 10, i + 15), and create(3, 1e-6) was such a filter.
     */
    @Test
    void tinyPartitionedFiltersKeepThePrimePartitionProperty() {
        PartitionedBloomFilter[] filters = {PartitionedBloomFilter.withBits(100, 20, 1),
            PartitionedBloomFilter.withBits(1, 128, 1), PartitionedBloomFilter.create(3, 1e-6, 1),
            PartitionedBloomFilter.create(1, 1e-9, 1)};
        SplittableRandom rnd = new SplittableRandom(3);
        for (PartitionedBloomFilter f : filters) {
            int k = f.hashCount();
            long p = f.partitionBits();
            assertThat(p).as("partition size of %s", f).isGreaterThanOrEqualTo(k);
            assertThat(f.bitSize()).isEqualTo(k * p);
            long[] x = new long[k];
            long[] z = new long[k];
            for (int i = 0; i < 20_000; i++) {
                long h1 = rnd.nextLong();
                long h2 = rnd.nextLong();
                DoubleHashing.partitionIndexes(h1, h2, p, x);
                DoubleHashing.partitionIndexes(rnd.nextLong(), rnd.nextLong(), p, z);
                int shared = 0;
                for (int j = 0; j < k; j++) {
                    shared += x[j] == z[j] ? 1 : 0;
                }
                assertThat(shared).as("%s: shared cells", f).isIn(0, 1, k);
            }
        }
    }

    /**
     * One item in a filter of p = 2 < k (create(1, 1e-30) built k = 100, p = 2): a query shares all k cells only
     * with the same (h1, h2) mod p, so the false-positive rate is 1/p², a quarter. Now p ≥ k always, and create
     * sizes for the finite-n rate, which at n = 1 is about 1/p²: 10<sup>−30</sup> would need p ≥ 10<sup>15</sup>,
     * beyond the limit, and is refused.
     */
    @Test
    void aPartitionedFilterOfOneItemIsNotAQuarterFull() {
        assertThat(PartitionedBloomFilter.withBits(2, 100, 1).partitionBits()).isGreaterThanOrEqualTo(100);
        assertThatThrownBy(() -> PartitionedBloomFilter.create(1, 1e-30, 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("expectedItems=1").hasMessageContaining("above the limit of " + BloomFilter.MAX_BITS);
        PartitionedBloomFilter f = PartitionedBloomFilter.create(1, 1e-9, 1);
        f.put(42L);
        SplittableRandom rnd = new SplittableRandom(4);
        int positives = 0;
        for (int i = 0; i < 100_000; i++) {
            positives += f.mightContain(rnd.nextLong()) ? 1 : 0;
        }
        assertThat(positives / 100_000.0).isLessThan(0.001);
    }

    /**
     * count() was documented as an upper bound on the adds; with all the item's counters saturated it returns
     * 2^w − 1 however often the item was added (now documented as "at least").
     */
    @Test
    void countOfAnItemWhoseCountersAllSaturatedIsTheCounterMaximum() {
        CountingBloomFilter f = CountingBloomFilter.withCounters(1000, 3, 4, 1);
        for (int i = 0; i < 100; i++) {
            f.put(42L);
        }
        assertThat(f.count(42L)).isEqualTo(15);
    }
}
