package io.linerate.sketches.image;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.linerate.sketches.bloom.BloomFilter;
import io.linerate.sketches.flowtable.FlowTable;
import io.linerate.sketches.frequency.BlockedCountMinSketch;
import io.linerate.sketches.frequency.CountMinSketch;
import io.linerate.sketches.frequency.HeavyHitters;
import io.linerate.sketches.frequency.RowIndexing;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code writeImage(sink)} of every structure and variant ({@link ImageRecipes}) streams exactly the bytes of
 * {@code toByteArray()}, announced by their length, and {@code readImage(source, length)} reads them back into the
 * structure {@code fromByteArray} gives, whatever the buffer size: chunks of 16 and 17 bytes put boundaries inside
 * every field and bulk array, 65,536 is the default. {@link HostileImages} checks that both read modes accept and
 * reject the same images with the same messages.
 */
class StreamedImageTest {

    static Stream<Arguments> cases() {
        return ImageRecipes.all().keySet().stream()
                .flatMap(name -> Stream.of(16, 17, 24, 100, 1 << 16).map(chunk -> Arguments.of(name, chunk)));
    }

    @ParameterizedTest(name = "{0}, chunks of {1}")
    @MethodSource("cases")
    void streamedImageIsTheArrayImage(String name, int chunk) {
        check(ImageRecipes.all().get(name), chunk);
    }

    private static <T> void check(ImageRecipes.Recipe<T> r, int chunk) {
        T structure = r.build.get();
        byte[] image = r.write.apply(structure);
        Collecting sink = new Collecting(chunk);
        writeImage(structure, sink);
        assertThat(sink.lengths).as("lengths announced").containsExactly(image.length);
        assertThat(sink.bytes.toByteArray()).as("streamed bytes").isEqualTo(image);
        assertThat(sink.largestWrite).as("largest write").isLessThanOrEqualTo(chunk);
    }

    @ParameterizedTest(name = "{0}, chunks of {1}")
    @MethodSource("cases")
    void streamedReadIsTheArrayRead(String name, int chunk) {
        checkRead(ImageRecipes.all().get(name), chunk);
    }

    @SuppressWarnings("unchecked")
    private static <T> void checkRead(ImageRecipes.Recipe<T> r, int chunk) {
        byte[] image = r.write.apply(r.build.get());
        // more bytes follow the image, as in a Flink stream: the reader must take exactly its length
        StreamedReads.ArraySource source = new StreamedReads.ArraySource(Arrays.copyOf(image, image.length + 7), chunk);
        T read = (T) StreamedReads.read(r.family, source, image.length);
        assertThat(source.position).as("bytes taken").isEqualTo(image.length);
        assertThat(source.largestRead).as("largest read").isLessThanOrEqualTo(chunk);
        assertThat(r.write.apply(read)).as("image of the streamed read").isEqualTo(image);
    }

    /**
     * The array mode verifies the checksum before it reads a field; the streamed mode reads the fields as the bytes
     * arrive, so when it rejects a field it reads the rest through the checksum first and reports a mismatch in
     * its place: the same message either way, and the whole image taken from the source.
     */
    @Test
    void aRejectedFieldOfACorruptImageIsReportedAsCorruption() {
        CountMinSketch s = CountMinSketch.withShape(1000, 4, 1, RowIndexing.MIXED_32, false);
        s.update(42L, 3);
        byte[] image = s.toByteArray();
        ByteBuffer.wrap(image).order(ByteOrder.LITTLE_ENDIAN).putInt(16, 1); // width 1, below its minimum 2
        for (boolean fixedChecksum : new boolean[] {false, true}) {
            byte[] bad = fixedChecksum ? HostileImages.fixUp(image.clone(), Family.COUNT_MIN) : image.clone();
            String expected = fixedChecksum ? "image field width is 1, must be in [2, " : "image corrupt: CRC32C is ";
            assertThatThrownBy(() -> CountMinSketch.fromByteArray(bad)).hasMessageStartingWith(expected);
            StreamedReads.ArraySource source = new StreamedReads.ArraySource(bad, 16);
            assertThatThrownBy(() -> CountMinSketch.readImage(source, bad.length))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith(expected)
                    .satisfies(e -> assertThat(e.getSuppressed()).hasSize(fixedChecksum ? 0 : 1));
            assertThat(source.position).as("bytes taken").isEqualTo(bad.length);
        }
    }

    @Test
    void aFailingOrShortSourceSurfacesAsUncheckedIoException() {
        CountMinSketch s = CountMinSketch.withShape(1000, 4, 1, RowIndexing.MIXED_32, false);
        byte[] image = s.toByteArray();
        StreamedReads.ArraySource shortSource = new StreamedReads.ArraySource(Arrays.copyOf(image, 1000), 64);
        assertThatThrownBy(() -> CountMinSketch.readImage(shortSource, image.length))
                .isInstanceOf(UncheckedIOException.class).hasCauseInstanceOf(java.io.EOFException.class);
        IOException failure = new IOException("connection reset");
        ImageReader.Source failing = (bytes, offset, length) -> {
            throw failure;
        };
        assertThatThrownBy(() -> CountMinSketch.readImage(failing, image.length))
                .isInstanceOf(UncheckedIOException.class).hasCause(failure);
        assertThatThrownBy(() -> CountMinSketch.readImage(new StreamedReads.ArraySource(image, 15), image.length))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("chunkBytes must be at least 16");
    }

