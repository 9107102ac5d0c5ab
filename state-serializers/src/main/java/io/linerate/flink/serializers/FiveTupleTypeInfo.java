package io.linerate.flink.serializers;

import io.linerate.sketches.hash.FiveTuple;
import java.lang.reflect.Type;
import java.util.Map;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInfoFactory;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/**
 * Type information of {@link FiveTuple}: serialized by {@link FiveTupleSerializer}, never by Kryo (a user's record
 * with a {@code FiveTuple} field stays a POJO with generic types disabled). A key type: its {@code hashCode} and
 * {@code equals} are by value.
 */
public final class FiveTupleTypeInfo extends TypeInformation<FiveTuple> {

    private static final long serialVersionUID = 1L;

    public static final FiveTupleTypeInfo INSTANCE = new FiveTupleTypeInfo();

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
    public Class<FiveTuple> getTypeClass() {
        return FiveTuple.class;
    }

    @Override
    public boolean isKeyType() {
        return true;
    }

    @Override
    public TypeSerializer<FiveTuple> createSerializer(SerializerConfig config) {
        return FiveTupleSerializer.INSTANCE;
    }

    @Override
    public String toString() {
        return "FiveTupleTypeInfo";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof FiveTupleTypeInfo;
    }

    @Override
    public int hashCode() {
        return FiveTupleTypeInfo.class.hashCode();
    }

    @Override
    public boolean canEqual(Object o) {
        return o instanceof FiveTupleTypeInfo;
    }

    /** Registered by {@link LinerateTypes#register}: {@code FiveTuple} cannot carry {@code @TypeInfo}. */
    public static final class Factory extends TypeInfoFactory<FiveTuple> {
        @Override
        public TypeInformation<FiveTuple> createTypeInfo(Type t, Map<String, TypeInformation<?>> genericParameters) {
            return INSTANCE;
        }
    }
}
