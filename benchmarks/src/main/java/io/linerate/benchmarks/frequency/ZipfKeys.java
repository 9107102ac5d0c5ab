package io.linerate.benchmarks.frequency;

import java.util.SplittableRandom;

/**
 * A pre-generated stream of {@code long} keys whose ranks follow a Zipf(s) law over a fixed universe of keys,
 * with the exact count of every key. Ranks are drawn by Walker's alias method; each rank has a fixed random
 * 64-bit key, so heavy keys are not small integers. Deterministic for a given seed.
 *
 * <p>{@link #standard()}: the stream every frequency benchmark and report uses, 10,000,000 items over
 * 1,000,000 keys at s = 1.1.
 */
public final class ZipfKeys {

    /** Distinct keys in the universe of {@link #standard()}. */
    public static final int KEYS = 1_000_000;
    /** Items in the stream of {@link #standard()}. */
    public static final int LENGTH = 10_000_000;
    /** Zipf exponent of {@link #standard()}. */
    public static final double S = 1.1;
    /** Seed of {@link #standard()}. */
    public static final long SEED = 0x5A495046_00000011L;

    private static ZipfKeys standard;

    private final double s;
    private final long[] keyOfRank;
    private final long[] stream;
    private final long[] exact;

    private ZipfKeys(int keys, double s, int length, long seed) {
        if (keys < 1 || length < 0) {
            throw new IllegalArgumentException("keys must be ≥ 1 and length ≥ 0, got " + keys + ", " + length);
        }
        this.s = s;
        double[] probability = new double[keys];
        int[] alias = new int[keys];
        aliasTable(keys, s, probability, alias);
        SplittableRandom keyRandom = new SplittableRandom(seed ^ 0x6B657973L);
        keyOfRank = new long[keys];
        for (int r = 0; r < keys; r++) {
            keyOfRank[r] = keyRandom.nextLong();
        }
        SplittableRandom random = new SplittableRandom(seed);
        stream = new long[length];
        exact = new long[keys];
        for (int i = 0; i < length; i++) {
            int r = random.nextInt(keys);
            if (random.nextDouble() >= probability[r]) {
                r = alias[r];
            }
            exact[r]++;
            stream[i] = keyOfRank[r];
        }
    }

    /** A stream of {@code length} items over {@code keys} keys with Zipf exponent {@code s}. */
    public static ZipfKeys generate(int keys, double s, int length, long seed) {
        return new ZipfKeys(keys, s, length, seed);
    }

    /**
     * Only the ranks (0 = most probable) of a Zipf(s) stream of {@code length} items over {@code keys} ranks,
     * drawn exactly as {@link #generate} draws them: {@code generate(keys, s, length, seed).stream()[i]} is
     * the key of rank {@code ranks(keys, s, length, seed)[i]}. For benchmarks whose keys are not longs.
     */
    public static int[] ranks(int keys, double s, int length, long seed) {
        if (keys < 1 || length < 0) {
            throw new IllegalArgumentException("keys must be ≥ 1 and length ≥ 0, got " + keys + ", " + length);
        }
        double[] probability = new double[keys];
        int[] alias = new int[keys];
        aliasTable(keys, s, probability, alias);
        SplittableRandom random = new SplittableRandom(seed);
        int[] out = new int[length];
        for (int i = 0; i < length; i++) {
            int r = random.nextInt(keys);
            if (random.nextDouble() >= probability[r]) {
                r = alias[r];
            }
            out[i] = r;
        }
        return out;
    }

    /** 10M items over 1M keys, s = 1.1, generated once per JVM (about 1 s and 100 MB). */
    public static synchronized ZipfKeys standard() {
        if (standard == null) {
            standard = new ZipfKeys(KEYS, S, LENGTH, SEED);
        }
        return standard;
    }

    /**
     * Fills Walker's alias table of Zipf(s) over ranks 0 … n-1 (rank r has weight 1/(r+1)<sup>s</sup>): draw a
     * column c uniformly in [0, n) and u uniformly in [0, 1); the rank is c if u &lt; {@code probability[c]},
     * else {@code alias[c]}. Both arrays must have length n. Used by {@link #generate}, {@link #ranks} and the
     * pipeline benchmark's packet source.
     */
    public static void aliasTable(int n, double s, double[] probability, int[] alias) {
        double[] scaled = new double[n];
        double sum = 0;
        for (int i = 0; i < n; i++) {
            scaled[i] = 1 / Math.pow(i + 1, s);
            sum += scaled[i];
        }
        int[] small = new int[n];
        int[] large = new int[n];
        int ns = 0;
        int nl = 0;
        for (int i = 0; i < n; i++) {
            scaled[i] = scaled[i] / sum * n;
            if (scaled[i] < 1) {
                small[ns++] = i;
            } else {
                large[nl++] = i;
            }
        }
        while (ns > 0 && nl > 0) {
            int l = small[--ns];
            int g = large[--nl];
            probability[l] = scaled[l];
            alias[l] = g;
            scaled[g] = scaled[g] + scaled[l] - 1;
            if (scaled[g] < 1) {
                small[ns++] = g;
            } else {
                large[nl++] = g;
            }
        }
        while (nl > 0) {
            probability[large[--nl]] = 1;
        }
        while (ns > 0) {
            probability[small[--ns]] = 1;
        }
    }

    public double exponent() {
        return s;
    }

    /** The number of distinct keys in the universe (not all of them need occur in the stream). */
    public int universe() {
        return keyOfRank.length;
    }

    /** The stream, in order. Shared: do not modify. */
    public long[] stream() {
        return stream;
    }

    /** The key of Zipf rank {@code rank} (0 is the most probable). */
    public long key(int rank) {
        return keyOfRank[rank];
    }

    /** The exact number of occurrences in the stream of the key of rank {@code rank}. */
    public long exactCount(int rank) {
        return exact[rank];
    }

    /** Ranks ordered by exact count, largest first (ties by rank). */
    public int[] ranksByCount() {
        Integer[] order = new Integer[keyOfRank.length];
        for (int i = 0; i < order.length; i++) {
            order[i] = i;
        }
        java.util.Arrays.sort(order, (a, b) -> exact[a] != exact[b] ? Long.compare(exact[b], exact[a])
                : Integer.compare(a, b));
        int[] out = new int[order.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = order[i];
        }
        return out;
    }
}
