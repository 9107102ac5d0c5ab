package io.linerate.flink.serializers;

import io.linerate.sketches.frequency.BlockedCountMinSketch;
import java.lang.reflect.Type;
import java.util.Map;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInfoFactory;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/**
 * Type information of {@link BlockedCountMinSketch}: serialized by {@link BlockedCountMinSketchSerializer}, never by
 * Kryo or as a POJO.
 */
public final class BlockedCountMinSketchTypeInfo extends ImageTypeInfo<BlockedCountMinSketch> {

    private static final long serialVersionUID = 1L;

    public BlockedCountMinSketchTypeInfo() {
        super(BlockedCountMinSketch.class);
    }

    @Override
    public TypeSerializer<BlockedCountMinSketch> createSerializer(SerializerConfig config) {
        return BlockedCountMinSketchSerializer.INSTANCE;
    }

    /** Registered by {@link LinerateTypes#register}: {@code BlockedCountMinSketch} cannot carry {@code @TypeInfo}. */
    public static final class Factory extends TypeInfoFactory<BlockedCountMinSketch> {
        @Override
        public TypeInformation<BlockedCountMinSketch> createTypeInfo(Type t,
                                                                    Map<String, TypeInformation<?>> genericParameters) {
            return new BlockedCountMinSketchTypeInfo();
        }
    }
}
