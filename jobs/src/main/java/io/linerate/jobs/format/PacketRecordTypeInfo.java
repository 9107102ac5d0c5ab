package io.linerate.jobs.format;

import java.lang.reflect.Type;
import java.util.Map;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInfoFactory;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/** Flink type information of {@link PacketRecord}: an atomic type serialized by {@link PacketRecordSerializer} (31 bytes for IPv4, 55 for IPv6), never Kryo. */
public final class PacketRecordTypeInfo extends TypeInformation<PacketRecord> {

    private static final long serialVersionUID = 1L;

    public static final PacketRecordTypeInfo INSTANCE = new PacketRecordTypeInfo();

    @Override
    public boolean isBasicType() {
        return false;
    }

    @Override
    public boolean isTupleType() {
        return false;
    }

    @Override
    public int getArity() {
        return 1;
    }

    @Override
    public int getTotalFields() {
        return 1;
    }

    @Override
    public Class<PacketRecord> getTypeClass() {
        return PacketRecord.class;
    }

    @Override
    public boolean isKeyType() {
        return false;
    }

    @Override
    public TypeSerializer<PacketRecord> createSerializer(SerializerConfig config) {
        return PacketRecordSerializer.INSTANCE;
    }

    @Override
    public String toString() {
        return "PacketRecordTypeInfo";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PacketRecordTypeInfo;
    }

    @Override
    public int hashCode() {
        return PacketRecordTypeInfo.class.hashCode();
    }

    @Override
    public boolean canEqual(Object o) {
        return o instanceof PacketRecordTypeInfo;
    }

    /** Lets the {@code @TypeInfo} annotation of {@link PacketRecord} give Flink this type information. */
    public static final class Factory extends TypeInfoFactory<PacketRecord> {
        @Override
        public TypeInformation<PacketRecord> createTypeInfo(Type type, Map<String, TypeInformation<?>> parameters) {
            return INSTANCE;
        }
    }
}
