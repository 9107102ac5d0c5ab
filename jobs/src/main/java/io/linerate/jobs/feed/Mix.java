package io.linerate.jobs.feed;

/**
 * The generator's pseudo-random numbers: SplitMix64 (Steele, Lea and Flood, 2014), written out here so that a seed
 * gives the same traffic on every JVM version (the JDK's generators do not promise their sequences).
 */
final class Mix {

    private static final long GOLDEN = 0x9E3779B97F4A7C15L;

    private long state;

    Mix(long seed) {
        this.state = seed;
    }

    /** The next 64 random bits. */
    long nextLong() {
        return mix64(state += GOLDEN);
    }

    /** Uniform in [0, 1): the top 53 bits. */
    double nextDouble() {
        return (nextLong() >>> 11) * 0x1.0p-53;
    }

    /** Uniform in [0, bound) for bound ≥ 1 (Lemire's multiply-shift; bias ≤ bound / 2^64). */
    int nextInt(int bound) {
        return (int) Math.multiplyHigh(nextLong() >>> 1, (long) bound << 1);
    }

    /** Uniform in [0, bound) for bound ≥ 1. */
    long nextLong(long bound) {
        return Math.floorMod(nextLong(), bound);
    }

    /** The SplitMix64 finalizer: a bijection of the 64-bit values (distinct inputs give distinct outputs). */
    static long mix64(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
