package io.linerate.flink.heavyhitters;

import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/**
 * Type information of a {@link SubWindow}, the value of the heavy-hitters map state: serialized by
 * {@link SubWindowSerializer}, which expects the configured operator's {@link WindowShape}.
 */
public final class SubWindowTypeInfo extends WindowShapeTypeInfo<SubWindow> {

    private static final long serialVersionUID = 1L;

    /** Sub-windows of any shape (a restore is not checked against a configuration). */
    public SubWindowTypeInfo() {
        this(null);
    }

    /** @param shape the configured operator's shape, or {@code null} to accept any */
    SubWindowTypeInfo(WindowShape shape) {
        super(SubWindow.class, shape);
    }

    @Override
    public TypeSerializer<SubWindow> createSerializer(SerializerConfig config) {
        return shape == null ? SubWindowSerializer.INSTANCE : new SubWindowSerializer(shape);
    }
}
