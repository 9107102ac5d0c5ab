package io.linerate.flink.flowmeter;

import static io.linerate.flink.flowmeter.Harnesses.send;
import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.flink.flowmeter.Packets.Packet;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * flow-meter.md, Late packets: the table holds one record per flow, so a late packet of a flow whose earlier record
 * was exported joins the flow's current record, whose first timestamp then moves back into (or before) the range of
 * the record exported before it. The flow's records overlap in time; packets and bytes are still each counted once.
 */
class FlowMeterLatePacketTest {

    @Test
    void aLatePacketOfAnExportedRecordJoinsTheFlowsCurrentRecord() throws Exception {
        FlowMeter<Packet, String> meter = Packets.meter().capacity(64).idleTimeout(Duration.ofSeconds(10))
                .activeTimeout(Duration.ofMinutes(1)).tick(Duration.ofSeconds(1)).build();
        try (var h = Harnesses.open(meter, null, 1, 0, new Harnesses.Metrics())) {
            h.open();
            send(h, new Packet("a", 1, 0, 100, 0));
            send(h, new Packet("a", 1, 0, 100, 1_000));
            send(h, new Packet("a", 1, 0, 100, 15_000)); // idle 14 s: the record [0, 1000] leaves, a new one starts
            h.processWatermark(15_000);
            send(h, new Packet("a", 1, 0, 100, 500)); // late, of the exported record's time: joins the current one
            h.processWatermark(Long.MAX_VALUE);
            assertThat(h.extractOutputValues()).extracting(f -> f.firstTimestamp + ".." + f.lastTimestamp + " "
                    + f.packets + " " + f.reason).containsExactly("0..1000 2 IDLE_TIMEOUT", "500..15000 2 FLUSHED");
        }
    }
}
