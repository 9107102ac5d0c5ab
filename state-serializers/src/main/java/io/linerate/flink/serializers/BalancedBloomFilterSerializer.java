package io.linerate.flink.serializers;

import io.linerate.sketches.bloom.BalancedBloomFilter;
import io.linerate.sketches.image.ImageReader;
import io.linerate.sketches.image.ImageWriter;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/**
 * Flink serializer of {@link BalancedBloomFilter}: an int length and the structure's byte image (see {@link ImageSerializer}).
 * {@link #INSTANCE} leaves the shape unspecified; {@link #expecting} records the shape the operator is
 * configured with, so that a restore of differently shaped state is reported incompatible, naming the field.
 */
public final class BalancedBloomFilterSerializer extends ImageSerializer<BalancedBloomFilter> {

    private static final long serialVersionUID = 1L;

    /** The serializer with an unspecified shape (what {@link BalancedBloomFilterTypeInfo} creates). */
    public static final BalancedBloomFilterSerializer INSTANCE = new BalancedBloomFilterSerializer(null);

    /** @param expected the expected shape, or {@code null} for unspecified */
    public BalancedBloomFilterSerializer(Shape expected) {
        super(expected);
    }

    /** A serializer expecting structures shaped like {@code prototype}. */
    public static BalancedBloomFilterSerializer expecting(BalancedBloomFilter prototype) {
        return new BalancedBloomFilterSerializer(Shapes.of(prototype));
    }

    @Override
    public Class<BalancedBloomFilter> typeClass() {
        return BalancedBloomFilter.class;
    }

    @Override
    protected byte[] toImage(BalancedBloomFilter value) {
        return value.toByteArray();
    }

    @Override
    protected void writeImage(BalancedBloomFilter value, ImageWriter.Sink sink) {
        value.writeImage(sink);
    }

    @Override
    protected BalancedBloomFilter copyOf(BalancedBloomFilter value) {
        return value.copy();
    }

    @Override
    protected BalancedBloomFilter fromImage(byte[] image) {
        return BloomImages.read(image, BalancedBloomFilter.class);
    }

    @Override
    protected BalancedBloomFilter readImage(ImageReader.Source source, int length) {
        return BloomImages.read(source, length, BalancedBloomFilter.class);
    }

    @Override
    protected ImageSerializerSnapshot<BalancedBloomFilter> newSnapshot(Shape shape) {
        return new Snapshot(shape);
    }

    /** Snapshot of a {@link BalancedBloomFilterSerializer}: its expected shape. */
    public static final class Snapshot extends ImageSerializerSnapshot<BalancedBloomFilter> {

        /** For Flink's reflective instantiation on restore. */
        public Snapshot() {
        }

        Snapshot(Shape shape) {
            super(shape);
        }

        @Override
        protected TypeSerializer<BalancedBloomFilter> createSerializer(Shape shape) {
            return new BalancedBloomFilterSerializer(shape);
        }
    }
}
