package io.linerate.flink.heavyhitters;

import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/** Type information of the per-key {@link WindowRing}: serialized by {@link WindowRingSerializer}, never Kryo. */
public final class WindowRingTypeInfo extends TypeInformation<WindowRing> {

    private static final long serialVersionUID = 1L;

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
    public Class<WindowRing> getTypeClass() {
        return WindowRing.class;
    }

    @Override
    public boolean isKeyType() {
        return false;
    }

    @Override
    public TypeSerializer<WindowRing> createSerializer(SerializerConfig config) {
        return WindowRingSerializer.INSTANCE;
    }

    @Override
    public String toString() {
        return "WindowRingTypeInfo";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof WindowRingTypeInfo;
    }

    @Override
    public int hashCode() {
        return WindowRingTypeInfo.class.hashCode();
    }

    @Override
    public boolean canEqual(Object o) {
        return o instanceof WindowRingTypeInfo;
    }
}
