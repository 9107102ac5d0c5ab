package io.linerate.flink.flowmeter;

import static io.linerate.flink.flowmeter.Harnesses.BATCH;
import static io.linerate.flink.flowmeter.Harnesses.PACKET;
import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.flink.flowmeter.Packets.Batch;
import io.linerate.flink.flowmeter.Packets.Packet;
import io.linerate.flink.items.ElementsOf;
import io.linerate.flink.rejects.Rejected;
import io.linerate.sketches.flowtable.ExportReason;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Batch records ({@link FlowMeter#applyToBatches}): metering the packets of batches gives exactly what metering
 * the same packets one record at a time gives (records, side outputs, metrics, timers, table images), also for
 * batches that mix good, late and malformed packets, and across a snapshot and restore on heap and RocksDB.
 */
@SuppressWarnings("try") // the harness's close() may throw InterruptedException
class FlowMeterBatchTest {

    private static final int SCOPES = 8;
    private static final int EVERY = 50; // packets between watermarks
    private static final long LAG = 1_500;
    private static final int BATCH_SIZE = 6;
    private static final List<Packet> PACKETS = Packets.churn(3, 3_000, SCOPES);
    private static final int CUT = 1_525; // mid-stream, between two watermarks

    /** Small tables (evictions too), short timeouts; per-packet timestamps, the same for both runs. */
    private static FlowMeter<Packet, String> meter() {
        return Packets.meter().capacity(4).stashCapacity(2).idleTimeout(Duration.ofSeconds(5))
                .activeTimeout(Duration.ofSeconds(20)).tick(Duration.ofMillis(500)).timestamps(p -> p.ts).build();
    }

    private static StateBackend backend(String name) {
        return name.equals("rocksdb") ? new EmbeddedRocksDBStateBackend() : new HashMapStateBackend();
    }

    /** One step of a run: a batch (as one record, timestamp = its last packet's), or a watermark. */
    private record Step(Batch batch, long watermark) {
    }

    /**
     * Packets [from, to) as batches of up to {@link #BATCH_SIZE} consecutive packets of one scope, every open
     * batch closed before each watermark (every {@link #EVERY} packets), so each scope sees the same packets
     * between the same watermarks as in the single-record run.
     */
    private static List<Step> batched(List<Packet> packets, int from, int to) {
        List<Step> steps = new ArrayList<>();
        Map<String, List<Packet>> open = new LinkedHashMap<>();
        for (int i = from; i < to; i++) {
            Packet p = packets.get(i);
            List<Packet> batch = open.computeIfAbsent(p.scope, k -> new ArrayList<>());
            batch.add(p);
            if (batch.size() == BATCH_SIZE) {
                steps.add(new Step(new Batch(p.scope, batch), 0));
                open.remove(p.scope);
            }
            if ((i + 1) % EVERY == 0) {
                open.forEach((scope, b) -> steps.add(new Step(new Batch(scope, b), 0)));
                open.clear();
                steps.add(new Step(null, p.ts - LAG));
            }
        }
        open.forEach((scope, b) -> steps.add(new Step(new Batch(scope, b), 0)));
        return steps;
    }

    private static void feedBatches(KeyedOneInputStreamOperatorTestHarness<String, Batch, MeteredFlow<String>> h,
                                    List<Step> steps) throws Exception {
        for (Step s : steps) {
            if (s.batch() == null) {
                h.processWatermark(s.watermark());
            } else {
                h.processElement(new StreamRecord<>(s.batch(), s.batch().lastTimestamp()));
            }
        }
    }

    private static void feedSingles(KeyedOneInputStreamOperatorTestHarness<String, Packet, MeteredFlow<String>> h,
                                    int from, int to) throws Exception {
        for (int i = from; i < to; i++) {
            Packet p = PACKETS.get(i);
            Harnesses.send(h, p);
            if ((i + 1) % EVERY == 0) {
                h.processWatermark(p.ts - LAG);
            }
        }
    }

    private static Map<String, List<MeteredFlow<String>>> byScope(List<MeteredFlow<String>> flows) {
        Map<String, List<MeteredFlow<String>>> out = new java.util.TreeMap<>();
        for (MeteredFlow<String> f : flows) {
            out.computeIfAbsent(f.scope, k -> new ArrayList<>()).add(f);
        }
        return out;
    }

    private static final String[] COUNTERS = {"itemsProcessed", "malformedRecords", "lateRecords", "flowsExported",
            "flowsIdleTimeout", "flowsActiveTimeout", "evictions", "flowsFlushed"};

    private static Map<String, Long> counters(Harnesses.Metrics m) {
        Map<String, Long> out = new LinkedHashMap<>();
        for (String name : COUNTERS) {
            out.put(name, m.count(name));
        }
        return out;
    }

    private static Map<String, List<MeteredFlow<String>>> uninterruptedSingles() throws Exception {
        try (var h = Harnesses.open(meter(), null, 1, 0, null)) {
            h.open();
            feedSingles(h, 0, PACKETS.size());
            h.processWatermark(Long.MAX_VALUE);
            return byScope(h.extractOutputValues());
        }
    }

    @Test
    void batchesGiveTheSingleRecordRunsRecordsMetricsTimersAndTables() throws Exception {
        Harnesses.Metrics singleMetrics = new Harnesses.Metrics();
        Harnesses.Metrics batchMetrics = new Harnesses.Metrics();
        List<Step> steps = batched(PACKETS, 0, PACKETS.size());
        assertThat(steps.stream().filter(s -> s.batch() != null && s.batch().packets.length > 1).count())
                .as("most records are real batches").isGreaterThan(PACKETS.size() / BATCH_SIZE / 2);
        TreeSet<String> scopes = PACKETS.stream().map(p -> p.scope).collect(Collectors.toCollection(TreeSet::new));
        try (var single = Harnesses.open(meter(), null, 1, 0, singleMetrics);
             var batches = Harnesses.openBatches(meter(), null, 1, 0, batchMetrics)) {
            single.open();
            batches.open();
            feedSingles(single, 0, PACKETS.size());
            feedBatches(batches, steps);
            for (String scope : scopes) { // before the end of input: the tables themselves, byte for byte
                assertThat(Harnesses.tableImage(batches, scope)).as(scope)
                        .isEqualTo(Harnesses.tableImage(single, scope)).isNotNull();
            }
            assertThat(batches.numEventTimeTimers()).isEqualTo(single.numEventTimeTimers());
            single.processWatermark(Long.MAX_VALUE);
            batches.processWatermark(Long.MAX_VALUE);
            List<MeteredFlow<String>> out = batches.extractOutputValues();
            assertThat(byScope(out)).isEqualTo(byScope(single.extractOutputValues()));
            assertThat(out.stream().map(f -> f.reason).distinct()).hasSize(4); // idle, active, evicted, flushed
            assertThat(out.stream().mapToLong(f -> f.packets).sum()).isEqualTo(PACKETS.size());
        }
        assertThat(counters(batchMetrics)).isEqualTo(counters(singleMetrics));
        assertThat(batchMetrics.count("itemsProcessed")).as("counters count packets").isEqualTo(PACKETS.size());
        assertThat(batchMetrics.count("malformedBatches")).isZero();
    }

    @Test
    void aBatchMixingGoodLateAndMalformedPacketsDecidesPerPacketLikeSingleRecords() throws Exception {
        FlowMeter<Packet, String> meter = Packets.meter().capacity(64).idleTimeout(Duration.ofSeconds(10))
                .timestamps(p -> p.ts)
                .packets((p, sink) -> {
                    if (p.protocol == 99) {
                        return; // hands over nothing
                    }
                    sink.ipv4(p.src, p.dst, p.srcPort, p.dstPort, p.protocol);
                }).build();
        Packet badPort = new Packet("a", 2, 0, 100, 7_000);
        badPort.srcPort = 70_000;
        Packet nothing = new Packet("a", 4, 0, 100, 7_000);
        nothing.protocol = 99;
        List<Packet> first = List.of(new Packet("a", 1, 0x02, 100, 5_000), new Packet("a", 3, 0x02, 40, 5_500));
        List<Packet> mixed = List.of(
                new Packet("a", 1, 0x10, 200, 7_000),      // good
                badPort,                                    // malformed: port range
                new Packet("a", 3, 0x10, 60, 4_000),       // late (behind the 6 s watermark), metered all the same
                new Packet("a", 5, 0x10, -1, 7_000),       // malformed: negative length
                nothing,                                    // malformed: no 5-tuple
                new Packet("a", 6, 0x1_0000, 10, 7_000),   // malformed: flags
                new Packet("a", 1, 0x01, 300, 17_500),     // good; its flow's record idled out (10.5 s gap)
                new Packet("a", 7, 0x00, 50, 3_000));      // late, a new flow
        Harnesses.Metrics singleMetrics = new Harnesses.Metrics();
        Harnesses.Metrics batchMetrics = new Harnesses.Metrics();
        try (var single = Harnesses.open(meter, null, 1, 0, singleMetrics);
             var batches = Harnesses.openBatches(meter, null, 1, 0, batchMetrics)) {
            single.open();
            batches.open();
            for (Packet p : first) {
                Harnesses.send(single, p);
            }
            batches.processElement(new StreamRecord<>(new Batch("a", first), 5_500));
            single.processWatermark(6_000);
            batches.processWatermark(6_000);
            for (Packet p : mixed) {
                Harnesses.send(single, p);
            }
            batches.processElement(new StreamRecord<>(new Batch("a", mixed), 17_500));
            assertThat(Harnesses.tableImage(batches, "a")).isEqualTo(Harnesses.tableImage(single, "a"));
            assertThat(batches.numEventTimeTimers()).isEqualTo(single.numEventTimeTimers());
            single.processWatermark(Long.MAX_VALUE);
            batches.processWatermark(Long.MAX_VALUE);

            assertThat(batches.extractOutputValues()).isEqualTo(single.extractOutputValues())
                    .anyMatch(f -> f.srcPort == 1025 && f.reason == ExportReason.IDLE_TIMEOUT);
            List<Rejected<Packet>> rejected = rejected(batches, meter);
            assertThat(rejected).isEqualTo(rejected(single, meter));
            assertThat(rejected).extracting(r -> r.record).containsExactly(badPort, mixed.get(3), nothing,
                    mixed.get(5));
        }
        assertThat(counters(batchMetrics)).isEqualTo(counters(singleMetrics));
        assertThat(batchMetrics.count("lateRecords")).isEqualTo(2);
        assertThat(batchMetrics.count("malformedRecords")).isEqualTo(4);
        assertThat(batchMetrics.count("itemsProcessed")).isEqualTo(6);
    }

    private static <I> List<Rejected<Packet>> rejected(
            KeyedOneInputStreamOperatorTestHarness<String, I, MeteredFlow<String>> h, FlowMeter<Packet, String> m) {
        return h.getSideOutput(m.malformedTag(PACKET)).stream().map(StreamRecord::getValue)
                .collect(Collectors.toList());
    }

    @Test
    void withoutATimestampSelectorEveryPacketTakesTheBatchRecordsTimestamp() throws Exception {
        FlowMeter<Packet, String> meter = Packets.meter().capacity(64).build(); // Flink timestamps
        Harnesses.Metrics metrics = new Harnesses.Metrics();
        try (var h = Harnesses.openBatches(meter, null, 1, 0, metrics)) {
            h.open();
            List<Packet> three = List.of(new Packet("a", 1, 0, 10, 1), new Packet("a", 1, 0, 20, 2),
                    new Packet("a", 2, 0, 30, 3));
            h.processElement(new StreamRecord<>(new Batch("a", three), 5_000));
            h.processElement(new StreamRecord<>(new Batch("a", three))); // no timestamp: every packet malformed
            h.processWatermark(Long.MAX_VALUE);
            assertThat(h.extractOutputValues()).extracting(f -> f.srcPort, f -> f.packets, f -> f.firstTimestamp,
                    f -> f.lastTimestamp).containsExactlyInAnyOrder(
                    org.assertj.core.groups.Tuple.tuple(1025, 2L, 5_000L, 5_000L),
                    org.assertj.core.groups.Tuple.tuple(1026, 1L, 5_000L, 5_000L));
            assertThat(rejected(h, meter)).extracting(r -> r.record).containsExactlyElementsOf(three);
            assertThat(rejected(h, meter)).allMatch(r -> r.reason.contains("timestamp missing"));
            assertThat(metrics.count("itemsProcessed")).isEqualTo(3);
            assertThat(metrics.count("malformedRecords")).isEqualTo(3);
        }
    }

    @Test
    void aBatchThatCannotBeListedGoesToTheMalformedBatchesOutputAndItsListedPacketsStayMetered()
            throws Exception {
        FlowMeter<Packet, String> meter = Packets.meter().capacity(64).timestamps(p -> p.ts).build();
        ElementsOf<Batch, Packet> failing = (batch, each) -> {
            for (Packet p : batch.packets) {
                if (p == null) {
                    throw new IllegalStateException("corrupt batch");
                }
                each.accept(p);
            }
        };
        Harnesses.Metrics metrics = new Harnesses.Metrics();
        var env = new org.apache.flink.runtime.operators.testutils.MockEnvironmentBuilder()
                .setMaxParallelism(Harnesses.MAX_PARALLELISM).setMetricGroup(metrics).build();
        try (var h = new KeyedOneInputStreamOperatorTestHarness<String, Batch, MeteredFlow<String>>(
                new org.apache.flink.streaming.api.operators.KeyedProcessOperator<>(
                        meter.batchFunction(BATCH, PACKET, failing)), b -> b.scope,
                org.apache.flink.api.common.typeinfo.Types.STRING, env)) {
            h.open();
            Batch corrupt = new Batch("a", List.of(new Packet("a", 1, 0, 10, 1_000), new Packet("a", 2, 0, 10, 1_000)));
            corrupt.packets = java.util.Arrays.copyOf(corrupt.packets, 3); // a null third element
            h.processElement(new StreamRecord<>(corrupt, 1_000));
            h.processWatermark(Long.MAX_VALUE);
            assertThat(h.getSideOutput(meter.malformedBatchesTag(BATCH))).singleElement().satisfies(r -> {
                assertThat(r.getValue().record.packets).containsExactly(corrupt.packets); // a copy
                assertThat(r.getValue().reason).contains("after 2 packets").contains("corrupt batch");
            });
            assertThat(h.extractOutputValues()).hasSize(2);
            assertThat(metrics.count("malformedBatches")).isEqualTo(1);
            assertThat(metrics.count("itemsProcessed")).isEqualTo(2);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"heap", "rocksdb"})
    void snapshotMidStreamWithBatchesAndRestoreContinuesExactly(String backend) throws Exception {
        Map<String, List<MeteredFlow<String>>> expected = uninterruptedSingles();
        List<MeteredFlow<String>> all = new ArrayList<>();
        OperatorSubtaskState snapshot;
        try (var h = Harnesses.openBatches(meter(), backend(backend), 1, 0, null)) {
            h.open();
            feedBatches(h, batched(PACKETS, 0, CUT));
            snapshot = h.snapshot(1, PACKETS.get(CUT).ts);
            all.addAll(h.extractOutputValues());
        }
        try (var h = Harnesses.openBatches(meter(), backend(backend), 1, 0, null)) {
            h.initializeState(snapshot);
            h.open();
            assertThat(h.getOperator().getKeyedStateBackend().getClass().getSimpleName())
                    .startsWith(backend.equals("rocksdb") ? "RocksDB" : "Heap");
            feedBatches(h, batched(PACKETS, CUT, PACKETS.size()));
            h.processWatermark(Long.MAX_VALUE);
            all.addAll(h.extractOutputValues());
        }
        assertThat(all.stream().map(f -> f.reason).distinct()).hasSize(4);
        assertThat(byScope(all)).isEqualTo(expected);
        assertThat(all.stream().mapToLong(f -> f.packets).sum()).isEqualTo(PACKETS.size());
    }
}
