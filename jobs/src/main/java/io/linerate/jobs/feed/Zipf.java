package io.linerate.jobs.feed;

/**
 * Ranks 0 .. n−1 drawn with P(rank i) = (i+1)^−s / H(n, s), where H(n, s) = Σ_{k=1..n} k^−s (the Zipf
 * distribution; s = 0 is uniform). Inverse-CDF sampling over a table of n cumulative weights (8 bytes per rank),
 * one binary search (log₂ n steps) per draw.
 */
final class Zipf {

    private final double[] cumulative;

    Zipf(int n, double s) {
        if (n < 1) {
            throw new IllegalArgumentException("n must be >= 1, got " + n);
        }
        cumulative = new double[n];
        double sum = 0;
        for (int i = 0; i < n; i++) {
            sum += Math.pow(i + 1, -s);
            cumulative[i] = sum;
        }
    }

    /** The probability of rank {@code i}. */
    double probability(int i) {
        double before = i == 0 ? 0 : cumulative[i - 1];
        return (cumulative[i] - before) / cumulative[cumulative.length - 1];
    }

    int sample(Mix random) {
        double u = random.nextDouble() * cumulative[cumulative.length - 1];
        int lo = 0;
        int hi = cumulative.length - 1;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (cumulative[mid] > u) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        return lo;
    }
}
