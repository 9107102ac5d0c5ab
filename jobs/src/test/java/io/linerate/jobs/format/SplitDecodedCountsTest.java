package io.linerate.jobs.format;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntPredicate;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.operators.ProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.AbstractStreamOperatorTestHarness;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

/**
 * {@link SplitDecoded}'s accumulators count the whole run, not the attempt: snapshot, then records the failed attempt
 * read past its snapshot (replayed after the restore, so not counted twice), restore into a fresh operator, continue;
 * and the same across a rescale (2 → 1, 1 → 3: every restored entry summed, each once). The accumulators' sum over
 * the last attempt's subtasks must equal the values and dead letters of the input, each record counted once.
 *
 * <p>Why it can fail: counts kept only in the accumulators (reset by a restore) give the records read since the
 * restore; a restore that keeps one entry of several, or gives one entry to two subtasks, makes the sum wrong.
 */
class SplitDecodedCountsTest {

    private static final int MAX_PARALLELISM = 128;
    private static final int RECORDS = 100;
    private static final DeadLetter DEAD = new DeadLetter("t", 0, 9, -1, "bad magic", 0, new byte[] {1, 2}, 2);

    /** Record i of the input: a dead letter when i is a multiple of 3 (34 of 100), a value otherwise. */
    private static Decoded<String> record(int i) {
        return i % 3 == 0 ? Decoded.dead(DEAD) : Decoded.of("v" + i);
    }

    private static long deadIn(int from, int to) {
        return java.util.stream.IntStream.range(from, to).filter(i -> i % 3 == 0).count();
    }

    /** One subtask of the split: the function (its accumulators) and its harness. */
    private record Subtask(SplitDecoded<String> split,
                           OneInputStreamOperatorTestHarness<Decoded<String>, String> harness) {

        static Subtask open(int parallelism, int index, OperatorSubtaskState restored) throws Exception {
            SplitDecoded<String> split = new SplitDecoded<>(Types.STRING);
            var h = new OneInputStreamOperatorTestHarness<>(new ProcessOperator<>(split), MAX_PARALLELISM,
                    parallelism, index);
            h.setup(StringSerializer.INSTANCE);
            if (restored != null) {
                h.initializeState(restored);
            }
            h.open();
            return new Subtask(split, h);
        }

        /** Processes records [from, to) that {@code mine} accepts. */
        void read(int from, int to, IntPredicate mine) throws Exception {
            for (int i = from; i < to; i++) {
                if (mine.test(i)) {
                    harness.processElement(new StreamRecord<>(record(i), i));
                }
            }
        }

        long values() {
            return (Long) split.getRuntimeContext().getAccumulator(SplitDecoded.VALUES).getLocalValue();
        }

        long deadLetters() {
            return (Long) split.getRuntimeContext().getAccumulator(SplitDecoded.DEAD_LETTERS).getLocalValue();
        }
    }

    private static void assertCounts(List<Subtask> last, int records) {
        long dead = deadIn(0, records);
        assertThat(last.stream().mapToLong(Subtask::values).sum()).as("values read").isEqualTo(records - dead);
        assertThat(last.stream().mapToLong(Subtask::deadLetters).sum()).as("dead letters read").isEqualTo(dead);
    }

    @Test
    void twoRestoresFromCheckpointsCountEveryRecordOnce() throws Exception {
        OperatorSubtaskState first;
        Subtask a = Subtask.open(1, 0, null); // no state of its own: a fresh start, or a savepoint without it
        try (var h = a.harness()) {
            a.read(0, 30, i -> true);
            first = h.snapshot(1, 30);
            a.read(30, 45, i -> true); // read after the checkpoint, then the attempt fails: read again below
            assertThat(a.values() + a.deadLetters()).isEqualTo(45);
        }
        OperatorSubtaskState second;
        Subtask b = Subtask.open(1, 0, first);
        try (var h = b.harness()) {
            assertCounts(List.of(b), 30);
            b.read(30, 70, i -> true);
            second = h.snapshot(2, 70);
            b.read(70, 80, i -> true);
        }
        Subtask c = Subtask.open(1, 0, second);
        try (var h = c.harness()) {
            c.read(70, RECORDS, i -> true);
            assertThat(h.extractOutputValues()).hasSize((int) (RECORDS - 70 - deadIn(70, RECORDS)));
            assertCounts(List.of(c), RECORDS);
        }
    }

    @Test
    void twoSubtasksRestoredIntoOneSumBothCounts() throws Exception {
        OperatorSubtaskState[] snapshots = new OperatorSubtaskState[2];
        for (int s = 0; s < 2; s++) {
            int index = s;
            Subtask sub = Subtask.open(2, s, null);
            try (var h = sub.harness()) {
                sub.read(0, 60, i -> i % 2 == index);
                snapshots[s] = h.snapshot(1, 60);
                sub.read(60, 70, i -> i % 2 == index);
            }
        }
        OperatorSubtaskState merged = AbstractStreamOperatorTestHarness.repartitionOperatorState(
                AbstractStreamOperatorTestHarness.repackageState(snapshots), MAX_PARALLELISM, 2, 1, 0);
        Subtask one = Subtask.open(1, 0, merged);
        try (var h = one.harness()) {
            assertCounts(List.of(one), 60);
            one.read(60, RECORDS, i -> true);
            assertCounts(List.of(one), RECORDS);
        }
    }

    @Test
    void oneSubtaskRestoredIntoThreeCountsEachEntryOnce() throws Exception {
        OperatorSubtaskState snapshot;
        Subtask sub = Subtask.open(1, 0, null);
        try (var h = sub.harness()) {
            sub.read(0, 50, i -> true);
            snapshot = h.snapshot(1, 50);
        }
        List<Subtask> three = new ArrayList<>();
        try {
            for (int s = 0; s < 3; s++) {
                three.add(Subtask.open(3, s, AbstractStreamOperatorTestHarness.repartitionOperatorState(snapshot,
                        MAX_PARALLELISM, 1, 3, s)));
            }
            assertCounts(three, 50);
            for (int s = 0; s < 3; s++) {
                int index = s;
                three.get(s).read(50, RECORDS, i -> i % 3 == index);
            }
            assertCounts(three, RECORDS);
        } finally {
            for (Subtask t : three) {
                t.harness().close();
            }
        }
    }
}
