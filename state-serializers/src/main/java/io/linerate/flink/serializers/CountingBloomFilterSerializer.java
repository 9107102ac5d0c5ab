package io.linerate.flink.serializers;

import io.linerate.sketches.bloom.CountingBloomFilter;
import io.linerate.sketches.image.ImageReader;
import io.linerate.sketches.image.ImageWriter;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/**
 * Flink serializer of {@link CountingBloomFilter}: an int length and the structure's byte image (see {@link ImageSerializer}).
 * {@link #INSTANCE} leaves the shape unspecified; {@link #expecting} records the shape the operator is
 * configured with, so that a restore of differently shaped state is reported incompatible, naming the field.
 */
public final class CountingBloomFilterSerializer extends ImageSerializer<CountingBloomFilter> {

    private static final long serialVersionUID = 1L;

    /** The serializer with an unspecified shape (what {@link CountingBloomFilterTypeInfo} creates). */
    public static final CountingBloomFilterSerializer INSTANCE = new CountingBloomFilterSerializer(null);

    /** @param expected the expected shape, or {@code null} for unspecified */
    public CountingBloomFilterSerializer(Shape expected) {
        super(expected);
    }

    /** A serializer expecting structures shaped like {@code prototype}. */
    public static CountingBloomFilterSerializer expecting(CountingBloomFilter prototype) {
        return new CountingBloomFilterSerializer(Shapes.of(prototype));
    }

    @Override
    public Class<CountingBloomFilter> typeClass() {
        return CountingBloomFilter.class;
    }

    @Override
    protected byte[] toImage(CountingBloomFilter value) {
        return value.toByteArray();
    }

    @Override
    protected void writeImage(CountingBloomFilter value, ImageWriter.Sink sink) {
        value.writeImage(sink);
    }

    @Override
    protected CountingBloomFilter copyOf(CountingBloomFilter value) {
        return value.copy();
    }

    @Override
    protected CountingBloomFilter fromImage(byte[] image) {
        return BloomImages.read(image, CountingBloomFilter.class);
    }

    @Override
    protected CountingBloomFilter readImage(ImageReader.Source source, int length) {
        return BloomImages.read(source, length, CountingBloomFilter.class);
    }

    @Override
    protected ImageSerializerSnapshot<CountingBloomFilter> newSnapshot(Shape shape) {
        return new Snapshot(shape);
    }

    /** Snapshot of a {@link CountingBloomFilterSerializer}: its expected shape. */
    public static final class Snapshot extends ImageSerializerSnapshot<CountingBloomFilter> {

        /** For Flink's reflective instantiation on restore. */
        public Snapshot() {
        }

        Snapshot(Shape shape) {
            super(shape);
        }

        @Override
        protected TypeSerializer<CountingBloomFilter> createSerializer(Shape shape) {
            return new CountingBloomFilterSerializer(shape);
        }
    }
}
