package io.linerate.flink.heavyhitters;

import io.linerate.flink.serializers.ImageTypeInfo;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/** Type information of the per-key {@link WindowRing}: serialized by {@link WindowRingSerializer}, never Kryo. */
public final class WindowRingTypeInfo extends ImageTypeInfo<WindowRing> {

    private static final long serialVersionUID = 1L;

    public WindowRingTypeInfo() {
        super(WindowRing.class);
    }

    @Override
    public TypeSerializer<WindowRing> createSerializer(SerializerConfig config) {
        return WindowRingSerializer.INSTANCE;
    }
}
