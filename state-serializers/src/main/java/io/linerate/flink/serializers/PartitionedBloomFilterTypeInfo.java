package io.linerate.flink.serializers;

import io.linerate.sketches.bloom.PartitionedBloomFilter;
import java.lang.reflect.Type;
import java.util.Map;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInfoFactory;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/** Type information of {@link PartitionedBloomFilter}: serialized by {@link PartitionedBloomFilterSerializer}, never by Kryo or as a POJO. */
public final class PartitionedBloomFilterTypeInfo extends ImageTypeInfo<PartitionedBloomFilter> {

    private static final long serialVersionUID = 1L;

    public PartitionedBloomFilterTypeInfo() {
        super(PartitionedBloomFilter.class);
    }

    @Override
    public TypeSerializer<PartitionedBloomFilter> createSerializer(SerializerConfig config) {
        return PartitionedBloomFilterSerializer.INSTANCE;
    }

    /** Registered by {@link LinerateTypes#register}: {@code PartitionedBloomFilter} cannot carry {@code @TypeInfo}. */
    public static final class Factory extends TypeInfoFactory<PartitionedBloomFilter> {
        @Override
        public TypeInformation<PartitionedBloomFilter> createTypeInfo(Type t, Map<String, TypeInformation<?>> genericParameters) {
            return new PartitionedBloomFilterTypeInfo();
        }
    }
}
