package io.linerate.sketches.hash;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigInteger;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Index derivation checked against straightforward BigInteger arithmetic. */
class DoubleHashingTest {

    private static final BigInteger TWO_64 = BigInteger.ONE.shiftLeft(64);

    /** Table sizes: 1, tiny, primes, powers of two and their neighbours, the filter limit, and beyond. */
    static final long[] SIZES = {1, 2, 3, 5, 7, 64, 100, 6673, 40_000, 80_113, (1L << 31) - 1, 1L << 31,
        (1L << 36) - 1, 1L << 36, (1L << 36) + 7, (1L << 62) - 57, Long.MAX_VALUE};

    /** ⌊u·m/2^64⌋ with u the unsigned value of {@code hash}. */
    static long referenceReduce(long hash, long m) {
        BigInteger u = new BigInteger(Long.toUnsignedString(hash));
        return u.multiply(BigInteger.valueOf(m)).divide(TWO_64).longValueExact();
    }

    static long[] edgeHashes(SplittableRandom rnd, int random) {
        long[] h = new long[random + 8];
        long[] fixed = {0, 1, -1, Long.MIN_VALUE, Long.MAX_VALUE, Long.MIN_VALUE + 1, 0x8000_0000L, -0x8000_0000L};
        System.arraycopy(fixed, 0, h, 0, fixed.length);
        for (int i = fixed.length; i < h.length; i++) {
            h[i] = rnd.nextLong();
        }
        return h;
    }

    @Test
    void reduceIsInRangeAndEqualsTheUnsignedMultiplyShift() {
        SplittableRandom rnd = new SplittableRandom(11);
        long[] hashes = edgeHashes(rnd, 2000);
        for (long m : SIZES) {
            for (long h : hashes) {
                long r = DoubleHashing.reduce(h, m);
                assertThat(r).as("reduce(%d, %d)", h, m).isBetween(0L, m - 1).isEqualTo(referenceReduce(h, m));
            }
        }
        // random m, including many that are not powers of two
        for (int i = 0; i < 20_000; i++) {
            long m = 1 + rnd.nextLong(1L << (1 + rnd.nextInt(62)));
            long h = rnd.nextLong();
            assertThat(DoubleHashing.reduce(h, m)).isEqualTo(referenceReduce(h, m));
        }
    }

    @Test
    void reduceOfNegativeHashesLandsInTheUpperHalf() {
        // u ≥ 2^63 for every negative hash, so ⌊u·m/2^64⌋ ≥ ⌊m/2⌋.
        SplittableRandom rnd = new SplittableRandom(12);
        for (int i = 0; i < 10_000; i++) {
            long m = 1 + rnd.nextLong(1L << 40);
            long h = rnd.nextLong() | Long.MIN_VALUE;
            assertThat(DoubleHashing.reduce(h, m)).isBetween(m / 2, m - 1);
        }
    }

    @Test
    void reduce32IsInRangeAndEqualsTheUnsignedMultiplyShift() {
        SplittableRandom rnd = new SplittableRandom(13);
        int[] sizes = {1, 2, 3, 7, 1000, 65_537, Integer.MAX_VALUE};
        for (int m : sizes) {
            for (int i = 0; i < 2000; i++) {
                int h = i < 4 ? new int[] {0, -1, Integer.MIN_VALUE, Integer.MAX_VALUE}[i] : rnd.nextInt();
                long expected = ((h & 0xFFFF_FFFFL) * (long) m) / (1L << 32);
                assertThat(DoubleHashing.reduce32(h, m)).isEqualTo((int) expected).isBetween(0, m - 1);
            }
        }
    }

    /** reduce16 uses only the low 16 bits of its input: ⌊u·m / 2^16⌋, in [0, m) for 1 ≤ m ≤ 2^15. */
    @Test
    void reduce16IsTheMultiplyShiftOfTheLow16Bits() {
        SplittableRandom rnd = new SplittableRandom(16);
        int[] sizes = {1, 2, 3, 7, 448, 1000, 1 << 15};
        for (int m : sizes) {
            for (int i = 0; i < 2000; i++) {
                int h = i < 4 ? new int[] {0, -1, 0xFFFF, 0x1_0000}[i] : rnd.nextInt();
                long expected = ((long) (h & 0xFFFF) * m) / (1L << 16);
                assertThat(DoubleHashing.reduce16(h, m)).as("h=%x m=%d", h, m).isEqualTo((int) expected)
                        .isBetween(0, m - 1);
            }
        }
    }

