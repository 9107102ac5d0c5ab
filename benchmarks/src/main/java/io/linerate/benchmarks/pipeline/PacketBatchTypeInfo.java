package io.linerate.benchmarks.pipeline;

import java.lang.reflect.Type;
import java.util.Map;
import io.linerate.flink.serializers.ImageTypeInfo;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInfoFactory;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/** Flink type information of {@link PacketBatch}: an atomic type serialized by {@link PacketBatchSerializer}. */
public final class PacketBatchTypeInfo extends ImageTypeInfo<PacketBatch> {

    private static final long serialVersionUID = 1L;

    public static final PacketBatchTypeInfo INSTANCE = new PacketBatchTypeInfo();

    private PacketBatchTypeInfo() {
        super(PacketBatch.class);
    }

    @Override
    public TypeSerializer<PacketBatch> createSerializer(SerializerConfig config) {
        return PacketBatchSerializer.INSTANCE;
    }

    /** Named by {@code @TypeInfo} on {@link PacketBatch}. */
    public static final class Factory extends TypeInfoFactory<PacketBatch> {
        @Override
        public TypeInformation<PacketBatch> createTypeInfo(Type type, Map<String, TypeInformation<?>> parameters) {
            return INSTANCE;
        }
    }
}
