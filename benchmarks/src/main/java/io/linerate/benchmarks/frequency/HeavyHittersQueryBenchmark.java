package io.linerate.benchmarks.frequency;

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
 * The top-10 query of heavy-hitter trackers ({@link HeavyHitterTrackers}, 64 KiB each for linerate's) once they
 * have taken the whole of {@link ZipfKeys#standard()} (10,000,000 keys, Zipf 1.1 over 1M keys, weight 1), as a
 * windowed operator asks it at each window's end: µs per query, the tracker unchanged between queries. Each
 * library is asked its own way ({@link HeavyHitterAdapter#top}): linerate {@code topK(10)}, DataSketches
 * {@code getFrequentItems(0, NO_FALSE_NEGATIVES)} sorted by estimate, stream-lib {@code topK(10)}.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar HeavyHittersQueryBenchmark}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
public class HeavyHittersQueryBenchmark {

    @State(Scope.Thread)
    public static class FedTracker {
        @Param({"spacesaving", "cmheap", "longs-2048", "longs-4096", "streamsummary-460", "streamsummary-4096"})
        public String impl;

        HeavyHitterAdapter tracker;

        @Setup(Level.Trial)
        public void feed() {
            tracker = HeavyHitterTrackers.create(impl);
            for (long key : ZipfKeys.standard().stream()) {
                tracker.update(key);
            }
        }
    }

    @Benchmark
    public List<long[]> top10(FedTracker s) {
        return s.tracker.top(10);
    }
}
