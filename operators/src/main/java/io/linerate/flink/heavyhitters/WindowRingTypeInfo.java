package io.linerate.flink.heavyhitters;

import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/**
 * Type information of the per-key {@link WindowRing} of state layout 1 (read at a restore, moved to layout 2):
 * serialized by {@link WindowRingSerializer}, which expects the configured operator's {@link WindowShape}.
 */
public final class WindowRingTypeInfo extends WindowShapeTypeInfo<WindowRing> {

    private static final long serialVersionUID = 1L;

    /** Rings of any shape (a restore is not checked against a configuration). */
    public WindowRingTypeInfo() {
        this(null);
    }

    /** @param shape the configured operator's shape, or {@code null} to accept any */
    WindowRingTypeInfo(WindowShape shape) {
        super(WindowRing.class, shape);
    }

    @Override
    public TypeSerializer<WindowRing> createSerializer(SerializerConfig config) {
        return shape == null ? WindowRingSerializer.INSTANCE : new WindowRingSerializer(shape);
    }
}
