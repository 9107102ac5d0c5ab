package io.linerate.benchmarks.frequency;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Top-100 accuracy and memory of every tracker of {@link HeavyHitterTrackers} on {@link ZipfKeys#standard()}
 * (10,000,000 items, Zipf 1.1 over 1,000,000 keys), against exact counts.
 *
 * <p>The true top-100 is the 100 keys with the largest exact counts. Each tracker reports its top 100 (by its
 * own ranking). Recall = true top-100 keys reported / 100; precision = reported keys in the true top-100 /
 * keys reported; average relative error = mean over the reported keys of |estimate − truth| / truth. Memory:
 * the size the library reports or that its arrays have ({@link HeavyHitterAdapter#memoryBasis()}), and the
 * retained heap size of the tracker object (JOL), headers included.
 *
 * <p>Usage: {@code java -cp benchmarks/target/benchmarks.jar io.linerate.benchmarks.frequency.HeavyHittersAccuracyReport
 * [tracker...]}.
 */
public final class HeavyHittersAccuracyReport {

    static final int K = 100;

    private HeavyHittersAccuracyReport() {
    }

    record Row(String impl, long reportedBytes, long heapBytes, int reported, double recall, double precision,
               double averageRelativeError, String memoryBasis) {
    }

    public static void main(String[] args) {
        List<String> impls = args.length > 0 ? List.of(args) : HeavyHitterTrackers.ALL;
        ZipfKeys zipf = ZipfKeys.standard();
        System.out.printf(Locale.ROOT, "Heavy hitters: top-%d of %,d items, Zipf %.1f over %,d keys%n", K,
                zipf.stream().length, zipf.exponent(), zipf.universe());
        System.out.printf(Locale.ROOT, "JDK %s, %d cores%n", Runtime.version(), Runtime.getRuntime().availableProcessors());
        Map<Long, Long> exact = new HashMap<>();
        for (int r = 0; r < zipf.universe(); r++) {
            exact.put(zipf.key(r), zipf.exactCount(r));
        }
        int[] byCount = zipf.ranksByCount();
        Set<Long> trueTop = new HashSet<>();
        for (int i = 0; i < K; i++) {
            trueTop.add(zipf.key(byCount[i]));
        }
        System.out.printf(Locale.ROOT, "true counts: #1 %,d, #%d %,d, #%d %,d%n", zipf.exactCount(byCount[0]), K,
                zipf.exactCount(byCount[K - 1]), K + 1, zipf.exactCount(byCount[K]));
        List<Row> rows = new ArrayList<>();
        for (String impl : impls) {
            rows.add(measure(impl, zipf, exact, trueTop));
        }
        print(rows);
    }

    static Row measure(String impl, ZipfKeys zipf, Map<Long, Long> exact, Set<Long> trueTop) {
        HeavyHitterAdapter tracker = HeavyHitterTrackers.create(impl);
        for (long key : zipf.stream()) {
            tracker.update(key);
        }
        List<long[]> top = tracker.top(K);
        int hits = 0;
        double relativeError = 0;
        for (long[] entry : top) {
            hits += trueTop.contains(entry[0]) ? 1 : 0;
            long truth = exact.getOrDefault(entry[0], 0L);
            relativeError += Math.abs(entry[1] - truth) / (double) Math.max(1, truth);
        }
        return new Row(impl, tracker.reportedBytes(), HeapSize.of(tracker.unwrap()), top.size(), hits / (double) K,
                top.isEmpty() ? 0 : hits / (double) top.size(),
                top.isEmpty() ? Double.NaN : relativeError / top.size(), tracker.memoryBasis());
    }

    static void print(List<Row> rows) {
        System.out.println();
        String header = String.format(Locale.ROOT, "%-20s %14s %11s %8s %7s %9s %11s", "tracker", "reported bytes",
                "heap bytes", "reported", "recall", "precision", "avg rel err");
        System.out.println(header);
        System.out.println("-".repeat(header.length()));
        for (Row r : rows) {
            System.out.printf(Locale.ROOT, "%-20s %14s %,11d %8d %7.2f %9.2f %11.2e%n", r.impl(),
                    r.reportedBytes() < 0 ? "-" : String.format(Locale.ROOT, "%,d", r.reportedBytes()), r.heapBytes(),
                    r.reported(), r.recall(), r.precision(), r.averageRelativeError());
        }
        System.out.println();
        for (Row r : rows) {
            System.out.printf(Locale.ROOT, "  %-20s %s%n", r.impl(), r.memoryBasis());
        }
    }
}
