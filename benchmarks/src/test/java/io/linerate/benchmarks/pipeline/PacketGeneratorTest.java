package io.linerate.benchmarks.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayDeque;
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
    void everySplittingAndBatchingGivesEachPacketExactlyOnceInBatchesOfOneLinkWithMonotoneTimestamps() {
        PacketGenerator generator = new PacketGenerator(SMALL);
        for (int batch : new int[] {1, 7, 64}) {
            Workload workload = SMALL.withBatch(batch);
            for (int n : new int[] {1, 2, 3, 7}) {
                boolean[] seen = new boolean[(int) SMALL.packets()];
                long batches = 0;
                for (PacketSplit split : PacketSplit.of("test", workload, n)) {
                    Map<Packet, ArrayDeque<Long>> positions = positionsOf(split, generator);
                    PacketBatchIterator it = split.getIterator();
                    long previousTimestamp = Long.MIN_VALUE;
                    long previousFirst = -1;
                    long round = (long) PacketBatchIterator.ROUND_BATCHES * batch * SMALL.links();
                    while (it.hasNext()) {
                        PacketBatch b = it.next();
                        batches++;
                        assertThat(b.size()).isBetween(1, batch);
                        // the batch's timestamp: its smallest, never below the previous batch's (watermarks)
                        assertThat(b.timestamp()).isGreaterThanOrEqualTo(previousTimestamp);
                        previousTimestamp = b.timestamp();
                        long firstPosition = -1;
                        long lastPosition = -1;
                        for (int i = 0; i < b.size(); i++) {
                            Packet p = b.get(i);
                            long position = positions.get(p).poll(); // equal packets: the earliest first
                            int index = (int) (split.first() + position * split.stride());
                            assertThat(position).as("packets of a batch in stream order").isGreaterThan(lastPosition);
                            if (i == 0) {
                                firstPosition = position;
                            }
                            lastPosition = position;
                            assertThat(seen[index]).as("packet %d twice, batch %d, %d splits", index, batch, n)
                                    .isFalse();
                            seen[index] = true;
                            assertThat(p.link()).isEqualTo(b.link());
                            assertThat(p.timestamp()).isGreaterThanOrEqualTo(b.timestamp());
                        }
                        assertThat(b.timestamp()).isEqualTo(b.get(0).timestamp());
                        // batches in the order of their first packet; a batch within one round
                        assertThat(firstPosition).isGreaterThan(previousFirst);
                        previousFirst = firstPosition;
                        assertThat(firstPosition / round).isEqualTo(lastPosition / round);
                    }
                }
                for (int i = 0; i < seen.length; i++) {
                    assertThat(seen[i]).as("packet %d missing, batch %d, %d splits", i, batch, n).isTrue();
                }
                if (batch == 1) {
                    assertThat(batches).isEqualTo(SMALL.packets());
                } else {
                    // rounds of 4·batch·links packets: fewer than 5 batches per link and round (4 full + 1 rest)
                    assertThat(batches).isLessThan(SMALL.packets() * 5 / (4L * batch) + 5L * n * SMALL.links());
                }
            }
        }
        RunProbe.remove("test");
    }

    @Test
    void withBatchesOfOneTheSplitIsThePerPacketStream() {
        PacketGenerator generator = new PacketGenerator(SMALL);
        PacketSplit split = PacketSplit.of("test", SMALL.withBatch(1), 3).get(2);
        PacketBatchIterator it = split.getIterator();
        for (long k = 0; it.hasNext(); k++) {
            PacketBatch b = it.next();
            assertThat(b.size()).isEqualTo(1);
            assertThat(b.get(0)).isEqualTo(generator.packet(split.first() + k * split.stride()));
        }
        RunProbe.remove("test");
    }

    /** The positions in {@code split} of each of its packets (equal packets: several, ascending). */
    private static Map<Packet, ArrayDeque<Long>> positionsOf(PacketSplit split, PacketGenerator generator) {
        Map<Packet, ArrayDeque<Long>> positions = new HashMap<>();
        for (long position = 0; position < split.count(); position++) {
            positions.computeIfAbsent(generator.packet(split.first() + position * split.stride()),
                    k -> new ArrayDeque<>()).add(position);
        }
        return positions;
    }

    @Test
    void aSplitResumesWhereItsIteratorStoppedEvenMidRound() throws Exception {
        PacketSplit split = PacketSplit.of("test", SMALL, 2).get(1);
        for (int emitted : new int[] {0, 1, 17, 40, 500}) {
            PacketBatchIterator it = split.getIterator();
            for (int i = 0; i < emitted; i++) {
                it.next();
            }
            PacketSplit.Serializer serializer = new PacketSplit.Serializer();
            PacketSplit resumed = serializer.deserialize(serializer.getVersion(),
                    serializer.serialize(split.getUpdatedSplitForIterator(it)));
            PacketBatchIterator again = resumed.getIterator();
            for (int i = 0; i < 100; i++) {
                assertThat(again.next()).as("batch %d after %d", i, emitted).isEqualTo(it.next());
            }
        }
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
        assertThatThrownBy(() -> new Workload(1, 10, 1.1, 1, 1, 1, 0)).hasMessageContaining("batch must be in");
        assertThatThrownBy(() -> SMALL.withBatch(PacketBatch.MAX_SIZE + 1)).hasMessageContaining("batch must be in");
    }

    /**
     * A small run's source reports its progress often enough that the mid-run checkpoint, triggered at half the
     * packets, comes mid-run: with reports only every 65,536 packets a 200,000-packet run at parallelism 2 reported
     * nothing before 65,536 per subtask, and its "mid-run" checkpoint came after the source had finished.
     */
    @Test
    void aSmallRunsSourceReportsItsProgressBeforeItEnds() {
        String run = "progress-" + System.nanoTime();
        Workload w = new Workload(200_000, 1_000, 1.1, 7, 1_000_000, 4, 64);
        try {
            PacketSplit split = PacketSplit.of(run, w, 2).get(0);
            PacketBatchIterator it = split.getIterator();
            long packets = 0;
            while (packets < split.count() / 2) {
                packets += it.next().size();
            }
            // reports at least 64 times per split: at most count / 64 packets (and a batch) behind
            assertThat(RunProbe.of(run).emitted()).isGreaterThanOrEqualTo(packets - split.count() / 64 - 64);
        } finally {
            RunProbe.remove(run);
        }
    }
}
