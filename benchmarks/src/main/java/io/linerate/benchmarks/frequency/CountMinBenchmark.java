package io.linerate.benchmarks.frequency;

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
 * {@code update} (weight 1) and point {@code query} of Count-Min sketches at ε = 0.001, δ = 0.01 (7 rows of
 * about 2000 64-bit counters, see {@link CountMins}), on the keys of {@link ZipfKeys#standard()} (10M items,
 * Zipf 1.1 over 1M keys), taken in stream order and cycled.
 *
 * <ul>
 *   <li><b>update</b>: one sketch per trial, updated with the stream's keys in turn (it keeps counting when the
 *       stream restarts).</li>
 *   <li><b>query</b>: a sketch holding the whole 10M stream; the query keys are the stream's keys in turn, so
 *       keys are queried as often as they occur.</li>
 * </ul>
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar CountMinBenchmark}. DataSketches 9 (JDK 25 and the
 * {@code jdk25} profile only): {@code ... CountMinBenchmark -p impl=datasketches9,linerate,...}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms4g", "-Xmx4g", "-XX:+AlwaysPreTouch"})
public class CountMinBenchmark {

    @State(Scope.Thread)
    public abstract static class Params {
        @Param({"linerate", "linerate-cu", "linerate-fw", "linerate-blocked", "spark", "streamlib", "streamlib-cu"})
        public String impl;

        long[] keys;
        CountMinAdapter sketch;
        int next;

        long nextKey() {
            int i = next;
            next = i + 1 == keys.length ? 0 : i + 1;
            return keys[i];
        }
    }

    @State(Scope.Thread)
    public static class UpdateState extends Params {
        @Setup(Level.Trial)
        public void setUp() {
            keys = ZipfKeys.standard().stream();
            sketch = CountMins.create(impl);
        }
    }

    @State(Scope.Thread)
    public static class QueryState extends Params {
        @Setup(Level.Trial)
        public void setUp() {
            keys = ZipfKeys.standard().stream();
            sketch = CountMins.create(impl);
            for (long key : keys) {
                sketch.update(key);
            }
        }
    }

    @Benchmark
    public void update(UpdateState s) {
        s.sketch.update(s.nextKey());
    }

    @Benchmark
    public long query(QueryState s) {
        return s.sketch.estimate(s.nextKey());
    }
}
