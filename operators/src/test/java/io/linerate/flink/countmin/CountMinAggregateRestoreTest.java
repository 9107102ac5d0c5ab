package io.linerate.flink.countmin;

import io.linerate.flink.serializers.CountMinSketchTypeInfo;
import io.linerate.sketches.frequency.CountMinSketch;
import io.linerate.sketches.frequency.RowIndexing;
import org.apache.flink.api.common.ExecutionConfig;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.api.functions.windowing.WindowFunction;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.api.windowing.assigners.EventTimeSessionWindows;
import org.apache.flink.streaming.api.windowing.triggers.EventTimeTrigger;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.streaming.runtime.operators.windowing.WindowOperatorBuilder;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

import static io.linerate.flink.countmin.Streams.QUERY_ITEM;
import static io.linerate.flink.countmin.Streams.UPDATE_ITEM;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The window aggregate's state in Flink's own window operator (keyed harness, heap and RocksDB backends), with
 * session windows, so that a session open at the snapshot is merged with new sketches after the restore: the
 * accumulator's serializer records the aggregate's shape, a restore into the same shape continues exactly, and a
 * restore into any other shape is refused at the restore instead of failing the first merge.
 */
class CountMinAggregateRestoreTest {

    private static final TypeInformation<Tuple3<String, String, Long>> UPDATE_TYPE =
            Types.TUPLE(Types.STRING, Types.STRING, Types.LONG);
    private static final Duration GAP = Duration.ofSeconds(1);
    /** Two sessions per scope: records 2 ms apart, then a pause of 5 s after the first half. */
    private static final List<StreamRecord<Tuple3<String, String, Long>>> RECORDS = records();
    /** The snapshot falls inside the first sessions, which then take new records after the restore. */
    private static final int SPLIT = 1_500;

    private static CountMinAggregate.Builder<Tuple3<String, String, Long>> aggregate() {
        return CountMinAggregate.<Tuple3<String, String, Long>>builder().item(UPDATE_ITEM).weight(u -> u.f2).seed(3)
                .memory(4096, 3);
    }

    private static List<StreamRecord<Tuple3<String, String, Long>>> records() {
        List<Tuple3<String, String, Long>> updates = Streams.updates(5, 4_000, 3, 300);
        List<StreamRecord<Tuple3<String, String, Long>>> out = new ArrayList<>();
        for (int i = 0; i < updates.size(); i++) {
            long time = 2L * i + (i >= updates.size() / 2 ? 5_000 : 0);
            out.add(new StreamRecord<>(updates.get(i), time));
        }
        return out;
    }

    /** Per window: "scope [start, end) N=… item-0=… … item-9=…". */
    private static WindowFunction<CountMinSketch, String, String, TimeWindow> describe() {
        return (scope, window, sketches, out) -> {
            for (CountMinSketch sketch : sketches) {
                StringBuilder sb = new StringBuilder(scope).append(" [").append(window.getStart()).append(", ")
                        .append(window.getEnd()).append(") N=").append(sketch.totalWeight());
                for (int i = 0; i < 10; i++) {
                    sb.append(" item-").append(i).append('=')
                            .append(CountMinAggregate.estimate(sketch, QUERY_ITEM, Tuple2.of(scope, "item-" + i)));
                }
                out.collect(sb.toString());
            }
        };
    }

    private static KeyedOneInputStreamOperatorTestHarness<String, Tuple3<String, String, Long>, String> harness(
            CountMinAggregate<Tuple3<String, String, Long>> cm, TypeInformation<CountMinSketch> accumulatorType,
            boolean rocksDb) throws Exception {
        var operator = new WindowOperatorBuilder<Tuple3<String, String, Long>, String, TimeWindow>(
                EventTimeSessionWindows.withGap(GAP), EventTimeTrigger.create(), new ExecutionConfig(), UPDATE_TYPE,
                u -> u.f0, Types.STRING).aggregate(cm, describe(), accumulatorType);
        var h = new KeyedOneInputStreamOperatorTestHarness<>(operator, u -> u.f0, Types.STRING);
        if (rocksDb) {
            h.setStateBackend(new EmbeddedRocksDBStateBackend());
        }
        return h;
    }

