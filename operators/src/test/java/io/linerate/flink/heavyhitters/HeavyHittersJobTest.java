package io.linerate.flink.heavyhitters;

import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.flink.cluster.TestCluster;
import io.linerate.flink.items.ItemSelector;
import io.linerate.flink.rejects.Rejected;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.api.java.tuple.Tuple4;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A real job on a MiniCluster (parallelism 2, checkpointing every 50 ms, bounded source): the reports, alerts and
 * rejected records equal a local run of the same operator in the test harness, and each report's N is exact.
 */
class HeavyHittersJobTest {

    @RegisterExtension
    static final MiniClusterExtension CLUSTER = TestCluster.twoSlots();

    /** (link, item, bytes, event time). */
    private static final TypeInformation<Tuple4<String, Long, Integer, Long>> TYPE =
            Types.TUPLE(Types.STRING, Types.LONG, Types.INT, Types.LONG);

    private static final class Link implements KeySelector<Tuple4<String, Long, Integer, Long>, String> {
        @Override
        public String getKey(Tuple4<String, Long, Integer, Long> r) {
            return r.f0;
        }
    }

    private static HeavyHitterDetector<Tuple4<String, Long, Integer, Long>, String> detector() {
        return HeavyHitterDetector.builder(new Link(), ItemSelector.<Tuple4<String, Long, Integer, Long>>longs(r -> r.f1))
                .weight(r -> r.f2).sliding(Duration.ofSeconds(2), Duration.ofSeconds(1)).topK(5).phi(0.05)
                .alertAtFraction(0.2, 20_000).build();
    }

    private static List<Tuple4<String, Long, Integer, Long>> input() {
        Fixtures.Zipf zipf = new Fixtures.Zipf(500, 1.2, 31);
        List<Tuple4<String, Long, Integer, Long>> records = new ArrayList<>();
        for (long t = 0; t < 4_000; t++) {
            for (String link : List.of("north", "south", "east")) {
                records.add(Tuple4.of(link, zipf.next(), zipf.length(), t));
            }
        }
        records.add(Tuple4.of("north", 1L, -5, 4_000L)); // negative weight: rejected
        return records;
    }

    @Test
    void jobWithCheckpointingEqualsTheLocalRun() throws Exception {
        List<Tuple4<String, Long, Integer, Long>> input = input();
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(50);
        HeavyHitterDetector<Tuple4<String, Long, Integer, Long>, String> detector = detector();
        DataStream<Tuple4<String, Long, Integer, Long>> source = env.fromData(input, TYPE).setParallelism(1)
                .assignTimestampsAndWatermarks(WatermarkStrategy.<Tuple4<String, Long, Integer, Long>>forMonotonousTimestamps()
                        .withTimestampAssigner((r, ts) -> r.f3)).setParallelism(1)
                .map(r -> {
                    if (r.f3 % 40 == 0 && r.f0.equals("east")) {
                        Thread.sleep(2); // ~200 ms in all: checkpoints (every 50 ms) happen while windows are open
                    }
                    return r;
                }).returns(TYPE).setParallelism(1);
        SingleOutputStreamOperator<HeavyHitterReport<String>> reports = detector.apply(source);
        DataStream<String> all = reports.map(HeavyHitterReport::toString).returns(Types.STRING)
                .union(reports.getSideOutput(HeavyHitterDetector.alertTag(Types.STRING))
                                .map(HeavyHitterAlert::toString).returns(Types.STRING),
                        reports.getSideOutput(Rejected.tag(TYPE)).map(Rejected::toString).returns(Types.STRING));
        List<String> out = new ArrayList<>();
        long writesBefore = SubWindowSerializer.WRITES.sum();
        all.executeAndCollect("heavy hitters").forEachRemaining(out::add);

        assertThat(SubWindowSerializer.WRITES.sum() - writesBefore).as("checkpoints wrote the per-key sub-windows")
                .isPositive();
        List<String> expected = local(detector, input);
        assertThat(expected).anyMatch(s -> s.startsWith("Alert")).anyMatch(s -> s.startsWith("Rejected"))
                .filteredOn(s -> s.startsWith("HH")).hasSize(3 * 5); // windows ending at 0 s … 4 s per link
        assertThat(out).containsExactlyInAnyOrderElementsOf(expected);
        for (String link : List.of("north", "south", "east")) {
            long n = input.stream().filter(r -> r.f0.equals(link) && r.f3 >= 1000 && r.f3 < 3000 && r.f2 >= 0)
                    .mapToLong(r -> r.f2).sum();
            assertThat(out).contains(out.stream().filter(s -> s.startsWith("HH{" + link + " [1000,3000) N=" + n + " "))
                    .findFirst().orElseThrow());
        }
    }

    /** The same operator in the keyed test harness, all records then the final watermark. */
    private static List<String> local(HeavyHitterDetector<Tuple4<String, Long, Integer, Long>, String> detector,
                                      List<Tuple4<String, Long, Integer, Long>> input) throws Exception {
        List<String> out = new ArrayList<>();
        try (var h = new org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness<>(
                detector.operator(TYPE, Types.STRING), new Link(), Types.STRING)) {
            h.open();
            for (var r : input) {
                h.processElement(new StreamRecord<>(r, r.f3));
            }
            h.processWatermark(new Watermark(Long.MAX_VALUE));
            h.extractOutputValues().forEach(r -> out.add(r.toString()));
            h.getSideOutput(HeavyHitterDetector.alertTag(Types.STRING)).forEach(a -> out.add(a.getValue().toString()));
            h.getSideOutput(Rejected.tag(TYPE)).forEach(r -> out.add(r.getValue().toString()));
        }
        return out;
    }
}
