package io.linerate.benchmarks.flowtable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.linerate.benchmarks.frequency.ZipfKeys;
import io.linerate.sketches.flowtable.FlowTable;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

class FlowTableBenchmarkSetupTest {

    static Iterable<String> contenders() {
        return FlowCounters.ALL;
    }

    static Iterable<String> flowTables() {
        return FlowCounters.ALL.stream().filter(name -> name.startsWith("linerate")).toList();
    }

    /** The benchmark's own points: n = 1M and 100k at 50% and 90%, every flow present, nothing evicted. */
    @ParameterizedTest
    @MethodSource("flowTables")
    void everyFlowTableHoldsTheBenchmarksLoadsWithoutEvicting(String impl) {
        for (int capacity : new int[] {1_000_000, 100_000}) {
            for (int load : new int[] {50, 90}) {
                // the same flows and insertion order as Packets.standard (the stream's length does not change them)
                Packets packets = Packets.generate(FlowTableBenchmark.flows(capacity, load), 0, Packets.SEED);
                FlowCounter table = FlowCounters.create(impl, capacity);
                FlowTableBenchmark.warm(table, packets);
                FlowTable t = ((FlowCounters.Linerate) table).table();
                assertThat(t.size()).as(table.describe()).isEqualTo(packets.flows());
                assertThat(t.evictions()).as(table.describe()).isZero();
                assertThat(t.stashSize()).as(table.describe()).isLessThan(FlowCounters.STASH);
                assertThat(t.capacity()).isEqualTo(capacity);
                assertThat(t.idleTimeout()).isEqualTo(Long.MAX_VALUE);
                assertThat(t.activeTimeout()).isEqualTo(Long.MAX_VALUE);
            }
        }
    }

    /** Every contender counts the same packets, bytes, timestamps and flags for every flow. */
    @ParameterizedTest
    @MethodSource("contenders")
    void everyContenderCountsTheSame(String impl) {
        int capacity = 20_000;
        Packets packets = Packets.generate(FlowTableBenchmark.flows(capacity, 90), 200_000, 5);
        FlowCounter table = FlowCounters.create(impl, capacity);
        assertThat(table.name()).isEqualTo(impl);
        long clock = FlowTableBenchmark.warm(table, packets);
        assertThat(clock).isEqualTo(packets.flows());
        packets.feed(table, clock);
        assertThat(table.size()).isEqualTo(18_000);
        assertThat(table.evictions()).isZero();
        int[] order = packets.insertionOrder();
        int[] insertedAt = new int[order.length];
        for (int i = 0; i < order.length; i++) {
            insertedAt[order[i]] = i;
        }
        for (int f : new int[] {0, 1, 2, 10, 100, 1_000, 17_999}) {
            long[] exact = packets.exact(f);
            long[] stats = table.stats(packets.src(f), packets.dst(f), packets.srcPort(f), packets.dstPort(f),
                    packets.protocol(f));
            assertThat(stats).as("flow %d", f).isNotNull();
            int syn = packets.protocol(f) == 6 ? 0x02 : 0;
            assertThat(stats[0]).as("packets of flow %d", f).isEqualTo(exact[0] + 1);
            assertThat(stats[1]).as("bytes of flow %d", f).isEqualTo(exact[1] + 60);
            assertThat(stats[2]).as("first timestamp of flow %d", f).isEqualTo(insertedAt[f]);
            assertThat(stats[4]).as("flags of flow %d", f).isEqualTo(exact[2] | syn);
        }
        assertThat(table.stats(1, 2, 3, 4, 5)).isNull();
        if (impl.startsWith("linerate")) {
            assertThat(table.reportedBytes()).isPositive();
        } else {
            assertThat(table.reportedBytes()).isEqualTo(-1);
        }
        assertThat(table.describe()).startsWith(impl);
    }

    @Test
    void packetsAreDistinctFlowsInZipfOrder() {
        Packets packets = Packets.generate(10_000, 400_000, 9);
        Set<FlowKey> keys = new HashSet<>();
        for (int f = 0; f < packets.flows(); f++) {
            keys.add(new FlowKey(packets.src(f), packets.dst(f), packets.srcPort(f), packets.dstPort(f),
                    packets.protocol(f)));
            assertThat(packets.srcPort(f) | packets.dstPort(f)).isBetween(0, 0xFFFF);
        }
        assertThat(keys).hasSize(10_000);
        int[] order = packets.insertionOrder();
        assertThat(order).isNotEqualTo(sorted(order));
        assertThat(sorted(order)).isEqualTo(java.util.stream.IntStream.range(0, 10_000).toArray());
        long top = packets.exact(0)[0];
        // Zipf 1.1 over 10k flows: the top flow has about 1/H(10k, 1.1) = 14% of the packets
        assertThat(top / 400_000.0).isBetween(0.12, 0.18);
        assertThat(packets.exact(0)[0]).isGreaterThan(packets.exact(100)[0]);
        assertThat(packets.length()).isEqualTo(400_000);
        assertThat(packets.stream()).hasSize(400_000 * Packets.INTS);
        assertThat(Packets.generate(10_000, 0, 9).insertionOrder()).isEqualTo(order);
    }

    @Test
    void probeKeyHashesAndComparesLikeTheRecord() {
        FlowKey record = new FlowKey(0x0A000001, 0xC0A80001, 51234, 443, 6);
        ProbeKey probe = new ProbeKey().set(0x0A000001, 0xC0A80001, 51234, 443, 6);
        assertThat(probe.hashCode()).isEqualTo(record.hashCode());
        assertThat(probe.copy()).isEqualTo(probe).hasSameHashCodeAs(probe);
        assertThat(new ProbeKey().set(0x0A000001, 0xC0A80001, 51234, 443, 17)).isNotEqualTo(probe);
    }

    @Test
    void zipfRanksAreTheRanksOfTheZipfKeysStream() {
        ZipfKeys keys = ZipfKeys.generate(1_000, 1.1, 50_000, 3);
        int[] ranks = ZipfKeys.ranks(1_000, 1.1, 50_000, 3);
        for (int i = 0; i < ranks.length; i++) {
            assertThat(keys.stream()[i]).isEqualTo(keys.key(ranks[i]));
        }
    }

    @ParameterizedTest
    @CsvSource({"1000000, 50, 500000", "1000000, 90, 900000", "100000, 90, 90000"})
    void flowsAreTheLoadOfTheCapacity(int capacity, int load, int flows) {
        assertThat(FlowTableBenchmark.flows(capacity, load)).isEqualTo(flows);
    }

    @Test
    void unknownContenderIsRejectedWithTheKnownNames() {
        assertThatThrownBy(() -> FlowCounters.create("cuckoo", 10))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("linerate-sweep0");
    }

    private static int[] sorted(int[] a) {
        int[] s = a.clone();
        Arrays.sort(s);
        return s;
    }
}
