package io.linerate.flink.serializers;

import io.linerate.sketches.frequency.CountMinSketch;
import java.lang.reflect.Type;
import java.util.Map;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInfoFactory;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/** Type information of {@link CountMinSketch}: serialized by {@link CountMinSketchSerializer}, never by Kryo or as a POJO. */
public final class CountMinSketchTypeInfo extends ImageTypeInfo<CountMinSketch> {

    private static final long serialVersionUID = 1L;

    public CountMinSketchTypeInfo() {
        super(CountMinSketch.class);
    }

    @Override
    public TypeSerializer<CountMinSketch> createSerializer(SerializerConfig config) {
        return CountMinSketchSerializer.INSTANCE;
    }

    /** Registered by {@link LinerateTypes#register}: {@code CountMinSketch} cannot carry {@code @TypeInfo}. */
    public static final class Factory extends TypeInfoFactory<CountMinSketch> {
        @Override
        public TypeInformation<CountMinSketch> createTypeInfo(Type t, Map<String, TypeInformation<?>> genericParameters) {
            return new CountMinSketchTypeInfo();
        }
    }
}
