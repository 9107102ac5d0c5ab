package io.linerate.flink.heavyhitters;

import java.io.IOException;
import java.util.Objects;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * What the heavy-hitters state serializers share: the {@link WindowShape} they expect (or {@code null} for any), which
 * makes them equal or not and which their snapshots record; mutable values of variable length, no reuse.
 *
 * @param <T> the state type
 */
abstract class WindowShapeSerializer<T> extends TypeSerializer<T> {

    private static final long serialVersionUID = 1L;

    /** The shape values must have, or {@code null} to accept any. */
    final WindowShape expected;

    WindowShapeSerializer(WindowShape expected) {
        this.expected = expected;
    }

    @Override
    public final boolean isImmutableType() {
        return false;
    }

    @Override
    public final TypeSerializer<T> duplicate() {
        return this; // stateless: the expected shape is immutable
    }

    @Override
    public final int getLength() {
        return -1;
    }

    @Override
    public final T copy(T from, T reuse) {
        return copy(from);
    }

    @Override
    public final T deserialize(T reuse, DataInputView in) throws IOException {
        return deserialize(in);
    }

    @Override
    public final void copy(DataInputView in, DataOutputView out) throws IOException {
        serialize(deserialize(in), out);
    }

    @Override
    public final boolean equals(Object o) {
        return o != null && o.getClass() == getClass()
                && Objects.equals(expected, ((WindowShapeSerializer<?>) o).expected);
    }

    @Override
    public final int hashCode() {
        return getClass().getName().hashCode() * 31 + Objects.hashCode(expected);
    }

    /** The class's simple name and the shape, e.g. {@code SubWindowSerializer[any shape]}. */
    @Override
    public final String toString() {
        return getClass().getSimpleName() + (expected == null ? "[any shape]" : expected.toString());
    }
}
