package io.linerate.benchmarks.bloom;

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
 * Insertion of n distinct keys into a fresh filter sized for n (1% target FPP), reported per key.
 *
 * <p>A companion to {@link BloomFilterBenchmark#put}: there the keys are cycled, so once an iteration has
 * gone through its n keys every further put re-inserts a key already present (a predictable branch in most
 * filters, and, for the balanced filter, a different code path). Here every invocation builds a new filter
 * (outside the timed region) and inserts each key exactly once, from an empty filter to its design load.
 * One invocation is n puts, so the score is ns per put.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms4g", "-Xmx4g", "-XX:+AlwaysPreTouch"})
public class BloomFilterFillBenchmark {

    @State(Scope.Thread)
    public abstract static class FillState {
        @Param({"standard", "partitioned", "blocked", "split-block", "balanced", "counting", "guava", "datasketches", "spark"})
        public String impl;

        long[] keys;
        FilterAdapter filter;

        abstract int items();

        @Setup(Level.Trial)
        public void generateKeys() {
            keys = Keys.members(items(), Keys.MEMBER_SEED);
        }

        /** Each invocation takes at least several milliseconds, so a per-invocation setup is safe here. */
        @Setup(Level.Invocation)
        public void freshFilter() {
            filter = null;
            filter = Filters.create(impl, items(), BloomFilterBenchmark.FPP);
        }
    }

    @State(Scope.Thread)
    public static class Items1M extends FillState {
        @Override
        int items() {
            return 1_000_000;
        }
    }

    @State(Scope.Thread)
    public static class Items10M extends FillState {
        @Override
        int items() {
            return 10_000_000;
        }
    }

    private static FilterAdapter fill(FillState s) {
        FilterAdapter f = s.filter;
        for (long key : s.keys) {
            f.put(key);
        }
        return f;
    }

    @Benchmark
    @OperationsPerInvocation(1_000_000)
    public FilterAdapter fill1M(Items1M s) {
        return fill(s);
    }

    @Benchmark
    @OperationsPerInvocation(10_000_000)
    public FilterAdapter fill10M(Items10M s) {
        return fill(s);
    }
}
