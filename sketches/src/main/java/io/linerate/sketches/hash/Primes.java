package io.linerate.sketches.hash;

import java.math.BigInteger;

/** Prime table sizes, as the partition scheme (thesis §3.2) and the two-hash Count-Min (§3.8.2) require. */
public final class Primes {

    private Primes() {
    }

    /** The largest prime that fits in a long: 2<sup>63</sup> − 25. */
    public static final long LARGEST_LONG_PRIME = Long.MAX_VALUE - 24;

    /**
     * The smallest prime ≥ {@code n} (2 for n ≤ 2). Deterministic for every long (Miller–Rabin with BigInteger).
     *
     * @throws IllegalArgumentException if n &gt; {@link #LARGEST_LONG_PRIME}, where no prime ≥ n fits in a long
     */
    public static long nextPrime(long n) {
        if (n <= 2) {
            return 2;
        }
        if (n > LARGEST_LONG_PRIME) {
            throw new IllegalArgumentException("n must be ≤ " + LARGEST_LONG_PRIME
                    + " (2^63 - 25, the largest prime in a long), got " + n);
        }
        long c = (n & 1) == 0 ? n + 1 : n;
        while (!isPrime(c)) {
            c += 2;
        }
        return c;
    }

    /** Whether {@code n} is prime. */
    public static boolean isPrime(long n) {
        if (n < 2) {
            return false;
        }
        if (n < 4) {
            return true;
        }
        if ((n & 1) == 0) {
            return false;
        }
        if (n < 1_000_000) {
            for (long d = 3; d * d <= n; d += 2) {
                if (n % d == 0) {
                    return false;
                }
            }
            return true;
        }
        // 50 rounds: error below 4^-50 (Miller-Rabin with random bases: probabilistic, never in practice wrong).
        return BigInteger.valueOf(n).isProbablePrime(50);
    }
}
