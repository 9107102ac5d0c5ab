package io.linerate.flink.serializers;

import io.linerate.sketches.frequency.SpaceSaving;
import java.lang.reflect.Type;
import java.util.Map;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInfoFactory;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/** Type information of {@link SpaceSaving}: serialized by {@link SpaceSavingSerializer}, never by Kryo or as a POJO. */
public final class SpaceSavingTypeInfo extends ImageTypeInfo<SpaceSaving> {

    private static final long serialVersionUID = 1L;

    public SpaceSavingTypeInfo() {
        super(SpaceSaving.class);
    }

    @Override
    public TypeSerializer<SpaceSaving> createSerializer(SerializerConfig config) {
        return SpaceSavingSerializer.INSTANCE;
    }

    /** Registered by {@link LinerateTypes#register}: {@code SpaceSaving} cannot carry {@code @TypeInfo}. */
    public static final class Factory extends TypeInfoFactory<SpaceSaving> {
        @Override
        public TypeInformation<SpaceSaving> createTypeInfo(Type t, Map<String, TypeInformation<?>> genericParameters) {
            return new SpaceSavingTypeInfo();
        }
    }
}
