package io.linerate.flink.heavyhitters;

import static io.linerate.flink.heavyhitters.Batches.BATCH;
import static io.linerate.flink.heavyhitters.Batches.ELEMENT;
import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.flink.cluster.TestCluster;
import io.linerate.flink.rejects.Rejected;
import io.linerate.flink.state.FailOnceAfterACheckpoint;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple4;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link HeavyHitterDetector#applyToBatches} in a real job (parallelism 2, checkpointing every 50 ms, bounded source
 * of batch records, elements read through a flyweight): reports, alerts and rejected elements equal the single-record
 * operator run locally on the same elements, on the heap and the RocksDB state backends, with a task failure after a
 * completed checkpoint (on RocksDB the rings stay in the operator's write-back cache between checkpoints).
 */
class HeavyHittersBatchJobTest {

    @RegisterExtension
    static final MiniClusterExtension CLUSTER = TestCluster.twoSlots();

    private static final List<String> LINKS = List.of("north", "south", "east");
    private static final int PER_BATCH = 20;

    /** Per link, batches of 20 consecutive ms (one element per ms), links interleaved; one negative byte count. */
    private static List<Tuple4<String, long[], int[], long[]>> batches() {
        Fixtures.Zipf zipf = new Fixtures.Zipf(500, 1.2, 37);
        List<Tuple4<String, long[], int[], long[]>> out = new ArrayList<>();
        for (long t = 0; t < 4_000; t += PER_BATCH) {
            for (String link : LINKS) {
                long[] items = new long[PER_BATCH];
                int[] bytes = new int[PER_BATCH];
                long[] times = new long[PER_BATCH];
                for (int i = 0; i < PER_BATCH; i++) {
                    items[i] = zipf.next();
                    bytes[i] = zipf.length();
                    times[i] = t + i;
                }
                if (t == 2_000 && link.equals("south")) {
                    bytes[7] = -5; // rejected, the rest of its batch counted
                }
                out.add(Tuple4.of(link, items, bytes, times));
            }
        }
        return out;
    }

    /**
     * @param backend {@code hashmap}, {@code rocksdb} (the default cache: every key's ring stays cached), or
     *        {@code rocksdb-small-cache} (room for about one ring per subtask: keys take turns, written back and read
     *        again)
     */
    @ParameterizedTest(name = "state backend {0}")
    @ValueSource(strings = {"hashmap", "rocksdb", "rocksdb-small-cache"})
    void batchJobWithCheckpointingEqualsTheSingleRecordRun(String backend) throws Exception {
        var builder = Batches.builder(true);
        if (backend.equals("rocksdb-small-cache")) {
            long tracker = builder.build().trackerBytes();
            builder.stateCacheBytes(3 * tracker); // a ring of two sub-windows and change
            backend = "rocksdb";
        }
        var detector = builder.build();
        List<Tuple4<String, long[], int[], long[]>> input = batches();
        Configuration conf = FailOnceAfterACheckpoint.resetFor(backend);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(2);
        env.enableCheckpointing(50);
        // before the timestamps: a restored source replays its records to the assigner as they were
        // ~5 ms every 200 ms of input (0.1 s in all), and a quarter of the way in held back until a checkpoint
        // completed: windows are open at the checkpoints and at the failure
        DataStream<Tuple4<String, long[], int[], long[]>> source = FailOnceAfterACheckpoint.source(env, input, BATCH,
                        input.size() / 4, b -> b.f3[0] % 200 == 0 && b.f0.equals("east"))
                .assignTimestampsAndWatermarks(WatermarkStrategy.<Tuple4<String, long[], int[], long[]>>forMonotonousTimestamps()
                        .withTimestampAssigner((b, ts) -> b.f3[0])).setParallelism(1);
        SingleOutputStreamOperator<HeavyHitterReport<String>> reports =
                detector.applyToBatches(source, new Batches.BatchLink(), new Batches.Flyweight(), ELEMENT);
        DataStream<String> all = reports.map(HeavyHitterReport::toString).returns(Types.STRING)
                .union(reports.getSideOutput(HeavyHitterDetector.alertTag(Types.STRING))
                                .map(HeavyHitterAlert::toString).returns(Types.STRING),
                        reports.getSideOutput(Rejected.tag(ELEMENT)).map(Rejected::toString).returns(Types.STRING),
                        reports.getSideOutput(HeavyHitterDetector.lateTag(ELEMENT)).map(e -> "late " + e)
                                .returns(Types.STRING));
        List<String> out = new ArrayList<>();
        long writesBefore = SubWindowSerializer.WRITES.sum();
        all.executeAndCollect("heavy hitters on batches").forEachRemaining(out::add);

        assertThat(SubWindowSerializer.WRITES.sum() - writesBefore).as("checkpoints wrote the per-key sub-windows")
                .isPositive();
        List<String> expected = singleRecordRun(detector, input);
        assertThat(expected).anyMatch(s -> s.startsWith("Alert")).anyMatch(s -> s.startsWith("Rejected"))
                .noneMatch(s -> s.startsWith("late"))
                .filteredOn(s -> s.startsWith("HH")).hasSize(3 * 5); // windows ending at 0 s … 4 s per link
        assertThat(out).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(FailOnceAfterACheckpoint.failed()).as("a failure was injected after a completed checkpoint")
                .isTrue();
    }

    /** Every element as one record (its own time as timestamp) through the single-record operator, then the end. */
    private static List<String> singleRecordRun(HeavyHitterDetector<Tuple4<String, Long, Integer, Long>, String> d,
                                                List<Tuple4<String, long[], int[], long[]>> input) throws Exception {
        List<String> out = new ArrayList<>();
        try (var h = new KeyedOneInputStreamOperatorTestHarness<>(d.operator(ELEMENT, Types.STRING),
                new Batches.ElementLink(), Types.STRING)) {
            h.open();
            for (var b : input) {
                new Batches.Fresh().forEach(b, e -> {
                    try {
                        h.processElement(new StreamRecord<>(e, e.f3));
                    } catch (Exception x) {
                        throw new IllegalStateException(x);
                    }
                });
            }
            h.processWatermark(new Watermark(Long.MAX_VALUE));
            h.extractOutputValues().forEach(r -> out.add(r.toString()));
            h.getSideOutput(HeavyHitterDetector.alertTag(Types.STRING)).forEach(a -> out.add(a.getValue().toString()));
            h.getSideOutput(Rejected.tag(ELEMENT)).forEach(r -> out.add(r.getValue().toString()));
        }
        return out;
    }
}
