package io.linerate.flink.heavyhitters;

import io.linerate.flink.serializers.ImageTypeInfo;
import java.util.Objects;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/**
 * Type information of the per-key {@link WindowRing}: serialized by {@link WindowRingSerializer} (never Kryo), which
 * expects the {@link WindowShape} of the configured operator, so a restore into a differently shaped operator is
 * reported incompatible.
 */
public final class WindowRingTypeInfo extends ImageTypeInfo<WindowRing> {

    private static final long serialVersionUID = 1L;

    private final WindowShape shape;

    /** Rings of any shape (a restore is not checked against a configuration). */
    public WindowRingTypeInfo() {
        this(null);
    }

    /** @param shape the shape rings must have, or {@code null} to accept any */
    WindowRingTypeInfo(WindowShape shape) {
        super(WindowRing.class);
        this.shape = shape;
    }

    @Override
    public TypeSerializer<WindowRing> createSerializer(SerializerConfig config) {
        return shape == null ? WindowRingSerializer.INSTANCE : new WindowRingSerializer(shape);
    }

    @Override
    public boolean equals(Object o) {
        return super.equals(o) && Objects.equals(shape, ((WindowRingTypeInfo) o).shape);
    }

    @Override
    public int hashCode() {
        return super.hashCode() * 31 + Objects.hashCode(shape);
    }
}
