package io.linerate.benchmarks.pipeline;

import java.lang.reflect.Type;
import java.util.Map;
import io.linerate.flink.serializers.ImageTypeInfo;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInfoFactory;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/** Flink type information of {@link Packet}: an atomic type serialized by {@link PacketSerializer}. */
public final class PacketTypeInfo extends ImageTypeInfo<Packet> {

    private static final long serialVersionUID = 1L;

    public static final PacketTypeInfo INSTANCE = new PacketTypeInfo();

    private PacketTypeInfo() {
        super(Packet.class);
    }

    @Override
    public TypeSerializer<Packet> createSerializer(SerializerConfig config) {
        return PacketSerializer.INSTANCE;
    }

    /** Named by {@code @TypeInfo} on {@link Packet}. */
    public static final class Factory extends TypeInfoFactory<Packet> {
        @Override
        public TypeInformation<Packet> createTypeInfo(Type type, Map<String, TypeInformation<?>> parameters) {
            return INSTANCE;
        }
    }
}
