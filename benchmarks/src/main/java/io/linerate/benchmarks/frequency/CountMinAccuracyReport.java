package io.linerate.benchmarks.frequency;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * Measured error of every Count-Min implementation of {@link CountMins} at the same memory (7 rows of about 2000
 * 64-bit counters; {@code linerate-blocked} the same bytes of 32-bit counters, reported as width = its counters and
 * depth = the 4 an item updates), on {@link ZipfKeys#standard()}: 10,000,000 updates of weight 1, Zipf 1.1 over 1,000,000 keys,
 * with exact counts.
 *
 * <p>For every implementation: the fraction of the keys that occur in the stream whose estimate exceeds the
 * truth by more than εN (ε = 0.001, so εN = 10,000), the median, 99th percentile and largest error over
 * those keys, the mean absolute error over all keys
 * that occur, over the 1000 keys with the largest true counts, and over 100,000 keys drawn uniformly from the
 * 1M-key universe (some of which never occur: their truth is 0). Memory: the counters' bytes and
 * the retained heap size of the sketch object (JOL).
 *
 * <p>Usage: {@code java -cp benchmarks/target/benchmarks.jar io.linerate.benchmarks.frequency.CountMinAccuracyReport}
 * (about 1 GiB of heap). Add implementation names as arguments to measure only those.
 */
public final class CountMinAccuracyReport {

    static final int TOP = 1000;
    static final int RANDOM_KEYS = 100_000;
    static final long RANDOM_SEED = 0x52414E44_00000001L;

    private CountMinAccuracyReport() {
    }

    record Row(String impl, String description, int width, int depth, long counterBytes, long heapBytes,
               long keysOverBound, long occurringKeys, long medianError, long p99Error, long maxError,
               double meanErrorAll, double meanErrorTop, double meanErrorRandom) {
    }

    public static void main(String[] args) {
        List<String> impls = args.length > 0 ? List.of(args) : CountMins.available();
        ZipfKeys zipf = ZipfKeys.standard();
        long n = zipf.stream().length;
        double bound = CountMins.EPSILON * n;
        System.out.printf(Locale.ROOT, "Count-Min accuracy: %,d updates, Zipf %.1f over %,d keys; eps = %.3f, eps*N = %,.0f%n",
                n, zipf.exponent(), zipf.universe(), CountMins.EPSILON, bound);
        System.out.printf(Locale.ROOT, "JDK %s, %d cores%n", Runtime.version(), Runtime.getRuntime().availableProcessors());
        if (!DataSketches9CountMin.isAvailable()) {
            System.out.println("datasketches9 not measured: " + DataSketches9CountMin.problem());
        }
        int[] byCount = zipf.ranksByCount();
        int[] randomRanks = new SplittableRandom(RANDOM_SEED).ints(RANDOM_KEYS, 0, zipf.universe()).toArray();
        List<Row> rows = new ArrayList<>();
        for (String impl : impls) {
            rows.add(measure(impl, zipf, byCount, randomRanks, bound));
        }
        print(rows, bound);
    }

    static Row measure(String impl, ZipfKeys zipf, int[] byCount, int[] randomRanks, double bound) {
        CountMinAdapter sketch = CountMins.create(impl);
        for (long key : zipf.stream()) {
            sketch.update(key);
        }
        long over = 0;
        long occurring = 0;
        long maxError = 0;
        double sumAll = 0;
        long[] errors = new long[zipf.universe()];
        for (int r = 0; r < zipf.universe(); r++) {
            long truth = zipf.exactCount(r);
            if (truth == 0) {
                continue;
            }
            long error = error(sketch, zipf, r);
            errors[(int) occurring] = error;
            occurring++;
            sumAll += Math.abs(error);
            maxError = Math.max(maxError, error);
            if (error > bound) {
                over++;
            }
        }
        long[] sorted = java.util.Arrays.copyOf(errors, (int) occurring);
        java.util.Arrays.sort(sorted);
        double sumTop = 0;
        for (int i = 0; i < TOP; i++) {
            sumTop += Math.abs(error(sketch, zipf, byCount[i]));
        }
        double sumRandom = 0;
        for (int r : randomRanks) {
            sumRandom += Math.abs(error(sketch, zipf, r));
        }
        return new Row(impl, sketch.description(), sketch.width(), sketch.depth(), sketch.counterBytes(),
                HeapSize.of(sketch.unwrap()), over, occurring, sorted[sorted.length / 2],
                sorted[(int) (sorted.length * 0.99)], maxError, sumAll / occurring, sumTop / TOP,
                sumRandom / randomRanks.length);
    }

    private static long error(CountMinAdapter sketch, ZipfKeys zipf, int rank) {
        long estimate = sketch.estimate(zipf.key(rank));
        long truth = zipf.exactCount(rank);
        if (estimate < truth) {
            throw new IllegalStateException(sketch.name() + " underestimates rank " + rank + ": " + estimate + " < "
                    + truth);
        }
        return estimate - truth;
    }

    static void print(List<Row> rows, double bound) {
        System.out.println();
        String header = String.format(Locale.ROOT, "%-14s %5s %5s %13s %10s %12s %10s %8s %8s %9s %10s %12s %12s",
                "impl", "width", "depth", "counter bytes", "heap bytes", "err > eps*N", "fraction", "median", "p99",
                "max error",
                "MAE all", "MAE top-" + TOP, "MAE random");
        System.out.println(header);
        System.out.println("-".repeat(header.length()));
        for (Row r : rows) {
            System.out.printf(Locale.ROOT, "%-14s %5d %5d %,13d %,10d %,12d %10.2e %,8d %,8d %,9d %10.1f %12.1f %12.1f%n",
                    r.impl(), r.width(), r.depth(), r.counterBytes(), r.heapBytes(), r.keysOverBound(),
                    r.keysOverBound() / (double) r.occurringKeys(), r.medianError(), r.p99Error(), r.maxError(), r.meanErrorAll(), r.meanErrorTop(),
                    r.meanErrorRandom());
        }
        System.out.println();
        System.out.printf(Locale.ROOT, "err > eps*N: keys occurring in the stream (%,d of them) whose error exceeds %,.0f%n",
                rows.isEmpty() ? 0 : rows.get(0).occurringKeys(), bound);
        for (Row r : rows) {
            System.out.printf(Locale.ROOT, "  %-14s %s%n", r.impl(), r.description());
        }
    }
}
