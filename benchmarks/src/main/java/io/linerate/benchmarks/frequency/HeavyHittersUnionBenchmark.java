package io.linerate.benchmarks.frequency;

import java.util.Arrays;
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
 * The union of two heavy-hitter trackers ({@link HeavyHitterTrackers}, 64 KiB each for linerate's), one fed the
 * first half of {@link ZipfKeys#standard()} and one the second (5,000,000 keys each), as a sliding window's report
 * unites its sub-windows: µs per union, both inputs unchanged. linerate: {@code union} (a new tracker; before it
 * existed, {@code copy()} then {@code merge}); DataSketches: a new {@code LongsSketch} merging both (it has no copy). stream-lib's {@code StreamSummary} does
 * not merge.
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
    public static class FedPair {
        @Param({"spacesaving", "cmheap", "longs-2048", "longs-4096"})
        public String impl;

        HeavyHitterAdapter first;
        HeavyHitterAdapter second;

        @Setup(Level.Trial)
        public void feed() {
            long[] keys = ZipfKeys.standard().stream();
            first = HeavyHitterTrackers.create(impl);
            second = HeavyHitterTrackers.create(impl);
            for (long key : Arrays.copyOfRange(keys, 0, keys.length / 2)) {
                first.update(key);
            }
            for (long key : Arrays.copyOfRange(keys, keys.length / 2, keys.length)) {
                second.update(key);
            }
        }
    }

    @Benchmark
    public Object union(FedPair s) {
        return s.first.union(s.second);
    }
}
