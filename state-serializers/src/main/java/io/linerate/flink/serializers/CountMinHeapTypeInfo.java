package io.linerate.flink.serializers;

import io.linerate.sketches.frequency.CountMinHeap;
import java.lang.reflect.Type;
import java.util.Map;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInfoFactory;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/** Type information of {@link CountMinHeap}: serialized by {@link CountMinHeapSerializer}, never by Kryo or as a POJO. */
public final class CountMinHeapTypeInfo extends ImageTypeInfo<CountMinHeap> {

    private static final long serialVersionUID = 1L;

    public CountMinHeapTypeInfo() {
        super(CountMinHeap.class);
    }

    @Override
    public TypeSerializer<CountMinHeap> createSerializer(SerializerConfig config) {
        return CountMinHeapSerializer.INSTANCE;
    }

    /** Registered by {@link LinerateTypes#register}: {@code CountMinHeap} cannot carry {@code @TypeInfo}. */
    public static final class Factory extends TypeInfoFactory<CountMinHeap> {
        @Override
        public TypeInformation<CountMinHeap> createTypeInfo(Type t, Map<String, TypeInformation<?>> genericParameters) {
            return new CountMinHeapTypeInfo();
        }
    }
}
