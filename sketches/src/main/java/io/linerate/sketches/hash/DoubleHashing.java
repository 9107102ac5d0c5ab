package io.linerate.sketches.hash;

/**
 * Index derivation from an item's two hash halves, exact for any table size m (not only powers of two).
 *
 * <p>Values are first reduced into [0, m) with Lemire's multiply-shift range reduction on the unsigned
 * 64-bit value (so negative hashes and any m up to 2<sup>62</sup> are handled, with bias at most
 * m/2<sup>64</sup>); the progression h1 + i·h2 + f(i) is then kept in [0, m) with conditional
 * subtraction, which is exact modular arithmetic with no division and no overflow.
 */
public final class DoubleHashing {

    private DoubleHashing() {
    }

    /** ⌊u·m / 2<sup>64</sup>⌋ where u is {@code hash} read as unsigned: uniform in [0, m) for m ≥ 1. */
    public static long reduce(long hash, long m) {
        return Math.multiplyHigh(hash, m) + ((hash >> 63) & m);
    }

    /**
     * A multiply-xorshift mixer for a value of the progression h1 + i·h2 before it is reduced: a linear
     * progression reduced by its high bits makes two items that collide at two indexes collide at all of
     * them (their differences are linear in i); the xorshift breaks that linearity, so a full collision
     * needs the whole 128-bit hash to agree. Used by Count-Min rows and the flow table's sub-tables.
     */
    public static long mix(long v) {
        return (v ^ (v >>> 32)) * 0xD6E8FEB86659FD93L;
    }

    /** ⌊u·m / 2<sup>32</sup>⌋ for the unsigned 32-bit value u: uniform in [0, m) for 1 ≤ m ≤ 2<sup>31</sup>. */
    public static int reduce32(int hash, int m) {
        return (int) (((hash & 0xFFFF_FFFFL) * m) >>> 32);
    }

    /** ⌊u·m / 2<sup>16</sup>⌋ for the low 16 bits u of {@code hash}: uniform in [0, m) for 1 ≤ m ≤ 2<sup>15</sup>. */
    public static int reduce16(int hash, int m) {
        return ((hash & 0xFFFF) * m) >>> 16;
    }

    /**
     * Writes the k = {@code out.length} indexes g<sub>i</sub> = (h1 + i·h2 + f(i)) mod m into {@code out}.
     *
     * @param offsets f(i) mod m, from {@link Probing#offsets}
     */
    public static void indexes(long h1, long h2, long m, Probing probing, long[] offsets, long[] out) {
        long x = reduce(h1, m);
        long step = probing.stride(h2, m);
        for (int i = 0; i < out.length; i++) {
            long g = x + offsets[i];
            out[i] = g >= m ? g - m : g;
            x += step;
            if (x >= m) {
                x -= m;
            }
        }
    }

    /**
     * The partition scheme of thesis §3.2/§3.4.1: k partitions of p cells; index i lies in partition i at
     * (h1 + i·h2) mod p, written as the flat index i·p + g<sub>i</sub>. With p prime and p ≥ k, two items share
     * either no partition cell, exactly one, or all k (the property the thesis's analysis rests on; with p &lt; k,
     * partition i + p repeats the cell of partition i). A stride of 0
     * is allowed, as in the analysis: the partitions keep the k indexes distinct.
     */
    public static void partitionIndexes(long h1, long h2, long p, long[] out) {
        long x = reduce(h1, p);
        long step = reduce(h2, p);
        long base = 0;
        for (int i = 0; i < out.length; i++) {
            out[i] = base + x;
            base += p;
            x += step;
            if (x >= p) {
                x -= p;
            }
        }
    }
}
