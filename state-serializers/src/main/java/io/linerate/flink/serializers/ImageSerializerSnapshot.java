package io.linerate.flink.serializers;

import java.io.IOException;
import java.util.List;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Snapshot of an {@link ImageSerializer}: records the expected {@link Shape} (or that it is unspecified).
 *
 * <p>Snapshot format, version 1: a boolean "shape present", then, if present, an int field count and per field
 * its name and value ({@code writeUTF}) and a boolean "is hint".
 *
 * <p>Compatibility ({@link #resolveSchemaCompatibility}, called on the new snapshot with the old one): a
 * snapshot of another structure is incompatible; if either side leaves its shape unspecified the image is
 * self-describing and the result is compatible as is; otherwise every differing shape field makes it
 * incompatible (logged, and explained by {@link #incompatibilityFrom}), and differing hints alone are harmless.
 */
public abstract class ImageSerializerSnapshot<T> implements TypeSerializerSnapshot<T> {

    private static final Logger LOG = LoggerFactory.getLogger(ImageSerializerSnapshot.class);

    static final int VERSION = 1;

    private Shape shape;

    /** For Flink's reflective instantiation; {@link #readSnapshot} fills it. */
    protected ImageSerializerSnapshot() {
    }

    protected ImageSerializerSnapshot(Shape shape) {
        this.shape = shape;
    }

    /** The recorded shape, or {@code null} if unspecified. */
    public final Shape shape() {
        return shape;
    }

    /** The serializer restored from this snapshot's shape. */
    protected abstract TypeSerializer<T> createSerializer(Shape shape);

    @Override
    public final int getCurrentVersion() {
        return VERSION;
    }

    @Override
    public final void writeSnapshot(DataOutputView out) throws IOException {
        out.writeBoolean(shape != null);
        if (shape != null) {
            shape.write(out);
        }
    }

    @Override
    public final void readSnapshot(int readVersion, DataInputView in, ClassLoader userCodeClassLoader)
            throws IOException {
        if (readVersion != VERSION) {
            throw new IOException(getClass().getName() + ": snapshot version " + readVersion
                    + " is not supported, this library reads version " + VERSION);
        }
        shape = in.readBoolean() ? Shape.read(in) : null;
    }

    @Override
    public final TypeSerializer<T> restoreSerializer() {
        return createSerializer(shape);
    }

    /**
     * Why state written under {@code oldSnapshot} cannot be read by this snapshot's serializer, naming each
     * field as {@code "width: 2048 -> 4096"}; empty if it can.
     */
    public final String incompatibilityFrom(TypeSerializerSnapshot<T> oldSnapshot) {
        if (oldSnapshot == null || oldSnapshot.getClass() != getClass()) {
            return "structure: " + (oldSnapshot == null ? "null" : oldSnapshot.getClass().getName()) + " -> "
                    + getClass().getName();
        }
        Shape old = ((ImageSerializerSnapshot<T>) oldSnapshot).shape;
        if (old == null || shape == null) {
            return "";
        }
        return String.join(", ", shape.differencesFrom(old, false));
    }

    @Override
    public final TypeSerializerSchemaCompatibility<T> resolveSchemaCompatibility(
            TypeSerializerSnapshot<T> oldSnapshot) {
        String why = incompatibilityFrom(oldSnapshot);
        if (!why.isEmpty()) {
            LOG.warn("Restored state is incompatible with the configured serializer: {}", why);
            return TypeSerializerSchemaCompatibility.incompatible();
        }
        if (oldSnapshot instanceof ImageSerializerSnapshot<T> o && o.shape != null && shape != null) {
            List<String> hints = shape.differencesFrom(o.shape, true);
            if (!hints.isEmpty()) {
                LOG.info("Restored state differs only in harmless hints: {}", String.join(", ", hints));
            }
        }
        return TypeSerializerSchemaCompatibility.compatibleAsIs();
    }
}
