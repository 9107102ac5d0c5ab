package io.linerate.flink.heavyhitters;

import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.flink.heavyhitters.Fixtures.Event;
import io.linerate.flink.serializers.SnapshotFixture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.IntStream;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.checkpoint.SavepointType;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.streaming.util.OperatorSnapshotUtil;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The heavy-hitters state as released first (layout 1: one {@code WindowRing} per scope key in the value state
 * {@code heavy-hitter-windows}) still restores: canonical savepoints of the operator taken mid-stream by that layout's
 * operator, on the heap and on RocksDB, are committed under {@code src/test/resources/operator-snapshots/heavy-hitters/}; restored into
 * the current operator on either backend, the reports and alerts that follow equal those of an uninterrupted run of
 * the current operator, and the restored state is the current layout from then on (the first layout's state is empty, and a
 * snapshot of the restored operator restores again to the same output).
 *
 * <p>The fixtures were written with {@link #writeFixtures} (on demand only:
 * {@code -Dtest=HeavyHittersStateUpgradeTest -Dlinerate.writeSnapshotFixtures=true}) at commit "HeavyHittersStateUpgradeTest:
 * operator snapshots of the first state layout", before the layout changed.
 */
class HeavyHittersStateUpgradeTest {

    private static final List<String> LINKS = IntStream.range(0, 12).mapToObj(i -> "link-" + i).toList();
    private static final List<Event> EVENTS = withFinalWatermark(Fixtures.zipfStream(LINKS, 6, 1000, 300, 21));
    /** Mid-stream, inside sub-window 3 (a window of three sub-windows is open). */
    private static final int SPLIT = EVENTS.size() / 2 + 101;
    private static final Path DIRECTORY = Path.of("src/test/resources/operator-snapshots/heavy-hitters");

    private static HeavyHitterDetector<Tuple3<String, Long, Integer>, String> detector() {
        return Fixtures.builder().weight(r -> r.f2).sliding(Duration.ofSeconds(3), Duration.ofSeconds(1)).topK(5)
                .phi(0.02).capacity(60).alertAtFraction(0.05, 2_000).build();
    }

    private static List<Event> withFinalWatermark(List<Event> events) {
        List<Event> all = new ArrayList<>(events);
        all.add(Event.watermark(Long.MAX_VALUE));
        return all;
    }

    private static KeyedOneInputStreamOperatorTestHarness<String, Tuple3<String, Long, Integer>,
            HeavyHitterReport<String>> harness(boolean rocksDb) throws Exception {
        var h = Fixtures.harness(detector(), 1, 0);
        if (rocksDb) {
            h.setStateBackend(new EmbeddedRocksDBStateBackend());
        }
        return h;
    }

    private static Path fixture(String backend) {
        return DIRECTORY.resolve("v1-" + backend + ".snapshot");
    }

    /** Writes the fixtures; refuses to replace one that exists (a committed fixture stands for users' checkpoints). */
    @Test
    @EnabledIfSystemProperty(named = SnapshotFixture.WRITE_PROPERTY, matches = "true")
    void writeFixtures() throws Exception {
        Files.createDirectories(DIRECTORY);
        for (boolean rocksDb : new boolean[] {false, true}) {
            Path file = fixture(rocksDb ? "rocksdb" : "heap");
            assertThat(file).as("a committed fixture is never rewritten").doesNotExist();
            try (var h = harness(rocksDb)) {
                h.open();
                Fixtures.feed(h, EVENTS.subList(0, SPLIT));
                // a canonical savepoint: what users keep across upgrades, and restorable on either backend
                OperatorSnapshotUtil.writeStateHandle(h.snapshotWithLocalState(1, 1,
                        SavepointType.savepoint(SavepointFormatType.CANONICAL)).getJobManagerOwnedState(),
                        file.toString());
            }
            System.out.println("[HeavyHittersStateUpgradeTest] wrote " + file + " (" + Files.size(file) + " bytes)");
        }
    }

    /** What the current operator emits after the split when it runs the whole stream without a stop. */
    private static List<String> uninterruptedAfterSplit() throws Exception {
        try (var h = harness(false)) {
            h.open();
            Fixtures.feed(h, EVENTS.subList(0, SPLIT));
            Fixtures.drain(h);
            Fixtures.feed(h, EVENTS.subList(SPLIT, EVENTS.size()));
            return Fixtures.drain(h);
        }
    }

