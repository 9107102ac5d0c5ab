package io.linerate.flink.flowmeter;

import static io.linerate.flink.flowmeter.Harnesses.send;
import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.flink.flowmeter.Packets.Packet;
import java.time.Duration;
import java.util.List;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A freed scope keeps its now (state {@code freedNow}) until the final watermark, and not after it: with churning
 * scope keys the state would otherwise keep one long per scope key ever seen. The records emitted are those of
 * the scopes' packets, the freed now doing its part for the late packets before the end.
 */
class FlowMeterFreedScopeEndTest {

    private static final int SCOPES = 50;

    private static FlowMeter<Packet, String> meter() {
        return Packets.meter().capacity(64).idleTimeout(Duration.ofSeconds(10)).activeTimeout(Duration.ofMinutes(1))
                .tick(Duration.ofSeconds(1)).build();
    }

    private static StateBackend backend(String name) {
        return name.equals("rocksdb") ? new EmbeddedRocksDBStateBackend() : new HashMapStateBackend();
    }

    /** Scope keys whose freed now is in state. */
    private static List<String> freedScopes(KeyedOneInputStreamOperatorTestHarness<String, Packet, ?> h)
            throws Exception {
        try (var keys = h.getOperator().getKeyedStateBackend().<VoidNamespace>getKeys("freedNow",
                VoidNamespace.INSTANCE)) {
            return keys.map(Object::toString).sorted().toList();
        }
    }

    /**
     * Churning scope keys, each sending one flow and going quiet, then two late packets of a freed scope, then the
     * final watermark: the records emitted, and (with {@code endPass}, the operator {@link FlowMeter#apply} runs)
     * the freed nows left in state after the end. Without it (a bare {@code KeyedProcessOperator}, which has no
     * end-of-event-time pass) the operator behaves as before the nows were cleared.
     */
    private static List<String> run(String backend, boolean endPass) throws Exception {
        try (var h = Harnesses.open(meter(), backend(backend), 1, 0, new Harnesses.Metrics(), endPass)) {
            h.open();
            for (int s = 0; s < SCOPES; s++) {
                send(h, new Packet("scope-" + s, 1, 0, 100, 1_000L * s));
            }
            h.processWatermark(100_000); // every flow idles out: every table is freed, its now kept
            assertThat(freedScopes(h)).hasSize(SCOPES);
            send(h, new Packet("scope-0", 2, 0, 100, 5_000)); // late: judged at the freed now 100 s
            send(h, new Packet("scope-0", 2, 0, 100, 5_500)); // expired at now: a second record
            assertThat(freedScopes(h)).hasSize(SCOPES - 1); // scope-0 has a table again
            h.processWatermark(Long.MAX_VALUE);
            assertThat(Harnesses.tableImage(h, "scope-0")).isNull();
            if (endPass) {
                assertThat(freedScopes(h)).as("freed nows after the final watermark").isEmpty();
            }
            var out = h.extractOutputValues();
            assertThat(out.stream().filter(f -> f.scope.equals("scope-0")).map(f -> f.firstTimestamp + ":"
                    + f.packets + ":" + f.reason)).containsExactly("0:1:IDLE_TIMEOUT", "5000:1:IDLE_TIMEOUT",
                    "5500:1:IDLE_TIMEOUT");
            return out.stream().map(f -> f.scope + " " + f.srcPort + " " + f.firstTimestamp + " " + f.lastTimestamp
                    + " " + f.packets + " " + f.bytes + " " + f.reason).toList();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"heap", "rocksdb"})
    void theFinalWatermarkClearsEveryFreedScopesNowAndTheRecordsAreUnchanged(String backend) throws Exception {
        List<String> cleared = run(backend, true);
        assertThat(cleared).hasSize(SCOPES + 2);
        assertThat(cleared).isEqualTo(run(backend, false));
    }
}
