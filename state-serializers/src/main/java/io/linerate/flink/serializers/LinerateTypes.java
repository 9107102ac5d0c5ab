package io.linerate.flink.serializers;

import io.linerate.sketches.bloom.BalancedBloomFilter;
import io.linerate.sketches.bloom.BlockedBloomFilter;
import io.linerate.sketches.bloom.CountingBloomFilter;
import io.linerate.sketches.bloom.PartitionedBloomFilter;
import io.linerate.sketches.bloom.SplitBlockBloomFilter;
import io.linerate.sketches.bloom.StandardBloomFilter;
import io.linerate.sketches.flowtable.FlowTable;
import io.linerate.sketches.frequency.BlockedCountMinSketch;
import io.linerate.sketches.frequency.CountMinHeap;
import io.linerate.sketches.frequency.CountMinSketch;
import io.linerate.sketches.frequency.SpaceSaving;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import com.esotericsoftware.kryo.Serializer;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeinfo.TypeInfoFactory;
import org.apache.flink.api.java.typeutils.TypeExtractor;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;

/**
 * One-call registration of the linerate type information with Flink.
 *
 * <p>The structures live in {@code linerate-sketches}, which does not depend on Flink, so they cannot carry
 * {@code @TypeInfo}. Flink 2 offers two annotation-free routes, both covered here:
 * <ul>
 *   <li>{@link #register(Configuration)} adds one {@code type: typeinfo} entry per structure to
 *       {@code pipeline.serialization-config} (FLIP-398); Flink applies it wherever it builds the job's
 *       serializer config (client, JobManager, TaskManagers). This is the route to use in a job.</li>
 *   <li>{@link #register()} calls {@link TypeExtractor#registerFactory} directly: JVM-global and immediate
 *       (what Flink itself does when it applies the configuration); useful in tests and local execution.</li>
 * </ul>
 */
public final class LinerateTypes {

    private static final Map<Class<?>, Class<? extends TypeInfoFactory<?>>> FACTORIES = factories();

    private static final Map<Class<?>, Class<? extends Serializer<?>>> KRYO = kryo();

    private LinerateTypes() {
    }

    private static Map<Class<?>, Class<? extends TypeInfoFactory<?>>> factories() {
        Map<Class<?>, Class<? extends TypeInfoFactory<?>>> m = new LinkedHashMap<>();
        m.put(StandardBloomFilter.class, StandardBloomFilterTypeInfo.Factory.class);
        m.put(PartitionedBloomFilter.class, PartitionedBloomFilterTypeInfo.Factory.class);
        m.put(BlockedBloomFilter.class, BlockedBloomFilterTypeInfo.Factory.class);
        m.put(SplitBlockBloomFilter.class, SplitBlockBloomFilterTypeInfo.Factory.class);
        m.put(BalancedBloomFilter.class, BalancedBloomFilterTypeInfo.Factory.class);
        m.put(CountingBloomFilter.class, CountingBloomFilterTypeInfo.Factory.class);
        m.put(CountMinSketch.class, CountMinSketchTypeInfo.Factory.class);
        m.put(BlockedCountMinSketch.class, BlockedCountMinSketchTypeInfo.Factory.class);
        m.put(SpaceSaving.class, SpaceSavingTypeInfo.Factory.class);
        m.put(CountMinHeap.class, CountMinHeapTypeInfo.Factory.class);
        m.put(FlowTable.class, FlowTableTypeInfo.Factory.class);
        // not a structure: the 5-tuple key of flow records and 5-tuple items (a user's record with one stays a POJO)
        m.put(io.linerate.sketches.hash.FiveTuple.class, FiveTupleTypeInfo.Factory.class);
        return Collections.unmodifiableMap(m);
    }

    private static Map<Class<?>, Class<? extends Serializer<?>>> kryo() {
        Map<Class<?>, Class<? extends Serializer<?>>> m = new LinkedHashMap<>();
        m.put(StandardBloomFilter.class, KryoSerializers.StandardBloomFilterKryo.class);
        m.put(PartitionedBloomFilter.class, KryoSerializers.PartitionedBloomFilterKryo.class);
        m.put(BlockedBloomFilter.class, KryoSerializers.BlockedBloomFilterKryo.class);
        m.put(SplitBlockBloomFilter.class, KryoSerializers.SplitBlockBloomFilterKryo.class);
        m.put(BalancedBloomFilter.class, KryoSerializers.BalancedBloomFilterKryo.class);
        m.put(CountingBloomFilter.class, KryoSerializers.CountingBloomFilterKryo.class);
        m.put(CountMinSketch.class, KryoSerializers.CountMinSketchKryo.class);
        m.put(BlockedCountMinSketch.class, KryoSerializers.BlockedCountMinSketchKryo.class);
        m.put(SpaceSaving.class, KryoSerializers.SpaceSavingKryo.class);
        m.put(CountMinHeap.class, KryoSerializers.CountMinHeapKryo.class);
        m.put(FlowTable.class, KryoSerializers.FlowTableKryo.class);
        return Collections.unmodifiableMap(m);
    }