    /** g_i = (h1' + i·h2' + f(i)) mod m with h1' = reduce(h1), h2' = the scheme's stride, f(i) = i^degree. */
    static long[] referenceIndexes(long h1, long h2, long m, Probing probing, int k) {
        BigInteger bm = BigInteger.valueOf(m);
        BigInteger a = BigInteger.valueOf(referenceReduce(h1, m));
        long stride = referenceReduce(h2, m);
        if (probing == Probing.DOUBLE && stride == 0 && m > 1) {
            stride = 1;
        }
        BigInteger b = BigInteger.valueOf(stride);
        int degree = switch (probing) {
            case DOUBLE -> -1;
            case ENHANCED_QUADRATIC -> 2;
            case ENHANCED_CUBIC -> 3;
        };
        long[] out = new long[k];
        for (int i = 0; i < k; i++) {
            BigInteger bi = BigInteger.valueOf(i);
            BigInteger f = degree < 0 ? BigInteger.ZERO : bi.pow(degree);
            out[i] = a.add(bi.multiply(b)).add(f).mod(bm).longValueExact();
        }
        return out;
    }

    @ParameterizedTest
    @EnumSource(Probing.class)
    void indexesEqualTheBigIntegerComputation(Probing probing) {
        SplittableRandom rnd = new SplittableRandom(14 + probing.ordinal());
        long[] sizes = {1, 2, 3, 7, 64, 100, 6673, 40_000, 1L << 20, (1L << 36) - 1, 1L << 36};
        for (int trial = 0; trial < 20_000; trial++) {
            long m = trial < sizes.length * 100 ? sizes[trial % sizes.length] : 1 + rnd.nextLong(1L << 36);
            int k = 1 + rnd.nextInt(trial % 3 == 0 ? 128 : 16);
            long h1 = rnd.nextLong();
            // small h2 values reduce to a zero stride, the case DOUBLE must replace
            long h2 = trial % 5 == 0 ? rnd.nextLong(1L << 20) : rnd.nextLong();
            long[] out = new long[k];
            DoubleHashing.indexes(h1, h2, m, probing, probing.offsets(k, m), out);
            assertThat(out).as("m=%d k=%d h1=%d h2=%d", m, k, h1, h2)
                    .containsExactly(referenceIndexes(h1, h2, m, probing, k));
            for (long g : out) {
                assertThat(g).isBetween(0L, m - 1);
            }
        }
    }

    @Test
    void partitionIndexesEqualTheBigIntegerComputation() {
        SplittableRandom rnd = new SplittableRandom(15);
        long[] primes = {2, 3, 101, 6673, 7283, 2_147_483_647L, 4_294_967_311L};
        for (int trial = 0; trial < 20_000; trial++) {
            long p = primes[trial % primes.length];
            int k = 1 + rnd.nextInt(20);
            long h1 = rnd.nextLong();
            long h2 = trial % 4 == 0 ? rnd.nextLong(1L << 20) : rnd.nextLong();
            long a = referenceReduce(h1, p);
            long b = referenceReduce(h2, p); // a zero stride is allowed here, as in the analysis
            long[] out = new long[k];
            DoubleHashing.partitionIndexes(h1, h2, p, out);
            for (int i = 0; i < k; i++) {
                long expected = i * p + BigInteger.valueOf(a).add(BigInteger.valueOf(i).multiply(BigInteger.valueOf(b)))
                        .mod(BigInteger.valueOf(p)).longValueExact();
                assertThat(out[i]).isEqualTo(expected).isBetween(i * p, (i + 1) * p - 1);
            }
        }
    }

