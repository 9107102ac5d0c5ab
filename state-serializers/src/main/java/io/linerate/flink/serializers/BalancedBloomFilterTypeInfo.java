package io.linerate.flink.serializers;

import io.linerate.sketches.bloom.BalancedBloomFilter;
import java.lang.reflect.Type;
import java.util.Map;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInfoFactory;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/** Type information of {@link BalancedBloomFilter}: serialized by {@link BalancedBloomFilterSerializer}, never by Kryo or as a POJO. */
public final class BalancedBloomFilterTypeInfo extends ImageTypeInfo<BalancedBloomFilter> {

    private static final long serialVersionUID = 1L;

    public BalancedBloomFilterTypeInfo() {
        super(BalancedBloomFilter.class);
    }

    @Override
    public TypeSerializer<BalancedBloomFilter> createSerializer(SerializerConfig config) {
        return BalancedBloomFilterSerializer.INSTANCE;
    }

    /** Registered by {@link LinerateTypes#register}: {@code BalancedBloomFilter} cannot carry {@code @TypeInfo}. */
    public static final class Factory extends TypeInfoFactory<BalancedBloomFilter> {
        @Override
        public TypeInformation<BalancedBloomFilter> createTypeInfo(Type t, Map<String, TypeInformation<?>> genericParameters) {
            return new BalancedBloomFilterTypeInfo();
        }
    }
}
