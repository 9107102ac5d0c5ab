package io.linerate.flink.serializers;

import io.linerate.sketches.frequency.CountMinSketch;
import io.linerate.sketches.image.ImageReader;
import io.linerate.sketches.image.ImageWriter;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/**
 * Flink serializer of {@link CountMinSketch}: an int length and the structure's byte image (see {@link ImageSerializer}).
 * {@link #INSTANCE} leaves the shape unspecified; {@link #expecting} records the shape the operator is
 * configured with, so that a restore of differently shaped state is reported incompatible, naming the field.
 */
public final class CountMinSketchSerializer extends ImageSerializer<CountMinSketch> {

    private static final long serialVersionUID = 1L;

    /** The serializer with an unspecified shape (what {@link CountMinSketchTypeInfo} creates). */
    public static final CountMinSketchSerializer INSTANCE = new CountMinSketchSerializer(null);

    /** @param expected the expected shape, or {@code null} for unspecified */
    public CountMinSketchSerializer(Shape expected) {
        super(expected);
    }

    /** A serializer expecting structures shaped like {@code prototype}. */
    public static CountMinSketchSerializer expecting(CountMinSketch prototype) {
        return new CountMinSketchSerializer(Shapes.of(prototype));
    }

    @Override
    public Class<CountMinSketch> typeClass() {
        return CountMinSketch.class;
    }

    @Override
    protected byte[] toImage(CountMinSketch value) {
        return value.toByteArray();
    }

    @Override
    protected void writeImage(CountMinSketch value, ImageWriter.Sink sink) {
        value.writeImage(sink);
    }

    @Override
    protected CountMinSketch copyOf(CountMinSketch value) {
        return value.copy();
    }

    @Override
    protected CountMinSketch fromImage(byte[] image) {
        return CountMinSketch.fromByteArray(image);
    }

    @Override
    protected CountMinSketch readImage(ImageReader.Source source, int length) {
        return CountMinSketch.readImage(source, length);
    }

    @Override
    protected ImageSerializerSnapshot<CountMinSketch> newSnapshot(Shape shape) {
        return new Snapshot(shape);
    }

    /** Snapshot of a {@link CountMinSketchSerializer}: its expected shape. */
    public static final class Snapshot extends ImageSerializerSnapshot<CountMinSketch> {

        /** For Flink's reflective instantiation on restore. */
        public Snapshot() {
        }

        Snapshot(Shape shape) {
            super(shape);
        }

        @Override
        protected TypeSerializer<CountMinSketch> createSerializer(Shape shape) {
            return new CountMinSketchSerializer(shape);
        }
    }
}
