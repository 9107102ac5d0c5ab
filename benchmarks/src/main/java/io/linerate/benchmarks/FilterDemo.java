package io.linerate.benchmarks;

import io.linerate.benchmarks.bloom.Keys;
import io.linerate.benchmarks.flowtable.FlowTableDemo;
import io.linerate.sketches.bloom.BalancedBloomFilter;
import io.linerate.sketches.bloom.BlockedBloomFilter;
import io.linerate.sketches.bloom.BloomFilter;
import io.linerate.sketches.bloom.CountingBloomFilter;
import io.linerate.sketches.bloom.PartitionedBloomFilter;
import io.linerate.sketches.bloom.SplitBlockBloomFilter;
import io.linerate.sketches.bloom.StandardBloomFilter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * The linerate demo: builds each of the six Bloom filter variants for 1,000,000 keys at a 1% target
 * false-positive rate, inserts 1,000,000 random keys, checks that every one of them is found (no false
 * negatives), queries 1,000,000 keys known to be absent, and prints measured against expected FPR, memory
 * and bits per key; then meters a Zipf packet stream with the flow table ({@link FlowTableDemo}). Runs in
 * a few seconds.
 *
 * <p>{@code mvn -B -q -DskipTests -pl benchmarks -am verify exec:java}
 *
 * <p>Optional arguments: {@code [items] [fpp]}, e.g. {@code -Dexec.args="2000000 0.001"}. Fails (throws)
 * if any filter shows a false negative.
 */
public final class FilterDemo {

    private static final long SEED = 0x6C696E6572617465L;

    private FilterDemo() {
    }

    record Result(String name, BloomFilter filter, int items, long falseNegatives, long falsePositives,
                  long queries, double expectedFpp, double insertNanos, double queryNanos) {
    }

    public static void main(String[] args) {
        int items = args.length > 0 ? Integer.parseInt(args[0].replace("_", "")) : 1_000_000;
        double fpp = args.length > 1 ? Double.parseDouble(args[1]) : 0.01;
        int queries = items;
        long start = System.nanoTime();

        System.out.printf(Locale.ROOT, "linerate Bloom filter demo: %,d keys per filter, target FPR %.2f%%%n",
                items, fpp * 100);
        System.out.printf(Locale.ROOT, "generating %,d random member keys and %,d keys known to be absent...%n",
                items, queries);
        long[] members = Keys.members(items, Keys.MEMBER_SEED);
        long[] absent = Keys.nonMembers(queries, Keys.NON_MEMBER_SEED);

        List<String> names = List.of("standard", "partitioned", "blocked", "split-block", "balanced", "counting");
        List<Supplier<BloomFilter>> makers = List.of(
                () -> StandardBloomFilter.create(items, fpp, SEED),
                () -> PartitionedBloomFilter.create(items, fpp, SEED),
                () -> BlockedBloomFilter.create(items, fpp, SEED),
                () -> SplitBlockBloomFilter.create(items, fpp, SEED),
                () -> BalancedBloomFilter.create(items, fpp, SEED),
                () -> CountingBloomFilter.create(items, fpp, SEED));

        List<Result> results = new ArrayList<>();
        for (int i = 0; i < names.size(); i++) {
            String name = names.get(i);
            System.out.printf(Locale.ROOT, "[%d/%d] %-11s ", i + 1, names.size(), name);
            System.out.flush();
            results.add(run(name, makers.get(i).get(), members, absent));
            Result r = results.get(results.size() - 1);
            System.out.printf(Locale.ROOT, "done: %s%n", r.filter());
        }

        System.out.println();
        String header = String.format(Locale.ROOT, "%-11s %3s %12s %8s %13s %13s %7s %-16s %9s %9s",
                "filter", "k", "memory", "bits/key", "measured FPR", "expected FPR", "ratio",
                "false negatives", "put ns", "query ns");
        System.out.println(header);
        System.out.println("-".repeat(header.length()));
        long totalFalseNegatives = 0;
        for (Result r : results) {
            double measured = (double) r.falsePositives() / r.queries();
            BloomFilter f = r.filter();
            System.out.printf(Locale.ROOT, "%-11s %3d %12s %8.2f %12.4f%% %12.4f%% %6.2fx %-16s %9.1f %9.1f%n",
                    r.name(), f.hashCount(), humanBytes(f.memoryBytes()), f.memoryBytes() * 8.0 / r.items(),
                    measured * 100, r.expectedFpp() * 100, measured / fpp,
                    r.falseNegatives() == 0 ? "none (ok)" : r.falseNegatives() + " (FAIL)",
                    r.insertNanos(), r.queryNanos());
            totalFalseNegatives += r.falseNegatives();
        }
        System.out.println();
        System.out.println("measured FPR: share of the absent keys reported present; expected FPR: the filter's "
                + "own expectedFpp() from its fill; ratio: measured / target.");
        System.out.println("put/query ns: one cold pass on this JVM (includes JIT warm-up), not a benchmark; "
                + "see docs/BENCHMARKS.md for JMH numbers.");
        if (totalFalseNegatives != 0) {
            throw new IllegalStateException(totalFalseNegatives + " false negatives: a Bloom filter must have none");
        }
        FlowTableDemo.run();
        System.out.printf(Locale.ROOT, "total %.1f s%n", (System.nanoTime() - start) / 1e9);
    }

    private static Result run(String name, BloomFilter filter, long[] members, long[] absent) {
        long t0 = System.nanoTime();
        for (long key : members) {
            filter.put(key);
        }
        long t1 = System.nanoTime();
        System.out.print("inserted, ");
        long falseNegatives = 0;
        for (long key : members) {
            if (!filter.mightContain(key)) {
                falseNegatives++;
            }
        }
        System.out.print("members checked, ");
        long t2 = System.nanoTime();
        long falsePositives = 0;
        for (long key : absent) {
            if (filter.mightContain(key)) {
                falsePositives++;
            }
        }
        long t3 = System.nanoTime();
        System.out.print("absent keys queried; ");
        return new Result(name, filter, members.length, falseNegatives, falsePositives, absent.length,
                filter.expectedFpp(), (double) (t1 - t0) / members.length, (double) (t3 - t2) / absent.length);
    }

    private static String humanBytes(long bytes) {
        if (bytes >= 1 << 20) {
            return String.format(Locale.ROOT, "%.2f MiB", bytes / (double) (1 << 20));
        }
        return String.format(Locale.ROOT, "%.1f KiB", bytes / 1024.0);
    }
}
