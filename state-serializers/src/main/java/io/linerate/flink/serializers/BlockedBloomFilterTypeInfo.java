package io.linerate.flink.serializers;

import io.linerate.sketches.bloom.BlockedBloomFilter;
import java.lang.reflect.Type;
import java.util.Map;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInfoFactory;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/** Type information of {@link BlockedBloomFilter}: serialized by {@link BlockedBloomFilterSerializer}, never by Kryo or as a POJO. */
public final class BlockedBloomFilterTypeInfo extends ImageTypeInfo<BlockedBloomFilter> {

    private static final long serialVersionUID = 1L;

    public BlockedBloomFilterTypeInfo() {
        super(BlockedBloomFilter.class);
    }

    @Override
    public TypeSerializer<BlockedBloomFilter> createSerializer(SerializerConfig config) {
        return BlockedBloomFilterSerializer.INSTANCE;
    }

    /** Registered by {@link LinerateTypes#register}: {@code BlockedBloomFilter} cannot carry {@code @TypeInfo}. */
    public static final class Factory extends TypeInfoFactory<BlockedBloomFilter> {
        @Override
        public TypeInformation<BlockedBloomFilter> createTypeInfo(Type t, Map<String, TypeInformation<?>> genericParameters) {
            return new BlockedBloomFilterTypeInfo();
        }
    }
}
