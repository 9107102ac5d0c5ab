package io.linerate.flink.flowmeter;

import static io.linerate.flink.flowmeter.Harnesses.send;
import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.flink.flowmeter.Packets.Packet;
import io.linerate.sketches.flowtable.ExportReason;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A scope whose table a timer freed keeps its "now" (docs/operators/flow-meter.md: a scope's now is the largest
 * packet timestamp it has seen, moved on by its timer; a late packet whose record is expired at now starts a new
 * record): late packets after the scope went quiet are cut into records as in a scope that stayed live.
 */
@SuppressWarnings("try")
class FlowMeterFreedScopeTest {

    private static FlowMeter<Packet, String> meter() {
        return Packets.meter().capacity(64).idleTimeout(Duration.ofSeconds(10)).activeTimeout(Duration.ofMinutes(1))
                .tick(Duration.ofSeconds(1)).build();
    }

    /** Flow 2's records: two late packets 15 s behind the watermark, after flow 1 (and maybe flow 3) was sent. */
    private static List<MeteredFlow<String>> flow2(boolean otherFlowKeepsTheScopeLive) throws Exception {
        try (var h = Harnesses.open(meter(), null, 1, 0, new Harnesses.Metrics())) {
            h.open();
            send(h, new Packet("a", 1, 0, 100, 0));
            if (otherFlowKeepsTheScopeLive) {
                send(h, new Packet("a", 3, 0, 100, 19_500));
            }
            h.processWatermark(20_000); // flow 1 idles out; without flow 3 the scope's table is freed
            assertThat(Harnesses.tableImage(h, "a") != null).isEqualTo(otherFlowKeepsTheScopeLive);
            send(h, new Packet("a", 2, 0, 100, 5_000)); // late, and idle at the scope's now (20 s)
            send(h, new Packet("a", 2, 0, 100, 5_500)); // late: its record is expired at now, so a new one
            h.processWatermark(Long.MAX_VALUE);
            return h.extractOutputValues().stream().filter(f -> f.srcPort == new Packet("a", 2, 0, 0, 0).srcPort)
                    .toList();
        }
    }

    /** The same across a snapshot taken while the scope's table is freed, restored into a fresh harness. */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"heap", "rocksdb"})
    void aFreedScopesNowSurvivesARestore(String backend) throws Exception {
        org.apache.flink.runtime.checkpoint.OperatorSubtaskState snapshot;
        try (var h = Harnesses.open(meter(), backend(backend), 1, 0, new Harnesses.Metrics())) {
            h.open();
            send(h, new Packet("a", 1, 0, 100, 0));
            h.processWatermark(20_000);
            snapshot = h.snapshot(1, 1);
        }
        try (var h = Harnesses.open(meter(), backend(backend), 1, 0, new Harnesses.Metrics())) {
            h.initializeState(snapshot);
            h.open();
            send(h, new Packet("a", 2, 0, 100, 5_000));
            send(h, new Packet("a", 2, 0, 100, 5_500));
            h.processWatermark(Long.MAX_VALUE);
            assertThat(h.extractOutputValues()).extracting(f -> f.packets, f -> f.firstTimestamp, f -> f.reason)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple(1L, 5_000L, ExportReason.IDLE_TIMEOUT),
                            org.assertj.core.groups.Tuple.tuple(1L, 5_500L, ExportReason.IDLE_TIMEOUT));
        }
    }

    private static org.apache.flink.runtime.state.StateBackend backend(String name) {
        return name.equals("rocksdb") ? new org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend()
                : new org.apache.flink.runtime.state.hashmap.HashMapStateBackend();
    }

    @Test
    void latePacketsAfterTheScopeWentQuietAreCutAtTheScopesNow() throws Exception {
        List<MeteredFlow<String>> live = flow2(true);
        assertThat(live).extracting(f -> f.packets, f -> f.firstTimestamp, f -> f.reason).containsExactly(
                org.assertj.core.groups.Tuple.tuple(1L, 5_000L, ExportReason.IDLE_TIMEOUT),
                org.assertj.core.groups.Tuple.tuple(1L, 5_500L, ExportReason.IDLE_TIMEOUT));
        // the same packets of the same flow must not be metered differently because an unrelated flow of the
        // scope happened to end (freeing the scope's table) before they came
        assertThat(flow2(false)).isEqualTo(live);
    }
}
