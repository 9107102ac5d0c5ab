package io.linerate.benchmarks.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

class PacketGeneratorTest {

    private static final Workload SMALL = new Workload(100_000, 10_000, 1.1, 42, 1_000_000, 8);

    @Test
    void everySplittingGivesEachPacketExactlyOnceAndInEventTimeOrder() {
        PacketGenerator generator = new PacketGenerator(SMALL);
        for (int n : new int[] {1, 2, 3, 7}) {
            boolean[] seen = new boolean[(int) SMALL.packets()];
            for (PacketSplit split : PacketSplit.of("test", SMALL, n)) {
                PacketIterator it = split.getIterator();
                long previous = Long.MIN_VALUE;
                long k = 0;
                while (it.hasNext()) {
                    Packet p = it.next();
                    int index = (int) (split.first() + k * split.stride());
                    assertThat(seen[index]).as("packet %d twice with %d splits", index, n).isFalse();
                    seen[index] = true;
                    assertThat(p).isEqualTo(generator.packet(index));
                    assertThat(p.timestamp()).isEqualTo(index / 1000).isGreaterThanOrEqualTo(previous);
                    previous = p.timestamp();
                    k++;
                }
            }
            for (int i = 0; i < seen.length; i++) {
                assertThat(seen[i]).as("packet %d missing with %d splits", i, n).isTrue();
            }
        }
        RunProbe.remove("test");
    }

    @Test
    void aSplitResumesWhereItsIteratorStopped() {
        PacketSplit split = PacketSplit.of("test", SMALL, 2).get(1);
        PacketIterator it = split.getIterator();
        for (int i = 0; i < 1000; i++) {
            it.next();
        }
        PacketSplit resumed = split.getUpdatedSplitForIterator(it);
        assertThat(resumed.getIterator().next()).isEqualTo(it.next());
        RunProbe.remove("test");
    }

    @Test
    void theStreamDependsOnTheSeedOnly() {
        PacketGenerator a = new PacketGenerator(SMALL);
        PacketGenerator b = new PacketGenerator(SMALL);
        PacketGenerator other = new PacketGenerator(new Workload(100_000, 10_000, 1.1, 43, 1_000_000, 8));
        int differ = 0;
        for (int i = 0; i < 1000; i++) {
            assertThat(a.packet(i)).isEqualTo(b.packet(i));
            differ += a.packet(i).equals(other.packet(i)) ? 0 : 1;
        }
        assertThat(differ).isGreaterThan(900);
    }

    @Test
    void everyFlowHasItsOwnAddressPairAndFixedTupleAndLink() {
        PacketGenerator generator = new PacketGenerator(SMALL);
        Map<Long, Packet> byFlowId = new HashMap<>();
        Map<Integer, Long> flowIdOfRank = new HashMap<>();
        for (int i = 0; i < SMALL.packets(); i++) {
            Packet p = generator.packet(i);
            Packet first = byFlowId.putIfAbsent(p.flowId(), p);
            if (first != null) {
                assertThat(p.flowKey()).isEqualTo(first.flowKey());
                assertThat(p.link()).isEqualTo(first.link());
            }
            Long id = flowIdOfRank.putIfAbsent(generator.rankOf(i), p.flowId());
            assertThat(id == null || id == p.flowId()).as("rank %d has one flow", generator.rankOf(i)).isTrue();
            assertThat(p.srcPort()).isBetween(0, 0xFFFF);
            assertThat(p.dstPort()).isBetween(0, 0xFFFF);
            assertThat(p.protocol()).isIn(1, 6, 17);
            assertThat(p.bytes()).isBetween(40, 1500);
            assertThat(p.link()).isBetween(0, SMALL.links() - 1);
            if (p.protocol() != 6) {
                assertThat(p.tcpFlags()).isZero();
            }
        }
        // distinct ranks ↔ distinct flows: no two ranks share an address pair
        assertThat(byFlowId).hasSameSizeAs(flowIdOfRank);
        Set<Integer> links = new HashSet<>();
        byFlowId.values().forEach(p -> links.add(p.link()));
        assertThat(links).hasSize(SMALL.links());
    }

    @Test
    void theTopFlowsShareMatchesZipf() {
        // P(rank 0) = 1 / H(n, s), H(n, s) = Σ_{r=1..n} r^-s; the count over N packets is Binomial(N, p):
        // within 5 standard deviations sqrt(N p (1-p)) unless the sampler is wrong.
        PacketGenerator generator = new PacketGenerator(SMALL);
        double h = 0;
        for (int r = 1; r <= SMALL.flows(); r++) {
            h += Math.pow(r, -SMALL.skew());
        }
        for (int rank : new int[] {0, 1, 9}) {
            double p = Math.pow(rank + 1, -SMALL.skew()) / h;
            long count = 0;
            for (int i = 0; i < SMALL.packets(); i++) {
                count += generator.rankOf(i) == rank ? 1 : 0;
            }
            double mean = SMALL.packets() * p;
            double sd = Math.sqrt(SMALL.packets() * p * (1 - p));
            assertThat((double) count).as("rank %d", rank).isBetween(mean - 5 * sd, mean + 5 * sd);
        }
    }

    @Test
    void theSerializerRoundTripsInItsFixedLength() throws Exception {
        PacketGenerator generator = new PacketGenerator(SMALL);
        DataOutputSerializer out = new DataOutputSerializer(64);
        List<Packet> packets = List.of(generator.packet(0), generator.packet(99_999),
                new Packet(-1, Integer.MIN_VALUE, 65535, 0, 255, 255, 1500, 65535, Long.MAX_VALUE));
        for (Packet p : packets) {
            out.clear();
            PacketSerializer.INSTANCE.serialize(p, out);
            assertThat(out.length()).isEqualTo(PacketSerializer.LENGTH);
            assertThat(PacketSerializer.INSTANCE.deserialize(new DataInputDeserializer(out.getCopyOfBuffer())))
                    .isEqualTo(p);
        }
    }

    @Test
    void workloadLimitsAreCheckedWhenBuilt() {
        assertThatThrownBy(() -> new Workload(0, 10, 1.1, 1, 1, 1)).hasMessageContaining("packets must be >= 1");
        assertThatThrownBy(() -> new Workload(1, 10, 1.1, 1, 1, 0)).hasMessageContaining("links must be in");
    }
}