    /** With p prime, two items whose (h1', h2') pairs differ share at most one of the k partition cells. */
    @Test
    void primePartitionCellsCollideInAtMostOnePlaceOrAll() {
        SplittableRandom rnd = new SplittableRandom(16);
        long p = 101;
        int k = 7;
        long[] x = new long[k];
        long[] z = new long[k];
        for (int i = 0; i < 100_000; i++) {
            long h1x = rnd.nextLong();
            long h2x = rnd.nextLong();
            long h1z = rnd.nextLong();
            long h2z = rnd.nextLong();
            DoubleHashing.partitionIndexes(h1x, h2x, p, x);
            DoubleHashing.partitionIndexes(h1z, h2z, p, z);
            int shared = 0;
            for (int j = 0; j < k; j++) {
                shared += x[j] == z[j] ? 1 : 0;
            }
            boolean samePair = DoubleHashing.reduce(h1x, p) == DoubleHashing.reduce(h1z, p)
                    && DoubleHashing.reduce(h2x, p) == DoubleHashing.reduce(h2z, p);
            if (samePair) {
                assertThat(shared).isEqualTo(k);
            } else {
                assertThat(shared).isLessThanOrEqualTo(1);
            }
        }
    }

    @Test
    void doubleProbingNeverUsesStrideZero() {
        SplittableRandom rnd = new SplittableRandom(17);
        for (long m : SIZES) {
            if (m == 1) {
                assertThat(Probing.DOUBLE.stride(0, 1)).isZero(); // the only index there is
                continue;
            }
            // every h2 with h2·m < 2^64 (as unsigned) reduces to 0
            long t = Long.divideUnsigned(-1L, m);
            long[] zeroReducing = {0, 1, t / 2, t - 1};
            for (long h2 : zeroReducing) {
                assertThat(DoubleHashing.reduce(h2, m)).isZero();
                assertThat(Probing.DOUBLE.stride(h2, m)).as("m=%d h2=%d", m, h2).isEqualTo(1);
            }
            for (int i = 0; i < 2000; i++) {
                long h2 = i % 2 == 0 ? rnd.nextLong() : rnd.nextLong(Math.max(1, Long.divideUnsigned(-1L, m)));
                assertThat(Probing.DOUBLE.stride(h2, m)).isBetween(1L, m - 1);
            }
        }
        // The enhanced schemes keep the analysed model: a zero stride is allowed (f(i) separates the indexes).
        assertThat(Probing.ENHANCED_CUBIC.stride(0, 1000)).isZero();
        assertThat(Probing.ENHANCED_QUADRATIC.stride(0, 1000)).isZero();
    }

    @Test
    void doubleProbingOfAZeroStrideItemStillSpreadsItsIndexes() {
        long m = 1000;
        int k = 6;
        long[] out = new long[k];
        DoubleHashing.indexes(123456789L, 0, m, Probing.DOUBLE, Probing.DOUBLE.offsets(k, m), out);
        assertThat(out).doesNotHaveDuplicates();
    }

    @Test
    void offsetsAreThePowersModM() {
        assertThat(Probing.DOUBLE.offsets(5, 100)).containsExactly(0, 0, 0, 0, 0);
        assertThat(Probing.ENHANCED_QUADRATIC.offsets(5, 100)).containsExactly(0, 1, 4, 9, 16);
        assertThat(Probing.ENHANCED_CUBIC.offsets(6, 100)).containsExactly(0, 1, 8, 27, 64, 25);
        assertThat(Probing.ENHANCED_CUBIC.offsets(128, 1L << 36)[127]).isEqualTo(127L * 127 * 127);
        assertThat(Probing.ENHANCED_CUBIC.offsets(3, 1)).containsExactly(0, 0, 0);
    }

    @Test
    void probingIdsRoundTripAndBadIdsAreRejected() {
        for (Probing p : Probing.values()) {
            assertThat(Probing.ofId(p.id())).isSameAs(p);
        }
        assertThatThrownBy(() -> Probing.ofId(3)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("probing id").hasMessageContaining("[0, 2]").hasMessageContaining("3");
        assertThatThrownBy(() -> Probing.ofId(-1)).isInstanceOf(IllegalArgumentException.class);
    }
}
