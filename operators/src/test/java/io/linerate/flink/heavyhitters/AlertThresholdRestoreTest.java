package io.linerate.flink.heavyhitters;

import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.flink.state.OperatorMetrics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.AbstractStreamOperatorTestHarness;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * heavy-hitters.md, "Alert thresholds changed across a restore": the alerted sets are state, and so are the
 * thresholds of the checkpoint (union operator state). Restored into other thresholds, the operator walks every key's
 * open sub-windows before its first record or watermark, and each item at or over a new threshold that has not
 * alerted there alerts once, timestamped with the watermark limited to the sub-window.
 */
class AlertThresholdRestoreTest {

    private static final String[] KEYS = {"a", "b", "c", "d", "e", "f", "g", "h"};

    private static List<String> alerts(KeyedOneInputStreamOperatorTestHarness<String, Tuple3<String, Long, Integer>,
            HeavyHitterReport<String>> h) {
        var out = h.getSideOutput(HeavyHitterDetector.alertTag(Types.STRING));
        return out == null ? List.of() : out.stream().map(StreamRecord::getValue)
                .map(a -> a.key + ":" + a.item + "@" + a.timestamp + ":" + a.kind).toList();
    }

    private static HeavyHitterDetector.Builder<Tuple3<String, Long, Integer>, String> builder() {
        return Fixtures.builder().weight(r -> r.f2).tumbling(Duration.ofSeconds(1)).phi(0.1).capacity(100);
    }

    private static KeyedOneInputStreamOperatorTestHarness<String, Tuple3<String, Long, Integer>,
            HeavyHitterReport<String>> harness(HeavyHitterDetector<Tuple3<String, Long, Integer>, String> detector,
                                               boolean rocksDb) throws Exception {
        return rocksDb ? Fixtures.harness(detector, new EmbeddedRocksDBStateBackend(), new OperatorMetrics())
                : Fixtures.harness(detector, 1, 0);
    }

    /** Per key, item 1 weighs 70 and item 2 weighs 30 of sub-window [0, 1000); watermark 250. */
    private static void feed(KeyedOneInputStreamOperatorTestHarness<String, Tuple3<String, Long, Integer>,
            HeavyHitterReport<String>> h, String... keys) throws Exception {
        for (String key : keys) {
            h.processElement(new StreamRecord<>(Tuple3.of(key, 1L, 70), 100));
            h.processElement(new StreamRecord<>(Tuple3.of(key, 2L, 30), 200));
        }
        h.processWatermark(250);
    }

    /** Key "a" fed under {@code detector}. */
    private static OperatorSubtaskState before(HeavyHitterDetector<Tuple3<String, Long, Integer>, String> detector,
                                               boolean rocksDb) throws Exception {
        try (var h = harness(detector, rocksDb)) {
            h.open();
            feed(h, "a");
            return h.snapshot(1, 1);
        }
    }

    @ParameterizedTest(name = "RocksDB {0}")
    @ValueSource(booleans = {false, true})
    void aLoweredWeightAlertsAnItemPastItAtTheFirstRecordAfterTheRestore(boolean rocksDb) throws Exception {
        OperatorSubtaskState snapshot = before(builder().alertAtWeight(100).build(), rocksDb);
        try (var h = harness(builder().alertAtWeight(50).build(), rocksDb)) {
            h.initializeState(snapshot);
            h.open();
            h.processElement(new StreamRecord<>(Tuple3.of("a", 2L, 1), 300)); // item 2: 31 < 50
            assertThat(alerts(h)).as("item 1 (70 ≥ 50), before this record is counted").containsExactly(
                    "a:1@250:absolute");
            h.processElement(new StreamRecord<>(Tuple3.of("a", 1L, 1), 400));
            assertThat(alerts(h)).as("once").hasSize(1);
        }
    }

