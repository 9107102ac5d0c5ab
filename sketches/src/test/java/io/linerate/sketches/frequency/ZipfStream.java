package io.linerate.sketches.frequency;

import java.util.SplittableRandom;

/**
 * Zipf(s) ranks over {@code n} items by Walker's alias method (O(1) per draw), with a fixed random key per
 * rank so that heavy items are not small integers.
 */
final class ZipfStream {

    private final double[] probability;
    private final int[] alias;
    private final long[] keys;
    private final SplittableRandom random;

    ZipfStream(int n, double s, long seed) {
        double[] p = new double[n];
        double sum = 0;
        for (int i = 0; i < n; i++) {
            p[i] = 1 / Math.pow(i + 1, s);
            sum += p[i];
        }
        probability = new double[n];
        alias = new int[n];
        int[] small = new int[n];
        int[] large = new int[n];
        int ns = 0;
        int nl = 0;
        double[] scaled = new double[n];
        for (int i = 0; i < n; i++) {
            scaled[i] = p[i] / sum * n;
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
        random = new SplittableRandom(seed);
        keys = new long[n];
        SplittableRandom keyRandom = new SplittableRandom(seed ^ 0x5DEECE66DL);
        for (int i = 0; i < n; i++) {
            keys[i] = keyRandom.nextLong();
        }
    }

    /** The next rank, 0 being the heaviest. */
    int nextRank() {
        int i = random.nextInt(probability.length);
        return random.nextDouble() < probability[i] ? i : alias[i];
    }

    long key(int rank) {
        return keys[rank];
    }
}
