package io.linerate.flink.serializers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.linerate.sketches.bloom.StandardBloomFilter;
import io.linerate.sketches.frequency.CountMinSketch;
import io.linerate.sketches.frequency.RowIndexing;
import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.util.List;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataInputViewStreamWrapper;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

/** Length fields that lie, negative lengths, corrupt images: clear exceptions, no large allocation. */
class HostileBytesTest {

    private static final CountMinSketchSerializer SERIALIZER = CountMinSketchSerializer.INSTANCE;

    private static DataInputDeserializer lengthThenBytes(int length, int present) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(16 + present);
        out.writeInt(length);
        out.write(new byte[present]);
        return new DataInputDeserializer(out.getCopyOfBuffer());
    }

    private static long allocatedBytes() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean())
                .getThreadAllocatedBytes(Thread.currentThread().getId());
    }

    @Test
    void lengthClaimingGigabytesOnAShortStreamFailsWithoutLargeAllocation() throws IOException {
        for (int claimed : new int[] {ImageSerializer.MAX_IMAGE_BYTES, 1 << 30, 100_000_000}) {
            DataInputDeserializer in = lengthThenBytes(claimed, 1000);
            long before = allocatedBytes();
            assertThatThrownBy(() -> SERIALIZER.deserialize(in)).isInstanceOf(EOFException.class);
            long allocated = allocatedBytes() - before;
            assertThat(allocated).as("bytes allocated for a %d-byte claim", claimed).isLessThan(4L << 20);

            DataInputDeserializer again = lengthThenBytes(claimed, 1000);
            long before2 = allocatedBytes();
            assertThatThrownBy(() -> SERIALIZER.copy(again, new DataOutputSerializer(64)))
                    .isInstanceOf(EOFException.class);
            assertThat(allocatedBytes() - before2).isLessThan(4L << 20);
        }
    }

    @Test
    void growingBufferStillReadsLargeImages() throws IOException {
        CountMinSketch s = CountMinSketch.withShape(1 << 16, 4, 7, RowIndexing.FULL_WIDTH, false); // 2 MiB image
        s.update(12345L, 3);
        DataOutputSerializer out = new DataOutputSerializer(1 << 10);
        SERIALIZER.serialize(s, out);
        CountMinSketch back = SERIALIZER.deserialize(new DataInputDeserializer(out.getCopyOfBuffer()));
        assertThat(back.toByteArray()).isEqualTo(s.toByteArray());
    }

    @Test
    void negativeAndOversizedLengthsAreRejectedNamingTheField() throws IOException {
        for (int bad : new int[] {-1, Integer.MIN_VALUE, Integer.MAX_VALUE}) {
            DataInputDeserializer in = lengthThenBytes(bad, 8);
            assertThatThrownBy(() -> SERIALIZER.deserialize(in)).isInstanceOf(IOException.class)
                    .hasMessageContaining("CountMinSketch image length field is " + bad)
                    .hasMessageContaining(String.valueOf(ImageSerializer.MAX_IMAGE_BYTES));
        }
    }

    @Test
    void corruptAndTruncatedImagesAreRejectedClearly() throws IOException {
        byte[] image = CountMinSketch.withShape(64, 2, 1, RowIndexing.FULL_WIDTH, false).toByteArray();
        byte[] corrupt = image.clone();
        corrupt[corrupt.length / 2] ^= 0x10;
        DataOutputSerializer out = new DataOutputSerializer(image.length + 8);
        out.writeInt(corrupt.length);
        out.write(corrupt);
        assertThatThrownBy(() -> SERIALIZER.deserialize(new DataInputDeserializer(out.getCopyOfBuffer())))
                .isInstanceOf(IOException.class).hasMessageContaining("cannot read CountMinSketch image")
                .hasMessageContaining("CRC32C");

        DataOutputSerializer shortImage = new DataOutputSerializer(image.length + 8);
        shortImage.writeInt(10);
        shortImage.write(image, 0, 10);
        assertThatThrownBy(() -> SERIALIZER.deserialize(new DataInputDeserializer(shortImage.getCopyOfBuffer())))
                .isInstanceOf(IOException.class).hasMessageContaining("truncated");

        DataOutputSerializer wrongFamily = new DataOutputSerializer(64);
        StandardBloomFilterSerializer.INSTANCE.serialize(
                io.linerate.sketches.bloom.StandardBloomFilter.withBits(64, 2, 1), wrongFamily);
        assertThatThrownBy(() -> SERIALIZER.deserialize(new DataInputDeserializer(wrongFamily.getCopyOfBuffer())))
                .isInstanceOf(IOException.class).hasMessageContaining("STANDARD_BLOOM");
        assertThatThrownBy(() -> PartitionedBloomFilterSerializer.INSTANCE.deserialize(
                new DataInputDeserializer(wrongFamily.getCopyOfBuffer())))
                .isInstanceOf(IOException.class).hasMessageContaining("expected a PartitionedBloomFilter");
    }

    /**
     * A Bloom image of another variant is refused, naming both, whether the input holds the whole image (streamed
     * read) or cannot say what it holds (read into an array first): the variant check is on both paths.
     */
    @Test
    void aBloomImageOfAnotherVariantIsRefusedOnEitherReadPath() throws IOException {
        DataOutputSerializer standard = new DataOutputSerializer(64);
        StandardBloomFilterSerializer.INSTANCE.serialize(StandardBloomFilter.withBits(64, 2, 1), standard);
        byte[] bytes = standard.getCopyOfBuffer();
        InputStream cannotSay = new FilterInputStream(new ByteArrayInputStream(bytes)) {
            @Override
            public int available() throws IOException {
                throw new IOException("available() not supported");
            }
        };
        for (DataInputView in : List.of(new DataInputDeserializer(bytes), new DataInputViewStreamWrapper(cannotSay))) {
            assertThatThrownBy(() -> PartitionedBloomFilterSerializer.INSTANCE.deserialize(in))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("image holds a StandardBloomFilter, expected a PartitionedBloomFilter");
        }
    }
}
