package io.linerate.flink.flowmeter;

import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.flink.cluster.TestCluster;
import io.linerate.flink.flowmeter.Packets.Batch;
import io.linerate.flink.flowmeter.Packets.Expected;
import io.linerate.flink.flowmeter.Packets.Packet;
import io.linerate.flink.state.FailOnceAfterACheckpoint;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link FlowMeter#applyToBatches} in a real job (MiniCluster, parallelism 2, checkpointing every 20 ms, bounded
 * source): batches of up to 10 packets of one scope cross the keyBy as one record each; the flows are exactly
 * the model's for the same packets as in {@link FlowMeterJobTest}, each packet timed by its own timestamp; on the heap
 * and the RocksDB state backends.
 */
@SuppressWarnings("try")
class FlowMeterBatchJobTest {

    @RegisterExtension
    static final MiniClusterExtension CLUSTER = TestCluster.twoSlots();

    private static final long IDLE = 10_000;
    private static final long ACTIVE = 3_600_000;

    /** Consecutive packets of each scope in batches of 10, in the order the batches fill up. */
    static List<Batch> batches(List<Packet> packets) {
        List<Batch> out = new ArrayList<>();
        Map<String, List<Packet>> open = new LinkedHashMap<>();
        for (Packet p : packets) {
            List<Packet> batch = open.computeIfAbsent(p.scope, k -> new ArrayList<>());
            batch.add(p);
            if (batch.size() == 10) {
                out.add(new Batch(p.scope, batch));
                open.remove(p.scope);
            }
        }
        open.forEach((scope, batch) -> out.add(new Batch(scope, batch)));
        return out;
    }

    /**
     * On RocksDB the tables stay in the meter's write-back cache between the 20 ms checkpoints. A task failure after
     * the first completed checkpoint restores the job from it: the output is still exactly the model's.
     */
    @ParameterizedTest(name = "state backend {0}")
    @ValueSource(strings = {"hashmap", "rocksdb"})
    void boundedJobOfBatchesWithCheckpointingEmitsExactlyTheExpectedFlows(String backend) throws Exception {
        List<Packet> packets = FlowMeterJobTest.packets();
        List<Batch> batches = batches(packets);
        Configuration conf = FailOnceAfterACheckpoint.resetFor(backend);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(2);
        env.enableCheckpointing(20);
        // batch timestamp = its last packet's (they rise batch after batch); a batch's earlier packets may be
        // behind the watermark (late, metered all the same): within 1 s, far from the 10 s idle timeout
        DataStream<Batch> source = FailOnceAfterACheckpoint.source(env, batches, Harnesses.BATCH, batches.size() / 2,
                        b -> b.lastTimestamp() % 5_000 < 100)
                .assignTimestampsAndWatermarks(WatermarkStrategy.<Batch>forMonotonousTimestamps()
                        .withTimestampAssigner((b, previous) -> b.lastTimestamp())).setParallelism(1);
        FlowMeter<Packet, String> meter = Packets.meter().capacity(100).idleTimeout(Duration.ofMillis(IDLE))
                .activeTimeout(Duration.ofMillis(ACTIVE)).tick(Duration.ofSeconds(1)).timestamps(p -> p.ts).build();

        List<MeteredFlow<String>> out = new ArrayList<>();
        try (CloseableIterator<MeteredFlow<String>> it = meter.applyToBatches(source, b -> b.scope, Packets.ELEMENTS,
                Harnesses.PACKET).uid("flow-meter").executeAndCollect("flow-meter-batch-job")) {
            it.forEachRemaining(out::add);
        }

        List<Expected> expected = Packets.model(packets, IDLE, ACTIVE,
                Map.of("s0", 60_000L, "s1", 60_000L, "s2", 60_000L, "s3", 60_000L));
        assertThat(batches.size()).isLessThan(packets.size() / 9);
        assertThat(out).hasSameSizeAs(expected);
        List<MeteredFlow<String>> unmatched = new ArrayList<>(out);
        for (Expected e : expected) {
            MeteredFlow<String> hit = unmatched.stream().filter(e::matches).findFirst().orElse(null);
            assertThat(hit).as("record %s in %s", e, out).isNotNull();
            unmatched.remove(hit);
        }
        assertThat(out.stream().mapToLong(f -> f.packets).sum()).isEqualTo(packets.size());
        assertThat(FailOnceAfterACheckpoint.failed()).as("a failure was injected after a completed checkpoint")
                .isTrue();
    }
}
