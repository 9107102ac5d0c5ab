package io.linerate.sketches.image;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.linerate.sketches.bloom.BloomFilter;
import io.linerate.sketches.flowtable.FlowTable;
import io.linerate.sketches.frequency.CountMinSketch;
import io.linerate.sketches.frequency.HeavyHitters;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code writeImage(sink)} of every structure and variant ({@link ImageRecipes}) streams exactly the bytes of
 * {@code toByteArray()}, announced by their length, whatever the buffer size: chunks of 16 and 17 bytes put
 * boundaries inside every field and bulk array, 65,536 is the default.
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
