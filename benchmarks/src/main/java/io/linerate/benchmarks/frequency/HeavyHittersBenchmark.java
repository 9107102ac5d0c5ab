package io.linerate.benchmarks.frequency;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Update throughput of heavy-hitter trackers ({@link HeavyHitterTrackers}) on the whole of
 * {@link ZipfKeys#standard()} (or another exponent, {@code skew}): one invocation feeds the 10,000,000 keys (Zipf
 * 1.1 over 1M keys, pre-generated, in stream order, weight 1) to a new, empty tracker, created outside the timed
 * part. The score is ns per update.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar HeavyHittersBenchmark}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms4g", "-Xmx4g", "-XX:+AlwaysPreTouch"})
public class HeavyHittersBenchmark {

    @State(Scope.Thread)
    public static class StreamState {
        @Param({"spacesaving", "cmheap", "longs-2048", "longs-4096", "streamsummary-460", "streamsummary-4096"})
        public String impl;

        /**
         * The Zipf exponent of the stream: 1.1 ({@link ZipfKeys#standard()}) unless set, e.g. {@code -p
         * skew=0.8,1.0,1.1}; the lower, the more updates miss the monitored items and replace one.
         */
        @Param({"1.1"})
        public double skew;

        long[] keys;
        HeavyHitterAdapter tracker;

        @Setup(Level.Trial)
        public void generate() {
            keys = skew == ZipfKeys.S ? ZipfKeys.standard().stream()
                    : ZipfKeys.generate(ZipfKeys.KEYS, skew, ZipfKeys.LENGTH, ZipfKeys.SEED).stream();
        }

        /** One invocation takes 0.1–1 s, so a per-invocation setup is safe here. */
        @Setup(Level.Invocation)
        public void freshTracker() {
            tracker = null;
            tracker = HeavyHitterTrackers.create(impl);
        }
    }

    @Benchmark
    @OperationsPerInvocation(ZipfKeys.LENGTH)
    public HeavyHitterAdapter update(StreamState s) {
        HeavyHitterAdapter t = s.tracker;
        for (long key : s.keys) {
            t.update(key);
        }
        return t;
    }
}
