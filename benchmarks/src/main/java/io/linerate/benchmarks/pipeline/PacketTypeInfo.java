package io.linerate.benchmarks.pipeline;

import java.lang.reflect.Type;
import java.util.Map;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInfoFactory;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/** Flink type information of {@link Packet}: an atomic type serialized by {@link PacketSerializer}. */
public final class PacketTypeInfo extends TypeInformation<Packet> {

    private static final long serialVersionUID = 1L;

    public static final PacketTypeInfo INSTANCE = new PacketTypeInfo();

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
    public Class<Packet> getTypeClass() {
        return Packet.class;
    }

    @Override
    public boolean isKeyType() {
        return false;
    }

    @Override
    public TypeSerializer<Packet> createSerializer(SerializerConfig config) {
        return PacketSerializer.INSTANCE;
    }

    @Override
    public String toString() {
        return "Packet";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PacketTypeInfo;
    }

    @Override
    public int hashCode() {
        return PacketTypeInfo.class.hashCode();
    }

    @Override
    public boolean canEqual(Object o) {
        return o instanceof PacketTypeInfo;
    }

    /** Named by {@code @TypeInfo} on {@link Packet}. */
    public static final class Factory extends TypeInfoFactory<Packet> {
        @Override
        public TypeInformation<Packet> createTypeInfo(Type type, Map<String, TypeInformation<?>> parameters) {
            return INSTANCE;
        }
    }
}
