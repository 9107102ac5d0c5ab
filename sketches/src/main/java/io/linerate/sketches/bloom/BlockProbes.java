package io.linerate.sketches.bloom;

import io.linerate.sketches.hash.DoubleHashing;

/**
 * Bit positions of an item inside one block, for the blocked and balanced filters.
 *
 * <p>g(i) = x + s·i + t·i² + u·i³ mod L for i = 0..k−1, with L prime and x, s, t, u drawn from the four
 * 16-bit quarters of h2 (s ≠ 0). This is enhanced double hashing whose offset f(i) = t·i² + u·i³ is drawn
 * per item independently of x and s, which the thesis allows (Remark 3.4.1), evaluated by forward
 * differences (three additions mod L per position).
 *
 * <p>Why not plain double hashing x + s·i: a block holds only L·(L−1) such patterns, and a query whose
 * pattern equals a stored item's is a false positive for certain — with ~7 items per 256-bit block that
 * is ~10<sup>−4</sup> per block read, against the 10<sup>−7</sup> a balanced filter targets (measured here:
 * 6·10<sup>−4</sup>). This is the thesis's caveat for very small false-positive rates (§4.7.2). With four
 * values there are ~L⁴ patterns. Why L prime: over a composite modulus (a power of two, or 252 = 4·9·7)
 * a polynomial can collapse onto a few residues by the Chinese remainder theorem, and a query whose k
 * positions are only a handful of distinct bits is a false positive with probability fill<sup>handful</sup>
 * (measured: 10× to 100× the expected rate). Over a prime field a cubic takes each value at most 3 times.
 */
final class BlockProbes {

    private BlockProbes() {
    }

    /** Writes the {@code out.length} positions in [0, l) of the item with second hash half {@code h2}. */
    static void positions(long h2, int l, int[] out) {
        int x = DoubleHashing.reduce16((int) h2, l);
        int s = 1 + DoubleHashing.reduce16((int) (h2 >>> 16), l - 1);
        int t = DoubleHashing.reduce16((int) (h2 >>> 32), l);
        int u = DoubleHashing.reduce16((int) (h2 >>> 48), l);
        // additions modulo l only: no division on the per-item path
        int u2 = addMod(u, u, l);
        int d3 = addMod(addMod(u2, u2, l), u2, l);   // 6u, the constant third difference
        int d2 = addMod(addMod(t, t, l), d3, l);     // 2t + 6u = g(2) − 2g(1) + g(0)
        int d1 = addMod(addMod(s, t, l), u, l);      // s + t + u = g(1) − g(0)
        for (int i = 0; i < out.length; i++) {
            out[i] = x;
            x = addMod(x, d1, l);
            d1 = addMod(d1, d2, l);
            d2 = addMod(d2, d3, l);
        }
    }

    private static int addMod(int a, int b, int l) {
        int v = a + b;
        return v >= l ? v - l : v;
    }

    /** The largest prime ≤ {@code n} (n ≥ 2). */
    static int largestPrimeAtMost(int n) {
        for (int c = n; c >= 2; c--) {
            if (io.linerate.sketches.hash.Primes.isPrime(c)) {
                return c;
            }
        }
        throw new IllegalArgumentException("no prime ≤ " + n);
    }
}
