package io.linerate.sketches.bloom;

import java.util.Locale;

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

    /**
     * The "expectedItems=n at fpp=f needs B bits, above the limit" error of a sizing that exceeds
     * {@link BloomFilter#MAX_BITS}. {@code bits} is a double so that a need beyond a long is not wrapped: it is
     * printed exactly up to 2<sup>53</sup>, as a rounded double above, and as "more than B" if it is only a
     * lower bound of the need ({@code atLeast}).
     */
    static IllegalArgumentException tooManyBits(long expectedItems, double fpp, double bits, boolean atLeast) {
        String need = bits <= 0x1p53 ? String.valueOf((long) bits) : String.format(Locale.ROOT, "%.4g", bits);
        return new IllegalArgumentException("expectedItems=" + expectedItems + " at fpp=" + fpp + " needs "
                + (atLeast ? "more than " : "") + need + " bits, above the limit of " + BloomFilter.MAX_BITS + " bits");
    }

    static void same(String what, Object mine, Object theirs) {
        if (!mine.equals(theirs)) {
            throw new IllegalArgumentException("cannot union filters with different " + what + ": " + mine
                    + " vs " + theirs);
        }
    }
}
