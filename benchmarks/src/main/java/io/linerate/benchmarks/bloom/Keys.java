package io.linerate.benchmarks.bloom;

import java.util.SplittableRandom;

/**
 * Pre-generated random keys with fixed seeds. Members (keys that are inserted) have their lowest bit clear
 * and non-members have it set, so a non-member is never a member, by construction, without a hash set.
 * Within a set, two of n random 63-bit keys coincide with probability below n²/2<sup>64</sup> (5·10<sup>−6</sup>
 * at n = 10<sup>7</sup>).
 */
public final class Keys {

    /** Seed of the inserted keys. */
    public static final long MEMBER_SEED = 0x4B455953_00000001L;
    /** Seed of the keys known to be absent. */
    public static final long NON_MEMBER_SEED = 0x4B455953_00000002L;
    /** Seed of the choice and shuffle of the mixed query keys. */
    public static final long QUERY_SEED = 0x4B455953_00000003L;

    private Keys() {
    }

    /** {@code n} random keys with the lowest bit clear: the keys that get inserted. */
    public static long[] members(int n, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        long[] keys = new long[n];
        for (int i = 0; i < n; i++) {
            keys[i] = random.nextLong() & ~1L;
        }
        return keys;
    }

    /** {@code n} random keys with the lowest bit set: never equal to any key of {@link #members}. */
    public static long[] nonMembers(int n, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        long[] keys = new long[n];
        for (int i = 0; i < n; i++) {
            keys[i] = random.nextLong() | 1L;
        }
        return keys;
    }

    /**
     * {@code n} query keys, shuffled: {@code n/2} drawn uniformly (with repetition) from {@code members} and
     * the rest non-members.
     */
    public static long[] mixedQueries(long[] members, int n, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        long[] queries = new long[n];
        int present = n / 2;
        for (int i = 0; i < present; i++) {
            queries[i] = members[random.nextInt(members.length)];
        }
        for (int i = present; i < n; i++) {
            queries[i] = random.nextLong() | 1L;
        }
        for (int i = n - 1; i > 0; i--) { // Fisher–Yates
            int j = random.nextInt(i + 1);
            long t = queries[i];
            queries[i] = queries[j];
            queries[j] = t;
        }
        return queries;
    }
}
