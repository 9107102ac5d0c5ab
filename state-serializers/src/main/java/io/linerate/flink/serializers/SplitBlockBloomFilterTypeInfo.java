package io.linerate.flink.serializers;

import io.linerate.sketches.bloom.SplitBlockBloomFilter;
import java.lang.reflect.Type;
import java.util.Map;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInfoFactory;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/** Type information of {@link SplitBlockBloomFilter}: serialized by {@link SplitBlockBloomFilterSerializer}, never by Kryo or as a POJO. */
public final class SplitBlockBloomFilterTypeInfo extends ImageTypeInfo<SplitBlockBloomFilter> {

    private static final long serialVersionUID = 1L;

    public SplitBlockBloomFilterTypeInfo() {
        super(SplitBlockBloomFilter.class);
    }

    @Override
    public TypeSerializer<SplitBlockBloomFilter> createSerializer(SerializerConfig config) {
        return SplitBlockBloomFilterSerializer.INSTANCE;
    }

    /** Registered by {@link LinerateTypes#register}: {@code SplitBlockBloomFilter} cannot carry {@code @TypeInfo}. */
    public static final class Factory extends TypeInfoFactory<SplitBlockBloomFilter> {
        @Override
        public TypeInformation<SplitBlockBloomFilter> createTypeInfo(Type t, Map<String, TypeInformation<?>> genericParameters) {
            return new SplitBlockBloomFilterTypeInfo();
        }
    }
}
