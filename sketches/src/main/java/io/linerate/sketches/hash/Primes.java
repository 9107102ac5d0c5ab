package io.linerate.sketches.hash;

import java.math.BigInteger;

/** Prime table sizes, as the partition scheme (thesis §3.2) and the two-hash Count-Min (§3.8.2) require. */
public final class Primes {

    private Primes() {
    }

    /** The smallest prime ≥ {@code n} (n ≥ 0). Deterministic for every long (Miller–Rabin with BigInteger). */
    public static long nextPrime(long n) {
        if (n <= 2) {
            return 2;
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
        // 50 rounds: error below 4^-50; BigInteger's test is deterministic for a given input.
        return BigInteger.valueOf(n).isProbablePrime(50);
    }
}
