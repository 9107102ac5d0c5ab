package io.linerate.flink.serializers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.linerate.sketches.flowtable.FlowTable;
import io.linerate.sketches.frequency.CountMinSketch;
import io.linerate.sketches.frequency.RowIndexing;
import io.linerate.sketches.hash.FiveTuple;
import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.java.typeutils.runtime.kryo.KryoSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataInputViewStreamWrapper;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Which read path a structure takes inside Flink's own {@code KryoSerializer} (with {@link LinerateTypes#registerKryo}),
 * and what the write hands to Flink's view. Flink wraps the view in a {@code NoFetchingInput} over a
 * {@code DataInputViewStream}, whose {@code available()} is always 0; the view itself (a {@link DataInputDeserializer},
 * or a stream-backed view whose stream knows its length) does hold the whole image.
 *
 * <p>The path is seen from the read requests that reach the view, without hooks in the serializers: the streamed
 * path asks for the 8-byte preamble, then chunks of at most 64 KiB; the bytes-first path asks for
 * {@code min(length, 64 KiB)} bytes, then for buffers that double up to half the image, and allocates about twice the
 * image before the structure.
 */
class FlinkKryoReadPathTest {

    private static final int SENTINEL = 0x5E471E1;
    private static final int CHUNK = ImageSerializer.INITIAL_CHUNK;

    /** Sizes of the byte-array reads asked of a view. */
    private static final class Requests {
        final List<Integer> sizes = new ArrayList<>();

        int max() {
            return sizes.stream().mapToInt(Integer::intValue).max().orElse(0);
        }
    }

