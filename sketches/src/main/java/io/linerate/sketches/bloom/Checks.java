package io.linerate.sketches.bloom;

/** Argument checks whose messages name the parameter and its limit. */
final class Checks {

    private Checks() {
    }

    static long positive(String name, long value, long max) {
        if (value <= 0 || value > max) {
            throw new IllegalArgumentException(name + " must be in [1, " + max + "], got " + value);
        }
        return value;
    }

    static int hashCount(int k) {
        if (k < 1 || k > BloomFilter.MAX_HASH_COUNT) {
            throw new IllegalArgumentException("hashCount must be in [1, " + BloomFilter.MAX_HASH_COUNT
                    + "], got " + k);
        }
        return k;
    }

    static double fpp(double fpp) {
        if (!(fpp > 0.0 && fpp < 1.0)) {
            throw new IllegalArgumentException("fpp must be in (0, 1), got " + fpp);
        }
        return fpp;
    }

    static long expectedItems(long n) {
        return positive("expectedItems", n, Integer.MAX_VALUE * 16L);
    }

    static long bits(long bits) {
        return positive("bits", bits, BloomFilter.MAX_BITS);
    }

    static void same(String what, Object mine, Object theirs) {
        if (!mine.equals(theirs)) {
            throw new IllegalArgumentException("cannot union filters with different " + what + ": " + mine
                    + " vs " + theirs);
        }
    }
}
