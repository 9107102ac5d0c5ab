package io.linerate.benchmarks.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.benchmarks.flowtable.FlowKey;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The two flow meters must cut the same records: a flow's record ends when its next packet comes at least the idle
 * timeout after its last one (NetFlow's idle timeout), whether or not the watermark has caught up with the packets
 * yet. The watermark is emitted on processing time (every 200 ms) and lags the packets by a good part of the
 * stream here, so a meter whose records end only when an event-time timer fires merges flows across idle gaps.
 */
class FlowMeterRecordCountTest {

    // 30 s of event time (2,000 packets per simulated second): many flows pause for more than the 10 s idle timeout
    private static final Workload WORKLOAD = new Workload(60_000, 5_000, 1.1, 7, 2_000, 4, 64);

    /** Records of an in-order idle-timeout meter: one per flow, plus one per gap of at least the timeout. */
    static long exactRecords(Workload workload, Duration idleTimeout) {
        PacketGenerator generator = new PacketGenerator(workload);
        Map<FlowKey, Long> last = new HashMap<>();
        long records = 0;
        for (long i = 0; i < workload.packets(); i++) {
            Packet p = generator.packet(i);
            Long previous = last.put(p.flowKey(), p.timestamp());
            if (previous == null || p.timestamp() - previous >= idleTimeout.toMillis()) {
                records++;
            }
        }
        return records;
    }

    @Test
    void plainAndLinerateFlowMetersExportTheRecordsTheIdleTimeoutDefines() throws Exception {
        long expected = exactRecords(WORKLOAD, PipelineSettings.IDLE_TIMEOUT);
        // parallelism 1: one source subtask, so every link's and every flow's packets arrive in timestamp order
        PipelineRunner runner = new PipelineRunner(
                new PipelineRunner.Setup(1, Duration.ofSeconds(10), false, Duration.ofSeconds(5)), s -> { });
        Map<String, Long> records = new HashMap<>();
        for (String name : new String[] {"linerate-flow-meter", "flink-flow-meter"}) {
            RunResult r = runner.run(Pipelines.byName().get(name), PipelineSettings.standard(WORKLOAD));
            assertThat(r.packets()).as(name).isEqualTo(WORKLOAD.packets());
            records.put(name, r.sinkRecords());
        }
        assertThat(expected).as("records of at most 5,000 flows: some flows pause for the timeout").isGreaterThan(5_000);
        assertThat(records).containsEntry("linerate-flow-meter", expected)
                .containsEntry("flink-flow-meter", expected);
    }
}
