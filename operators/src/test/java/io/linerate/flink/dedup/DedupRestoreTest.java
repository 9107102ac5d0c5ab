package io.linerate.flink.dedup;

import static io.linerate.flink.dedup.DedupHarnesses.MAX_PARALLELISM;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.linerate.flink.dedup.DedupHarnesses.Action;
import io.linerate.flink.dedup.DedupHarnesses.Element;
import io.linerate.flink.dedup.DedupHarnesses.ProcessingTime;
import io.linerate.flink.dedup.DedupHarnesses.Run;
import io.linerate.flink.dedup.DedupHarnesses.Watermark;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.util.AbstractStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Snapshot mid-stream and restore into fresh harnesses (heap and RocksDB, same and other parallelism): the
 * continuation's outcomes equal those of an uninterrupted run, record by record and key by key.
 */
class DedupRestoreTest {

    private static final int RECORDS = 3000;
    private static final int CUT = 1500;

    /** Small filters (fpp 5%, rate 20/s) so that false positives happen and must be reproduced exactly. */
    private static Deduplicator<Tuple3<String, Long, Long>, String> dedup(boolean eventTime) {
        return dedup(eventTime, -1);
    }

    /** @param cachedRings rings the write-back cache holds on RocksDB; negative: the default budget */
    private static Deduplicator<Tuple3<String, Long, Long>, String> dedup(boolean eventTime, int cachedRings) {
        var b = DedupHarnesses.builder(Duration.ofSeconds(2), 3).expectedRate(20).fpp(0.05);
        Deduplicator<Tuple3<String, Long, Long>, String> d = (eventTime ? b.eventTime() : b.processingTime()).build();
        if (cachedRings < 0) {
            return d;
        }
        d = (eventTime ? b.eventTime() : b.processingTime())
                .stateCacheBytes(cachedRings * Deduplicator.ringHeapBytes(d.sizing())).build();
        assertThat(d.cachedScopes()).isEqualTo(cachedRings);
        return d;
    }

    /** 12 keys, items repeating at random gaps, watermarks (or processing time) every 10 records. */
    private static List<Action> scenario(boolean eventTime) {
        SplittableRandom rnd = new SplittableRandom(7);
        List<Action> out = new ArrayList<>();
        long t = 0;
        for (int i = 0; i < RECORDS; i++) {
            t += rnd.nextInt(20);
            if (i % 10 == 0) {
                out.add(eventTime ? new Watermark(t - 500) : new ProcessingTime(t));
            }
            if (!eventTime) {
                out.add(new ProcessingTime(t));
            }
            long ts = eventTime ? t - rnd.nextInt(300) : t;
            out.add(new Element("k" + rnd.nextInt(12), rnd.nextInt(60), ts));
        }
        return out;
    }

    /** Index in the action list after the CUT-th record. */
    private static int cut(List<Action> actions) {
        int records = 0;
        for (int i = 0; i < actions.size(); i++) {
            if (actions.get(i) instanceof Element && ++records == CUT) {
                return i + 1;
            }
        }
        throw new AssertionError();
    }

    private static Map<String, List<String>> uninterrupted(boolean eventTime, List<Action> actions) throws Exception {
        Run run = DedupHarnesses.open(dedup(eventTime));
        Map<String, List<String>> out = DedupHarnesses.replay(run, actions, k -> true);
        run.close();
        return out;
    }

    private static void merge(Map<String, List<String>> into, Map<String, List<String>> part) {
        part.forEach((k, v) -> into.computeIfAbsent(k, x -> new ArrayList<>()).addAll(v));
    }

    private static Map<String, List<String>> sorted(Map<String, List<String>> m) {
        return new TreeMap<>(m);
    }

    private void restoreContinuesIdentically(boolean eventTime, StateBackend backend) throws Exception {
        restoreContinuesIdentically(eventTime, backend, -1);
    }

    private void restoreContinuesIdentically(boolean eventTime, StateBackend backend, int cachedRings)
            throws Exception {
        List<Action> actions = scenario(eventTime);
        int cut = cut(actions);
        Map<String, List<String>> expected = uninterrupted(eventTime, actions);

        Run first = DedupHarnesses.open(dedup(eventTime, cachedRings), 1, 0, null, backend);
        Map<String, List<String>> got = DedupHarnesses.replay(first, actions.subList(0, cut), k -> true);
        OperatorSubtaskState snapshot = first.harness().snapshot(1, 1);
        first.close();

        Run second = DedupHarnesses.open(dedup(eventTime, cachedRings), 1, 0, snapshot, backend);
        merge(got, DedupHarnesses.replay(second, actions.subList(cut, actions.size()), k -> true));
        second.close();
        assertThat(sorted(got)).isEqualTo(sorted(expected));
        assertThat(got.values().stream().flatMap(List::stream).filter(s -> s.endsWith(":D")).count())
                .as("the scenario has duplicates on both sides of the cut").isGreaterThan(500);
    }

