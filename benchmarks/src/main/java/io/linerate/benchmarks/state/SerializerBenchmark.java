package io.linerate.benchmarks.state;

import io.linerate.benchmarks.flowtable.FlowCounter;
import io.linerate.benchmarks.flowtable.FlowCounters;
import io.linerate.benchmarks.flowtable.Packets;
import io.linerate.benchmarks.frequency.ZipfKeys;
import io.linerate.flink.serializers.CountMinSketchSerializer;
import io.linerate.flink.serializers.FlowTableSerializer;
import io.linerate.flink.serializers.ImageKryoSerializer;
import io.linerate.flink.serializers.LinerateTypes;
import io.linerate.sketches.flowtable.FlowTable;
import io.linerate.sketches.frequency.CountMinSketch;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.java.typeutils.runtime.kryo.KryoSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
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
 * Serialize and deserialize time of a 4 MiB Count-Min sketch and a flow table holding 1M flows, through
 * linerate's Flink serializer, Flink's generic Kryo path and Java serialization (issue 5's benchmark).
 *
 * <p>Objects ({@code obj}):
 * <ul>
 *   <li><b>countmin</b>: {@code CountMinSketch.withMemory(4 MiB, depth 4, seed)} (4 × 131,071 counters,
 *       4,194,272 bytes of counters), filled with the 10M-item Zipf(1.1) stream of {@link ZipfKeys#standard()}.</li>
 *   <li><b>flowtable</b>: the flow table benchmark's {@code linerate} table (second chance, d = 4, IPv4-only keys,
 *       timeouts off, stash 1024) built for 1.2M flows and holding the 1M flows of {@code Packets.standard(1M)},
 *       each inserted with one packet (83% of its capacity); the setup fails unless it holds all of them and
 *       evicted none.</li>
 * </ul>
 *
 * <p>Paths ({@code path}):
 * <ul>
 *   <li><b>linerate</b>: {@code CountMinSketchSerializer.INSTANCE} / {@code FlowTableSerializer.INSTANCE} into
 *       Flink's {@code DataOutputSerializer} and from a {@code DataInputDeserializer} (int length + image).</li>
 *   <li><b>linerate-kryo</b>: the structure as a generic type, {@code new KryoSerializer<>(type, config)} after
 *       {@code LinerateTypes.registerKryo(config)}, so Flink's Kryo writes it with linerate's Kryo serializer
 *       (class id, little-endian int length, image); same buffers. The setup fails unless that serializer is used.</li>
 *   <li><b>kryo</b>: Flink's generic path, {@code new KryoSerializer<>(type, new SerializerConfigImpl())} with no
 *       linerate registration, so Kryo's default {@code FieldSerializer} walks the object reflectively. If Kryo
 *       cannot handle an object the setup fails, and that failure is the result.</li>
 *   <li><b>java</b>: {@code ObjectOutputStream.writeObject} of the structure itself (fails in the setup if the
 *       class is not {@code Serializable}; that failure is the result).</li>
 *   <li><b>java-image</b>: Java serialization of the structure's byte image (the {@code byte[]} that
 *       {@code toByteArray()} returns, made once in the setup): a byte-throughput reference for the same bytes,
 *       without the conversion between structure and image.</li>
 * </ul>
 * Buffers are reused across invocations (the output buffer is cleared, the input is reset to the same bytes);
 * an {@code ObjectOutputStream} / {@code ObjectInputStream} is necessarily created per operation. The setup
 * prints each path's serialized length, the byte count of its MB/s.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar SerializerBenchmark}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms4g", "-Xmx4g", "-XX:+AlwaysPreTouch"})
public class SerializerBenchmark {

    /** 4 MiB of Count-Min counters. */
    public static final long CM_BYTES = 4L << 20;
    public static final int CM_DEPTH = 4;
    public static final long CM_SEED = 0x434D_5345_5244_4531L;
    /** Flows in the table, and the capacity it is built for. */
    public static final int FLOWS = 1_000_000;
    public static final int FLOW_CAPACITY = 1_200_000;

    @State(Scope.Thread)
    public static class Data {
        @Param({"countmin", "flowtable"})
        public String obj;

        @Param({"linerate", "linerate-kryo", "kryo", "java", "java-image"})
        public String path;

        Object value;
        byte[] image;
        TypeSerializer<Object> serializer;
        DataOutputSerializer out;
        DataInputDeserializer in;
        byte[] serialized;
        ByteArrayOutputStream bytes;

