package io.linerate.flink.dedup;

import io.linerate.flink.items.ItemSelector;
import io.linerate.flink.rejects.Rejected;
import io.linerate.flink.state.WriteBackOperator;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;

/**
 * Test support: records are (scope, item, timestamp) tuples; a scenario is a list of actions (record, watermark,
 * processing time) replayed into a keyed operator harness, and each record's outcome (first occurrence or
 * duplicate) is read right after it is processed.
 */
final class DedupHarnesses {

    static final TypeInformation<Tuple3<String, Long, Long>> TYPE = Types.TUPLE(Types.STRING, Types.LONG, Types.LONG);

    static final int MAX_PARALLELISM = 128;

    private DedupHarnesses() {
    }

    /** A builder with items = field 1, scope = field 0, fixed seed; caller sets time, rate, fpp. */
    static Deduplicator.Builder<Tuple3<String, Long, Long>, String> builder(Duration horizon, int generations) {
        return Deduplicator.<Tuple3<String, Long, Long>, String>builder()
                .scope(r -> r.f0, Types.STRING)
                .item(ItemSelector.longs(r -> r.f1))
                .horizon(horizon)
                .generations(generations)
                .seed(42);
    }

    record Run(KeyedOneInputStreamOperatorTestHarness<String, Tuple3<String, Long, Long>, Tuple3<String, Long, Long>>
                       harness, DedupFunction<String, Tuple3<String, Long, Long>, Tuple3<String, Long, Long>> function) {

        /** Processes one record and tells whether it was flagged (a duplicate). */
        boolean process(Tuple3<String, Long, Long> record, Long timestamp) throws Exception {
            if (timestamp == null) {
                harness.processElement(new StreamRecord<>(record));
            } else {
                harness.processElement(record, timestamp);
            }
            int main = 0;
            for (Object o; (o = harness.getOutput().poll()) != null; ) {
                main += o instanceof StreamRecord ? 1 : 0;
            }
            int dups = drain(harness.getSideOutput(Deduplicator.duplicatesTag(TYPE)));
            int rejected = drain(harness.getSideOutput(Rejected.tag(TYPE)));
            if (main + dups + rejected != 1) {
                throw new AssertionError("one output per record expected, got main=" + main + " duplicates=" + dups
                        + " malformed=" + rejected);
            }
            return dups == 1;
        }

        void close() throws Exception {
            harness.close();
        }

        private static int drain(Queue<?> q) {
            int n = 0;
            if (q != null) {
                while (q.poll() != null) {
                    n++;
                }
            }
            return n;
        }
    }

    static Run open(Deduplicator<Tuple3<String, Long, Long>, String> dedup) throws Exception {
        return open(dedup, 1, 0, null, null);
    }

    /** A harness for subtask {@code subtask} of {@code parallelism}, restored from {@code state} if not null. */
    static Run open(Deduplicator<Tuple3<String, Long, Long>, String> dedup, int parallelism, int subtask,
                    org.apache.flink.runtime.checkpoint.OperatorSubtaskState state, StateBackend backend)
            throws Exception {
        DedupFunction<String, Tuple3<String, Long, Long>, Tuple3<String, Long, Long>> fn = dedup.function(TYPE);
        var harness = new KeyedOneInputStreamOperatorTestHarness<>(new WriteBackOperator<>(fn),
                dedup.scope(), Types.STRING, MAX_PARALLELISM, parallelism, subtask);
        if (backend != null) {
            harness.setStateBackend(backend);
        }
        harness.setup();
        if (state != null) {
            harness.initializeState(state);
        }
        harness.open();
        return new Run(harness, fn);
    }

    /** One step of a scenario. */
    sealed interface Action permits Element, Watermark, ProcessingTime {
    }

    /** A record; in processing-time scenarios {@code ts} is also the processing time it arrives at. */
    record Element(String key, long item, long ts) implements Action {
        Tuple3<String, Long, Long> record() {
            return Tuple3.of(key, item, ts);
        }
    }

    record Watermark(long time) implements Action {
    }

    record ProcessingTime(long time) implements Action {
    }

    /**
     * Replays {@code actions}; returns per key the outcomes in order, each "item@ts:F" (first) or ":D" (duplicate).
     * Records whose key is not in {@code subtask}'s key groups are skipped ({@code keyFilter}).
     */
    static Map<String, List<String>> replay(Run run, List<Action> actions, java.util.function.Predicate<String> keyFilter)
            throws Exception {
        Map<String, List<String>> out = new LinkedHashMap<>();
        for (Action a : actions) {
            if (a instanceof Watermark w) {
                run.harness().processWatermark(w.time());
            } else if (a instanceof ProcessingTime p) {
                run.harness().setProcessingTime(p.time());
            } else if (a instanceof Element e && keyFilter.test(e.key())) {
                boolean dup = run.process(e.record(), e.ts());
                out.computeIfAbsent(e.key(), k -> new ArrayList<>()).add(e.item() + "@" + e.ts() + (dup ? ":D" : ":F"));
            }
        }
        return out;
    }
}
