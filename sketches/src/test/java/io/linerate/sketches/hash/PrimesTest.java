package io.linerate.sketches.hash;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.math.BigInteger;
import java.time.Duration;
import java.util.BitSet;
import org.junit.jupiter.api.Test;

class PrimesTest {

    /** Sieve of Eratosthenes on [0, limit). */
    static BitSet composites(int limit) {
        BitSet composite = new BitSet(limit);
        composite.set(0);
        composite.set(1);
        for (int i = 2; (long) i * i < limit; i++) {
            if (!composite.get(i)) {
                for (int j = i * i; j < limit; j += i) {
                    composite.set(j);
                }
            }
        }
        return composite;
    }

    @Test
    void isPrimeAgreesWithASieveBelowTheTrialDivisionLimit() {
        int limit = 200_000;
        BitSet composite = composites(limit);
        for (int n = -5; n < limit; n++) {
            boolean prime = n >= 0 && !composite.get(n);
            assertThat(Primes.isPrime(n)).as("isPrime(%d)", n).isEqualTo(prime);
        }
    }

    /** Around 10^6, where isPrime switches from trial division to Miller–Rabin. */
    @Test
    void isPrimeAgreesWithASieveAcrossTheMethodBoundary() {
        int limit = 1_020_000;
        BitSet composite = composites(limit);
        for (int n = 980_000; n < limit; n++) {
            assertThat(Primes.isPrime(n)).as("isPrime(%d)", n).isEqualTo(!composite.get(n));
        }
    }

    @Test
    void nextPrimeAgreesWithASieve() {
        int limit = 100_100;
        BitSet composite = composites(limit);
        for (int n = 0; n < 100_000; n++) {
            int expected = composite.nextClearBit(Math.max(n, 2));
            assertThat(Primes.nextPrime(n)).as("nextPrime(%d)", n).isEqualTo(expected);
        }
        assertThat(Primes.nextPrime(-10)).isEqualTo(2);
    }

    @Test
    void knownValues() {
        // Carmichael numbers and strong pseudoprimes are composite
        for (long c : new long[] {561, 1105, 1729, 41041, 825265, 3215031751L, 2152302898747L, 3474749660383L,
            341550071728321L, 3825123056546413051L}) {
            assertThat(Primes.isPrime(c)).as("%d", c).isFalse();
        }
        // Mersenne primes, the largest prime below 10^6 and known large primes
        for (long p : new long[] {2, 3, 8191, 131071, 524287, 999_983, 1_000_003, 2_147_483_647L,
            999_999_999_989L, 2_305_843_009_213_693_951L, 9_223_372_036_854_775_783L}) {
            assertThat(Primes.isPrime(p)).as("%d", p).isTrue();
        }
        assertThat(Primes.isPrime(2_147_483_647L * 2_147_483_647L)).isFalse();
        assertThat(Primes.isPrime(1_000_003L * 1_000_033L)).isFalse();
        assertThat(Primes.nextPrime(1_000_000)).isEqualTo(1_000_003);
        assertThat(Primes.nextPrime(2_305_843_009_213_693_950L)).isEqualTo(2_305_843_009_213_693_951L);
        // the partition sizes of the thesis settings (notes §4.4(a)): smallest prime ≥ ⌈cn/k⌉
        assertThat(Primes.nextPrime(6667)).isEqualTo(6673);
        assertThat(Primes.nextPrime(7273)).isEqualTo(7283);
        assertThat(Primes.nextPrime(7500)).isEqualTo(7507);
        assertThat(Primes.nextPrime(6667)).isEqualTo(BigInteger.valueOf(6666).nextProbablePrime().longValue());
    }

    @Test
    void nextPrimeRejectsAnArgumentAboveTheLargestPrimeInALong() {
        assertThat(Primes.isPrime(Primes.LARGEST_LONG_PRIME)).isTrue();
        assertThat(Primes.nextPrime(Primes.LARGEST_LONG_PRIME - 1)).isEqualTo(Primes.LARGEST_LONG_PRIME);
        assertThat(Primes.nextPrime(Primes.LARGEST_LONG_PRIME)).isEqualTo(Primes.LARGEST_LONG_PRIME);
        // above it the search used to wrap negative and run for ever
        for (long n : new long[] {Primes.LARGEST_LONG_PRIME + 1, Long.MAX_VALUE - 1, Long.MAX_VALUE}) {
            assertTimeoutPreemptively(Duration.ofSeconds(10), () ->
                    assertThatThrownBy(() -> Primes.nextPrime(n)).isInstanceOf(IllegalArgumentException.class)
                            .hasMessageContaining("n must be ≤ " + Primes.LARGEST_LONG_PRIME)
                            .hasMessageContaining("got " + n));
        }
    }

    /**
     * The fixed-base Miller–Rabin agrees with BigInteger's on random longs, and rejects strong pseudoprimes to the
     * smaller bases (3215031751 to bases 2, 3, 5, 7; 3825123056546413051 to every base up to 23) and Carmichael
     * numbers.
     */
    @Test
    void isPrimeIsExactOnPseudoprimesAndAgreesOnRandomLongs() {
        for (long n : new long[] {3_215_031_751L, 2_152_302_898_747L, 3_474_749_660_383L, 341_550_071_728_321L,
                3_825_123_056_546_413_051L, 561L * 1_000_003L, 9_999_999_967L * 3}) {
            assertThat(Primes.isPrime(n)).as("%d", n).isFalse();
        }
        assertThat(Primes.isPrime(Primes.LARGEST_LONG_PRIME)).isTrue();
        assertThat(Primes.isPrime(1_000_000_007L)).isTrue();
        java.util.SplittableRandom random = new java.util.SplittableRandom(17);
        int primes = 0;
        for (int i = 0; i < 20_000; i++) {
            long n = random.nextLong(1_000_000, Long.MAX_VALUE) | 1;
            boolean expected = BigInteger.valueOf(n).isProbablePrime(100);
            assertThat(Primes.isPrime(n)).as("%d", n).isEqualTo(expected);
            primes += expected ? 1 : 0;
        }
        assertThat(primes).isPositive();
    }
}
