package io.linerate.sketches.hash;

/**
 * How the k indexes of an item are derived from its two hash halves (thesis §3.4.2):
 * g<sub>i</sub> = (h1 + i·h2 + f(i)) mod m for i = 0..k−1.
 *
 * <p>The thesis proves the same asymptotic false-positive probability for every f; at finite n and large
 * m/n the enhanced variants stay closest to k independent hashes (thesis §3.7 and the Dillinger–Manolios
 * observation), because f breaks the exact coincidences of plain double hashing (h2 ≡ 0, or a stride with a
 * large common factor with m). {@link #ENHANCED_CUBIC} is the default everywhere.
 */
public enum Probing {
    /** f(i) = 0: plain double hashing. A stride of 0 mod m is replaced by 1, so no item gets one bit. */
    DOUBLE(0),
    /** f(i) = i²: enhanced double hashing, quadratic offset. */
    ENHANCED_QUADRATIC(2),
    /** f(i) = i³: enhanced double hashing, cubic offset. */
    ENHANCED_CUBIC(3);

    private final int degree;

    Probing(int degree) {
        this.degree = degree;
    }

    /** Stable id for byte images. */
    public int id() {
        return ordinal();
    }

    /** The scheme with the given {@link #id()}. */
    public static Probing ofId(int id) {
        Probing[] all = values();
        if (id < 0 || id >= all.length) {
            throw new IllegalArgumentException("probing id must be in [0, " + (all.length - 1) + "], got " + id);
        }
        return all[id];
    }

    /** f(i) mod m for i = 0..k−1, computed once per structure so the per-item loop only adds. */
    public long[] offsets(int k, long m) {
        long[] f = new long[k];
        for (int i = 0; i < k; i++) {
            long v = 1;
            for (int e = 0; e < degree; e++) {
                v = Math.floorMod(Math.multiplyExact(v, i), m);
            }
            f[i] = degree == 0 ? 0 : v;
        }
        return f;
    }

    /** The stride h2 mod m as this scheme uses it. */
    public long stride(long h2, long m) {
        long b = DoubleHashing.reduce(h2, m);
        return (this == DOUBLE && b == 0 && m > 1) ? 1 : b;
    }
}