        @Setup(Level.Trial)
        @SuppressWarnings({"unchecked", "rawtypes"})
        public void setUp() throws IOException, ClassNotFoundException {
            Class<?> type;
            TypeSerializer<?> ours;
            switch (obj) {
                case "countmin":
                    value = countMin();
                    type = CountMinSketch.class;
                    ours = CountMinSketchSerializer.INSTANCE;
                    image = ((CountMinSketch) value).toByteArray();
                    break;
                case "flowtable":
                    value = flowTable();
                    type = FlowTable.class;
                    ours = FlowTableSerializer.INSTANCE;
                    image = ((FlowTable) value).toByteArray();
                    break;
                default:
                    throw new IllegalArgumentException("unknown obj " + obj);
            }
            switch (path) {
                case "linerate":
                    serializer = (TypeSerializer<Object>) ours;
                    break;
                case "linerate-kryo":
                    KryoSerializer registered = new KryoSerializer(type,
                            LinerateTypes.registerKryo(new SerializerConfigImpl()));
                    if (!(registered.getKryo().getSerializer(type) instanceof ImageKryoSerializer)) {
                        throw new IllegalStateException(type + ": Flink's Kryo did not take the linerate serializer");
                    }
                    serializer = registered;
                    break;
                case "kryo":
                    serializer = new KryoSerializer(type, new SerializerConfigImpl());
                    break;
                case "java":
                case "java-image":
                    bytes = new ByteArrayOutputStream(image.length + 1024);
                    serialized = javaWrite(javaObject());
                    System.out.println();
                    System.out.println(obj + " / " + path + ": image " + image.length + " bytes, serialized "
                            + serialized.length + " bytes");
                    Object back = javaRead(serialized);
                    if (path.equals("java-image") && !java.util.Arrays.equals((byte[]) back, image)) {
                        throw new IllegalStateException("java-image round trip differs");
                    }
                    return;
                default:
                    throw new IllegalArgumentException("unknown path " + path);
            }
            out = new DataOutputSerializer(image.length + 1024);
            serializer.serialize(value, out);
            serialized = out.getCopyOfBuffer();
            in = new DataInputDeserializer(serialized);
            Object back = serializer.deserialize(in);
            // the round trip must give the same image (for kryo: the reflectively copied object must still work)
            byte[] again = back instanceof CountMinSketch ? ((CountMinSketch) back).toByteArray()
                    : ((FlowTable) back).toByteArray();
            if (!java.util.Arrays.equals(again, image)) {
                throw new IllegalStateException(obj + " / " + path + ": round trip changed the image");
            }
            System.out.println();
            System.out.println(obj + " / " + path + ": image " + image.length + " bytes, serialized "
                    + serialized.length + " bytes; " + value);
        }

        Object javaObject() {
            return path.equals("java") ? value : image;
        }

        byte[] javaWrite(Object o) throws IOException {
            bytes.reset();
            try (ObjectOutputStream oos = new ObjectOutputStream(bytes)) {
                oos.writeObject(o);
            }
            return bytes.toByteArray();
        }

        static Object javaRead(byte[] b) throws IOException, ClassNotFoundException {
            try (ObjectInputStream ois = new ObjectInputStream(new ByteArrayInputStream(b))) {
                return ois.readObject();
            }
        }
    }

    static CountMinSketch countMin() {
        CountMinSketch s = CountMinSketch.withMemory(CM_BYTES, CM_DEPTH, CM_SEED);
        for (long key : ZipfKeys.standard().stream()) {
            s.update(key, 1);
        }
        return s;
    }

    static FlowTable flowTable() {
        Packets packets = Packets.standard(FLOWS);
        FlowCounter counter = FlowCounters.create("linerate", FLOW_CAPACITY);
        packets.insertEveryFlow(counter, 0);
        FlowTable t = (FlowTable) counter.unwrap();
        if (t.size() != FLOWS || t.evictions() != 0) {
            throw new IllegalStateException("after inserting " + FLOWS + " flows: " + t);
        }
        return t;
    }

    @Benchmark
    public int serialize(Data d) throws IOException {
        if (d.serializer == null) {
            d.bytes.reset();
            ObjectOutputStream oos = new ObjectOutputStream(d.bytes);
            oos.writeObject(d.javaObject());
            oos.flush();
            return d.bytes.size();
        }
        d.out.clear();
        d.serializer.serialize(d.value, d.out);
        return d.out.length();
    }

    @Benchmark
    public Object deserialize(Data d) throws IOException, ClassNotFoundException {
        if (d.serializer == null) {
            return new ObjectInputStream(new ByteArrayInputStream(d.serialized)).readObject();
        }
        d.in.setBuffer(d.serialized);
        return d.serializer.deserialize(d.in);
    }
}