    @ParameterizedTest(name = "{0} fixture restored on {1}")
    @CsvSource({"heap, heap", "heap, rocksdb", "rocksdb, rocksdb", "rocksdb, heap"})
    void theFirstLayoutRestoresAndContinuesAsAnUninterruptedRun(String written, String restoredOn) throws Exception {
        Path file = fixture(written);
        assertThat(file).as("committed fixture").exists();
        OperatorSubtaskState v1 = OperatorSnapshotUtil.readStateHandle(file.toString());
        List<String> expected = uninterruptedAfterSplit();
        assertThat(expected).as("the rest of the stream reports windows and alerts").hasSizeGreaterThan(30)
                .anyMatch(s -> s.startsWith("Alert"));
        boolean rocksDb = restoredOn.equals("rocksdb");
        OperatorSubtaskState again;
        List<String> firstPart;
        int middle = SPLIT + (EVENTS.size() - SPLIT) / 2;
        try (var h = harness(rocksDb)) {
            h.initializeState(v1);
            h.open();
            assertThat(keysOf(h, HeavyHittersBatchOperator.LAYOUT_1_STATE)).as("keys left in the first layout")
                    .isZero();
            assertThat(keysOf(h, HeavyHittersBatchOperator.OPEN_SUB_WINDOWS_STATE)).as("keys moved to the current one")
                    .isEqualTo(LINKS.size());
            Fixtures.feed(h, EVENTS.subList(SPLIT, middle));
            firstPart = Fixtures.drain(h);
            again = h.snapshot(2, 2);
        }
        try (var h = harness(rocksDb)) {
            h.initializeState(again);
            h.open();
            Fixtures.feed(h, EVENTS.subList(middle, EVENTS.size()));
            List<String> after = new ArrayList<>(firstPart);
            after.addAll(Fixtures.drain(h));
            assertThat(byKey(after)).isEqualTo(byKey(expected));
        }
    }

    /**
     * A layout-1 ring grown past n slots, one freed again, alerted items in the others ({@link WindowRingFixtures}),
     * written as the first layout held it, moves to layout 2 whole: the index lists its open sub-windows and each map
     * entry equals its slot (tracker image and alerted hashes), on both backends.
     */
    @ParameterizedTest(name = "rocksDb={0}")
    @ValueSource(booleans = {false, true})
    void aGrownRingWithAlertsMovesSlotBySlot(boolean rocksDb) throws Exception {
        HeavyHitterDetector<?, ?> fixtureDetector = WindowRingFixtures.detectors().get("space-saving");
        @SuppressWarnings("unchecked")
        var detector = (HeavyHitterDetector<Tuple3<String, Long, Integer>, String>) fixtureDetector;
        WindowRing ring = WindowRingFixtures.ring(detector);
        OperatorSubtaskState layout1;
        try (var h = Fixtures.harness(detector, 1, 0)) {
            if (rocksDb) {
                h.setStateBackend(new EmbeddedRocksDBStateBackend());
            }
            h.open();
            var backend = h.getOperator().getKeyedStateBackend();
            backend.setCurrentKey("a");
            backend.getPartitionedState(VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE,
                    new ValueStateDescriptor<>(HeavyHittersBatchOperator.LAYOUT_1_STATE,
                            new WindowRingTypeInfo(detector.shape()))).update(ring);
            layout1 = h.snapshot(1, 1);
        }
        try (var h = Fixtures.harness(detector, 1, 0)) {
            if (rocksDb) {
                h.setStateBackend(new EmbeddedRocksDBStateBackend());
            }
            h.initializeState(layout1);
            h.open();
            var backend = h.getOperator().getKeyedStateBackend();
            backend.setCurrentKey("a");
            long[] open = backend.getPartitionedState(VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE,
                    new ValueStateDescriptor<>(HeavyHittersBatchOperator.OPEN_SUB_WINDOWS_STATE,
                            new OpenSubWindowsTypeInfo())).value();
            assertThat(open).containsExactly(101, 102, 103);
            MapState<Long, SubWindow> windows = backend.getPartitionedState(VoidNamespace.INSTANCE,
                    VoidNamespaceSerializer.INSTANCE, new MapStateDescriptor<>(
                            HeavyHittersBatchOperator.SUB_WINDOWS_STATE, Types.LONG, new SubWindowTypeInfo()));
            for (long sub : open) {
                assertThat(SubWindowFixtures.contents(windows.get(sub))).as("sub-window %d", sub)
                        .isEqualTo(SubWindowFixtures.contents(ring.window(ring.find(sub))));
            }
            assertThat(keysOf(h, HeavyHittersBatchOperator.LAYOUT_1_STATE)).isZero();
        }
    }

    private static long keysOf(KeyedOneInputStreamOperatorTestHarness<String, ?, ?> h, String state) {
        try (var keys = h.getOperator().getKeyedStateBackend().getKeys(state, VoidNamespace.INSTANCE)) {
            return keys.count();
        }
    }

    /**
     * Reports and alerts per scope key, each in emission order (timers of different keys due together may fire in
     * any order, and {@link Fixtures#drain} lists a part's reports before its alerts).
     */
    private static Map<String, List<String>> byKey(List<String> outputs) {
        Map<String, List<String>> out = new TreeMap<>();
        for (String s : outputs) {
            String key = s.substring(0, s.indexOf(' ')); // "HH{link-3" or "Alert{link-3"
            out.computeIfAbsent(key, k -> new ArrayList<>()).add(s);
        }
        return out;
    }
}
