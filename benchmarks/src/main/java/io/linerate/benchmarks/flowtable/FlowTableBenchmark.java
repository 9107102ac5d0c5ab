package io.linerate.benchmarks.flowtable;

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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Per-packet update of a per-flow table: lookup-or-insert of the packet's IPv4 5-tuple, then packets++,
 * bytes += length, last = timestamp, flags |= tcpFlags ({@link FlowCounters} lists the contenders).
 *
 * <p>The table is sized for n = {@code capacity} flows (the maps grow as needed) and holds F =
 * {@code load}% of n distinct flows: in the trial's setup every flow is inserted once, so the measured state
 * is at that load and every measured packet belongs to a flow already present (a lookup that hits). Packets
 * come from {@link Packets#standard}: 2<sup>22</sup> pre-generated packets over the F flows, Zipf(1.1), read in
 * order and cycled; the timestamp is a counter that goes up by one per packet. The setup fails if the table
 * does not hold all F flows or evicted any; the tear-down prints the table's state (stash, overflows).
 *
 * <p>Settings as the other benchmarks of this module, but 2 forks per parameter set (36 sets, about 17
 * minutes in all): the 1M-flow tables do not fit in the L3 cache, so their results depend on the host's other
 * tenants, and one fork is not enough to see how much.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar FlowTableBenchmark}; part of it: {@code ...
 * FlowTableBenchmark -p impl=hashmap,linerate -p capacity=1000000 -p load=90}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(value = 2, jvmArgsAppend = {"-Xms4g", "-Xmx4g", "-XX:+AlwaysPreTouch"})
public class FlowTableBenchmark {

    @State(Scope.Thread)
    public static class TableState {
        @Param({"hashmap", "hashmap-probe", "fastutil", "fastutil-probe", "linerate", "linerate-sweep0",
                "linerate-summary", "linerate-std", "linerate-sc2", "linerate-scext"})
        public String impl;

        /** n: the flow count the flow table is built for. */
        @Param({"1000000", "100000"})
        public int capacity;

        /** F as a percentage of n. */
        @Param({"50", "90"})
        public int load;

        int[] stream;
        FlowCounter table;
        int next;
        long clock;

        @Setup(Level.Trial)
        public void setUp() {
            Packets packets = Packets.standard(flows(capacity, load));
            stream = packets.stream();
            table = FlowCounters.create(impl, capacity);
            clock = warm(table, packets);
            next = 0;
        }

        @TearDown(Level.Trial)
        public void report() {
            System.out.println();
            System.out.println(table.describe());
            if (table.evictions() != 0) {
                throw new IllegalStateException(table.name() + " evicted flows while measuring: " + table.describe());
            }
        }
    }

    /** F = ⌊load% · capacity⌋ flows. */
    static int flows(int capacity, int loadPercent) {
        return (int) ((long) capacity * loadPercent / 100);
    }

    /**
     * Inserts every flow of {@code packets} once and checks that {@code table} holds all of them without an
     * eviction; returns the next timestamp.
     */
    static long warm(FlowCounter table, Packets packets) {
        long clock = packets.insertEveryFlow(table, 0);
        if (table.size() != packets.flows() || table.evictions() != 0) {
            throw new IllegalStateException("after inserting " + packets.flows() + " flows: " + table.describe());
        }
        return clock;
    }

    @Benchmark
    public void update(TableState s) {
        int[] p = s.stream;
        int e = s.next;
        s.next = e + Packets.INTS == p.length ? 0 : e + Packets.INTS;
        s.table.update(p[e], p[e + 1], p[e + 2], p[e + 3], p[e + 4], p[e + 5], p[e + 6], s.clock++);
    }
}
