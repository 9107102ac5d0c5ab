package io.linerate.flink.flowmeter;

import static io.linerate.flink.flowmeter.Harnesses.MAX_PARALLELISM;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.linerate.flink.flowmeter.Packets.Packet;
import io.linerate.sketches.flowtable.ExportReason;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.util.AbstractStreamOperatorTestHarness;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Snapshot mid-stream and restore into fresh harnesses (heap and embedded RocksDB backends, same and other
 * parallelism): the output equals the uninterrupted run's, record for record and in order per scope.
 */
@SuppressWarnings("try") // the harness's close() may throw InterruptedException
class FlowMeterRestoreTest {

    private static final int SCOPES = 8;
    private static final int EVERY = 50; // packets between watermarks
    private static final long LAG = 1_500;

    /** Small tables (evictions happen too) and short timeouts, so every reason occurs on both sides of the cut. */
    private static FlowMeter<Packet, String> meter() {
        return Packets.meter().capacity(4).stashCapacity(2).idleTimeout(Duration.ofSeconds(5))
                .activeTimeout(Duration.ofSeconds(20)).tick(Duration.ofMillis(500)).build();
    }

    private static StateBackend backend(String name) {
        return name.equals("rocksdb") ? new EmbeddedRocksDBStateBackend() : new HashMapStateBackend();
    }

    private static final List<Packet> PACKETS = Packets.churn(3, 3_000, SCOPES);
    private static final int CUT = 1_525; // mid-stream, between two watermarks

    /** The uninterrupted run at parallelism 1: records per scope, in order. */
    private static Map<String, List<MeteredFlow<String>>> uninterrupted(String backend) throws Exception {
        try (var h = Harnesses.open(meter(), backend(backend), 1, 0, null)) {
            h.open();
            feed(h, 0, PACKETS.size(), null);
            h.processWatermark(Long.MAX_VALUE);
            return byScope(h.extractOutputValues());
        }
    }

    /** Feeds packets [from, to) that belong to {@code owner} (null: all) and every watermark of that range. */
    private static void feed(KeyedOneInputStreamOperatorTestHarness<String, Packet, MeteredFlow<String>> h, int from,
                             int to, java.util.function.Predicate<String> owner) throws Exception {
        for (int i = from; i < to; i++) {
            Packet p = PACKETS.get(i);
            if (owner == null || owner.test(p.scope)) {
                Harnesses.send(h, p);
            }
            if ((i + 1) % EVERY == 0) {
                h.processWatermark(p.ts - LAG);
            }
        }
    }

    private static Map<String, List<MeteredFlow<String>>> byScope(List<MeteredFlow<String>> flows) {
        Map<String, List<MeteredFlow<String>>> out = new LinkedHashMap<>();
        for (MeteredFlow<String> f : flows) {
            out.computeIfAbsent(f.scope, k -> new ArrayList<>()).add(f);
        }
        return out;
    }

    private static void append(Map<String, List<MeteredFlow<String>>> into, List<MeteredFlow<String>> flows) {
        byScope(flows).forEach((k, v) -> into.computeIfAbsent(k, x -> new ArrayList<>()).addAll(v));
    }

