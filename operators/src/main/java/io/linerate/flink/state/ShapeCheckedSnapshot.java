package io.linerate.flink.state;

import java.io.IOException;
import java.util.List;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A serializer snapshot that records the shape its serializer expects (or none), and resolves a restore as
 * compatible as is when the shapes agree on what makes state readable ({@link StateShape#differencesFrom}) or either
 * is unknown, incompatible otherwise, logging each field that changed. Subclasses keep their own class name, version and {@code readSnapshot} (the format of old savepoints)
 * and read the shape this class writes: a flag, then {@link StateShape#write}.
 *
 * @param <T> the state type
 * @param <S> its shape
 */
public abstract class ShapeCheckedSnapshot<T, S extends StateShape<S>> implements TypeSerializerSnapshot<T> {

    private static final Logger LOG = LoggerFactory.getLogger(ShapeCheckedSnapshot.class);

    private S shape;

    protected ShapeCheckedSnapshot(S shape) {
        this.shape = shape;
    }

    /** The expected shape; null if unknown (a serializer without one, or a snapshot of an older format). */
    public S shape() {
        return shape;
    }

    /** Sets the shape read by a subclass's {@code readSnapshot}. */
    protected void shape(S shape) {
        this.shape = shape;
    }

    /** What the operator's state is called in the log line of an incompatible restore. */
    protected abstract String stateName();

    @Override
    public void writeSnapshot(DataOutputView out) throws IOException {
        out.writeBoolean(shape != null);
        if (shape != null) {
            shape.write(out);
        }
    }

    /** Whether {@link #writeSnapshot} wrote a shape after its flag (the subclass then reads it). */
    protected static boolean hasShape(DataInputView in) throws IOException {
        return in.readBoolean();
    }

    /** Why state written under {@code old} cannot be read with this snapshot's shape; empty if it can. */
    public List<String> incompatibilityFrom(TypeSerializerSnapshot<T> old) {
        if (old == null || old.getClass() != getClass()) {
            return List.of("serializer: " + (old == null ? "null" : old.getClass().getName()) + " -> "
                    + getClass().getName());
        }
        S before = shapeOf(old);
        return before == null || shape == null ? List.of() : shape.differencesFrom(before);
    }

    /** The changes from {@code old} that leave its state readable ({@link StateShape#readableDifferencesFrom}). */
    public List<String> readableChangesFrom(TypeSerializerSnapshot<T> old) {
        S before = shapeOf(old);
        return before == null || shape == null ? List.of() : shape.readableDifferencesFrom(before);
    }

    /** {@code old}'s shape if it is a snapshot of this class; else null. */
    @SuppressWarnings("unchecked")
    private S shapeOf(TypeSerializerSnapshot<T> old) {
        return old != null && old.getClass() == getClass() ? ((ShapeCheckedSnapshot<T, S>) old).shape : null;
    }

    @Override
    public TypeSerializerSchemaCompatibility<T> resolveSchemaCompatibility(TypeSerializerSnapshot<T> oldSnapshot) {
        List<String> why = incompatibilityFrom(oldSnapshot);
        if (!why.isEmpty()) {
            LOG.warn("Restored {} state is incompatible with the configured operator: {}", stateName(),
                    String.join(", ", why));
            return TypeSerializerSchemaCompatibility.incompatible();
        }
        List<String> readable = readableChangesFrom(oldSnapshot);
        if (!readable.isEmpty()) {
            LOG.info("Restored {} state is read as is; changed: {}", stateName(), String.join(", ", readable));
        }
        return TypeSerializerSchemaCompatibility.compatibleAsIs();
    }
}
