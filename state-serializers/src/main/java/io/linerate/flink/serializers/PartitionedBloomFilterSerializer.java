package io.linerate.flink.serializers;

import io.linerate.sketches.bloom.PartitionedBloomFilter;
import io.linerate.sketches.image.ImageReader;
import io.linerate.sketches.image.ImageWriter;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/**
 * Flink serializer of {@link PartitionedBloomFilter}: an int length and the structure's byte image (see {@link ImageSerializer}).
 * {@link #INSTANCE} leaves the shape unspecified; {@link #expecting} records the shape the operator is
 * configured with, so that a restore of differently shaped state is reported incompatible, naming the field.
 */
public final class PartitionedBloomFilterSerializer extends ImageSerializer<PartitionedBloomFilter> {

    private static final long serialVersionUID = 1L;

    /** The serializer with an unspecified shape (what {@link PartitionedBloomFilterTypeInfo} creates). */
    public static final PartitionedBloomFilterSerializer INSTANCE = new PartitionedBloomFilterSerializer(null);

    /** @param expected the expected shape, or {@code null} for unspecified */
    public PartitionedBloomFilterSerializer(Shape expected) {
        super(expected);
    }

    /** A serializer expecting structures shaped like {@code prototype}. */
    public static PartitionedBloomFilterSerializer expecting(PartitionedBloomFilter prototype) {
        return new PartitionedBloomFilterSerializer(Shapes.of(prototype));
    }

    @Override
    public Class<PartitionedBloomFilter> typeClass() {
        return PartitionedBloomFilter.class;
    }

    @Override
    protected byte[] toImage(PartitionedBloomFilter value) {
        return value.toByteArray();
    }

    @Override
    protected void writeImage(PartitionedBloomFilter value, ImageWriter.Sink sink) {
        value.writeImage(sink);
    }

    @Override
    protected PartitionedBloomFilter copyOf(PartitionedBloomFilter value) {
        return value.copy();
    }

    @Override
    protected PartitionedBloomFilter fromImage(byte[] image) {
        return BloomImages.read(image, PartitionedBloomFilter.class);
    }

    @Override
    protected PartitionedBloomFilter readImage(ImageReader.Source source, int length) {
        return BloomImages.read(source, length, PartitionedBloomFilter.class);
    }

    @Override
    protected ImageSerializerSnapshot<PartitionedBloomFilter> newSnapshot(Shape shape) {
        return new Snapshot(shape);
    }

    /** Snapshot of a {@link PartitionedBloomFilterSerializer}: its expected shape. */
    public static final class Snapshot extends ImageSerializerSnapshot<PartitionedBloomFilter> {

        /** For Flink's reflective instantiation on restore. */
        public Snapshot() {
        }

        Snapshot(Shape shape) {
            super(shape);
        }

        @Override
        protected TypeSerializer<PartitionedBloomFilter> createSerializer(Shape shape) {
            return new PartitionedBloomFilterSerializer(shape);
        }
    }
}