    /**
     * The walk's marks are state (on RocksDB written back from the cache though no record touched the ring), and the
     * snapshot after it records the thresholds it ran under: restored again, no walk and no second alert.
     */
    @ParameterizedTest(name = "RocksDB {0}")
    @ValueSource(booleans = {false, true})
    void theWalksAlertsAreKeptInTheNextSnapshot(boolean rocksDb) throws Exception {
        OperatorSubtaskState snapshot = before(builder().alertAtWeight(100).build(), rocksDb);
        OperatorSubtaskState walked;
        try (var h = harness(builder().alertAtWeight(50).build(), rocksDb)) {
            h.initializeState(snapshot);
            h.open();
            h.processWatermark(260);
            assertThat(alerts(h)).containsExactly("a:1@250:absolute");
            walked = h.snapshot(2, 2);
        }
        try (var h = harness(builder().alertAtWeight(50).build(), rocksDb)) {
            h.initializeState(walked);
            h.open();
            h.processElement(new StreamRecord<>(Tuple3.of("a", 1L, 1), 500));
            h.processWatermark(999);
            assertThat(alerts(h)).isEmpty();
        }
    }

    /**
     * The walk at a record visits every key, and the record is counted for its own key afterwards (two keys: at most
     * one of them is the walk's last, which a key context left as the walk left it would hide).
     */
    @ParameterizedTest(name = "record of key {0}")
    @ValueSource(strings = {"a", "b"})
    void theRecordThatStartsTheWalkCountsForItsOwnKey(String key) throws Exception {
        OperatorSubtaskState snapshot;
        try (var h = Fixtures.harness(builder().alertAtWeight(100).build(), 1, 0)) {
            h.open();
            feed(h, KEYS);
            snapshot = h.snapshot(1, 1);
        }
        try (var h = Fixtures.harness(builder().alertAtWeight(50).build(), 1, 0)) {
            h.initializeState(snapshot);
            h.open();
            h.processElement(new StreamRecord<>(Tuple3.of(key, 2L, 5), 300));
            assertThat(alerts(h)).containsExactlyInAnyOrder(
                    List.of(KEYS).stream().map(k -> k + ":1@250:absolute").toArray(String[]::new));
            h.processWatermark(999);
            assertThat(h.extractOutputValues()).allSatisfy(r -> assertThat(r.totalWeight).as(r.key)
                    .isEqualTo(r.key.equals(key) ? 105 : 100));
        }
    }

    @Test
    void aLoweredWeightAlertsAtTheFirstWatermarkWithoutAnyRecord() throws Exception {
        OperatorSubtaskState snapshot = before(builder().alertAtWeight(100).build(), false);
        try (var h = Fixtures.harness(builder().alertAtWeight(20).build(), 1, 0)) {
            h.initializeState(snapshot);
            h.open();
            h.processWatermark(2_000); // reports the window, after the walk
            assertThat(alerts(h)).containsExactly("a:1@250:absolute", "a:2@250:absolute");
            assertThat(h.extractOutputValues()).hasSize(1);
        }
    }

    @Test
    void fractionAlertsTurnedOnOverAHeavierSubWindowAlertTheItemsAtTheFraction() throws Exception {
        OperatorSubtaskState snapshot = before(builder().alertAtWeight(100).build(), false);
        // minWindowWeight 50 < the restored weight 100: no record crosses it; the walk tests every item instead
        try (var h = Fixtures.harness(builder().alertAtFraction(0.5, 50).build(), 1, 0)) {
            h.initializeState(snapshot);
            h.open();
            h.processElement(new StreamRecord<>(Tuple3.of("a", 2L, 1), 300)); // item 2: 31 of 101
            h.processWatermark(999);
            assertThat(alerts(h)).as("item 1 held 70 of 100 ≥ 0.5; item 2 never held half")
                    .containsExactly("a:1@250:fraction");
        }
    }

    @Test
    void anItemAlertedBeforeTheRestoreDoesNotAlertAgain() throws Exception {
        OperatorSubtaskState snapshot = before(builder().alertAtWeight(60).build(), false); // item 1 alerts at 100
        try (var h = Fixtures.harness(builder().alertAtWeight(20).build(), 1, 0)) {
            h.initializeState(snapshot);
            h.open();
            h.processWatermark(500);
            assertThat(alerts(h)).containsExactly("a:2@250:absolute");
        }
    }