    @Test
    void eventTimeRestoreOnHeapContinuesIdentically() throws Exception {
        restoreContinuesIdentically(true, null);
    }

    @Test
    void processingTimeRestoreOnHeapContinuesIdentically() throws Exception {
        restoreContinuesIdentically(false, null);
    }

    @Test
    void eventTimeRestoreOnRocksDbContinuesIdentically() throws Exception {
        restoreContinuesIdentically(true, new EmbeddedRocksDBStateBackend());
    }

    /**
     * On RocksDB with a write-back cache of no ring, one, or 5 for the 12 keys: rings written back as keys take
     * turns and read again, each snapshot taking what is cached. The heap run's output.
     */
    @ParameterizedTest(name = "rings cached {0}")
    @ValueSource(ints = {0, 1, 5})
    void restoreOnRocksDbWithSmallCachesContinuesIdentically(int cachedRings) throws Exception {
        restoreContinuesIdentically(true, new EmbeddedRocksDBStateBackend(), cachedRings);
        restoreContinuesIdentically(false, new EmbeddedRocksDBStateBackend(), cachedRings);
    }

    /**
     * The cache at work on RocksDB: with room for the 12 keys a ring is read from RocksDB about once per key and
     * written only for the snapshot; without a cache, at every record and rotation timer.
     */
    @Test
    void onRocksDbACachedRingIsReadOnceAndWrittenForTheSnapshot() throws Exception {
        List<Action> actions = scenario(true).subList(0, 600);
        long records = actions.stream().filter(a -> a instanceof Element).count();
        Run cached = DedupHarnesses.open(dedup(true), 1, 0, null, new EmbeddedRocksDBStateBackend());
        Run plain = DedupHarnesses.open(dedup(true, 0), 1, 0, null, new EmbeddedRocksDBStateBackend());
        assertThat(DedupHarnesses.replay(cached, actions, k -> true))
                .isEqualTo(DedupHarnesses.replay(plain, actions, k -> true));
        assertThat(cached.function().cache().reads()).isBetween(12L, 24L); // a key whose ring emptied is read again
        assertThat(cached.function().cache().writes()).isZero();
        assertThat(plain.function().cache().reads()).as("one per record, and per rotation timer")
                .isGreaterThanOrEqualTo(records);
        cached.harness().snapshot(1, 1);
        assertThat(cached.function().cache().writes()).isEqualTo(cached.function().cache().size()).isPositive();
        cached.close();
        plain.close();
    }

    private static boolean owns(String key, int parallelism, int subtask) {
        return KeyGroupRangeAssignment.assignKeyToParallelOperator(key, MAX_PARALLELISM, parallelism) == subtask;
    }

    /** Snapshots {@code from} subtasks after the cut, restores into {@code to} subtasks by key group, continues. */
    private static Map<String, List<String>> rescaled(List<Action> actions, int from, int to) throws Exception {
        int cut = cut(actions);
        Map<String, List<String>> got = new LinkedHashMap<>();
        OperatorSubtaskState[] snapshots = new OperatorSubtaskState[from];
        for (int s = 0; s < from; s++) {
            int subtask = s;
            Run run = DedupHarnesses.open(dedup(true), from, s, null, null);
            merge(got, DedupHarnesses.replay(run, actions.subList(0, cut), k -> owns(k, from, subtask)));
            snapshots[s] = run.harness().snapshot(1, 1);
            run.close();
        }
        OperatorSubtaskState all = from == 1 ? snapshots[0] : AbstractStreamOperatorTestHarness.repackageState(snapshots);
        for (int s = 0; s < to; s++) {
            int subtask = s;
            OperatorSubtaskState mine = AbstractStreamOperatorTestHarness.repartitionOperatorState(all, MAX_PARALLELISM,
                    from, to, s);
            Run run = DedupHarnesses.open(dedup(true), to, s, mine, null);
            merge(got, DedupHarnesses.replay(run, actions.subList(cut, actions.size()), k -> owns(k, to, subtask)));
            run.close();
        }
        return got;
    }

