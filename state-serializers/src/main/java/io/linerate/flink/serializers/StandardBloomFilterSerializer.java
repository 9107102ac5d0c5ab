package io.linerate.flink.serializers;

import io.linerate.sketches.bloom.StandardBloomFilter;
import io.linerate.sketches.image.ImageReader;
import io.linerate.sketches.image.ImageWriter;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/**
 * Flink serializer of {@link StandardBloomFilter}: an int length and the structure's byte image (see {@link ImageSerializer}).
 * {@link #INSTANCE} leaves the shape unspecified; {@link #expecting} records the shape the operator is
 * configured with, so that a restore of differently shaped state is reported incompatible, naming the field.
 */
public final class StandardBloomFilterSerializer extends ImageSerializer<StandardBloomFilter> {

    private static final long serialVersionUID = 1L;

    /** The serializer with an unspecified shape (what {@link StandardBloomFilterTypeInfo} creates). */
    public static final StandardBloomFilterSerializer INSTANCE = new StandardBloomFilterSerializer(null);

    /** @param expected the expected shape, or {@code null} for unspecified */
    public StandardBloomFilterSerializer(Shape expected) {
        super(expected);
    }

    /** A serializer expecting structures shaped like {@code prototype}. */
    public static StandardBloomFilterSerializer expecting(StandardBloomFilter prototype) {
        return new StandardBloomFilterSerializer(Shapes.of(prototype));
    }

    @Override
    public Class<StandardBloomFilter> typeClass() {
        return StandardBloomFilter.class;
    }

    @Override
    protected byte[] toImage(StandardBloomFilter value) {
        return value.toByteArray();
    }

    @Override
    protected void writeImage(StandardBloomFilter value, ImageWriter.Sink sink) {
        value.writeImage(sink);
    }

    @Override
    protected StandardBloomFilter copyOf(StandardBloomFilter value) {
        return value.copy();
    }

    @Override
    protected StandardBloomFilter fromImage(byte[] image) {
        return BloomImages.read(image, StandardBloomFilter.class);
    }

    @Override
    protected StandardBloomFilter readImage(ImageReader.Source source, int length) {
        return BloomImages.read(source, length, StandardBloomFilter.class);
    }

    @Override
    protected ImageSerializerSnapshot<StandardBloomFilter> newSnapshot(Shape shape) {
        return new Snapshot(shape);
    }

    /** Snapshot of a {@link StandardBloomFilterSerializer}: its expected shape. */
    public static final class Snapshot extends ImageSerializerSnapshot<StandardBloomFilter> {

        /** For Flink's reflective instantiation on restore. */
        public Snapshot() {
        }

        Snapshot(Shape shape) {
            super(shape);
        }

        @Override
        protected TypeSerializer<StandardBloomFilter> createSerializer(Shape shape) {
            return new StandardBloomFilterSerializer(shape);
        }
    }
}