    @Test
    void theSameThresholdsWalkNothing() throws Exception {
        OperatorSubtaskState snapshot = before(builder().alertAtWeight(100).build(), false);
        try (var h = Fixtures.harness(builder().alertAtWeight(100).build(), 1, 0)) {
            h.initializeState(snapshot);
            h.open();
            h.processWatermark(2_000);
            assertThat(alerts(h)).isEmpty();
        }
    }

    /** A snapshot taken before the walk keeps the old thresholds: restored from it, the operator still walks. */
    @Test
    void aSnapshotBeforeTheWalkKeepsTheOldThresholds() throws Exception {
        OperatorSubtaskState snapshot = before(builder().alertAtWeight(100).build(), false);
        OperatorSubtaskState unwalked;
        try (var h = Fixtures.harness(builder().alertAtWeight(50).build(), 1, 0)) {
            h.initializeState(snapshot);
            h.open();
            unwalked = h.snapshot(2, 2);
            assertThat(alerts(h)).isEmpty();
        }
        try (var h = Fixtures.harness(builder().alertAtWeight(50).build(), 1, 0)) {
            h.initializeState(unwalked);
            h.open();
            h.processWatermark(500);
            assertThat(alerts(h)).containsExactly("a:1@250:absolute");
        }
    }

    /** Union state: restored at parallelism 3, every subtask sees the old thresholds and walks its own keys. */
    @Test
    void everySubtaskWalksItsKeysAfterARescale() throws Exception {
        OperatorSubtaskState snapshot;
        try (var h = Fixtures.harness(builder().alertAtWeight(100).build(), 1, 0)) {
            h.open();
            feed(h, KEYS);
            snapshot = h.snapshot(1, 1);
        }
        List<String> alerts = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            try (var h = Fixtures.harness(builder().alertAtWeight(50).build(), 3, i)) {
                h.initializeState(AbstractStreamOperatorTestHarness.repartitionOperatorState(snapshot,
                        Fixtures.MAX_PARALLELISM, 1, 3, i));
                h.open();
                h.processWatermark(500);
                alerts.addAll(alerts(h));
            }
        }
        assertThat(alerts).containsExactlyInAnyOrder(
                List.of(KEYS).stream().map(k -> k + ":1@250:absolute").toArray(String[]::new));
    }

    /**
     * Scaled in from two subtasks of which only one had walked: the keys of the other are walked after the merge
     * (its snapshot kept the old thresholds), and those walked already do not alert again.
     */
    @Test
    void keysOfASubtaskThatHadNotWalkedAreWalkedAfterAScaleIn() throws Exception {
        OperatorSubtaskState snapshot;
        try (var h = Fixtures.harness(builder().alertAtWeight(100).build(), 1, 0)) {
            h.open();
            feed(h, KEYS);
            snapshot = h.snapshot(1, 1);
        }
        OperatorSubtaskState[] two = new OperatorSubtaskState[2];
        List<String> first = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            try (var h = Fixtures.harness(builder().alertAtWeight(50).build(), 2, i)) {
                h.initializeState(AbstractStreamOperatorTestHarness.repartitionOperatorState(snapshot,
                        Fixtures.MAX_PARALLELISM, 1, 2, i));
                h.open();
                if (i == 0) {
                    h.processWatermark(260); // subtask 0 walks; subtask 1 sees nothing before the snapshot
                }
                first.addAll(alerts(h));
                two[i] = h.snapshot(2, 2);
            }
        }
        assertThat(first).isNotEmpty().hasSizeLessThan(KEYS.length); // the keys are spread over both
        List<String> second;
        try (var h = Fixtures.harness(builder().alertAtWeight(50).build(), 1, 0)) {
            h.initializeState(AbstractStreamOperatorTestHarness.repartitionOperatorState(
                    AbstractStreamOperatorTestHarness.repackageState(two), Fixtures.MAX_PARALLELISM, 2, 1, 0));
            h.open();
            h.processWatermark(500);
            second = alerts(h);
        }
        List<String> all = new ArrayList<>(first);
        all.addAll(second);
        assertThat(all).containsExactlyInAnyOrder(
                List.of(KEYS).stream().map(k -> k + ":1@250:absolute").toArray(String[]::new));
    }
}
