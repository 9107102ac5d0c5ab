package io.linerate.flink.dedup;

import static io.linerate.flink.dedup.DedupHarnesses.TYPE;
import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.flink.cluster.TestCluster;
import io.linerate.flink.items.ItemSelector;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A real job on a MiniCluster (parallelism 2, checkpoints every 50 ms, bounded source, event time with ascending
 * timestamps): the three outputs equal an exact model of the rings, and checkpoints completed while it ran.
 */
class DedupJobTest {

    @RegisterExtension
    static final MiniClusterExtension CLUSTER = TestCluster.twoSlots();

    static final AtomicInteger CHECKPOINTS = new AtomicInteger();

    /** Passes records through slowly enough for checkpoints to complete mid-stream, and counts them. */
    static final class Throttle implements MapFunction<Tuple3<String, Long, Long>, Tuple3<String, Long, Long>>,
            CheckpointListener {
        private int seen;

        @Override
        public Tuple3<String, Long, Long> map(Tuple3<String, Long, Long> r) throws Exception {
            if (++seen % 20 == 0) {
                Thread.sleep(2);
            }
            return r;
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) {
            CHECKPOINTS.incrementAndGet();
        }
    }

    @Test
    void eventTimeJobWithCheckpointsEmitsExactlyTheModelsOutputs() throws Exception {
        SplittableRandom rnd = new SplittableRandom(11);
        List<Tuple3<String, Long, Long>> records = new ArrayList<>();
        for (int i = 0; i < 3000; i++) {
            long item = rnd.nextInt(100) == 0 ? -1 : rnd.nextInt(150); // -1: no item (malformed)
            records.add(Tuple3.of("k" + rnd.nextInt(6), item, 7L * i));
        }
        var dedup = Deduplicator.<Tuple3<String, Long, Long>, String>builder()
                .scope(r -> r.f0, Types.STRING)
                .item(ItemSelector.strings(r -> r.f1 < 0 ? null : "id-" + r.f1))
                .horizon(Duration.ofSeconds(1)).generations(3).eventTime()
                .expectedRate(100).fpp(1e-6).seed(5).build();

        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(50);
        DataStream<Tuple3<String, Long, Long>> input = env.fromData(records, TYPE).setParallelism(1)
                .map(new Throttle()).returns(TYPE).setParallelism(1)
                .assignTimestampsAndWatermarks(WatermarkStrategy.<Tuple3<String, Long, Long>>forMonotonousTimestamps()
                        .withTimestampAssigner((r, ts) -> r.f2)).setParallelism(1);
        DedupStreams<Tuple3<String, Long, Long>> out = dedup.apply(input);
        List<String> got = new ArrayList<>();
        out.firstOccurrences().map(r -> r.f0 + "," + r.f1 + "," + r.f2 + ",F").returns(Types.STRING)
                .union(out.duplicates().map(r -> r.f0 + "," + r.f1 + "," + r.f2 + ",D").returns(Types.STRING),
                        out.malformed().map(m -> m.record.f0 + "," + m.record.f1 + "," + m.record.f2 + ",M:"
                                + m.reason).returns(Types.STRING))
                .executeAndCollect("dedup job").forEachRemaining(got::add);

        // model: a record is flagged iff its item's latest occurrence in the key was in one of the g epochs up to
        // its own (timestamps ascend, so the key's clock is the record's timestamp)
        long span = dedup.sizing().spanMillis();
        Map<String, Long> latest = new HashMap<>();
        List<String> expected = new ArrayList<>();
        for (Tuple3<String, Long, Long> r : records) {
            String prefix = r.f0 + "," + r.f1 + "," + r.f2;
            if (r.f1 < 0) {
                expected.add(prefix + ",M:item: item is null");
                continue;
            }
            Long last = latest.put(r.f0 + "|" + r.f1, r.f2);
            boolean kept = last != null && Math.floorDiv(last, span) > Math.floorDiv(r.f2, span) - 3;
            expected.add(prefix + (kept ? ",D" : ",F"));
        }
        assertThat(got).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(expected.stream().filter(s -> s.endsWith(",D")).count()).isGreaterThan(300);
        assertThat(CHECKPOINTS.get()).as("checkpoints completed while the job ran").isPositive();
    }

    static final AtomicInteger BATCH_CHECKPOINTS = new AtomicInteger();

