package io.linerate.flink.flowmeter;

import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.flink.flowmeter.Packets.Packet;
import io.linerate.sketches.flowtable.ExportReason;
import io.linerate.sketches.flowtable.FlowTable;
import java.time.Duration;
import java.util.List;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.junit.jupiter.api.Test;

/** Review of the flow meter's metrics against docs/operators/flow-meter.md. */
class FlowMeterMetricsTest {

    @Test
    void gaugesDescribeTheLastScopeTouchedAndCountersCountPackets() throws Exception {
        FlowMeter<Packet, String> meter = Packets.meter().capacity(16).stashCapacity(4)
                .idleTimeout(Duration.ofSeconds(60)).activeTimeout(Duration.ofSeconds(600)).build();
        Harnesses.Metrics m = new Harnesses.Metrics();
        OperatorSubtaskState snapshot;
        try (var h = Harnesses.open(meter, null, 1, 0, m)) {
            h.open();
            for (int flow = 0; flow < 200; flow++) {
                Harnesses.send(h, new Packet("a", flow, 0, 100, 1_000 + flow));
            }
            Harnesses.send(h, new Packet("b", 1, 0, 100, 2_000));
            Harnesses.send(h, new Packet("b", 2, 0, 100, 2_001));
            Packet bad = new Packet("b", 3, 0, -5, 2_002); // negative length: malformed
            Harnesses.send(h, bad);
            h.processWatermark(1_500);
            Harnesses.send(h, new Packet("b", 4, 0, 100, 1_000)); // late, metered
            assertThat(m.count("itemsProcessed")).isEqualTo(203);
            assertThat(m.count("malformedRecords")).isEqualTo(1);
            assertThat(m.count("lateRecords")).isEqualTo(1);
            assertThat(m.count("malformedBatches")).isZero();
            long evicted = h.extractOutputValues().stream().filter(f -> f.reason == ExportReason.EVICTED).count();
            assertThat(m.count("evictions")).isEqualTo(evicted).isPositive();
            assertThat(m.count("flowsExported")).isEqualTo(h.extractOutputValues().size());
            FlowTable b = FlowTable.fromByteArray(Harnesses.tableImage(h, "b"), r -> { });
            assertThat(m.gaugeValue("activeFlows")).isEqualTo(b.size()).isEqualTo(3);
            assertThat(m.gaugeValue("stashOccupancy")).isEqualTo(b.stashSize());
            assertThat(m.gaugeValue("stateBytesPerKey")).isEqualTo(b.memoryBytes());
            // scope a: its table's stash is in use after 200 flows into 16
            Harnesses.send(h, new Packet("a", 500, 0, 100, 2_100));
            FlowTable a = FlowTable.fromByteArray(Harnesses.tableImage(h, "a"), r -> { });
            assertThat(m.gaugeValue("activeFlows")).isEqualTo(a.size());
            assertThat(m.gaugeValue("stashOccupancy")).isEqualTo(a.stashSize()).isNotEqualTo(0);
            for (String g : List.of("cachedScopes", "stateReads", "stateWrites")) {
                assertThat(m.gaugeValue(g)).as(g).isNotNull();
            }
            snapshot = h.snapshot(1, 1);
        }
        Harnesses.Metrics restored = new Harnesses.Metrics();
        try (var h = Harnesses.open(meter, null, 1, 0, restored)) {
            h.initializeState(snapshot);
            h.open();
            assertThat(restored.count("itemsProcessed")).isZero();
            assertThat(restored.gaugeValue("activeFlows")).isEqualTo(0);
            assertThat(restored.gaugeValue("stateBytesPerKey")).isEqualTo(0L);
            Harnesses.send(h, new Packet("b", 1, 0, 100, 2_200));
            assertThat(restored.count("itemsProcessed")).isEqualTo(1);
            assertThat(restored.gaugeValue("activeFlows")).isEqualTo(3);
        }
    }
}
