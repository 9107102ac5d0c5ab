package io.linerate.jobs.format;

import io.linerate.flink.serializers.ImageTypeInfo;
import java.lang.reflect.Type;
import java.util.Map;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInfoFactory;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/** Flink type information of {@link PacketRecord}: an atomic type serialized by {@link PacketRecordSerializer} (31 bytes for IPv4, 55 for IPv6), never Kryo. */
public final class PacketRecordTypeInfo extends ImageTypeInfo<PacketRecord> {

    private static final long serialVersionUID = 1L;

    public static final PacketRecordTypeInfo INSTANCE = new PacketRecordTypeInfo();

    public PacketRecordTypeInfo() {
        super(PacketRecord.class);
    }

    @Override
    public TypeSerializer<PacketRecord> createSerializer(SerializerConfig config) {
        return PacketRecordSerializer.INSTANCE;
    }

    /** Lets the {@code @TypeInfo} annotation of {@link PacketRecord} give Flink this type information. */
    public static final class Factory extends TypeInfoFactory<PacketRecord> {
        @Override
        public TypeInformation<PacketRecord> createTypeInfo(Type type, Map<String, TypeInformation<?>> parameters) {
            return INSTANCE;
        }
    }
}
