package io.linerate.flink.flowmeter;

import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.flink.flowmeter.Packets.Packet;
import io.linerate.sketches.flowtable.ExportReason;
import java.time.Duration;
import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.junit.jupiter.api.Test;

/**
 * flow-meter.md, metric {@code stateWrites} on the heap backend: a write per record that metered a packet and per tick
 * timer that leaves flows in the table, re-armed or not (it said "per timer that re-armed"): a tick timer fired by the
 * final watermark sweeps and writes the table back without re-arming; the end-of-input timer clears the state.
 */
@SuppressWarnings("try")
class FlowMeterStateWritesDocTest {

    @Test
    void aTickTimerAtTheFinalWatermarkWritesWithoutReArming() throws Exception {
        FlowMeter<Packet, String> meter = Packets.meter().capacity(16).idleTimeout(Duration.ofSeconds(5))
                .activeTimeout(Duration.ofSeconds(20)).tick(Duration.ofMillis(500)).build();
        Harnesses.Metrics metrics = new Harnesses.Metrics();
        try (var h = Harnesses.open(meter, new HashMapStateBackend(), 1, 0, metrics)) {
            h.open();
            Harnesses.send(h, new Packet("a", 1, 2, 100, 1_000)); // one write; tick timer at 1500, end timer at MAX
            assertThat((Long) metrics.gaugeValue("stateWrites")).isEqualTo(1);
            h.processWatermark(Long.MAX_VALUE); // the tick timer fires (no re-arm), then the end timer flushes
            assertThat(h.numEventTimeTimers()).as("nothing re-armed").isZero();
            assertThat(h.extractOutputValues()).hasSize(1);
            long timerWrites = (Long) metrics.gaugeValue("stateWrites") - 1;
            assertThat(timerWrites).as("the tick timer's write (it left the flow in the table, not re-armed)")
                    .isEqualTo(1);
        }
    }

    /**
     * flow-meter.md, stateWrites: "a timer that empties the table, and the end-of-input timer, clear the state
     * instead" (of writing it). A tick timer fired by the final watermark whose sweep exports the last flow (idle at
     * the tick boundary) wrote the empty table back, then the end-of-input timer cleared it: one write too many (on
     * RocksDB a serialization of the whole empty table per scope at the end of input).
     */
    @Test
    void aTickTimerAtTheFinalWatermarkThatEmptiesTheTableClearsInsteadOfWriting() throws Exception {
        FlowMeter<Packet, String> meter = Packets.meter().capacity(16).idleTimeout(Duration.ofSeconds(1))
                .activeTimeout(Duration.ofSeconds(20)).tick(Duration.ofSeconds(5)).build();
        Harnesses.Metrics metrics = new Harnesses.Metrics();
        try (var h = Harnesses.open(meter, new HashMapStateBackend(), 1, 0, metrics)) {
            h.open();
            Harnesses.send(h, new Packet("a", 1, 2, 100, 1_000)); // one write; tick timer at 5000, end timer at MAX
            assertThat((Long) metrics.gaugeValue("stateWrites")).isEqualTo(1);
            h.processWatermark(Long.MAX_VALUE); // the tick timer's sweep at 5000 exports the flow (idle 4 s)
            assertThat(h.extractOutputValues()).singleElement()
                    .satisfies(f -> assertThat(f.reason).isEqualTo(ExportReason.IDLE_TIMEOUT));
            assertThat(h.numEventTimeTimers()).isZero();
            assertThat(Harnesses.tableImage(h, "a")).isNull();
            assertThat((Long) metrics.gaugeValue("stateWrites")).as("the emptying tick timer clears, writes nothing")
                    .isEqualTo(1);
        }
    }
}
