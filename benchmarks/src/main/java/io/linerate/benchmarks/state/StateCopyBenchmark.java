package io.linerate.benchmarks.state;

import io.linerate.flink.serializers.CountMinSketchSerializer;
import io.linerate.flink.serializers.FlowTableSerializer;
import io.linerate.sketches.flowtable.FlowTable;
import io.linerate.sketches.frequency.CountMinSketch;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.java.typeutils.runtime.kryo.KryoSerializer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Time of one deep copy of a state value, what Flink's heap state backend does on the task thread for every key
 * whose state is accessed while an asynchronous checkpoint is being written ({@code TypeSerializer.copy}, copy on
 * write): the same 4 MiB Count-Min sketch and 1M-flow table as {@link SerializerBenchmark}.
 *
 * <p>Ways ({@code how}):
 * <ul>
 *   <li><b>serializer</b>: the linerate serializer's {@code copy}, i.e. the structure's {@code copy()} (array
 *       copies, no validation);</li>
 *   <li><b>image</b>: a round trip through the byte image, {@code fromByteArray(toByteArray())}, which is what the
 *       linerate serializers' {@code copy} did before 2026-11-26 (the read validates the image);</li>
 *   <li><b>kryo</b>: Flink's generic {@code KryoSerializer.copy} for the same class (Kryo's reflective deep
 *       copy), what a type without its own serializer gets.</li>
 * </ul>
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar StateCopyBenchmark}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms4g", "-Xmx4g", "-XX:+AlwaysPreTouch"})
public class StateCopyBenchmark {

    @State(Scope.Thread)
    public static class Data {
        @Param({"countmin", "flowtable"})
        public String obj;

        @Param({"serializer", "image", "kryo"})
        public String how;

        Object value;
        TypeSerializer<Object> serializer;

        @Setup(Level.Trial)
        @SuppressWarnings({"unchecked", "rawtypes"})
        public void setUp() {
            boolean countMin = obj.equals("countmin");
            if (!countMin && !obj.equals("flowtable")) {
                throw new IllegalArgumentException("unknown obj " + obj);
            }
            value = countMin ? SerializerBenchmark.countMin() : SerializerBenchmark.flowTable();
            Class<?> type = countMin ? CountMinSketch.class : FlowTable.class;
            switch (how) {
                case "serializer":
                    serializer = (TypeSerializer) (countMin ? CountMinSketchSerializer.INSTANCE
                            : FlowTableSerializer.INSTANCE);
                    break;
                case "kryo":
                    serializer = new KryoSerializer(type, new SerializerConfigImpl());
                    break;
                case "image":
                    break;
                default:
                    throw new IllegalArgumentException("unknown how " + how);
            }
            if (!Arrays.equals(image(copyOf(this)), image(value))) {
                throw new IllegalStateException(obj + " / " + how + ": the copy has another image");
            }
        }
    }

    static byte[] image(Object o) {
        return o instanceof CountMinSketch s ? s.toByteArray() : ((FlowTable) o).toByteArray();
    }

    static Object copyOf(Data d) {
        if (d.serializer != null) {
            return d.serializer.copy(d.value);
        }
        return d.value instanceof CountMinSketch s ? CountMinSketch.fromByteArray(s.toByteArray())
                : FlowTable.fromByteArray(((FlowTable) d.value).toByteArray(), null);
    }

    @Benchmark
    public Object copy(Data d) {
        return copyOf(d);
    }
}