    /** Passes batches through slowly enough for checkpoints to complete mid-stream, and counts them. */
    static final class BatchThrottle implements MapFunction<Tuple2<String, List<Tuple3<String, Long, Long>>>,
            Tuple2<String, List<Tuple3<String, Long, Long>>>>, CheckpointListener {
        @Override
        public Tuple2<String, List<Tuple3<String, Long, Long>>> map(Tuple2<String, List<Tuple3<String, Long, Long>>> b)
                throws Exception {
            Thread.sleep(1);
            return b;
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) {
            BATCH_CHECKPOINTS.incrementAndGet();
        }
    }

    @Test
    void batchJobWithCheckpointsEmitsExactlyTheModelsElements() throws Exception {
        // batches of 1..12 elements of one key, element times ascending across the stream (so each key's clock is
        // the element's own time and the exact model of the record job applies element by element)
        SplittableRandom rnd = new SplittableRandom(13);
        List<Tuple2<String, List<Tuple3<String, Long, Long>>>> batches = new ArrayList<>();
        List<Tuple3<String, Long, Long>> elements = new ArrayList<>();
        long t = 0;
        while (elements.size() < 3000) {
            String key = "k" + rnd.nextInt(6);
            List<Tuple3<String, Long, Long>> batch = new ArrayList<>();
            for (int n = 1 + rnd.nextInt(12); n > 0; n--) {
                long item = rnd.nextInt(100) == 0 ? -1 : rnd.nextInt(150);
                t += 7;
                batch.add(Tuple3.of(key, item, t));
            }
            elements.addAll(batch);
            batches.add(Tuple2.of(key, batch));
        }
        var dedup = Deduplicator.<Tuple3<String, Long, Long>, String>builder()
                .scope(r -> r.f0, Types.STRING)
                .item(ItemSelector.strings(r -> r.f1 < 0 ? null : "id-" + r.f1))
                .horizon(Duration.ofSeconds(1)).generations(3).eventTime().timestamps(r -> r.f2)
                .expectedRate(100).fpp(1e-6).seed(5).build();

        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(50);
        TypeInformation<Tuple2<String, List<Tuple3<String, Long, Long>>>> batchType = DedupBatchTest.BATCH_TYPE;
        DataStream<Tuple2<String, List<Tuple3<String, Long, Long>>>> input = env.fromData(batches, batchType)
                .setParallelism(1)
                .map(new BatchThrottle()).returns(batchType).setParallelism(1)
                .assignTimestampsAndWatermarks(WatermarkStrategy
                        .<Tuple2<String, List<Tuple3<String, Long, Long>>>>forMonotonousTimestamps()
                        .withTimestampAssigner((b, ts) -> b.f1.get(b.f1.size() - 1).f2)).setParallelism(1);
        DedupStreams<Tuple3<String, Long, Long>> out =
                dedup.applyToBatches(input, b -> b.f0, DedupBatchTest.ELEMENTS, TYPE);
        List<String> got = new ArrayList<>();
        out.firstOccurrences().map(r -> r.f0 + "," + r.f1 + "," + r.f2 + ",F").returns(Types.STRING)
                .union(out.duplicates().map(r -> r.f0 + "," + r.f1 + "," + r.f2 + ",D").returns(Types.STRING),
                        out.malformed().map(m -> m.record.f0 + "," + m.record.f1 + "," + m.record.f2 + ",M:"
                                + m.reason).returns(Types.STRING))
                .executeAndCollect("dedup batch job").forEachRemaining(got::add);

        long span = dedup.sizing().spanMillis();
        Map<String, Long> latest = new HashMap<>();
        List<String> expected = new ArrayList<>();
        for (Tuple3<String, Long, Long> r : elements) {
            String prefix = r.f0 + "," + r.f1 + "," + r.f2;
            if (r.f1 < 0) {
                expected.add(prefix + ",M:item: item is null");
                continue;
            }
            Long last = latest.put(r.f0 + "|" + r.f1, r.f2);
            boolean kept = last != null && Math.floorDiv(last, span) > Math.floorDiv(r.f2, span) - 3;
            expected.add(prefix + (kept ? ",D" : ",F"));
        }
        assertThat(got).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(expected.stream().filter(s -> s.endsWith(",D")).count()).isGreaterThan(300);
        assertThat(BATCH_CHECKPOINTS.get()).as("checkpoints completed while the job ran").isPositive();
    }
}