    private static void feed(KeyedOneInputStreamOperatorTestHarness<String, Tuple3<String, String, Long>, String> h,
                             List<StreamRecord<Tuple3<String, String, Long>>> records) throws Exception {
        for (StreamRecord<Tuple3<String, String, Long>> r : records) {
            h.processElement(new StreamRecord<>(r.getValue(), r.getTimestamp()));
        }
    }

    private static List<String> uninterrupted(CountMinAggregate<Tuple3<String, String, Long>> cm) throws Exception {
        try (var h = harness(cm, cm.accumulatorType(), false)) {
            h.open();
            feed(h, RECORDS);
            h.processWatermark(new Watermark(Long.MAX_VALUE));
            return h.extractOutputValues();
        }
    }

    private static OperatorSubtaskState firstPart(CountMinAggregate<Tuple3<String, String, Long>> cm,
                                                  TypeInformation<CountMinSketch> accumulatorType, boolean rocksDb)
            throws Exception {
        try (var h = harness(cm, accumulatorType, rocksDb)) {
            h.open();
            feed(h, RECORDS.subList(0, SPLIT));
            return h.snapshot(1, 1);
        }
    }

    private static List<String> rest(CountMinAggregate<Tuple3<String, String, Long>> cm, OperatorSubtaskState snapshot,
                                     boolean rocksDb) throws Exception {
        try (var h = harness(cm, cm.accumulatorType(), rocksDb)) {
            h.initializeState(snapshot);
            h.open();
            feed(h, RECORDS.subList(SPLIT, RECORDS.size()));
            h.processWatermark(new Watermark(Long.MAX_VALUE));
            return h.extractOutputValues();
        }
    }

    @ParameterizedTest(name = "rocksDb={0}")
    @ValueSource(booleans = {false, true})
    void aRestoredSessionMergesWithNewSketchesExactlyAsWithoutABreak(boolean rocksDb) throws Exception {
        CountMinAggregate<Tuple3<String, String, Long>> cm = aggregate().build();
        List<String> expected = uninterrupted(cm);
        Map<String, Map<String, Long>> truth = Streams.truth(RECORDS.stream().map(StreamRecord::getValue).toList());
        long total = truth.values().stream().flatMap(m -> m.values().stream()).mapToLong(Long::longValue).sum();
        assertThat(expected).as("two sessions per scope").hasSize(2 * truth.size());
        assertThat(expected.stream().mapToLong(s -> Long.parseLong(s.replaceAll(".* N=(\\d+) .*", "$1"))).sum())
                .as("every record's weight in one session").isEqualTo(total);

        assertThat(rest(cm, firstPart(cm, cm.accumulatorType(), rocksDb), rocksDb)).isEqualTo(expected);
    }

    /** Each field of the shape, changed alone: the restore fails, naming the serializer and the configured shape. */
    @ParameterizedTest(name = "rocksDb={0}")
    @ValueSource(booleans = {false, true})
    void restoringIntoAnAggregateOfAnotherShapeFails(boolean rocksDb) throws Exception {
        OperatorSubtaskState snapshot = firstPart(aggregate().build(), aggregate().build().accumulatorType(), rocksDb);
        List<UnaryOperator<CountMinAggregate.Builder<Tuple3<String, String, Long>>>> changes = List.of(
                b -> b.memory(8192, 3), b -> b.memory(4096, 4), b -> b.seed(4),
                b -> b.rowIndexing(RowIndexing.MIXED_32), b -> b.conservative(true));
        for (var change : changes) {
            CountMinAggregate<Tuple3<String, String, Long>> changed = change.apply(aggregate()).build();
            assertThatThrownBy(() -> rest(changed, snapshot, rocksDb)).as("%s", changed.sizing())
                    .hasStackTraceContaining("must not be incompatible with the old state serializer")
                    .hasStackTraceContaining("CountMinSketchSerializer" + changed.sizing().shape());
        }
    }

    /**
     * State written while the accumulator's serializer recorded no shape (as before it did) is self-describing:
     * it restores into the configured aggregate and continues exactly.
     */
    @Test
    void stateWrittenWithoutAShapeStillRestores() throws Exception {
        CountMinAggregate<Tuple3<String, String, Long>> cm = aggregate().build();
        OperatorSubtaskState snapshot = firstPart(cm, new CountMinSketchTypeInfo(), false);
        assertThat(rest(cm, snapshot, false)).isEqualTo(uninterrupted(cm));
    }
}
