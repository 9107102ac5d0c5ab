package io.linerate.benchmarks.frequency;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Locale;

/**
 * The fastest of many timed passes of one Count-Min implementation, for a host too noisy for JMH's means: each
 * pass times 2,000,000 updates (one sketch, continuing through the Zipf stream as {@link CountMinBenchmark}
 * does) and 2,000,000 point queries (a sketch that holds the whole stream), in thread CPU time. Run one
 * implementation per JVM, as JMH forks do, and alternate the JVMs to compare (docs/BENCHMARKS.md):
 *
 * <pre>
 * java -Xms4g -Xmx4g -cp benchmarks/target/benchmarks.jar io.linerate.benchmarks.frequency.CountMinPassTimer linerate 15
 * </pre>
 */
public final class CountMinPassTimer {

    private static final int PASS = 2_000_000;

    private CountMinPassTimer() {
    }

    public static void main(String[] args) {
        if (args.length != 2) {
            System.err.println("usage: CountMinPassTimer <implementation: one of " + CountMins.available()
                    + "> <passes>");
            System.exit(2);
        }
        String impl = args[0];
        int passes = Integer.parseInt(args[1]);
        long[] stream = ZipfKeys.standard().stream();
        if (stream.length < PASS) {
            throw new IllegalStateException("the key stream has " + stream.length + " keys, fewer than a pass of " + PASS);
        }
        CountMinAdapter updated = CountMins.create(impl);
        CountMinAdapter queried = CountMins.create(impl);
        for (long key : stream) {
            queried.update(key);
        }
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        double update = Double.MAX_VALUE;
        double query = Double.MAX_VALUE;
        long sink = 0;
        int from = 0;
        for (int pass = 0; pass < passes; pass++) {
            long t0 = threads.getCurrentThreadCpuTime();
            for (int i = from; i < from + PASS; i++) {
                updated.update(stream[i]);
            }
            long t1 = threads.getCurrentThreadCpuTime();
            for (int i = from; i < from + PASS; i++) {
                sink += queried.estimate(stream[i]);
            }
            long t2 = threads.getCurrentThreadCpuTime();
            update = Math.min(update, (t1 - t0) / (double) PASS);
            query = Math.min(query, (t2 - t1) / (double) PASS);
            from = (from + PASS) % (stream.length - stream.length % PASS);
        }
        System.out.printf(Locale.ROOT,
                "%-14s update %6.2f ns   query %6.2f ns   (fastest of %d passes; checksum %d)%n", impl,
                update, query, passes, sink);
    }
}
