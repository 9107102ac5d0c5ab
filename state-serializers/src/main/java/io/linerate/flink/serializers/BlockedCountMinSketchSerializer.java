package io.linerate.flink.serializers;

import io.linerate.sketches.frequency.BlockedCountMinSketch;
import io.linerate.sketches.image.ImageReader;
import io.linerate.sketches.image.ImageWriter;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/**
 * Flink serializer of {@link BlockedCountMinSketch}: an int length and the structure's byte image (see
 * {@link ImageSerializer}). {@link #INSTANCE} leaves the shape unspecified; {@link #expecting} records the shape the
 * operator is configured with, so that a restore of differently shaped state is reported incompatible, naming the
 * field.
 */
public final class BlockedCountMinSketchSerializer extends ImageSerializer<BlockedCountMinSketch> {

    private static final long serialVersionUID = 1L;

    /** The serializer with an unspecified shape (what {@link BlockedCountMinSketchTypeInfo} creates). */
    public static final BlockedCountMinSketchSerializer INSTANCE = new BlockedCountMinSketchSerializer(null);

    /** @param expected the expected shape, or {@code null} for unspecified */
    public BlockedCountMinSketchSerializer(Shape expected) {
        super(expected);
    }

    /** A serializer expecting structures shaped like {@code prototype}. */
    public static BlockedCountMinSketchSerializer expecting(BlockedCountMinSketch prototype) {
        return new BlockedCountMinSketchSerializer(Shapes.of(prototype));
    }

    @Override
    public Class<BlockedCountMinSketch> typeClass() {
        return BlockedCountMinSketch.class;
    }

    @Override
    protected byte[] toImage(BlockedCountMinSketch value) {
        return value.toByteArray();
    }

    @Override
    protected void writeImage(BlockedCountMinSketch value, ImageWriter.Sink sink) {
        value.writeImage(sink);
    }

    @Override
    protected BlockedCountMinSketch copyOf(BlockedCountMinSketch value) {
        return value.copy();
    }

    @Override
    protected BlockedCountMinSketch fromImage(byte[] image) {
        return BlockedCountMinSketch.fromByteArray(image);
    }

    @Override
    protected BlockedCountMinSketch readImage(ImageReader.Source source, int length) {
        return BlockedCountMinSketch.readImage(source, length);
    }

    @Override
    protected ImageSerializerSnapshot<BlockedCountMinSketch> newSnapshot(Shape shape) {
        return new Snapshot(shape);
    }

    /** Snapshot of a {@link BlockedCountMinSketchSerializer}: its expected shape. */
    public static final class Snapshot extends ImageSerializerSnapshot<BlockedCountMinSketch> {

        /** For Flink's reflective instantiation on restore. */
        public Snapshot() {
        }

        Snapshot(Shape shape) {
            super(shape);
        }

        @Override
        protected TypeSerializer<BlockedCountMinSketch> createSerializer(Shape shape) {
            return new BlockedCountMinSketchSerializer(shape);
        }
    }
}
