package io.linerate.flink.heavyhitters;

import io.linerate.flink.serializers.ImageTypeInfo;
import java.util.Objects;

/**
 * Type information of a heavy-hitters state type, serialized by a serializer that expects the configured operator's
 * {@link WindowShape} (never Kryo), so that a restore into a differently shaped operator is reported incompatible.
 * Two of these are equal when their class and shape are.
 *
 * @param <T> the state type
 */
abstract class WindowShapeTypeInfo<T> extends ImageTypeInfo<T> {

    private static final long serialVersionUID = 1L;

    /** The shape the state must have, or {@code null} for any. */
    final WindowShape shape;

    WindowShapeTypeInfo(Class<T> type, WindowShape shape) {
        super(type);
        this.shape = shape;
    }

    @Override
    public boolean equals(Object o) {
        return super.equals(o) && Objects.equals(shape, ((WindowShapeTypeInfo<?>) o).shape);
    }

    @Override
    public int hashCode() {
        return super.hashCode() * 31 + Objects.hashCode(shape);
    }
}
