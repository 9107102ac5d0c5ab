package io.linerate.flink.serializers;

import io.linerate.sketches.frequency.CountMinHeap;
import io.linerate.sketches.image.ImageReader;
import io.linerate.sketches.image.ImageWriter;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/**
 * Flink serializer of {@link CountMinHeap}: an int length and the structure's byte image (see {@link ImageSerializer}).
 * {@link #INSTANCE} leaves the shape unspecified; {@link #expecting} records the shape the operator is
 * configured with, so that a restore of differently shaped state is reported incompatible, naming the field.
 */
public final class CountMinHeapSerializer extends ImageSerializer<CountMinHeap> {

    private static final long serialVersionUID = 1L;

    /** The serializer with an unspecified shape (what {@link CountMinHeapTypeInfo} creates). */
    public static final CountMinHeapSerializer INSTANCE = new CountMinHeapSerializer(null);

    /** @param expected the expected shape, or {@code null} for unspecified */
    public CountMinHeapSerializer(Shape expected) {
        super(expected);
    }

    /** A serializer expecting structures shaped like {@code prototype}. */
    public static CountMinHeapSerializer expecting(CountMinHeap prototype) {
        return new CountMinHeapSerializer(Shapes.of(prototype));
    }

    @Override
    public Class<CountMinHeap> typeClass() {
        return CountMinHeap.class;
    }

    @Override
    protected byte[] toImage(CountMinHeap value) {
        return value.toByteArray();
    }

    @Override
    protected void writeImage(CountMinHeap value, ImageWriter.Sink sink) {
        value.writeImage(sink);
    }

    @Override
    protected CountMinHeap copyOf(CountMinHeap value) {
        return value.copy();
    }

    @Override
    protected CountMinHeap fromImage(byte[] image) {
        return CountMinHeap.fromByteArray(image);
    }

    @Override
    protected CountMinHeap readImage(ImageReader.Source source, int length) {
        return CountMinHeap.readImage(source, length);
    }

    @Override
    protected ImageSerializerSnapshot<CountMinHeap> newSnapshot(Shape shape) {
        return new Snapshot(shape);
    }

    /** Snapshot of a {@link CountMinHeapSerializer}: its expected shape. */
    public static final class Snapshot extends ImageSerializerSnapshot<CountMinHeap> {

        /** For Flink's reflective instantiation on restore. */
        public Snapshot() {
        }

        Snapshot(Shape shape) {
            super(shape);
        }

        @Override
        protected TypeSerializer<CountMinHeap> createSerializer(Shape shape) {
            return new CountMinHeapSerializer(shape);
        }
    }
}
