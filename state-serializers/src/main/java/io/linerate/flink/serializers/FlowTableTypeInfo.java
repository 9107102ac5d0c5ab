package io.linerate.flink.serializers;

import io.linerate.sketches.flowtable.FlowTable;
import java.lang.reflect.Type;
import java.util.Map;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInfoFactory;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/** Type information of {@link FlowTable}: serialized by {@link FlowTableSerializer}, never by Kryo or as a POJO. */
public final class FlowTableTypeInfo extends ImageTypeInfo<FlowTable> {

    private static final long serialVersionUID = 1L;

    public FlowTableTypeInfo() {
        super(FlowTable.class);
    }

    @Override
    public TypeSerializer<FlowTable> createSerializer(SerializerConfig config) {
        return FlowTableSerializer.INSTANCE;
    }

    /** Registered by {@link LinerateTypes#register}: {@code FlowTable} cannot carry {@code @TypeInfo}. */
    public static final class Factory extends TypeInfoFactory<FlowTable> {
        @Override
        public TypeInformation<FlowTable> createTypeInfo(Type t, Map<String, TypeInformation<?>> genericParameters) {
            return new FlowTableTypeInfo();
        }
    }
}
