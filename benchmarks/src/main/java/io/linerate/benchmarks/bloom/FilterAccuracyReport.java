package io.linerate.benchmarks.bloom;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Measured false-positive rate and memory of every implementation at 1M and 10M keys and 1% target FPP.
 *
 * <p>For each implementation and size: insert the n member keys, check that every one of them is reported
 * present (no false negatives), then query {@code queries} keys known to be absent (non-members, disjoint
 * from the members by construction, see {@link Keys}) and count the positives.
 *
 * <p>Memory is what each library reports for its state: linerate {@code memoryBytes()} (the primitive
 * arrays; the balanced filter's includes its overflow list), Guava {@code serializedSize()} (the bytes
 * {@code writeTo} writes: the bit array plus a 6-byte header), DataSketches {@code getCapacity()/8} (its bit
 * array) and Spark {@code bitSize()/8}. Object headers are not counted anywhere.
 *
 * <p>Usage: {@code FilterAccuracyReport [queries] [size...]}; defaults 4,000,000 queries, sizes 1,000,000
 * and 10,000,000. Needs about 1 GiB of heap.
 */
public final class FilterAccuracyReport {

    static final double FPP = 0.01;

    private FilterAccuracyReport() {
    }

    /** One implementation measured at one size. */
    record Row(String impl, int k, long memoryBytes, double bitsPerItem, long falseNegatives, long falsePositives,
               long queries, double expectedFpp, String memoryBasis) {

        double measuredFpp() {
            return (double) falsePositives / queries;
        }

        /** Half-width of the 95% normal-approximation confidence interval of {@link #measuredFpp()}. */
        double halfWidth95() {
            double p = measuredFpp();
            return 1.96 * Math.sqrt(p * (1 - p) / queries);
        }
    }

    public static void main(String[] args) {
        int queries = args.length > 0 ? Integer.parseInt(args[0].replace("_", "")) : 4_000_000;
        List<Integer> sizes = new ArrayList<>();
        for (int i = 1; i < args.length; i++) {
            sizes.add(Integer.parseInt(args[i].replace("_", "")));
        }
        if (sizes.isEmpty()) {
            sizes = List.of(1_000_000, 10_000_000);
        }
        System.out.printf(Locale.ROOT, "Bloom filter accuracy and memory: target FPP %.2f%%, %,d absent-key queries "
                + "per filter%n", FPP * 100, queries);
        System.out.printf(Locale.ROOT, "JDK %s, %d cores%n%n", Runtime.version(), Runtime.getRuntime()
                .availableProcessors());
        long[] absent = Keys.nonMembers(queries, Keys.NON_MEMBER_SEED);
        for (int n : sizes) {
            long[] members = Keys.members(n, Keys.MEMBER_SEED);
            List<Row> rows = new ArrayList<>();
            for (String impl : Filters.all()) {
                System.out.printf(Locale.ROOT, "  n=%,d %-12s ...%n", n, impl);
                rows.add(measure(impl, members, absent));
            }
            print(n, rows);
        }
    }

    static Row measure(String impl, long[] members, long[] absent) {
        int n = members.length;
        FilterAdapter filter = Filters.create(impl, n, FPP);
        for (long key : members) {
            filter.put(key);
        }
        long falseNegatives = 0;
        for (long key : members) {
            if (!filter.mightContain(key)) {
                falseNegatives++;
            }
        }
        long falsePositives = 0;
        for (long key : absent) {
            if (filter.mightContain(key)) {
                falsePositives++;
            }
        }
        long bytes = filter.memoryBytes();
        return new Row(impl, filter.hashCount(), bytes, bytes * 8.0 / n, falseNegatives, falsePositives,
                absent.length, filter.expectedFpp(), filter.memoryBasis());
    }

    static void print(int n, List<Row> rows) {
        System.out.printf(Locale.ROOT, "%nn = %,d keys, target FPR %.2f%%%n", n, FPP * 100);
        String header = String.format(Locale.ROOT, "%-12s %3s %14s %9s %12s %10s %7s %12s %6s  %s",
                "impl", "k", "memory bytes", "bits/key", "measured FPR", "±95% CI", "/target", "expected FPR",
                "FN", "memory basis");
        System.out.println(header);
        System.out.println("-".repeat(header.length()));
        for (Row r : rows) {
            System.out.printf(Locale.ROOT, "%-12s %3s %,14d %9.2f %11.4f%% %9.4f%% %6.2fx %12s %6d  %s%n",
                    r.impl(), r.k() < 0 ? "-" : Integer.toString(r.k()), r.memoryBytes(), r.bitsPerItem(),
                    r.measuredFpp() * 100, r.halfWidth95() * 100, r.measuredFpp() / FPP,
                    Double.isNaN(r.expectedFpp()) ? "-" : String.format(Locale.ROOT, "%.4f%%", r.expectedFpp() * 100),
                    r.falseNegatives(), r.memoryBasis());
        }
        System.out.println();
    }
}