    @Test
    void rescalingFromOneToTwoAndFourAndFromFourToOneContinuesIdentically() throws Exception {
        List<Action> actions = scenario(true);
        Map<String, List<String>> expected = sorted(uninterrupted(true, actions));
        assertThat(sorted(rescaled(actions, 1, 2))).isEqualTo(expected);
        assertThat(sorted(rescaled(actions, 1, 4))).isEqualTo(expected);
        assertThat(sorted(rescaled(actions, 4, 1))).isEqualTo(expected);
    }

    /**
     * A restore whose rings would mean something else fails: another seed (the filters' positions), or processing
     * instead of event time (the epochs and timers counted on another clock).
     */
    @Test
    void restoringIntoAnOperatorOfAnotherSeedOrTimeFails() throws Exception {
        List<Action> actions = scenario(true);
        Run first = DedupHarnesses.open(dedup(true));
        DedupHarnesses.replay(first, actions.subList(0, cut(actions)), k -> true);
        OperatorSubtaskState snapshot = first.harness().snapshot(1, 1);
        first.close();
        var otherSeed = DedupHarnesses.builder(Duration.ofSeconds(2), 3).expectedRate(20).fpp(0.05).seed(43)
                .eventTime().build();
        for (Deduplicator<Tuple3<String, Long, Long>, String> other : List.of(otherSeed, dedup(false))) {
            assertThatThrownBy(() -> {
                Run second = DedupHarnesses.open(other, 1, 0, snapshot, null);
                second.process(Tuple3.of("k1", 1L, 100_000L), 100_000L);
            }).hasStackTraceContaining("incompatible");
        }
    }

    /**
     * A restore into an operator sized for another rate and fpp (the same horizon, generations and seed) continues:
     * the restored generations keep their size until they rotate out. The guarantee holds across the restore:
     * every record whose item the key saw at most 1 s earlier in event time (half the horizon, clear of the rotation
     * boundaries) is flagged, including the repeats of items seen only before the snapshot.
     */
    @Test
    void restoringIntoAnOperatorSizedForAnotherRateKeepsEveryDuplicate() throws Exception {
        List<Action> actions = scenario(true);
        int cut = cut(actions);
        Run first = DedupHarnesses.open(dedup(true));
        Map<String, List<String>> got = DedupHarnesses.replay(first, actions.subList(0, cut), k -> true);
        OperatorSubtaskState snapshot = first.harness().snapshot(1, 1);
        long oldBits = dedup(true).sizing().bitsPerGeneration();
        first.close();
        var resized = DedupHarnesses.builder(Duration.ofSeconds(2), 3).expectedRate(80).fpp(0.01).eventTime().build();
        assertThat(resized.sizing().bitsPerGeneration()).isNotEqualTo(oldBits);
        Run second = DedupHarnesses.open(resized, 1, 0, snapshot, null);
        merge(got, DedupHarnesses.replay(second, actions.subList(cut, actions.size()), k -> true));
        second.close();

        Map<String, List<long[]>> seen = new LinkedHashMap<>(); // key -> (item, ts, record index) in order
        int records = 0;
        int acrossTheCut = 0;
        for (Action a : actions) {
            if (!(a instanceof Element e)) {
                continue;
            }
            records++;
            List<long[]> before = seen.computeIfAbsent(e.key(), k -> new ArrayList<>());
            long firstSeenAt = -1;
            for (long[] b : before) {
                if (seenWithinASecond(b, e)) {
                    firstSeenAt = firstSeenAt < 0 ? b[2] : firstSeenAt;
                }
            }
            if (firstSeenAt >= 0) {
                int index = before.size();
                String outcome = got.get(e.key()).get(index);
                assertThat(outcome).as("record %d of %s, its item seen within 1 s", records, e.key()).endsWith(":D");
                if (records > CUT && firstSeenAt <= CUT && allBefore(before, e, CUT)) {
                    acrossTheCut++;
                }
            }
            before.add(new long[] {e.item(), e.ts(), records});
        }
        // 7 in this fixed scenario: few records fall within 1 s after the cut, and most repeat an item seen after it
        assertThat(acrossTheCut).as("duplicates whose item was seen within 1 s only before the snapshot")
                .isGreaterThanOrEqualTo(5);
    }