    @ParameterizedTest
    @ValueSource(strings = {"heap", "rocksdb"})
    void restoreIntoAFreshHarnessContinuesExactly(String backend) throws Exception {
        // every backend must give the heap run's records
        Map<String, List<MeteredFlow<String>>> expected = uninterrupted("heap");
        List<MeteredFlow<String>> all = new ArrayList<>();
        OperatorSubtaskState snapshot;
        try (var h = Harnesses.open(meter(), backend(backend), 1, 0, null)) {
            h.open();
            feed(h, 0, CUT, null);
            snapshot = h.snapshot(1, PACKETS.get(CUT).ts);
            all.addAll(h.extractOutputValues());
        }
        try (var h = Harnesses.open(meter(), backend(backend), 1, 0, null)) {
            h.initializeState(snapshot);
            h.open();
            assertThat(h.getOperator().getKeyedStateBackend().getClass().getSimpleName())
                    .startsWith(backend.equals("rocksdb") ? "RocksDB" : "Heap");
            feed(h, CUT, PACKETS.size(), null);
            h.processWatermark(Long.MAX_VALUE);
            all.addAll(h.extractOutputValues());
        }
        assertThat(all.stream().map(f -> f.reason).distinct()).hasSize(4); // idle, active, evicted, flushed
        assertThat(byScope(all)).isEqualTo(expected);
        assertThat(all.stream().mapToLong(f -> f.packets).sum()).isEqualTo(PACKETS.size());
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 4})
    void rescaleFromOneToMore(int parallelism) throws Exception {
        Map<String, List<MeteredFlow<String>>> expected = uninterrupted("heap");
        Map<String, List<MeteredFlow<String>>> got = new LinkedHashMap<>();
        OperatorSubtaskState snapshot;
        try (var h = Harnesses.open(meter(), null, 1, 0, null)) {
            h.open();
            feed(h, 0, CUT, null);
            snapshot = h.snapshot(1, PACKETS.get(CUT).ts);
            append(got, h.extractOutputValues());
        }
        for (int subtask = 0; subtask < parallelism; subtask++) {
            OperatorSubtaskState part = AbstractStreamOperatorTestHarness.repartitionOperatorState(snapshot,
                    MAX_PARALLELISM, 1, parallelism, subtask);
            continueOn(part, parallelism, subtask, got);
        }
        assertThat(got).isEqualTo(expected);
    }

    @ParameterizedTest
    @ValueSource(strings = {"heap", "rocksdb"})
    void rescaleFromFourToOne(String backend) throws Exception {
        // every backend must give the heap run's records
        Map<String, List<MeteredFlow<String>>> expected = uninterrupted("heap");
        Map<String, List<MeteredFlow<String>>> got = new LinkedHashMap<>();
        OperatorSubtaskState[] snapshots = new OperatorSubtaskState[4];
        for (int subtask = 0; subtask < 4; subtask++) {
            int s = subtask;
            try (var h = Harnesses.open(meter(), backend(backend), 4, subtask, null)) {
                h.open();
                feed(h, 0, CUT, scope -> owner(scope, 4) == s);
                snapshots[subtask] = h.snapshot(1, PACKETS.get(CUT).ts);
                append(got, h.extractOutputValues());
            }
        }
        OperatorSubtaskState merged = AbstractStreamOperatorTestHarness.repartitionOperatorState(
                AbstractStreamOperatorTestHarness.repackageState(snapshots), MAX_PARALLELISM, 4, 1, 0);
        try (var h = Harnesses.open(meter(), backend(backend), 1, 0, null)) {
            h.initializeState(merged);
            h.open();
            feed(h, CUT, PACKETS.size(), null);
            h.processWatermark(Long.MAX_VALUE);
            append(got, h.extractOutputValues());
        }
        assertThat(got).isEqualTo(expected);
        assertThat(got.values().stream().flatMap(List::stream).mapToLong(f -> f.packets).sum())
                .isEqualTo(PACKETS.size());
    }

    @Test
    void restoredScopesTakeTheTimeoutsTheJobIsNowConfiguredWith() throws Exception {
        OperatorSubtaskState snapshot;
        try (var h = Harnesses.open(Packets.meter().capacity(64).idleTimeout(Duration.ofSeconds(60)).build(), null,
                1, 0, null)) {
            h.open();
            Harnesses.send(h, new Packet("a", 1, 0, 100, 1_000));
            snapshot = h.snapshot(1, 1_000);
            assertThat(h.extractOutputValues()).isEmpty();
        }
        try (var h = Harnesses.open(Packets.meter().capacity(64).idleTimeout(Duration.ofSeconds(1)).build(), null,
                1, 0, null)) {
            h.initializeState(snapshot);
            h.open();
            h.processWatermark(20_000); // idle for 19 s: past the new 1 s timeout, not the old 60 s
            assertThat(h.extractOutputValues()).singleElement().satisfies(f -> {
                assertThat(f.reason).isEqualTo(ExportReason.IDLE_TIMEOUT);
                assertThat(f.packets).isEqualTo(1);
            });
        }
    }

    /**
     * flow-meter.md: "the overflow policy [is] behaviour, not layout: a restored table takes the values the meter is
     * configured with now". Saved with EVICT_LEAST_RECENT, restored with EXPORT_NEW: once the table is full, the
     * flow that finds no slot is the one exported (its own packet), the flows in the table stay. Under the saved
     * policy the least recent flow in the table would leave instead.
     */
    @ParameterizedTest
    @ValueSource(strings = {"heap", "rocksdb"})
    void restoredScopesTakeTheOverflowPolicyTheJobIsNowConfiguredWith(String backend) throws Exception {
        OperatorSubtaskState snapshot;
        try (var h = Harnesses.open(Packets.meter().capacity(4).stashCapacity(2)
                .overflow(io.linerate.sketches.flowtable.OverflowPolicy.EVICT_LEAST_RECENT).build(), backend(backend),
                1, 0, null)) {
            h.open();
            Harnesses.send(h, new Packet("a", 0, 0, 100, 1_000));
            snapshot = h.snapshot(1, 1_000);
            assertThat(h.extractOutputValues()).isEmpty();
        }
        try (var h = Harnesses.open(Packets.meter().capacity(4).stashCapacity(2)
                .overflow(io.linerate.sketches.flowtable.OverflowPolicy.EXPORT_NEW).build(), backend(backend), 1, 0,
                null)) {
            h.initializeState(snapshot);
            h.open();
            int flow = 1;
            for (; flow < 1_000 && h.extractOutputValues().isEmpty(); flow++) {
                Harnesses.send(h, new Packet("a", flow, 0, 100, 1_000 + flow));
            }
            int refused = flow - 1;
            assertThat(h.extractOutputValues()).as("the first export once the table is full").singleElement()
                    .satisfies(f -> {
                        assertThat(f.reason).isEqualTo(ExportReason.EVICTED);
                        assertThat(f.fiveTuple()).as("the new flow, refused (EXPORT_NEW)")
                                .isEqualTo(new Packet("a", refused, 0, 100, 0).tuple());
                        assertThat(f.packets).isEqualTo(1);
                    });
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"heap", "rocksdb"})
    void restoringIntoATableOfAnotherCapacityFailsNamingTheField(String backend) throws Exception {
        OperatorSubtaskState snapshot;
        try (var h = Harnesses.open(Packets.meter().capacity(64).build(), backend(backend), 1, 0, null)) {
            h.open();
            Harnesses.send(h, new Packet("a", 1, 0, 100, 1_000));
            snapshot = h.snapshot(1, 1_000);
        }
        try (var h = Harnesses.open(Packets.meter().capacity(128).build(), backend(backend), 1, 0, null)) {
            h.initializeState(snapshot);
            assertThatThrownBy(() -> {
                h.open();
                Harnesses.send(h, new Packet("a", 1, 0, 100, 2_000)); // RocksDB checks on first access
            }).hasStackTraceContaining("capacity");
        }
    }

    private static int owner(String scope, int parallelism) {
        return KeyGroupRangeAssignment.assignKeyToParallelOperator(scope, MAX_PARALLELISM, parallelism);
    }

    private static void continueOn(OperatorSubtaskState state, int parallelism, int subtask,
                                   Map<String, List<MeteredFlow<String>>> got) throws Exception {
        try (var h = Harnesses.open(meter(), null, parallelism, subtask, null)) {
            h.initializeState(state);
            h.open();
            feed(h, CUT, PACKETS.size(), scope -> owner(scope, parallelism) == subtask);
            h.processWatermark(Long.MAX_VALUE);
            append(got, h.extractOutputValues());
        }
    }
}
