package io.linerate.flink.serializers;

import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.sketches.bloom.StandardBloomFilter;
import java.io.IOException;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

/**
 * The defaults ImageSerializer gives subclasses outside this library, which implement only toImage and fromImage:
 * writeImage writes toImage's bytes, readImage reads the length's bytes into an array for fromImage, copyOf is a
 * round trip through the image. Every serializer of the library overrides them, so no other test runs them.
 */
class ImageSerializerDefaultsTest {

    /** A serializer with nothing but the abstract methods. */
    static final class Minimal extends ImageSerializer<StandardBloomFilter> {
        private static final long serialVersionUID = 1L;

        Minimal() {
            super(null);
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
        protected StandardBloomFilter fromImage(byte[] image) {
            return BloomImages.read(image, StandardBloomFilter.class);
        }

        @Override
        protected ImageSerializerSnapshot<StandardBloomFilter> newSnapshot(Shape shape) {
            return new MinimalSnapshot();
        }
    }

    /** The minimal serializer's snapshot. */
    public static final class MinimalSnapshot extends ImageSerializerSnapshot<StandardBloomFilter> {
        @Override
        protected TypeSerializer<StandardBloomFilter> createSerializer(Shape shape) {
            return new Minimal();
        }
    }

    private static StandardBloomFilter filter() {
        StandardBloomFilter f = StandardBloomFilter.withBits(4096, 5, 7);
        for (long i = 0; i < 100; i++) {
            f.put(i * 0x9E3779B97F4A7C15L, i);
        }
        return f;
    }

    @Test
    void theDefaultsWriteReadAndCopyTheImage() throws IOException {
        Minimal serializer = new Minimal();
        StandardBloomFilter f = filter();
        DataOutputSerializer out = new DataOutputSerializer(64);
        serializer.serialize(f, out);
        // what the library's own serializer writes for the same filter, byte for byte
        DataOutputSerializer expected = new DataOutputSerializer(64);
        StandardBloomFilterSerializer.INSTANCE.serialize(f, expected);
        assertThat(out.getCopyOfBuffer()).isEqualTo(expected.getCopyOfBuffer());

        StandardBloomFilter read = serializer.deserialize(new DataInputDeserializer(out.getCopyOfBuffer()));
        assertThat(read).isNotNull();
        assertThat(read.toByteArray()).isEqualTo(f.toByteArray());

        StandardBloomFilter copy = serializer.copy(f);
        assertThat(copy).isNotNull().isNotSameAs(f);
        assertThat(copy.toByteArray()).isEqualTo(f.toByteArray());
        for (long i = 1000; i < 1050; i++) { // independent: the original does not change
            copy.put(i * 0xC2B2AE3D27D4EB4FL, ~i);
        }
        assertThat(copy.toByteArray()).isNotEqualTo(f.toByteArray());
        assertThat(f.toByteArray()).isEqualTo(filter().toByteArray());
    }

    /** Structures are mutable: Flink must copy them where object reuse would share them. */
    @Test
    void structuresAreNotImmutable() {
        assertThat(new Minimal().isImmutableType()).isFalse();
        assertThat(StandardBloomFilterSerializer.INSTANCE.isImmutableType()).isFalse();
    }
}
