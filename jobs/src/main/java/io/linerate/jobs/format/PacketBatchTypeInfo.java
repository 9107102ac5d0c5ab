package io.linerate.jobs.format;

import java.lang.reflect.Type;
import java.util.Map;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInfoFactory;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/** Flink type information of {@link PacketBatch}: an atomic type serialized by {@link PacketBatchSerializer} (the Kafka wire encoding behind a length), never Kryo. */
public final class PacketBatchTypeInfo extends TypeInformation<PacketBatch> {

    private static final long serialVersionUID = 1L;

    public static final PacketBatchTypeInfo INSTANCE = new PacketBatchTypeInfo();

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
    public Class<PacketBatch> getTypeClass() {
        return PacketBatch.class;
    }

    @Override
    public boolean isKeyType() {
        return false;
    }

    @Override
    public TypeSerializer<PacketBatch> createSerializer(SerializerConfig config) {
        return new PacketBatchSerializer();
    }

    @Override
    public String toString() {
        return "PacketBatchTypeInfo";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PacketBatchTypeInfo;
    }

    @Override
    public int hashCode() {
        return PacketBatchTypeInfo.class.hashCode();
    }

    @Override
    public boolean canEqual(Object o) {
        return o instanceof PacketBatchTypeInfo;
    }

    /** Lets the {@code @TypeInfo} annotation of {@link PacketBatch} give Flink this type information. */
    public static final class Factory extends TypeInfoFactory<PacketBatch> {
        @Override
        public TypeInformation<PacketBatch> createTypeInfo(Type type, Map<String, TypeInformation<?>> parameters) {
            return INSTANCE;
        }
    }
}
