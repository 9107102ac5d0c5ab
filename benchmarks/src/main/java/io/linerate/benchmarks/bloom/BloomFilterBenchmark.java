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
 * {@code put} and {@code query} ({@code mightContain}) of every linerate Bloom filter variant and of the peer
 * libraries, all sized for {@code items} keys at 1% target FPP, in one run.
 *
 * <ul>
 *   <li><b>put</b>: a filter sized for n, fresh at the start of every iteration; keys are taken in order from
 *       a pre-generated array of n random keys and cycled, so each iteration first fills the filter to its
 *       design load and then re-inserts keys already present.</li>
 *   <li><b>query</b>: a filter holding the n member keys; query keys are a pre-generated, shuffled array of n
 *       keys, half members and half non-members, cycled.</li>
 *   <li><b>putBatch</b>, <b>queryBatch</b>: the same keys in the same order, {@value #BATCH} per call (a packet
 *       batch of the jobs' Kafka records holds up to 64 packets), through linerate's {@code putAll} /
 *       {@code mightContainAll}; the peers have no batch operation, so theirs is a loop of single calls. Scores
 *       are per key ({@code @OperationsPerInvocation}).</li>
 * </ul>
 *
 * <p>A fixed, pre-touched 4 GiB heap: without it, allocation-heavy libraries ran 2–6× slower in the first
 * seconds of a fork on the 2-core machines this is run on.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar BloomFilterBenchmark}; one implementation:
 * {@code ... BloomFilterBenchmark -p impl=blocked -p items=10000000}; allocation: add {@code -prof gc}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms4g", "-Xmx4g", "-XX:+AlwaysPreTouch"})
public class BloomFilterBenchmark {

    /** Target false-positive probability of every filter. */
    public static final double FPP = 0.01;

    /**
     * Keys per call of the batch benchmarks. 10^6 and 10^7 are multiples of it, so the batches cover every key; for
     * another {@code items} the last {@code items mod 64} keys are left out of the batches (a batch never wraps).
     */
    public static final int BATCH = 64;

    /** The parameters shared by both benchmarks. */
    @State(Scope.Thread)
    public abstract static class FilterParams {
        @Param({"standard", "partitioned", "blocked", "split-block", "balanced", "counting", "guava", "datasketches", "spark"})
        public String impl;

        @Param({"1000000", "10000000"})
        public int items;
    }

    @State(Scope.Thread)
    public static class PutState extends FilterParams {
        long[] keys;
        FilterAdapter filter;
        int next;

        @Setup(Level.Trial)
        public void generateKeys() {
            keys = Keys.members(items, Keys.MEMBER_SEED);
        }

        @Setup(Level.Iteration)
        public void freshFilter() {
            filter = null; // let the previous iteration's filter be collected before the new one is allocated
            filter = Filters.create(impl, items, FPP);
            next = 0;
        }

        long nextKey() {
            int i = next;
            next = i + 1 == keys.length ? 0 : i + 1;
            return keys[i];
        }

        int nextBatch() {
            int i = next;
            next = nextBatchStart(i, keys.length);
            return i;
        }
    }

    @State(Scope.Thread)
    public static class QueryState extends FilterParams {
        long[] queries;
        /** The batch benchmark's answers, at the queries' indexes; returned so that no batch is optimized away. */
        boolean[] results;
        FilterAdapter filter;
        int next;

        @Setup(Level.Trial)
        public void populate() {
            long[] members = Keys.members(items, Keys.MEMBER_SEED);
            filter = Filters.create(impl, items, FPP);
            for (long key : members) {
                filter.put(key);
            }
            queries = Keys.mixedQueries(members, items, Keys.QUERY_SEED);
            results = new boolean[queries.length];
        }

        long nextKey() {
            int i = next;
            next = i + 1 == queries.length ? 0 : i + 1;
            return queries[i];
        }

        int nextBatch() {
            int i = next;
            next = nextBatchStart(i, queries.length);
            return i;
        }
    }

    /**
     * Where the batch after the one starting at {@code from} starts: the next {@value #BATCH} keys if they all fit
     * in the array of {@code length}, else the start again.
     */
    static int nextBatchStart(int from, int length) {
        if (length < BATCH) {
            throw new IllegalStateException("the batch benchmarks need items >= " + BATCH + ", got " + length);
        }
        return from + 2 * BATCH > length ? 0 : from + BATCH;
    }

    @Benchmark
    public void put(PutState s) {
        s.filter.put(s.nextKey());
    }

    @Benchmark
    public boolean query(QueryState s) {
        return s.filter.mightContain(s.nextKey());
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void putBatch(PutState s) {
        int from = s.nextBatch();
        s.filter.putAll(s.keys, from, from + BATCH);
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public boolean[] queryBatch(QueryState s) {
        int from = s.nextBatch();
        s.filter.mightContainAll(s.queries, from, from + BATCH, s.results);
        return s.results;
    }
}
