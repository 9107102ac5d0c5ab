package io.linerate.sketches.image;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.linerate.sketches.bloom.BalancedBloomFilter;
import io.linerate.sketches.bloom.BlockedBloomFilter;
import io.linerate.sketches.bloom.BloomFilter;
import io.linerate.sketches.bloom.BloomFilters;
import io.linerate.sketches.bloom.CountingBloomFilter;
import io.linerate.sketches.bloom.PartitionedBloomFilter;
import io.linerate.sketches.bloom.SplitBlockBloomFilter;
import io.linerate.sketches.bloom.StandardBloomFilter;
import io.linerate.sketches.hash.Probing;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Byte images of the standard, partitioned, blocked, split-block and counting filters: round trips, and every kind of bad
 * image rejected with an IllegalArgumentException that says what is wrong, before anything is allocated.
 *
 * <p>Layouts (little-endian, after the 8-byte preamble): bit-array filters: seed, bits (long), hashCount (int),
 * shape (long: probing id / partition size / block bits, 512 for split-block), words; counting: seed, counters (long), hashCount,
 * counterBits, probing (ints), lostIncrements, rejectedRemovals (longs), words.
 */
class BloomImageTest {

    static final int STANDARD = Family.STANDARD_BLOOM.id();
    static final int PARTITIONED = Family.PARTITIONED_BLOOM.id();
    static final int BLOCKED = Family.BLOCKED_BLOOM.id();
    static final int SPLIT_BLOCK = Family.SPLIT_BLOCK_BLOOM.id();
    static final int COUNTING = Family.COUNTING_BLOOM.id();

    static BloomFilter fill(BloomFilter f, int items, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        for (int i = 0; i < items; i++) {
            f.put(rnd.nextLong());
        }
        return f;
    }

