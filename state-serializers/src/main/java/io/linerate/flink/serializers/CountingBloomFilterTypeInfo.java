package io.linerate.flink.serializers;

import io.linerate.sketches.bloom.CountingBloomFilter;
import java.lang.reflect.Type;
import java.util.Map;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInfoFactory;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/** Type information of {@link CountingBloomFilter}: serialized by {@link CountingBloomFilterSerializer}, never by Kryo or as a POJO. */
public final class CountingBloomFilterTypeInfo extends ImageTypeInfo<CountingBloomFilter> {

    private static final long serialVersionUID = 1L;

    public CountingBloomFilterTypeInfo() {
        super(CountingBloomFilter.class);
    }

    @Override
    public TypeSerializer<CountingBloomFilter> createSerializer(SerializerConfig config) {
        return CountingBloomFilterSerializer.INSTANCE;
    }

    /** Registered by {@link LinerateTypes#register}: {@code CountingBloomFilter} cannot carry {@code @TypeInfo}. */
    public static final class Factory extends TypeInfoFactory<CountingBloomFilter> {
        @Override
        public TypeInformation<CountingBloomFilter> createTypeInfo(Type t, Map<String, TypeInformation<?>> genericParameters) {
            return new CountingBloomFilterTypeInfo();
        }
    }
}
