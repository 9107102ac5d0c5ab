package io.linerate.flink.serializers;

import io.linerate.sketches.bloom.BlockedBloomFilter;
import io.linerate.sketches.image.ImageReader;
import io.linerate.sketches.image.ImageWriter;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/**
 * Flink serializer of {@link BlockedBloomFilter}: an int length and the structure's byte image (see {@link ImageSerializer}).
 * {@link #INSTANCE} leaves the shape unspecified; {@link #expecting} records the shape the operator is
 * configured with, so that a restore of differently shaped state is reported incompatible, naming the field.
 */
public final class BlockedBloomFilterSerializer extends ImageSerializer<BlockedBloomFilter> {

    private static final long serialVersionUID = 1L;

    /** The serializer with an unspecified shape (what {@link BlockedBloomFilterTypeInfo} creates). */
    public static final BlockedBloomFilterSerializer INSTANCE = new BlockedBloomFilterSerializer(null);

    /** @param expected the expected shape, or {@code null} for unspecified */
    public BlockedBloomFilterSerializer(Shape expected) {
        super(expected);
    }

    /** A serializer expecting structures shaped like {@code prototype}. */
    public static BlockedBloomFilterSerializer expecting(BlockedBloomFilter prototype) {
        return new BlockedBloomFilterSerializer(Shapes.of(prototype));
    }

    @Override
    public Class<BlockedBloomFilter> typeClass() {
        return BlockedBloomFilter.class;
    }

    @Override
    protected byte[] toImage(BlockedBloomFilter value) {
        return value.toByteArray();
    }

    @Override
    protected void writeImage(BlockedBloomFilter value, ImageWriter.Sink sink) {
        value.writeImage(sink);
    }

    @Override
    protected BlockedBloomFilter copyOf(BlockedBloomFilter value) {
        return value.copy();
    }

    @Override
    protected BlockedBloomFilter fromImage(byte[] image) {
        return BloomImages.read(image, BlockedBloomFilter.class);
    }

    @Override
    protected BlockedBloomFilter readImage(ImageReader.Source source, int length) {
        return BloomImages.read(source, length, BlockedBloomFilter.class);
    }

    @Override
    protected ImageSerializerSnapshot<BlockedBloomFilter> newSnapshot(Shape shape) {
        return new Snapshot(shape);
    }

    /** Snapshot of a {@link BlockedBloomFilterSerializer}: its expected shape. */
    public static final class Snapshot extends ImageSerializerSnapshot<BlockedBloomFilter> {

        /** For Flink's reflective instantiation on restore. */
        public Snapshot() {
        }

        Snapshot(Shape shape) {
            super(shape);
        }

        @Override
        protected TypeSerializer<BlockedBloomFilter> createSerializer(Shape shape) {
            return new BlockedBloomFilterSerializer(shape);
        }
    }
}
