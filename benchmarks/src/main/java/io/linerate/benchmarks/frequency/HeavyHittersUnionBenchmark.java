package io.linerate.benchmarks.frequency;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The union of heavy-hitter trackers ({@link HeavyHitterTrackers}, 64 KiB each for linerate's), as a sliding
 * window's report unites its sub-windows: {@link ZipfKeys#standard()} (10,000,000 keys) cut into {@code subWindows}
 * consecutive parts, one tracker fed each; µs per union of all of them, all inputs unchanged. linerate:
 * {@code first.union(others)}, a new tracker of all at once (for one other, what {@code copy()} then {@code merge}
 * gives); DataSketches: a new {@code LongsSketch} merging each in turn (it has no copy). stream-lib's
 * {@code StreamSummary} does not merge.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar HeavyHittersUnionBenchmark}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
public class HeavyHittersUnionBenchmark {

    @State(Scope.Thread)
    public static class FedSubWindows {
        @Param({"spacesaving", "cmheap", "longs-2048", "longs-4096"})
        public String impl;

        /** Trackers united: 2 (the stream's halves), or 60 (a one-minute window sliding every second). */
        @Param({"2", "60"})
        public int subWindows;

        HeavyHitterAdapter first;
        List<HeavyHitterAdapter> others;

        @Setup(Level.Trial)
        public void feed() {
            long[] keys = ZipfKeys.standard().stream();
            List<HeavyHitterAdapter> all = new ArrayList<>();
            for (int w = 0; w < subWindows; w++) {
                HeavyHitterAdapter tracker = HeavyHitterTrackers.create(impl);
                int end = (int) ((long) keys.length * (w + 1) / subWindows);
                for (int i = (int) ((long) keys.length * w / subWindows); i < end; i++) {
                    tracker.update(keys[i]);
                }
                all.add(tracker);
            }
            first = all.get(0);
            others = all.subList(1, subWindows);
        }
    }

    @Benchmark
    public Object union(FedSubWindows s) {
        return s.first.union(s.others);
    }
}
