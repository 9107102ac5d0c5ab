package io.linerate.flink.serializers;

import io.linerate.sketches.bloom.StandardBloomFilter;
import java.lang.reflect.Type;
import java.util.Map;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInfoFactory;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/** Type information of {@link StandardBloomFilter}: serialized by {@link StandardBloomFilterSerializer}, never by Kryo or as a POJO. */
public final class StandardBloomFilterTypeInfo extends ImageTypeInfo<StandardBloomFilter> {

    private static final long serialVersionUID = 1L;

    public StandardBloomFilterTypeInfo() {
        super(StandardBloomFilter.class);
    }

    @Override
    public TypeSerializer<StandardBloomFilter> createSerializer(SerializerConfig config) {
        return StandardBloomFilterSerializer.INSTANCE;
    }

    /** Registered by {@link LinerateTypes#register}: {@code StandardBloomFilter} cannot carry {@code @TypeInfo}. */
    public static final class Factory extends TypeInfoFactory<StandardBloomFilter> {
        @Override
        public TypeInformation<StandardBloomFilter> createTypeInfo(Type t, Map<String, TypeInformation<?>> genericParameters) {
            return new StandardBloomFilterTypeInfo();
        }
    }
}
