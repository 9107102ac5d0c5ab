package io.linerate.flink.serializers;

import io.linerate.sketches.frequency.SpaceSaving;
import io.linerate.sketches.image.ImageReader;
import io.linerate.sketches.image.ImageWriter;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/**
 * Flink serializer of {@link SpaceSaving}: an int length and the structure's byte image (see {@link ImageSerializer}).
 * {@link #INSTANCE} leaves the shape unspecified; {@link #expecting} records the shape the operator is
 * configured with, so that a restore of differently shaped state is reported incompatible, naming the field.
 */
public final class SpaceSavingSerializer extends ImageSerializer<SpaceSaving> {

    private static final long serialVersionUID = 1L;

    /** The serializer with an unspecified shape (what {@link SpaceSavingTypeInfo} creates). */
    public static final SpaceSavingSerializer INSTANCE = new SpaceSavingSerializer(null);

    /** @param expected the expected shape, or {@code null} for unspecified */
    public SpaceSavingSerializer(Shape expected) {
        super(expected);
    }

    /** A serializer expecting structures shaped like {@code prototype}. */
    public static SpaceSavingSerializer expecting(SpaceSaving prototype) {
        return new SpaceSavingSerializer(Shapes.of(prototype));
    }

    @Override
    public Class<SpaceSaving> typeClass() {
        return SpaceSaving.class;
    }

    @Override
    protected byte[] toImage(SpaceSaving value) {
        return value.toByteArray();
    }

    @Override
    protected void writeImage(SpaceSaving value, ImageWriter.Sink sink) {
        value.writeImage(sink);
    }

    @Override
    protected SpaceSaving copyOf(SpaceSaving value) {
        return value.copy();
    }

    @Override
    protected SpaceSaving fromImage(byte[] image) {
        return SpaceSaving.fromByteArray(image);
    }

    @Override
    protected SpaceSaving readImage(ImageReader.Source source, int length) {
        return SpaceSaving.readImage(source, length);
    }

    @Override
    protected ImageSerializerSnapshot<SpaceSaving> newSnapshot(Shape shape) {
        return new Snapshot(shape);
    }

    /** Snapshot of a {@link SpaceSavingSerializer}: its expected shape. */
    public static final class Snapshot extends ImageSerializerSnapshot<SpaceSaving> {

        /** For Flink's reflective instantiation on restore. */
        public Snapshot() {
        }

        Snapshot(Shape shape) {
            super(shape);
        }

        @Override
        protected TypeSerializer<SpaceSaving> createSerializer(Shape shape) {
            return new SpaceSavingSerializer(shape);
        }
    }
}
