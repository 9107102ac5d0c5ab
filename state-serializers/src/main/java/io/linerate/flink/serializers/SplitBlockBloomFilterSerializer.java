package io.linerate.flink.serializers;

import io.linerate.sketches.bloom.SplitBlockBloomFilter;
import io.linerate.sketches.image.ImageReader;
import io.linerate.sketches.image.ImageWriter;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/**
 * Flink serializer of {@link SplitBlockBloomFilter}: an int length and the structure's byte image (see {@link ImageSerializer}).
 * {@link #INSTANCE} leaves the shape unspecified; {@link #expecting} records the shape the operator is
 * configured with, so that a restore of differently shaped state is reported incompatible, naming the field.
 */
public final class SplitBlockBloomFilterSerializer extends ImageSerializer<SplitBlockBloomFilter> {

    private static final long serialVersionUID = 1L;

    /** The serializer with an unspecified shape (what {@link SplitBlockBloomFilterTypeInfo} creates). */
    public static final SplitBlockBloomFilterSerializer INSTANCE = new SplitBlockBloomFilterSerializer(null);

    /** @param expected the expected shape, or {@code null} for unspecified */
    public SplitBlockBloomFilterSerializer(Shape expected) {
        super(expected);
    }

    /** A serializer expecting structures shaped like {@code prototype}. */
    public static SplitBlockBloomFilterSerializer expecting(SplitBlockBloomFilter prototype) {
        return new SplitBlockBloomFilterSerializer(Shapes.of(prototype));
    }

    @Override
    public Class<SplitBlockBloomFilter> typeClass() {
        return SplitBlockBloomFilter.class;
    }

    @Override
    protected byte[] toImage(SplitBlockBloomFilter value) {
        return value.toByteArray();
    }

    @Override
    protected void writeImage(SplitBlockBloomFilter value, ImageWriter.Sink sink) {
        value.writeImage(sink);
    }

    @Override
    protected SplitBlockBloomFilter copyOf(SplitBlockBloomFilter value) {
        return value.copy();
    }

    @Override
    protected SplitBlockBloomFilter fromImage(byte[] image) {
        return BloomImages.read(image, SplitBlockBloomFilter.class);
    }

    @Override
    protected SplitBlockBloomFilter readImage(ImageReader.Source source, int length) {
        return BloomImages.read(source, length, SplitBlockBloomFilter.class);
    }

    @Override
    protected ImageSerializerSnapshot<SplitBlockBloomFilter> newSnapshot(Shape shape) {
        return new Snapshot(shape);
    }

    /** Snapshot of a {@link SplitBlockBloomFilterSerializer}: its expected shape. */
    public static final class Snapshot extends ImageSerializerSnapshot<SplitBlockBloomFilter> {

        /** For Flink's reflective instantiation on restore. */
        public Snapshot() {
        }

        Snapshot(Shape shape) {
            super(shape);
        }

        @Override
        protected TypeSerializer<SplitBlockBloomFilter> createSerializer(Shape shape) {
            return new SplitBlockBloomFilterSerializer(shape);
        }
    }
}