    /**
     * On RocksDB the write-back cache weighs rings by their bytes: restored rings of larger filters (an operator
     * resized to 1/400 of the rate) take their true size in the cache, which stays within its budget of one ring
     * of the new size, so it holds none of them until their generations rotate out.
     */
    @Test
    void aRestoredRingOfLargerFiltersIsWeighedByItsBytesInTheCache() throws Exception {
        List<Action> actions = scenario(true);
        int cut = cut(actions);
        var large = DedupHarnesses.builder(Duration.ofSeconds(2), 3).expectedRate(8000).fpp(0.05).eventTime().build();
        Run first = DedupHarnesses.open(large, 1, 0, null, new EmbeddedRocksDBStateBackend());
        DedupHarnesses.replay(first, actions.subList(0, cut), k -> true);
        OperatorSubtaskState snapshot = first.harness().snapshot(1, 1);
        first.close();
        Deduplicator<Tuple3<String, Long, Long>, String> small = dedup(true, 1);
        long budget = Deduplicator.ringHeapBytes(small.sizing());
        assertThat(large.sizing().stateBytesPerKey()).isGreaterThan(2 * budget);
        Run second = DedupHarnesses.open(small, 1, 0, snapshot, new EmbeddedRocksDBStateBackend());
        int records = 0;
        long mostHeld = 0;
        for (Action a : actions.subList(cut, actions.size())) {
            DedupHarnesses.replay(second, List.of(a), k -> true);
            mostHeld = Math.max(mostHeld, second.function().cache().weight());
            if (a instanceof Element && ++records == 20) {
                assertThat(second.function().cache().size()).as("restored rings, each over the budget").isZero();
            }
        }
        assertThat(mostHeld).isLessThanOrEqualTo(budget).isPositive();
        second.close();
    }

    /** Whether {@code earlier} (item, ts, record index) is {@code e}'s item at most 1 s before it in event time. */
    private static boolean seenWithinASecond(long[] earlier, Element e) {
        return earlier[0] == e.item() && earlier[1] <= e.ts() && earlier[1] >= e.ts() - 1000;
    }

    /** Whether every occurrence of {@code e}'s item within the 1 s before it came before record {@code cut}. */
    private static boolean allBefore(List<long[]> before, Element e, int cut) {
        for (long[] b : before) {
            if (seenWithinASecond(b, e) && b[2] > cut) {
                return false;
            }
        }
        return true;
    }

    /**
     * Small rings are mostly objects (a ring of one 64-byte filter takes 864 bytes of heap, measured with JOL):
     * the cache weighs them with that overhead, so their heap stays within the budget (it held 787 rings, some
     * 680 KB, for a budget of 100 full rings, 50 KB, when it weighed bits alone). Rings of one generation weigh
     * less than full ones, so more than cachedScopes of them fit.
     */
    @Test
    void theRingCacheHoldsNoMoreRingsThanItsBudgetAffords() throws Exception {
        var b = DedupHarnesses.builder(Duration.ofSeconds(3), 4).processingTime().expectedRate(1).fpp(0.01);
        long perRing = Deduplicator.ringHeapBytes(b.build().sizing());
        var d = b.stateCacheBytes(100 * perRing).build();
        assertThat(d.cachedScopes()).isEqualTo(100);
        Run run = DedupHarnesses.open(d, 1, 0, null, new EmbeddedRocksDBStateBackend());
        try {
            run.harness().setProcessingTime(10);
            for (int k = 0; k < 2_000; k++) {
                run.process(Tuple3.of("k" + k, 1L, 10L), null);
            }
            long budget = 100 * perRing;
            assertThat(run.function().cache().weight()).isPositive().isLessThanOrEqualTo(budget);
            assertThat(run.function().cache().size() * 864L).as("the rings' heap as JOL measured it")
                    .isLessThanOrEqualTo(budget);
        } finally {
            run.harness().close();
        }
    }

    /** An explicit memoryBudget tightens the per-key limit of one state value, never lifts it. */
    @Test
    void aMemoryBudgetCannotLiftTheStateValueLimit() {
        assertThatThrownBy(() -> DedupHarnesses.builder(Duration.ofSeconds(63), 64).processingTime()
                .expectedRate(30_000_000).fpp(0.01).memoryBudget(8L << 30).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("the state limit of " + io.linerate.flink.serializers.ImageSerializer.MAX_IMAGE_BYTES
                        + " bytes per key (one state value) is too small");
    }
}
