package io.linerate.flink.serializers;

import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.flink.cluster.TestCluster;
import io.linerate.sketches.flowtable.FlowTable;
import io.linerate.sketches.frequency.CountMinSketch;
import io.linerate.sketches.frequency.RowIndexing;
import io.linerate.sketches.hash.FiveTuple;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.api.java.typeutils.GenericTypeInfo;
import org.apache.flink.api.java.typeutils.runtime.kryo.KryoSerializer;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.Collector;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Real Flink jobs on a MiniCluster (one TaskManager, two slots, parallelism 2). The first keeps linerate
 * structures inside a user type that Flink serializes with Kryo (a {@link GenericTypeInfo}), registered with
 * {@link LinerateTypes#registerKryo}; the records cross a keyBy (serialized between tasks) into keyed
 * {@link ValueState} of that type, snapshotted by checkpoints. The second keeps a Count-Min sketch directly as
 * keyed state through its {@link CountMinSketchTypeInfo}, with checkpointing on.
 */
class FlinkJobTest {

    @RegisterExtension
    static final MiniClusterExtension CLUSTER = TestCluster.twoSlots();

    /** A user type holding linerate structures; forced through Kryo as a generic type. */
    public static final class Holder {
        public int key;
        public int seq;
        public CountMinSketch cms;
        public FlowTable flows;
    }

    static Holder holder(int seq) {
        Holder h = new Holder();
        h.seq = seq;
        h.key = seq % 4;
        h.cms = CountMinSketch.withShape(1024, 4, 7, RowIndexing.FULL_WIDTH, seq % 2 == 0);
        for (long i = 0; i < 1000; i++) {
            h.cms.update((i * 7919 + seq) % 200, 1 + i % 3);
        }
        h.flows = FlowTable.builder().capacity(500).seed(11).build();
        for (int j = 0; j < 40 + seq; j++) {
            h.flows.update(FiveTuple.ipv4(0x0A000000 + j, 0x0A000001 + seq, 1000 + j % 7, 80, 6), 0, 100 + j,
                    1000L + j);
        }
        return h;
    }

    /** The class of the Kryo serializer Flink's state KryoSerializer uses for CountMinSketch and FlowTable. */
    static final AtomicReference<String> STATE_KRYO_SERIALIZERS = new AtomicReference<>();

    /** Keeps the last holder per key in ValueState and emits what the state gives back. */
    static final class KeepInState extends KeyedProcessFunction<Integer, Holder, Holder> {
        private transient ValueState<Holder> last;

        @Override
        public void open(OpenContext ctx) {
            ValueStateDescriptor<Holder> d = new ValueStateDescriptor<>("last", new GenericTypeInfo<>(Holder.class));
            last = getRuntimeContext().getState(d);
            KryoSerializer<Holder> s = (KryoSerializer<Holder>) d.getSerializer();
            STATE_KRYO_SERIALIZERS.set(s.getKryo().getSerializer(CountMinSketch.class).getClass().getName() + ","
                    + s.getKryo().getSerializer(FlowTable.class).getClass().getName());
        }

        @Override
        public void processElement(Holder in, Context ctx, Collector<Holder> out) throws Exception {
            last.update(in);
            out.collect(last.value());
        }
    }

    @Test
    void structuresInsideAGenericTypeCrossAKeyByAndLiveInKeyedStateThroughOurKryoSerializers() throws Exception {
        Configuration conf = new Configuration();
        conf.set(PipelineOptions.GENERIC_TYPES, true);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(2);
        env.enableCheckpointing(50);
        LinerateTypes.registerKryo(env.getConfig().getSerializerConfig());

        int n = 16;
        List<Holder> input = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            input.add(holder(i));
        }
        TypeInformation<Holder> generic = new GenericTypeInfo<>(Holder.class);
        long kryoWritesBefore = ImageKryoSerializer.WRITES.sum();

        List<Holder> out = new ArrayList<>();
        env.fromData(input, generic).setParallelism(1)
                .keyBy(h -> h.key, Types.INT)
                .process(new KeepInState()).returns(generic)
                .executeAndCollect("linerate kryo round trip").forEachRemaining(out::add);

        assertThat(out).hasSize(n);
        for (Holder h : out) {
            Holder expected = holder(h.seq);
            assertThat(h.key).isEqualTo(expected.key);
            assertThat(h.cms.toByteArray()).as("cms of %d", h.seq).isEqualTo(expected.cms.toByteArray());
            assertThat(h.flows.toByteArray()).as("flows of %d", h.seq).isEqualTo(expected.flows.toByteArray());
            for (long item = 0; item < 200; item += 13) {
                assertThat(h.cms.estimate(item)).isEqualTo(expected.cms.estimate(item));
            }
            assertThat(h.flows.size()).isEqualTo(expected.flows.size());
        }
        assertThat(out.stream().mapToInt(h -> h.seq).sorted().toArray())
                .isEqualTo(java.util.stream.IntStream.range(0, n).toArray());
        // each holder's two structures are written by our Kryo serializers at least three times: into the
        // source's element list (client side), across the keyBy, and into the collect sink (plus checkpoints)
        long kryoWrites = ImageKryoSerializer.WRITES.sum() - kryoWritesBefore;
        System.out.println("FlinkJobTest: linerate Kryo writes in job 1: " + kryoWrites);
        assertThat(kryoWrites).isGreaterThanOrEqualTo(3L * 2 * n);
        assertThat(STATE_KRYO_SERIALIZERS.get()).isEqualTo(KryoSerializers.CountMinSketchKryo.class.getName() + ","
                + KryoSerializers.FlowTableKryo.class.getName());
    }

    /** Count-Min sketch per key as keyed state through its TypeInformation; emits (key, image) per update. */
    static final class SketchPerKey extends KeyedProcessFunction<Long, Long, Tuple2<Long, byte[]>> {
        static final AtomicReference<String> STATE_SERIALIZER = new AtomicReference<>();
        private transient ValueState<CountMinSketch> sketch;

        @Override
        public void open(OpenContext ctx) {
            ValueStateDescriptor<CountMinSketch> d = new ValueStateDescriptor<>("cms", new CountMinSketchTypeInfo());
            sketch = getRuntimeContext().getState(d);
            STATE_SERIALIZER.set(d.getSerializer().getClass().getName());
        }

        @Override
        public void processElement(Long item, Context ctx, Collector<Tuple2<Long, byte[]>> out) throws Exception {
            CountMinSketch s = sketch.value();
            if (s == null) {
                s = newSketch();
            }
            s.update(item, 1);
            sketch.update(s);
            out.collect(Tuple2.of(ctx.getCurrentKey(), s.toByteArray()));
        }
    }

    static CountMinSketch newSketch() {
        return CountMinSketch.withShape(512, 4, 99, RowIndexing.FULL_WIDTH, true);
    }

    @Test
    void countMinAsDirectKeyedStateGoesThroughOurTypeSerializerWithCheckpointing() throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(new Configuration());
        env.setParallelism(2);
        env.enableCheckpointing(50);
        long writesBefore = ImageSerializer.WRITES.sum();

        int n = 4000;
        List<Long> items = new ArrayList<>();
        for (long i = 0; i < n; i++) {
            items.add((i * 2654435761L) % 300);
        }
        Map<Long, byte[]> last = new HashMap<>();
        env.fromData(items, Types.LONG).setParallelism(1)
                .keyBy(i -> i % 4, Types.LONG)
                .process(new SketchPerKey()).returns(Types.TUPLE(Types.LONG, Types.PRIMITIVE_ARRAY(Types.BYTE)))
                .executeAndCollect("linerate keyed Count-Min").forEachRemaining(t -> last.put(t.f0, t.f1));

        Map<Long, CountMinSketch> expected = new HashMap<>();
        for (long item : items) {
            expected.computeIfAbsent(item % 4, k -> newSketch()).update(item, 1);
        }
        assertThat(last.keySet()).isEqualTo(expected.keySet());
        for (Map.Entry<Long, CountMinSketch> e : expected.entrySet()) {
            assertThat(last.get(e.getKey())).as("key %d", e.getKey()).isEqualTo(e.getValue().toByteArray());
        }
        assertThat(SketchPerKey.STATE_SERIALIZER.get()).isEqualTo(CountMinSketchSerializer.class.getName());
        // the heap backend serializes state only when it snapshots: at least the final checkpoint did
        long writes = ImageSerializer.WRITES.sum() - writesBefore;
        System.out.println("FlinkJobTest: CountMinSketchSerializer writes in job 2: " + writes);
        assertThat(writes).as("structures written by CountMinSketchSerializer").isGreaterThan(0);
    }
}
