package io.linerate.sketches.hash;

import java.math.BigInteger;

/** Prime table sizes, as the partition scheme (thesis §3.2) and the two-hash Count-Min (§3.8.2) require. */
public final class Primes {

    private Primes() {
    }

    /** The largest prime that fits in a long: 2<sup>63</sup> − 25. */
    public static final long LARGEST_LONG_PRIME = Long.MAX_VALUE - 24;

    /**
     * The smallest prime ≥ {@code n} (2 for n ≤ 2). Exact and deterministic for every long (Miller–Rabin with fixed bases).
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
        return millerRabin(n);
    }

    /** The first twelve primes: as Miller–Rabin bases they decide primality of every n < 3.18·10^23 (all longs). */
    private static final long[] BASES = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37};

    /**
     * Deterministic Miller–Rabin for odd n ≥ 10^6 with {@link #BASES} (Sorenson and Webster 2015: no composite below
     * 3.18·10^23 is a strong pseudoprime to all of them), so the answer is the same on every run, unlike
     * {@code BigInteger.isProbablePrime}, whose bases are random.
     */
    private static boolean millerRabin(long n) {
        BigInteger big = BigInteger.valueOf(n);
        BigInteger minusOne = big.subtract(BigInteger.ONE);
        int s = Long.numberOfTrailingZeros(n - 1);
        BigInteger d = BigInteger.valueOf((n - 1) >>> s);
        for (long a : BASES) {
            BigInteger x = BigInteger.valueOf(a).modPow(d, big);
            if (x.equals(BigInteger.ONE) || x.equals(minusOne)) {
                continue;
            }
            boolean witness = true;
            for (int r = 1; r < s && witness; r++) {
                x = x.multiply(x).mod(big);
                witness = !x.equals(minusOne);
            }
            if (witness) {
                return false;
            }
        }
        return true;
    }
}