    /** Every structure class and its Kryo 5 serializer class. */
    public static Map<Class<?>, Class<? extends Serializer<?>>> kryoSerializerClasses() {
        return KRYO;
    }

    /**
     * Makes the image-based Kryo serializers the default Kryo serializers of every structure in {@code config}
     * (from {@code env.getConfig().getSerializerConfig()}), for structures held inside a user's generic types
     * that Flink serializes with Kryo. Returns {@code config}.
     *
     * @throws IllegalArgumentException if {@code config} is not Flink's {@link SerializerConfigImpl} (the
     *     {@link SerializerConfig} interface is read-only)
     */
    public static SerializerConfig registerKryo(SerializerConfig config) {
        if (!(config instanceof SerializerConfigImpl impl)) {
            throw new IllegalArgumentException("cannot register Kryo serializers on a "
                    + (config == null ? "null" : config.getClass().getName()) + ", need a SerializerConfigImpl");
        }
        for (Map.Entry<Class<?>, Class<? extends Serializer<?>>> e : KRYO.entrySet()) {
            impl.addDefaultKryoSerializer(e.getKey(), e.getValue());
        }
        return config;
    }

    /** Every structure class, and {@link io.linerate.sketches.hash.FiveTuple}, with its type-information factory. */
    public static Map<Class<?>, Class<? extends TypeInfoFactory<?>>> factoryClasses() {
        return FACTORIES;
    }

    /**
     * Registers every factory with {@link TypeExtractor} in this JVM; idempotent (types whose factory is already
     * ours are skipped, because Flink's registry refuses a second registration).
     *
     * <p>Do not combine with {@link #register(Configuration)} in one JVM (local execution, MiniCluster): when
     * Flink applies the configuration it registers the same factories again and Flink 2.2 fails the job with
     * "A TypeInfoFactory for type ... is already registered".
     *
     * @throws IllegalStateException if another factory is already registered for one of the structures
     */
    public static synchronized void register() {
        for (Map.Entry<Class<?>, Class<? extends TypeInfoFactory<?>>> e : FACTORIES.entrySet()) {
            TypeInfoFactory<?> existing = TypeExtractor.getTypeInfoFactory(e.getKey());
            if (existing == null) {
                TypeExtractor.registerFactory(e.getKey(), e.getValue());
            } else if (existing.getClass() != e.getValue()) {
                throw new IllegalStateException("a TypeInfoFactory for " + e.getKey().getName() + " is already "
                        + "registered: " + existing.getClass().getName() + ", not " + e.getValue().getName());
            }
        }
    }

    /** The {@code pipeline.serialization-config} entries, one per structure. */
    public static List<String> serializationConfig() {
        List<String> out = new ArrayList<>();
        for (Map.Entry<Class<?>, Class<? extends TypeInfoFactory<?>>> e : FACTORIES.entrySet()) {
            out.add(e.getKey().getName() + ": {type: typeinfo, class: " + e.getValue().getName() + "}");
        }
        return out;
    }

    /**
     * Appends {@link #serializationConfig()} to {@code pipeline.serialization-config} in {@code config} (keeping
     * entries already there) and returns {@code config}. Pass the configuration to
     * {@code StreamExecutionEnvironment.getExecutionEnvironment(config)} or {@code env.configure(config)}.
     */
    public static Configuration register(Configuration config) {
        List<String> existing = config.get(PipelineOptions.SERIALIZATION_CONFIG);
        List<String> entries = existing == null ? new ArrayList<>() : new ArrayList<>(existing);
        for (String entry : serializationConfig()) {
            if (!entries.contains(entry)) {
                entries.add(entry);
            }
        }
        config.set(PipelineOptions.SERIALIZATION_CONFIG, entries);
        return config;
    }
}