    /** A deserializer that notes the size of each byte-array read (Flink's DataInputViewStream calls this one). */
    private static DataInputView recordingDeserializer(byte[] bytes, Requests requests) {
        return new DataInputDeserializer(bytes) {
            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                requests.sizes.add(len);
                return super.read(b, off, len);
            }
        };
    }

    /** A stream-backed view (as a checkpoint restore reads) whose stream knows how many bytes it holds. */
    private static DataInputView recordingStream(byte[] bytes, Requests requests, boolean announces) {
        return new DataInputViewStreamWrapper(new ByteArrayInputStream(bytes) {
            @Override
            public synchronized int read(byte[] b, int off, int len) {
                requests.sizes.add(len);
                return super.read(b, off, len);
            }

            @Override
            public synchronized int available() {
                return announces ? super.available() : 0;
            }
        });
    }

    static Stream<Arguments> structures() {
        return Stream.of(
                Arguments.of("small count-min (8 KiB)", (Supplier<Object>) () -> countMin(256)),
                Arguments.of("4 MiB count-min", (Supplier<Object>) () -> countMin(131_071)),
                Arguments.of("flow table, 150k flows", (Supplier<Object>) FlinkKryoReadPathTest::flowTable));
    }

    private static CountMinSketch countMin(int width) {
        CountMinSketch s = CountMinSketch.withShape(width, 4, 11, RowIndexing.FULL_WIDTH, false);
        for (long i = 0; i < 200_000; i++) {
            s.update(i * 0x9E3779B97F4A7C15L % 50_000, 1);
        }
        return s;
    }

    private static FlowTable flowTable() {
        FlowTable t = FlowTable.builder().capacity(200_000).seed(42).build();
        for (int i = 0; i < 150_000; i++) {
            t.update(FiveTuple.ipv4(0x0A000000 + i, 0xC0A80001, 1024 + i % 50_000, 443, 6), 0x10, 100 + i % 1400,
                    1_000L + i);
        }
        return t;
    }

    private static long allocatedBytes() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean())
                .getThreadAllocatedBytes(Thread.currentThread().getId());
    }

    private static byte[] image(Object value) {
        return value instanceof FlowTable f ? f.toByteArray() : ((CountMinSketch) value).toByteArray();
    }

    /**
     * Bytes allocated by the Flink serializer's streamed read of {@code value} from a {@link DataInputDeserializer}:
     * the structure itself and a 64 KiB buffer (its second read, so class loading is not counted).
     */
    @SuppressWarnings("unchecked")
    private static long streamedReadAllocation(Object value) throws IOException {
        ImageSerializer<Object> images = (ImageSerializer<Object>) (ImageSerializer<?>) (value instanceof FlowTable
                ? FlowTableSerializer.INSTANCE : CountMinSketchSerializer.INSTANCE);
        DataOutputSerializer out = new DataOutputSerializer(1 << 16);
        images.serialize(value, out);
        byte[] bytes = out.getCopyOfBuffer();
        images.deserialize(new DataInputDeserializer(bytes));
        long before = allocatedBytes();
        images.deserialize(new DataInputDeserializer(bytes));
        return allocatedBytes() - before;
    }

    /**
     * Through Flink's KryoSerializer, from a view that holds the whole image, the image is streamed into the
     * structure: no read request of the whole image or above 64 KiB, and (for the large ones) no more allocated than
     * the Flink serializer's streamed read allocates, plus a margin far below the image; the same image comes back
     * and the view is left just after it.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("structures")
    @SuppressWarnings("unchecked")
    void aViewThatHoldsTheImageIsStreamedIntoTheStructure(String name, Supplier<Object> make) throws IOException {
        Object value = make.get();
        byte[] image = image(value);
        KryoSerializer<Object> serializer = new KryoSerializer<>((Class<Object>) value.getClass(),
                LinerateTypes.registerKryo(new SerializerConfigImpl()));
        DataOutputSerializer out = new DataOutputSerializer(image.length + 64);
        long writes = ImageKryoSerializer.WRITES.sum();
        serializer.serialize(value, out);
        assertThat(ImageKryoSerializer.WRITES.sum()).as("written by the linerate Kryo serializer").isEqualTo(writes + 1);
        out.writeInt(SENTINEL);
        byte[] bytes = out.getCopyOfBuffer();
        serializer.deserialize(new DataInputDeserializer(bytes)); // Kryo's own first-use allocations, not measured
        long structureBytes = streamedReadAllocation(value);

        for (String view : List.of("DataInputDeserializer", "stream that knows its length")) {
            Requests requests = new Requests();
            DataInputView in = view.startsWith("Data") ? recordingDeserializer(bytes, requests)
                    : recordingStream(bytes, requests, true);
            long before = allocatedBytes();
            Object back = serializer.deserialize(in);
            long allocated = allocatedBytes() - before;

            assertThat(image(back)).as(name + " from a " + view).isEqualTo(image);
            assertThat(in.readInt()).as(name + " from a " + view + ": the view is just after the image")
                    .isEqualTo(SENTINEL);
            assertThat(requests.sizes).as(name + " from a " + view + ": no read of the whole image").doesNotContain(
                    image.length);
            assertThat(requests.max()).as(name + " from a " + view + ": read requests").isLessThanOrEqualTo(CHUNK);
            if (image.length > 1 << 20) {
                // bytes first allocates about 2 images of buffers beside the structure; streamed, the structure only
                assertThat(allocated).as(name + " from a " + view + ": bytes allocated by the read")
                        .isLessThan(structureBytes + image.length / 2);
            }
        }
    }

    /**
     * A view whose stream does not say what it holds is still read as the bytes arrive (bytes first), so a lying
     * length cannot make the structure allocate its claim: the first image read asks for {@code min(length, 64 KiB)}.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("structures")
    @SuppressWarnings("unchecked")
    void aStreamThatDoesNotSayWhatItHoldsIsReadBytesFirst(String name, Supplier<Object> make) throws IOException {
        Object value = make.get();
        byte[] image = image(value);
        KryoSerializer<Object> serializer = new KryoSerializer<>((Class<Object>) value.getClass(),
                LinerateTypes.registerKryo(new SerializerConfigImpl()));
        DataOutputSerializer out = new DataOutputSerializer(image.length + 64);
        serializer.serialize(value, out);
        out.writeInt(SENTINEL);
        Requests requests = new Requests();
        DataInputView in = recordingStream(out.getCopyOfBuffer(), requests, false);

        Object back = serializer.deserialize(in);

        assertThat(image(back)).as(name).isEqualTo(image);
        assertThat(in.readInt()).as(name + ": the view is just after the image").isEqualTo(SENTINEL);
        assertThat(requests.sizes).as(name + ": bytes-first read requests").contains(Math.min(image.length, CHUNK));
    }

    /**
     * Asking the view does not make a lying length trusted: a 16 MiB Count-Min's bytes cut to 256 KiB in a
     * {@link DataInputDeserializer} (which then says it holds fewer bytes than the length field claims) fail with an
     * {@link EOFException} through Flink's KryoSerializer, without allocating the claim.
     */
    @Test
    void aTruncatedImageInADeserializerFailsWithoutAllocatingItsClaim() throws IOException {
        CountMinSketch big = CountMinSketch.withShape(1 << 19, 4, 3, RowIndexing.FULL_WIDTH, false); // 16 MiB
        KryoSerializer<CountMinSketch> serializer = new KryoSerializer<>(CountMinSketch.class,
                LinerateTypes.registerKryo(new SerializerConfigImpl()));
        DataOutputSerializer out = new DataOutputSerializer(1 << 16);
        serializer.serialize(big, out);
        byte[] truncated = Arrays.copyOf(out.getCopyOfBuffer(), 256 << 10);
        serializer.deserialize(new DataInputDeserializer(out.getCopyOfBuffer())); // Kryo's first use

        DataInputDeserializer in = new DataInputDeserializer(truncated);
        long before = allocatedBytes();
        assertThatThrownBy(() -> serializer.deserialize(in))
                .isInstanceOf(EOFException.class);
        assertThat(allocatedBytes() - before).as("bytes allocated for a 16 MiB claim on 256 KiB")
                .isLessThan(4L << 20);
    }

    /**
     * The write hands Flink's view the image in blocks (Kryo's 4 KiB output buffer), never byte by byte, and builds
     * no array of the image's size: what a large image's write allocates is well below the image.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("structures")
    @SuppressWarnings("unchecked")
    void theWriteHandsTheViewBlocksWithoutACopyOfTheImage(String name, Supplier<Object> make) throws IOException {
        Object value = make.get();
        byte[] image = image(value);
        KryoSerializer<Object> serializer = new KryoSerializer<>((Class<Object>) value.getClass(),
                LinerateTypes.registerKryo(new SerializerConfigImpl()));
        serializer.serialize(value, new DataOutputSerializer(image.length + 64)); // Kryo's first use
        List<Integer> blocks = new ArrayList<>();
        int[] singleBytes = {0};
        DataOutputSerializer out = new DataOutputSerializer(image.length + 64) {
            @Override
            public void write(int b) throws IOException {
                singleBytes[0]++;
                super.write(b);
            }

            @Override
            public void writeByte(int v) throws IOException {
                singleBytes[0]++;
                super.writeByte(v);
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                blocks.add(len);
                super.write(b, off, len);
            }
        };

        long before = allocatedBytes();
        serializer.serialize(value, out);
        long allocated = allocatedBytes() - before;

        assertThat(singleBytes[0]).as(name + ": single-byte writes").isZero();
        assertThat(blocks.stream().mapToLong(Integer::longValue).sum()).as(name + ": bytes in blocks")
                .isGreaterThan(image.length);
        assertThat(blocks.size()).as(name + ": blocks").isLessThanOrEqualTo(image.length / 4096 + 2);
        if (image.length > 1 << 20) {
            assertThat(allocated).as(name + ": bytes allocated by the write").isLessThan(image.length / 2);
        }
    }
}