    /**
     * What the point of streaming is, measured: reading a 4 MiB Count-Min from a source allocates its counter array
     * and the 64 KiB buffer, where the array mode needs the image as well (twice the bytes).
     */
    @Test
    void aStreamedReadAllocatesTheStructureNotItsImage() {
        CountMinSketch s = CountMinSketch.withMemory(4 << 20, 4, 7);
        for (long i = 0; i < 100_000; i++) {
            s.update(i * 0x9E3779B97F4A7C15L, 1);
        }
        byte[] image = s.toByteArray();
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long thread = Thread.currentThread().getId();
        CountMinSketch.readImage(new StreamedReads.ArraySource(image, 1 << 16), image.length); // warm up
        long before = threads.getThreadAllocatedBytes(thread);
        CountMinSketch read = CountMinSketch.readImage(new StreamedReads.ArraySource(image, 1 << 16), image.length);
        long allocated = threads.getThreadAllocatedBytes(thread) - before;
        assertThat(read.toByteArray()).isEqualTo(image);
        assertThat(allocated).as("bytes allocated by a streamed read of a " + image.length + "-byte image")
                .isBetween((long) image.length - 64, image.length + (256L << 10));
    }

    /** The same for a flow table of 100,000 flows: streaming saves the image's bytes (its entries are read in runs). */
    @Test
    void aStreamedFlowTableReadSavesTheImage() {
        FlowTable t = FlowTable.builder().capacity(120_000).seed(3).build();
        java.util.SplittableRandom random = new java.util.SplittableRandom(5);
        for (int i = 0; i < 100_000; i++) {
            t.update(io.linerate.sketches.hash.FiveTuple.ipv4(random.nextInt(), random.nextInt(), random.nextInt(65_536),
                    443, 6), 0x10, 1500, 1_000L + i);
        }
        byte[] image = t.toByteArray();
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long thread = Thread.currentThread().getId();
        FlowTable.readImage(new StreamedReads.ArraySource(image, 1 << 16), image.length, null); // warm up
        FlowTable.fromByteArray(image.clone(), null);
        byte[] copy = image.clone();
        long before = threads.getThreadAllocatedBytes(thread);
        FlowTable read = FlowTable.readImage(new StreamedReads.ArraySource(image, 1 << 16), image.length, null);
        long streamed = threads.getThreadAllocatedBytes(thread) - before;
        before = threads.getThreadAllocatedBytes(thread);
        FlowTable.fromByteArray(copy, null);
        long whole = threads.getThreadAllocatedBytes(thread) - before;
        assertThat(read.toByteArray()).isEqualTo(image);
        // the array mode reads from an image the caller already holds; a caller streaming from an input would
        // first have to allocate that image, which the streamed read does not
        assertThat(streamed).as("streamed read of a %d-byte image, against %d bytes for the array read", image.length,
                whole).isLessThan(whole + (256L << 10));
        assertThat(streamed).as("streamed read against the table's own memory %d", read.memoryBytes())
                .isLessThan(read.memoryBytes() + image.length / 4);
    }

    @Test
    void aFailingSinkSurfacesAsUncheckedIoException() {
        CountMinSketch s = CountMinSketch.withShape(1000, 4, 1, io.linerate.sketches.frequency.RowIndexing.MIXED_32,
                false);
        IOException failure = new IOException("disk full");
        ImageWriter.Sink failing = new ImageWriter.Sink() {
            @Override
            public void begin(int imageLength) {
            }

            @Override
            public void write(byte[] bytes, int offset, int length) throws IOException {
                throw failure;
            }
        };
        assertThatThrownBy(() -> s.writeImage(failing)).isInstanceOf(UncheckedIOException.class).hasCause(failure);
        assertThatThrownBy(() -> s.writeImage(new Collecting(15))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("chunkBytes must be at least 16");
    }

    private static void writeImage(Object structure, ImageWriter.Sink sink) {
        if (structure instanceof BloomFilter f) {
            f.writeImage(sink);
        } else if (structure instanceof CountMinSketch s) {
            s.writeImage(sink);
        } else if (structure instanceof BlockedCountMinSketch s) {
            s.writeImage(sink);
        } else if (structure instanceof HeavyHitters h) {
            h.writeImage(sink);
        } else {
            ((FlowTable) structure).writeImage(sink);
        }
    }

    /** Keeps what it is given. */
    private static final class Collecting implements ImageWriter.Sink {
        final int chunk;
        final List<Integer> lengths = new ArrayList<>();
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int largestWrite;

        Collecting(int chunk) {
            this.chunk = chunk;
        }

        @Override
        public void begin(int imageLength) {
            lengths.add(imageLength);
        }

        @Override
        public void write(byte[] b, int offset, int length) {
            bytes.write(b, offset, length);
            largestWrite = Math.max(largestWrite, length);
        }

        @Override
        public int chunkBytes() {
            return chunk;
        }
    }
}
