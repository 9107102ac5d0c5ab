package io.linerate.sketches.image;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * Each check of {@link ImageReader} on its own, in both modes (one array, and streamed through the smallest
 * buffer, 16 bytes): the preamble checks of docs/STATE-FORMAT.md in their documented order (length ≥ 8, magic,
 * family, version, length ≥ 12, checksum, reserved), every field accessor refusing to read past the image as
 * "truncated" (never a buffer exception), the count limits of the bulk accessors, and the stream contract that
 * exactly the image's bytes are taken from the source, whether it is read or rejected.
 */
class ImageReaderChecksTest {

    private static final int CHUNK = 16;

    /** An image of the count-min family (any family will do: these tests use no structure) with the given fields. */
    private static byte[] image(int version, int fieldBytes, Consumer<ImageWriter> fields) {
        ImageWriter w = new ImageWriter(Family.COUNT_MIN, version, fieldBytes);
        fields.accept(w);
        return w.finish();
    }

    /** A 4-byte field body: every accessor asked for more must fail as truncated. */
    private static byte[] fourBytes() {
        return image(1, 4, w -> w.putInt(0x01020304));
    }

    /** Reads {@code image} with {@code parse} in array mode. */
    private static <T> T readArray(byte[] image, Function<ImageReader, T> parse) {
        return parse.apply(ImageReader.open(image, Family.COUNT_MIN, 1));
    }

    /** Reads {@code image} with {@code parse} from a source through a 16-byte buffer; checks it took all its bytes. */
    private static <T> T readStreamed(byte[] image, Function<ImageReader, T> parse) {
        StreamedReads.ArraySource source = new StreamedReads.ArraySource(image, CHUNK);
        try {
            return ImageReader.read(source, image.length, Family.COUNT_MIN, 1, parse);
        } finally {
            assertThat(source.position).as("bytes taken from the source").isEqualTo(image.length);
        }
    }

    /** {@code parse} must fail in both modes with an IllegalArgumentException whose message holds {@code words}. */
    private static void rejectedInBothModes(byte[] image, Function<ImageReader, ?> parse, String... words) {
        for (boolean streamed : new boolean[] {false, true}) {
            assertThatThrownBy(() -> {
                if (streamed) {
                    readStreamed(image, parse);
                } else {
                    readArray(image, parse);
                }
            }).as(streamed ? "streamed" : "array").isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContainingAll(words);
        }
    }

    @Test
    void aNonZeroReservedFieldIsRejectedOnlyBehindAValidChecksum() {
        byte[] image = fourBytes();
        byte[] reserved = TestImages.edit(image, b -> b.putShort(6, (short) 5));
        rejectedInBothModes(reserved, in -> in.getInt("f"), "reserved is 5, must be 0");
        // the same edit without a new checksum: corruption is reported first
        byte[] corrupt = image.clone();
        corrupt[6] = 5;
        rejectedInBothModes(corrupt, in -> in.getInt("f"), "image corrupt", "CRC32C");
    }

