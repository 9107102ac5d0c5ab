package io.linerate.flink.heavyhitters;

import io.linerate.flink.serializers.ImageTypeInfo;
import java.util.Objects;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/**
 * Type information of a {@link SubWindow}, the value of the heavy-hitters map state: serialized by
 * {@link SubWindowSerializer} (never Kryo), which expects the {@link WindowShape} of the configured operator, so a
 * restore into a differently shaped operator is reported incompatible.
 */
public final class SubWindowTypeInfo extends ImageTypeInfo<SubWindow> {

    private static final long serialVersionUID = 1L;

    private final WindowShape shape;

    /** Sub-windows of any shape (a restore is not checked against a configuration). */
    public SubWindowTypeInfo() {
        this(null);
    }

    /** @param shape the shape sub-windows must have, or {@code null} to accept any */
    SubWindowTypeInfo(WindowShape shape) {
        super(SubWindow.class);
        this.shape = shape;
    }

    @Override
    public TypeSerializer<SubWindow> createSerializer(SerializerConfig config) {
        return shape == null ? SubWindowSerializer.INSTANCE : new SubWindowSerializer(shape);
    }

    @Override
    public boolean equals(Object o) {
        return super.equals(o) && Objects.equals(shape, ((SubWindowTypeInfo) o).shape);
    }

    @Override
    public int hashCode() {
        return super.hashCode() * 31 + Objects.hashCode(shape);
    }
}
