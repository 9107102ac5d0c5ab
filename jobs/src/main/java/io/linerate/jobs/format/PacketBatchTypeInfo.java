package io.linerate.jobs.format;

import io.linerate.flink.serializers.ImageTypeInfo;
import java.lang.reflect.Type;
import java.util.Map;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInfoFactory;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/** Flink type information of {@link PacketBatch}: an atomic type serialized by {@link PacketBatchSerializer} (the Kafka wire encoding behind a length), never Kryo. */
public final class PacketBatchTypeInfo extends ImageTypeInfo<PacketBatch> {

    private static final long serialVersionUID = 1L;

    public static final PacketBatchTypeInfo INSTANCE = new PacketBatchTypeInfo();

    public PacketBatchTypeInfo() {
        super(PacketBatch.class);
    }

    @Override
    public TypeSerializer<PacketBatch> createSerializer(SerializerConfig config) {
        return new PacketBatchSerializer();
    }

    /** Lets the {@code @TypeInfo} annotation of {@link PacketBatch} give Flink this type information. */
    public static final class Factory extends TypeInfoFactory<PacketBatch> {
        @Override
        public TypeInformation<PacketBatch> createTypeInfo(Type type, Map<String, TypeInformation<?>> parameters) {
            return INSTANCE;
        }
    }
}