    static Stream<Arguments> filters() {
        List<Arguments> out = new ArrayList<>();
        for (int items : new int[] {0, 300, 5000}) {
            for (Probing p : Probing.values()) {
                out.add(Arguments.of("standard " + p + " n=" + items,
                        fill(StandardBloomFilter.withBits(10_007, 5, 11, p), items, 1)));
            }
            out.add(Arguments.of("standard create n=" + items, fill(StandardBloomFilter.create(2000, 0.02, -5), items, 2)));
            out.add(Arguments.of("partitioned n=" + items, fill(PartitionedBloomFilter.withBits(10_000, 7, 12), items, 3)));
            for (int b : new int[] {64, 512, 4096}) {
                out.add(Arguments.of("blocked B=" + b + " n=" + items,
                        fill(BlockedBloomFilter.withBits(20_000, 6, 13, b), items, 4)));
            }
            out.add(Arguments.of("split-block n=" + items, fill(SplitBlockBloomFilter.withBits(20_000, 15), items, 9)));
            for (int w : new int[] {2, 4, 8, 16}) {
                CountingBloomFilter c = CountingBloomFilter.withCounters(3001, 4, w, 14);
                fill(c, items, 5);
                c.remove(-1L); // usually rejected, so rejectedRemovals is part of the image
                out.add(Arguments.of("counting w=" + w + " n=" + items, c));
            }
        }
        out.add(Arguments.of("standard m=1", fill(StandardBloomFilter.withBits(1, 1, 0), 3, 6)));
        out.add(Arguments.of("counting m=1", fill(CountingBloomFilter.withCounters(1, 2, 4, 0), 30, 7)));
        return out.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("filters")
    void roundTripGivesEqualAnswersAndEqualImageBytes(String name, BloomFilter f) {
        byte[] image = f.toByteArray();
        BloomFilter g = BloomFilters.fromByteArray(image);
        assertThat(g).isExactlyInstanceOf(f.getClass());
        assertThat(g.toByteArray()).isEqualTo(image);
        assertThat(g.bitSize()).isEqualTo(f.bitSize());
        assertThat(g.hashCount()).isEqualTo(f.hashCount());
        assertThat(g.bitCount()).isEqualTo(f.bitCount());
        assertThat(g.hasher()).isEqualTo(f.hasher());
        assertThat(g.expectedFpp()).isEqualTo(f.expectedFpp());
        assertThat(g.memoryBytes()).isEqualTo(f.memoryBytes());
        assertThat(g.toString()).isEqualTo(f.toString());
        SplittableRandom rnd = new SplittableRandom(name.hashCode());
        for (int i = 0; i < 20_000; i++) {
            long x = i < 5000 ? new SplittableRandom(1 + i % 7).nextLong() : rnd.nextLong();
            assertThat(g.mightContain(x)).isEqualTo(f.mightContain(x));
            String s = "k" + i;
            assertThat(g.mightContain(s)).isEqualTo(f.mightContain(s));
        }
        if (f instanceof CountingBloomFilter c) {
            CountingBloomFilter d = (CountingBloomFilter) g;
            assertThat(d.counterValues()).isEqualTo(c.counterValues());
            assertThat(d.lostIncrements()).isEqualTo(c.lostIncrements());
            assertThat(d.rejectedRemovals()).isEqualTo(c.rejectedRemovals());
            assertThat(d.saturatedCounters()).isEqualTo(c.saturatedCounters());
            assertThat(d.counterBits()).isEqualTo(c.counterBits());
        }
        if (f instanceof StandardBloomFilter s) {
            assertThat(((StandardBloomFilter) g).probing()).isEqualTo(s.probing());
        }
        // the copy keeps working like the original, and can be merged with it
        f.put("after");
        g.put("after");
        assertThat(g.toByteArray()).isEqualTo(f.toByteArray());
        g.union(f);
    }

    // ---------------------------------------------------------------- damaged images

    static byte[] smallImage() {
        return fill(StandardBloomFilter.withBits(300, 3, 21, Probing.ENHANCED_CUBIC), 20, 8).toByteArray();
    }

    static List<byte[]> smallImagesOfEveryVariant() {
        return List.of(smallImage(),
                fill(PartitionedBloomFilter.withBits(300, 3, 21), 20, 8).toByteArray(),
                fill(BlockedBloomFilter.withBits(300, 3, 21, 64), 20, 8).toByteArray(),
                fill(SplitBlockBloomFilter.withBits(1024, 21), 20, 8).toByteArray(),
                fill(CountingBloomFilter.withCounters(100, 3, 4, 21), 20, 8).toByteArray(),
                fill(BalancedBloomFilter.withBits(1536, 3, 21), 20, 8).toByteArray());
    }

    @Test
    void everyFlippedByteIsDetected() {
        for (byte[] image : smallImagesOfEveryVariant()) {
            for (int i = 0; i < image.length; i++) {
                for (int mask : new int[] {0x01, 0x80, 0xFF}) {
                    byte[] bad = image.clone();
                    bad[i] ^= (byte) mask;
                    int at = i;
                    var thrown = assertThatThrownBy(() -> BloomFilters.fromByteArray(bad))
                            .as("byte %d ^ 0x%02X", at, mask)
                            .isInstanceOf(IllegalArgumentException.class);
                    if (i < 4) {
                        thrown.hasMessageContaining("not a linerate image");
                    } else if (i >= 8) {
                        thrown.hasMessageContaining("corrupt").hasMessageContaining("CRC32C");
                    }
                }
            }
        }
    }

    @Test
    void everyTruncationIsDetected() {
        for (byte[] image : smallImagesOfEveryVariant()) {
            for (int length = 0; length < image.length; length++) {
                byte[] cut = Arrays.copyOf(image, length);
                assertThatThrownBy(() -> BloomFilters.fromByteArray(cut))
                        .as("first %d of %d bytes", length, image.length)
                        .isInstanceOf(IllegalArgumentException.class)
                        .message().containsAnyOf("truncated", "corrupt");
            }
        }
        assertThatThrownBy(() -> BloomFilters.fromByteArray(null)).isInstanceOf(IllegalArgumentException.class);
    }

    /** The body cut short but correctly sealed: the reader sees that a field is missing. */
    @Test
    void resealedTruncationsNameTheMissingField() {
        byte[] image = smallImage();
        byte[] body = TestImages.body(image);
        for (int length = TestImages.FIELDS; length < body.length; length++) {
            byte[] cut = TestImages.seal(Arrays.copyOf(body, length));
            assertThatThrownBy(() -> BloomFilters.fromByteArray(cut))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("truncated").hasMessageContaining("field");
        }
    }

    @Test
    void trailingBytesAreRejected() {
        for (byte[] image : smallImagesOfEveryVariant()) {
            // appended after the checksum: the checksum no longer matches
            byte[] junk = Arrays.copyOf(image, image.length + 5);
            assertThatThrownBy(() -> BloomFilters.fromByteArray(junk)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("corrupt");
            // extra field bytes sealed with a valid checksum
            byte[] extra = TestImages.seal(Arrays.copyOf(TestImages.body(image), image.length - 4 + 8));
            assertThatThrownBy(() -> BloomFilters.fromByteArray(extra)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("8 unexpected trailing bytes");
        }
    }

    @Test
    void wrongMagicIsRejected() {
        byte[] bad = TestImages.edit(smallImage(), b -> b.putInt(0, 0x12345678));
        assertThatThrownBy(() -> BloomFilters.fromByteArray(bad)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a linerate image").hasMessageContaining("0x12345678")
                .hasMessageContaining(String.format(Locale.ROOT, "0x%08X", ImageWriter.MAGIC));
    }

    /** Bytes that are not an image at all are reported as such, whatever byte 4 happens to be. */
    @Test
    void arbitraryBytesAreNotALinerateImage() {
        byte[] text = "hello, this is not a sketch image at all".getBytes(StandardCharsets.US_ASCII);
        assertThatThrownBy(() -> BloomFilters.fromByteArray(text)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a linerate image");
        SplittableRandom rnd = new SplittableRandom(9);
        for (int i = 0; i < 200; i++) {
            byte[] random = new byte[8 + rnd.nextInt(100)];
            rnd.nextBytes(random);
            assertThatThrownBy(() -> BloomFilters.fromByteArray(random)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("not a linerate image");
        }
    }

    @Test
    void unknownFamilyIsRejected() {
        for (int id : new int[] {0, 99, 255}) {
            byte[] bad = TestImages.edit(smallImage(), b -> b.put(4, (byte) id));
            assertThatThrownBy(() -> BloomFilters.fromByteArray(bad)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("unknown image family id " + id);
        }
        // a known family that is not a Bloom filter
        byte[] countMin = TestImages.edit(smallImage(), b -> b.put(4, (byte) Family.COUNT_MIN.id()));
        assertThatThrownBy(() -> BloomFilters.fromByteArray(countMin)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("COUNT_MIN").hasMessageContaining("not a Bloom filter");
        // a Bloom family whose fields do not fit: a standard image relabelled as counting
        byte[] relabelled = TestImages.edit(smallImage(), b -> b.put(4, (byte) COUNTING));
        assertThatThrownBy(() -> BloomFilters.fromByteArray(relabelled)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void unsupportedVersionIsRejected() {
        for (byte[] image : smallImagesOfEveryVariant()) {
            for (int version : new int[] {0, 2, 255}) {
                byte[] bad = TestImages.edit(image, b -> b.put(5, (byte) version));
                assertThatThrownBy(() -> BloomFilters.fromByteArray(bad)).isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("version " + version).hasMessageContaining("not supported")
                        .hasMessageContaining("versions 1..1");
            }
        }
    }

    // ---------------------------------------------------------------- forged images with a valid checksum

    static byte[] bitArrayImage(int family, long seed, long bits, int k, long shape, long[] words) {
        return TestImages.forge(ImageWriter.MAGIC, family, 1, b -> {
            b.putLong(seed).putLong(bits).putInt(k).putLong(shape);
            for (long w : words) {
                b.putLong(w);
            }
        });
    }

    static byte[] countingImage(long counters, int k, int counterBits, int probing, long lost, long rejected,
                                long[] words) {
        return TestImages.forge(ImageWriter.MAGIC, COUNTING, 1, b -> {
            b.putLong(7).putLong(counters).putInt(k).putInt(counterBits).putInt(probing).putLong(lost).putLong(rejected);
            for (long w : words) {
                b.putLong(w);
            }
        });
    }

    @Test
    void forgedImagesOfValidFiltersAreAccepted() {
        // sanity check of the forging helpers: the same bytes the writer produces
        StandardBloomFilter s = StandardBloomFilter.withBits(128, 3, 7, Probing.DOUBLE);
        assertThat(bitArrayImage(STANDARD, 7, 128, 3, Probing.DOUBLE.id(), new long[2])).isEqualTo(s.toByteArray());
        CountingBloomFilter c = CountingBloomFilter.withCounters(32, 3, 4, 7);
        assertThat(countingImage(32, 3, 4, Probing.ENHANCED_CUBIC.id(), 0, 0, new long[2])).isEqualTo(c.toByteArray());
    }

    /**
     * An image that declares a huge size on a few bytes must fail on the size check, not by allocating it:
     * 2^36 bits are 8 GiB of words, far above this JVM's heap, so an allocation would end in OutOfMemoryError.
     */
    @Test
    void hugeDeclaredSizesFailBeforeAllocating() {
        long max = 1L << 36;
        for (int family : new int[] {STANDARD, PARTITIONED, BLOCKED, SPLIT_BLOCK}) {
            // the size check comes before any check of the shape, so the partition size need not be prime here
            long shape = family == STANDARD ? 0 : family == PARTITIONED ? max / 4 : 512;
            int k = family == PARTITIONED ? 4 : family == SPLIT_BLOCK ? 8 : 3;
            long bits = max;
            byte[] huge = bitArrayImage(family, 1, bits, k, shape, new long[0]);
            assertThatThrownBy(() -> BloomFilters.fromByteArray(huge)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("truncated").hasMessageContaining("words")
                    .hasMessageContaining(Long.toString((bits + 63) / 64 * 8));
            for (long tooMany : new long[] {max + 1, Long.MAX_VALUE, 0, -1, Long.MIN_VALUE}) {
                byte[] beyond = bitArrayImage(family, 1, tooMany, k, shape, new long[0]);
                assertThatThrownBy(() -> BloomFilters.fromByteArray(beyond)).isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("bits").hasMessageContaining(Long.toString(tooMany))
                        .hasMessageContaining("[1, " + max + "]");
            }
        }
        byte[] counting = countingImage(max / 2, 3, 2, 2, 0, 0, new long[0]);
        assertThatThrownBy(() -> BloomFilters.fromByteArray(counting)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("truncated").hasMessageContaining("words");
        byte[] wide = countingImage(max / 2, 3, 16, 2, 0, 0, new long[0]);
        assertThatThrownBy(() -> BloomFilters.fromByteArray(wide)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("counters").hasMessageContaining(Long.toString(max / 16));
        byte[] beyond = countingImage(max, 3, 2, 2, 0, 0, new long[0]);
        assertThatThrownBy(() -> BloomFilters.fromByteArray(beyond)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("counters").hasMessageContaining(Long.toString(max));
    }

    @Test
    void badHashCountsInImagesAreRejected() {
        for (int k : new int[] {0, -1, 129}) {
            byte[] bad = bitArrayImage(STANDARD, 1, 128, k, 0, new long[2]);
            assertThatThrownBy(() -> BloomFilters.fromByteArray(bad)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("hashCount").hasMessageContaining("[1, 128]");
            byte[] badCounting = countingImage(32, k, 4, 2, 0, 0, new long[2]);
            assertThatThrownBy(() -> BloomFilters.fromByteArray(badCounting)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("hashCount").hasMessageContaining("[1, 128]");
        }
    }

    @Test
    void bitsBeyondBitSizeAreRejected() {
        byte[] bad = bitArrayImage(STANDARD, 1, 100, 3, 0, new long[] {0, 1L << 36});
        assertThatThrownBy(() -> BloomFilters.fromByteArray(bad)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("bits set beyond bitSize 100");
        assertThat(BloomFilters.fromByteArray(bitArrayImage(STANDARD, 1, 100, 3, 0, new long[] {-1, (1L << 36) - 1}))
                .bitCount()).isEqualTo(100);
    }

    /**
     * A counting image whose last word has bits set past its last counter is corrupt: 33 counters of 4 bits fill
     * one nibble of the third word, so any higher bit there is refused, while that nibble itself may hold any count.
     */
    @Test
    void countingCounterBitsBeyondTheLastCounterAreRejected() {
        int probing = Probing.ENHANCED_CUBIC.id();
        byte[] bad = countingImage(33, 3, 4, probing, 0, 0, new long[] {0, 0, 1L << 4});
        assertThatThrownBy(() -> BloomFilters.fromByteArray(bad)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("counter bits set beyond counter 33");
        byte[] top = countingImage(33, 3, 4, probing, 0, 0, new long[] {0, 0, 1L << 63});
        assertThatThrownBy(() -> BloomFilters.fromByteArray(top)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("counter bits set beyond counter 33");
        CountingBloomFilter full = (CountingBloomFilter) BloomFilters.fromByteArray(
                countingImage(33, 3, 4, probing, 0, 0, new long[] {0, 0, 0xF}));
        assertThat(full.bitCount()).isEqualTo(1);
        assertThat(full.saturatedCounters()).isEqualTo(1);
    }

    /** The probing id is a long in the image; any value but 0, 1, 2 is corrupt (no truncation to int). */
    @Test
    void badProbingIdsAreRejected() {
        for (long id : new long[] {3, -1, 1L << 32, -(1L << 32), -(1L << 32) + 2, Long.MIN_VALUE, Long.MAX_VALUE}) {
            byte[] bad = bitArrayImage(STANDARD, 1, 128, 3, id, new long[2]);
            assertThatThrownBy(() -> BloomFilters.fromByteArray(bad)).as("probing id %d", id)
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("probing");
        }
        for (int id : new int[] {3, -1}) {
            byte[] bad = countingImage(32, 3, 4, id, 0, 0, new long[2]);
            assertThatThrownBy(() -> BloomFilters.fromByteArray(bad)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("probing");
        }
    }

    @Test
    void badPartitionSizesAreRejected() {
        // composite, zero, negative, or not matching bitSize
        long[][] cases = {{4, 16}, {1, 4}, {0, 4}, {-5, -20}, {5, 25}, {7, 21}};
        for (long[] c : cases) {
            long p = c[0];
            long bits = Math.max(1, c[1]);
            byte[] bad = bitArrayImage(PARTITIONED, 1, bits, 4, p, new long[(int) ((bits + 63) / 64)]);
            assertThatThrownBy(() -> BloomFilters.fromByteArray(bad)).as("p=%d bits=%d", p, bits)
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("partition size");
        }
        assertThat(BloomFilters.fromByteArray(bitArrayImage(PARTITIONED, 1, 28, 4, 7, new long[1])))
                .isInstanceOf(PartitionedBloomFilter.class);
    }

    /**
     * A prime partition size p with k·p overflowing to exactly bitSize (k = 4, p = 2^62 + b, so 4p ≡ 4b mod 2^64)
     * must be rejected as corrupt, not accepted by the overflowed product nor fail with an ArithmeticException.
     */
    @Test
    void partitionSizeWhoseProductOverflowsIsRejected() {
        long b = 1;
        while (!BigInteger.ONE.shiftLeft(62).add(BigInteger.valueOf(b)).isProbablePrime(64)) {
            b++;
        }
        long p = (1L << 62) + b;
        long bits = 4 * b;
        assertThat(4 * p).isEqualTo(bits); // the forged product wraps around
        byte[] bad = bitArrayImage(PARTITIONED, 1, bits, 4, p, new long[(int) ((bits + 63) / 64)]);
        assertThatThrownBy(() -> BloomFilters.fromByteArray(bad)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("partition size");
    }

    @Test
    void badBlockShapesAreRejected() {
        long[][] cases = {{100, 1000}, {32, 1024}, {8192, 8192}, {0, 1024}, {-512, 1024}, {512, 1000}, {64, 128}};
        int[] ks = {3, 3, 3, 3, 3, 3, 65};
        for (int i = 0; i < cases.length; i++) {
            long block = cases[i][0];
            long bits = cases[i][1];
            byte[] bad = bitArrayImage(BLOCKED, 1, bits, ks[i], block, new long[(int) ((bits + 63) / 64)]);
            assertThatThrownBy(() -> BloomFilters.fromByteArray(bad)).as("blockBits=%d bits=%d", block, bits)
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("blockBits");
        }
    }

    /** A split-block image must declare 512-bit blocks, k = 8 and whole blocks; each violation is named. */
    @Test
    void badSplitBlockShapesAreRejected() {
        long[][] cases = {{512, 1000, 8}, {256, 1024, 8}, {1024, 1024, 8}, {0, 1024, 8}, {512, 1024, 7}, {512, 1024, 9},
            {512, 64, 8}};
        for (long[] c : cases) {
            long bits = c[1];
            byte[] bad = bitArrayImage(SPLIT_BLOCK, 1, bits, (int) c[2], c[0], new long[(int) ((bits + 63) / 64)]);
            assertThatThrownBy(() -> BloomFilters.fromByteArray(bad))
                    .as("blockBits=%d bits=%d k=%d", c[0], bits, c[2]).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("blockBits 512").hasMessageContaining("hashCount 8")
                    .hasMessageContaining("(image: " + c[0] + ")").hasMessageContaining("(image: " + c[2] + ")")
                    .hasMessageContaining("(image: " + bits + ")");
        }
        byte[] good = bitArrayImage(SPLIT_BLOCK, 1, 1024, 8, 512, new long[16]);
        assertThat(BloomFilters.fromByteArray(good)).isInstanceOf(SplitBlockBloomFilter.class);
    }

    @Test
    void badCountingFieldsAreRejected() {
        for (int w : new int[] {3, 0, 1, 5, 17, 32}) {
            byte[] bad = countingImage(32, 3, w, 2, 0, 0, new long[2]);
            assertThatThrownBy(() -> BloomFilters.fromByteArray(bad)).as("counterBits %d", w)
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("counterBits");
        }
        byte[] lost = countingImage(32, 3, 4, 2, -1, 0, new long[2]);
        assertThatThrownBy(() -> BloomFilters.fromByteArray(lost)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lostIncrements");
        byte[] rejected = countingImage(32, 3, 4, 2, 0, Long.MIN_VALUE, new long[2]);
        assertThatThrownBy(() -> BloomFilters.fromByteArray(rejected)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("rejectedRemovals");
        for (long counters : new long[] {0, -1}) {
            byte[] bad = countingImage(counters, 3, 4, 2, 0, 0, new long[0]);
            assertThatThrownBy(() -> BloomFilters.fromByteArray(bad)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("counters");
        }
        // words for 33 counters of 4 bits: 3 longs, not 2
        byte[] short1 = countingImage(33, 3, 4, 2, 0, 0, new long[2]);
        assertThatThrownBy(() -> BloomFilters.fromByteArray(short1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("truncated");
    }
}
