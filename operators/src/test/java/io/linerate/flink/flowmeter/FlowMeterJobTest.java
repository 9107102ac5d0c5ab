package io.linerate.flink.flowmeter;

import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.flink.cluster.TestCluster;
import io.linerate.flink.flowmeter.Packets.Expected;
import io.linerate.flink.flowmeter.Packets.Packet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A real job on a MiniCluster (parallelism 2, checkpointing every 20 ms) fed by a bounded source: the flows it
 * emits are exactly the model's, and the last record of every flow comes from the end-of-input timer, which
 * fires on the final watermark of the bounded input.
 */
@SuppressWarnings("try") // the harness's close() may throw InterruptedException
class FlowMeterJobTest {

    @RegisterExtension
    static final MiniClusterExtension CLUSTER = TestCluster.twoSlots();

    private static final long IDLE = 10_000;
    private static final long ACTIVE = 3_600_000;

    /**
     * Four scopes, 30 flows each, one packet per 100 ms per scope for 60 s (each flow every 3 s). Flow 0 of
     * each scope pauses from 20 s to 40 s (longer than the idle timeout), so it has two records; every other
     * flow has one, flushed at the end, since every flow's last packet is within 3 s of its scope's last.
     */
    static List<Packet> packets() {
        List<Packet> out = new ArrayList<>();
        for (int j = 0; j < 600; j++) {
            for (int s = 0; s < 4; s++) {
                long ts = j * 100L + s;
                int flow = j % 30;
                if (flow == 0 && ts >= 20_000 && ts < 40_000) {
                    continue;
                }
                out.add(new Packet("s" + s, s * 100 + flow, j % 3 == 0 ? 0x02 : 0x10, 60 + (j * 7 + s) % 1400, ts));
            }
        }
        return out;
    }

    @Test
    void boundedJobWithCheckpointingEmitsExactlyTheExpectedFlows() throws Exception {
        List<Packet> packets = packets();
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(20);
        // one upstream channel per scope keeps each scope's packets in timestamp order across the keyBy
        DataStream<Packet> source = env.fromData(packets, Harnesses.PACKET)
                .map(p -> {
                    if (p.ts % 5_000 == 0) {
                        Thread.sleep(5); // spread the input over several checkpoint intervals
                    }
                    return p;
                }).returns(Harnesses.PACKET).setParallelism(1)
                .assignTimestampsAndWatermarks(WatermarkStrategy.<Packet>forMonotonousTimestamps()
                        .withTimestampAssigner((p, previous) -> p.ts)).setParallelism(1);
        FlowMeter<Packet, String> meter = Packets.meter().capacity(100).idleTimeout(Duration.ofMillis(IDLE))
                .activeTimeout(Duration.ofMillis(ACTIVE)).tick(Duration.ofSeconds(1)).build();

        List<MeteredFlow<String>> out = new ArrayList<>();
        try (CloseableIterator<MeteredFlow<String>> it = meter.apply(source).executeAndCollect("flow-meter-job")) {
            it.forEachRemaining(out::add);
        }

        List<Expected> expected = Packets.model(packets, IDLE, ACTIVE,
                Map.of("s0", 60_000L, "s1", 60_000L, "s2", 60_000L, "s3", 60_000L));
        assertThat(expected).hasSize(4 * 31).allMatch(e -> e.reasons().size() == 1);
        assertThat(out).hasSameSizeAs(expected);
        List<MeteredFlow<String>> unmatched = new ArrayList<>(out);
        for (Expected e : expected) {
            MeteredFlow<String> hit = unmatched.stream().filter(e::matches).findFirst().orElse(null);
            assertThat(hit).as("record %s in %s", e, out).isNotNull();
            unmatched.remove(hit);
        }
        assertThat(out.stream().mapToLong(f -> f.packets).sum()).isEqualTo(packets.size());
    }
}