    @Test
    void anImageOfAnotherFamilyThanExpectedIsRejectedByName() {
        byte[] image = fourBytes();
        assertThatThrownBy(() -> ImageReader.open(image, Family.COUNTING_BLOOM, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("image holds a COUNT_MIN, expected a COUNTING_BLOOM");
        StreamedReads.ArraySource source = new StreamedReads.ArraySource(image, CHUNK);
        assertThatThrownBy(() -> ImageReader.read(source, image.length, Family.COUNTING_BLOOM, 1, in -> 0))
                .hasMessageContaining("image holds a COUNT_MIN, expected a COUNTING_BLOOM");
        assertThat(source.position).isEqualTo(image.length);
        // no expected family: any family reads
        assertThat(ImageReader.open(image, null, 1).family()).isEqualTo(Family.COUNT_MIN);
    }

    @Test
    void theReaderReportsTheImagesVersionAndRefusesNewerOnes() {
        byte[] v2 = image(2, 4, w -> w.putInt(7));
        ImageReader in = ImageReader.open(v2, Family.COUNT_MIN, 3);
        assertThat(in.version()).isEqualTo(2);
        int read = ImageReader.read(new StreamedReads.ArraySource(v2, CHUNK), v2.length, Family.COUNT_MIN, 3,
                r -> r.version() * 100 + r.getInt("f"));
        assertThat(read).isEqualTo(207);
        rejectedInBothModes(v2, r -> r.getInt("f"), "format version 2 of COUNT_MIN is not supported",
                "versions 1..1");
        byte[] v0 = TestImages.edit(fourBytes(), b -> b.put(5, (byte) 0));
        rejectedInBothModes(v0, r -> r.getInt("f"), "format version 0");
    }

    @Test
    void everyAccessorRefusesToReadPastTheImageAndLeavesTheFieldUnread() {
        byte[] image = fourBytes();
        List<Function<ImageReader, ?>> reads = List.of(
                in -> in.getLong("f"),
                in -> in.getDouble("f"),
                in -> in.getBytes("f", 5),
                in -> {
                    in.getBytes("f", new byte[5], 0, 5);
                    return null;
                },
                in -> in.getInts("f", 2),
                in -> in.getLongs("f", 1),
                in -> {
                    in.getLongs("f", new long[1], 0, 1);
                    return null;
                },
                in -> {
                    in.getLongRecords("f", new long[2], new int[] {0, 1}, 2, 1);
                    return null;
                },
                in -> {
                    in.getLongRecords("f", new long[2], new int[] {0}, 1, 2);
                    return null;
                },
                in -> {
                    in.skip("f", 5);
                    return null;
                },
                in -> {
                    in.require("f", 5);
                    return null;
                });
        for (Function<ImageReader, ?> read : reads) {
            ImageReader in = ImageReader.open(image, Family.COUNT_MIN, 1);
            assertThatThrownBy(() -> read.apply(in)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("image truncated: field f needs").hasMessageContaining("only 4 remain");
            assertThat(in.remaining()).as("nothing read by a refused field").isEqualTo(4);
            rejectedInBothModes(image, read, "image truncated: field f needs", "only 4 remain");
        }
    }

    @Test
    void eachAccessorReadsExactlyWhatTheWriterWrote() {
        long[] longs = new long[40];
        int[] ints = new int[40];
        for (int i = 0; i < 40; i++) {
            longs[i] = 0x0102030405060708L * (i + 1);
            ints[i] = -7 * (i + 1);
        }
        byte[] image = image(1, 1 + 3 + 8 * 40 + 4 * 40 + 8, w -> w.putByte(0xF0).putBytes(new byte[] {1, 2, 3}, 0, 3)
                .putLongs(longs, 0, 40).putInts(ints, 0, 40).putLong(-1));
        Function<ImageReader, String> parse = in -> {
            int b = in.getByte("byte");
            byte[] three = in.getBytes("three", 3);
            long[] l = new long[40];
            in.getLongs("longs", l, 0, 40);
            int[] i = in.getInts("ints", 40);
            long last = in.getLong("last");
            in.finish();
            return b + " " + Arrays.toString(three) + " " + Arrays.equals(l, longs) + " " + Arrays.equals(i, ints)
                    + " " + last;
        };
        String expected = "240 [1, 2, 3] true true -1";
        assertThat(readArray(image, parse)).isEqualTo(expected);
        // through 16 bytes at a time, the ints and longs straddle refills
        assertThat(readStreamed(image, parse)).isEqualTo(expected);
    }

    @Test
    void bulkCountsAreLimitedToOneArray() {
        ImageReader in = ImageReader.open(fourBytes(), Family.COUNT_MIN, 1);
        int limit = Integer.MAX_VALUE - 8;
        // the largest count an array takes passes the limit and fails on the image's length; one more does not
        assertThatThrownBy(() -> in.getBytes("f", limit)).hasMessageContaining("image truncated: field f");
        assertThatThrownBy(() -> in.getBytes("f", limit + 1L)).hasMessageContaining("declares " + (limit + 1L)
                + " bytes, limit is " + limit);
        assertThatThrownBy(() -> in.getBytes("f", -1)).hasMessageContaining("declares -1 bytes");
        assertThatThrownBy(() -> in.getLongs("f", limit)).hasMessageContaining("image truncated: field f");
        assertThatThrownBy(() -> in.getLongs("f", limit + 1L)).hasMessageContaining("declares " + (limit + 1L)
                + " longs, limit is " + limit);
        assertThatThrownBy(() -> in.getLongs("f", -1L)).hasMessageContaining("declares -1 longs");
        assertThatThrownBy(() -> in.getInts("f", -1)).hasMessageContaining("declares -1 ints");
        assertThat(in.getBytes("f", 0)).isEmpty();
        assertThat(in.getLongs("f", 0L)).isEmpty();
        assertThat(in.getInts("f", 0)).isEmpty();
        in.getLongRecords("f", new long[0], new int[0], 0, 1);
        assertThat(in.remaining()).isEqualTo(4);
    }

    @Test
    void longRecordsScatterToTheirIndexesAndBadShapesAreRefused() {
        long[] values = {11, 12, 21, 22, 31, 32};
        byte[] pairs = image(1, 48, w -> w.putLongs(values, 0, 6));
        Function<ImageReader, List<Long>> stride2 = in -> {
            long[] out = new long[8];
            in.getLongRecords("r", out, new int[] {3, 0, 2}, 3, 2);
            in.finish();
            return Arrays.stream(out).boxed().toList();
        };
        List<Long> expected = List.of(21L, 22L, 0L, 0L, 31L, 32L, 11L, 12L);
        assertThat(readArray(pairs, stride2)).isEqualTo(expected);
        assertThat(readStreamed(pairs, stride2)).isEqualTo(expected);
        // stride 1 and count == indexes.length are allowed
        Function<ImageReader, List<Long>> stride1 = in -> {
            long[] out = new long[6];
            in.getLongRecords("r", out, new int[] {5, 4, 3, 2, 1, 0}, 6, 1);
            in.finish();
            return Arrays.stream(out).boxed().toList();
        };
        assertThat(readArray(pairs, stride1)).containsExactly(32L, 31L, 22L, 21L, 12L, 11L);
        assertThat(readStreamed(pairs, stride1)).containsExactly(32L, 31L, 22L, 21L, 12L, 11L);
        ImageReader in = ImageReader.open(pairs, Family.COUNT_MIN, 1);
        assertThatThrownBy(() -> in.getLongRecords("r", new long[8], new int[3], 3, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("3 records of 0 longs");
        assertThatThrownBy(() -> in.getLongRecords("r", new long[8], new int[3], 4, 2))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("4 records of 2 longs, 3 indexes");
        assertThatThrownBy(() -> in.getLongRecords("r", new long[8], new int[3], -1, 2))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("-1 records");
        assertThat(in.remaining()).isEqualTo(48);
    }

    @Test
    void anImageWithNoFieldsReadsInBothModes() {
        byte[] empty = image(1, 0, w -> { });
        assertThat(empty).hasSize(12);
        Function<ImageReader, Long> parse = in -> {
            in.finish();
            return in.remaining();
        };
        assertThat(readArray(empty, parse)).isZero();
        assertThat(readStreamed(empty, parse)).isZero();
    }

    @Test
    void aStreamedReadVerifiesTheImageEvenIfTheParserDoesNotFinish() {
        byte[] image = fourBytes();
        StreamedReads.ArraySource source = new StreamedReads.ArraySource(image, CHUNK);
        assertThatThrownBy(() -> ImageReader.read(source, image.length, Family.COUNT_MIN, 1, in -> 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("4 unexpected trailing bytes");
        byte[] corrupt = image.clone();
        corrupt[9] ^= 1;
        assertThatThrownBy(() -> ImageReader.read(new StreamedReads.ArraySource(corrupt, CHUNK), corrupt.length,
                Family.COUNT_MIN, 1, in -> in.getInt("f")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("image corrupt");
    }

    @Test
    void aRejectedStreamedImageLeavesTheSourceAtTheNextImage() {
        byte[] good = image(1, 4, w -> w.putInt(42));
        byte[] garbage = new byte[8]; // preamble-sized but not an image: "not a linerate image", at any length
        Arrays.fill(garbage, (byte) 0x5A);
        byte[] otherFamily = TestImages.edit(good, b -> b.put(4, (byte) Family.FLOW_TABLE.id()));
        byte[] unknownFamily = TestImages.edit(good, b -> b.put(4, (byte) 200));
        byte[] newer = TestImages.edit(good, b -> b.put(5, (byte) 2));
        byte[] preambleOnly = Arrays.copyOf(good, 10); // valid preamble, too short for the checksum
        byte[] corrupt = good.clone();
        corrupt[8] ^= 1;
        Object[][] cases = {
            {Arrays.copyOf(good, 0), "image truncated: 0 bytes, at least 12"},
            {Arrays.copyOf(good, 5), "image truncated: 5 bytes, at least 12"},
            {garbage, "not a linerate image"},
            {otherFamily, "expected a COUNT_MIN"},
            {unknownFamily, "unknown image family id 200"},
            {newer, "format version 2"},
            {preambleOnly, "image truncated: 10 bytes, at least 12"},
            {corrupt, "image corrupt"},
        };
        for (Object[] c : cases) {
            byte[] bad = (byte[]) c[0];
            byte[] both = Arrays.copyOf(bad, bad.length + good.length);
            System.arraycopy(good, 0, both, bad.length, good.length);
            StreamedReads.ArraySource source = new StreamedReads.ArraySource(both, CHUNK);
            assertThatThrownBy(() -> ImageReader.read(source, bad.length, Family.COUNT_MIN, 1, in -> in.getInt("f")))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining((String) c[1]);
            assertThat(source.position).as("after %s", c[1]).isEqualTo(bad.length);
            int next = ImageReader.read(source, good.length, Family.COUNT_MIN, 1, in -> {
                int v = in.getInt("f");
                in.finish();
                return v;
            });
            assertThat(next).isEqualTo(42);
        }
    }

    @Test
    void streamedArgumentsAreChecked() {
        byte[] image = fourBytes();
        assertThatThrownBy(() -> ImageReader.read(new StreamedReads.ArraySource(image, CHUNK), -1, Family.COUNT_MIN,
                1, in -> 0)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("image length is -1");
        assertThatThrownBy(() -> ImageReader.read(new StreamedReads.ArraySource(image, 15), image.length,
                Family.COUNT_MIN, 1, in -> 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("chunkBytes must be at least 16, got 15");
    }

    @Test
    void aSourceFailingWhileARejectedImageIsDrainedKeepsTheRejection() {
        byte[] image = image(1, 40, w -> w.putLongs(new long[5], 0, 5));
        ImageReader.Source failing = new ImageReader.Source() {
            int position;

            @Override
            public void read(byte[] bytes, int offset, int length) throws IOException {
                if (position + length > 24) { // the preamble and one buffer of fields, then the source breaks
                    throw new IOException("connection reset");
                }
                System.arraycopy(image, position, bytes, offset, length);
                position += length;
            }

            @Override
            public int chunkBytes() {
                return 16;
            }
        };
        assertThatThrownBy(() -> ImageReader.read(failing, image.length, Family.COUNT_MIN, 1,
                in -> in.getLong("f", 1, 10)))
                .isInstanceOf(UncheckedIOException.class).hasMessageContaining("connection reset")
                .satisfies(e -> assertThat(e.getSuppressed()).singleElement()
                        .satisfies(s -> assertThat(s).hasMessageContaining("image field f is 0, must be in [1, 10]")));
    }

    @Test
    void aSourceFailingWhileAnImageRejectedByItsPreambleIsSkippedKeepsTheRejection() {
        byte[] image = fourBytes();
        image[0] ^= 1;
        ImageReader.Source failing = new ImageReader.Source() {
            int position;

            @Override
            public void read(byte[] bytes, int offset, int length) throws IOException {
                if (position + length > ImageWriter.PREAMBLE_BYTES) {
                    throw new IOException("connection reset");
                }
                System.arraycopy(image, position, bytes, offset, length);
                position += length;
            }
        };
        assertThatThrownBy(() -> ImageReader.read(failing, image.length, Family.COUNT_MIN, 1, in -> 0))
                .isInstanceOf(UncheckedIOException.class).hasMessageContaining("connection reset")
                .satisfies(e -> assertThat(e.getSuppressed()).singleElement()
                        .satisfies(s -> assertThat(s).hasMessageContaining("not a linerate image")));
    }

    @Test
    void peekFamilyNeedsOnlyThePreamble() {
        byte[] preamble = Arrays.copyOf(fourBytes(), ImageWriter.PREAMBLE_BYTES);
        assertThat(ImageReader.peekFamily(preamble)).isEqualTo(Family.COUNT_MIN);
        assertThatThrownBy(() -> ImageReader.peekFamily(Arrays.copyOf(preamble, 7)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("fewer than 8 bytes");
    }
}
