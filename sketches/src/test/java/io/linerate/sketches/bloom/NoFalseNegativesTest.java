package io.linerate.sketches.bloom;

import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.sketches.hash.DoubleHashing;
import io.linerate.sketches.hash.FiveTuple;
import io.linerate.sketches.hash.ItemHasher;
import io.linerate.sketches.hash.Probing;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/** No false negatives for every variant and key type, and each variant's indexes land where they should. */
class NoFalseNegativesTest {

    /** Every variant and shape under test, at normal load and heavily overloaded (n ≫ m/k). */
    static Stream<Arguments> filters() {
        List<Arguments> out = new ArrayList<>();
        for (long bits : new long[] {1000, 200_003}) {
            long seed = bits * 31;
            for (Probing p : Probing.values()) {
                out.add(Arguments.of("standard " + p + " m=" + bits, StandardBloomFilter.withBits(bits, 7, seed, p)));
            }
            out.add(Arguments.of("partitioned m=" + bits, PartitionedBloomFilter.withBits(bits, 7, seed)));
            for (int block : new int[] {64, 512, 4096}) {
                out.add(Arguments.of("blocked B=" + block + " m=" + bits,
                        BlockedBloomFilter.withBits(bits, Math.min(16, block), seed, block)));
            }
            out.add(Arguments.of("split-block m=" + bits, SplitBlockBloomFilter.withBits(bits, seed)));
            for (int w : new int[] {2, 4, 8, 16}) {
                out.add(Arguments.of("counting w=" + w + " m=" + bits,
                        CountingBloomFilter.withCounters(bits, 7, w, seed)));
            }
        }
        out.add(Arguments.of("standard k=1 m=1", StandardBloomFilter.withBits(1, 1, 5)));
        out.add(Arguments.of("standard k=128 m=130", StandardBloomFilter.withBits(130, 128, 5, Probing.DOUBLE)));
        out.add(Arguments.of("partitioned k=128", PartitionedBloomFilter.withBits(1, 128, 5)));
        out.add(Arguments.of("counting m=1", CountingBloomFilter.withCounters(1, 3, 4, 5)));
        out.add(Arguments.of("split-block m=1 (one block)", SplitBlockBloomFilter.withBits(1, 5)));
        return out.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("filters")
    void everyInsertedItemOfEveryKeyTypeIsReported(String name, BloomFilter f) {
        SplittableRandom rnd = new SplittableRandom(name.hashCode());
        byte[] buffer = new byte[1 << 16];
        rnd.nextBytes(buffer);
        int items = 20_000;
        long[] longs = new long[items];
        int[] offsets = new int[items];
        int[] lengths = new int[items];
        String[] strings = new String[items];
        FiveTuple[] v4 = new FiveTuple[items];
        FiveTuple[] v6 = new FiveTuple[items];
        long[] h1s = new long[items];
        for (int i = 0; i < items; i++) {
            longs[i] = rnd.nextLong();
            lengths[i] = rnd.nextInt(64);
            offsets[i] = rnd.nextInt(buffer.length - lengths[i] + 1);
            strings[i] = "flow/" + rnd.nextLong() + "/\u00e9\u4e2d";
            v4[i] = FiveTuple.ipv4(rnd.nextInt(), rnd.nextInt(), rnd.nextInt(65536), rnd.nextInt(65536),
                    rnd.nextInt(256));
            v6[i] = FiveTuple.ipv6(rnd.nextLong(), rnd.nextLong(), rnd.nextLong(), rnd.nextLong(),
                    rnd.nextInt(65536), rnd.nextInt(65536), rnd.nextInt(256));
            h1s[i] = rnd.nextLong();
            f.put(longs[i]);
            f.put(buffer, offsets[i], lengths[i]);
            f.put(strings[i]);
            f.put(v4[i]);
            f.put(v6[i]);
            f.put(h1s[i], ItemHasher.h2(h1s[i]));
        }
        // plain checks (see present): 200,000 per filter, an AssertJ assertion each took most of this test's time
        ItemHasher h = f.hasher();
        for (int i = 0; i < items; i++) {
            present(f.mightContain(longs[i]), name, "long", i);
            present(f.mightContain(buffer, offsets[i], lengths[i]), name, "byte[]", i);
            // the same bytes in another array at another offset are the same item
            byte[] copy = new byte[lengths[i] + 3];
            System.arraycopy(buffer, offsets[i], copy, 3, lengths[i]);
            present(f.mightContain(copy, 3, lengths[i]), name, "byte[] copied to another offset", i);
            present(f.mightContain(strings[i]), name, "String", i);
            present(f.mightContain(new StringBuilder(strings[i])), name, "String as a StringBuilder", i);
            present(f.mightContain(v4[i]), name, "IPv4 FiveTuple", i);
            present(f.mightContain(FiveTuple.parse(v4[i].toString())), name, "IPv4 FiveTuple parsed from its text", i);
            present(f.mightContain(v6[i]), name, "IPv6 FiveTuple", i);
            long tupleH1 = h.hashIpv6(v6[i].srcHigh(), v6[i].srcLow(), v6[i].dstHigh(), v6[i].dstLow(),
                    v6[i].srcPort(), v6[i].dstPort(), v6[i].protocol());
            present(f.mightContain(tupleH1, ItemHasher.h2(tupleH1)), name, "IPv6 FiveTuple by its hash", i);
            present(f.mightContain(h1s[i], ItemHasher.h2(h1s[i])), name, "(h1, h2)", i);
        }
    }

    /** Fails unless {@code reported}: inserted item {@code i} of the kind {@code what} must be reported present. */
    static void present(boolean reported, String filter, String what, int i) {
        if (!reported) {
            throw new AssertionError(filter + ": inserted item " + i + " (" + what + ") reported absent");
        }
    }

    @ParameterizedTest
    @EnumSource(Variant.class)
    void putReportsWhetherTheFilterChanged(Variant v) {
        BloomFilter f = v.withBits(100_000, 5, 9);
        assertThat(f.put(42L)).isTrue();
        assertThat(f.put(42L)).as("second put of the same item changes no bit").isFalse();
        long before = f.bitCount();
        assertThat(before).isBetween(1L, (long) f.hashCount());
        assertThat(f.put("42")).isTrue();
        assertThat(f.bitCount()).isGreaterThan(before);
    }

    @Test
    void countingFilterHasNoFalseNegativesAfterInterleavedDeletes() {
        SplittableRandom rnd = new SplittableRandom(21);
        for (int w : new int[] {4, 8}) {
            CountingBloomFilter f = CountingBloomFilter.withCounters(120_000, 6, w, 77);
            Set<Long> live = new HashSet<>();
            List<Long> liveList = new ArrayList<>();
            for (int step = 0; step < 60_000; step++) {
                if (liveList.isEmpty() || rnd.nextInt(3) != 0) {
                    long x = rnd.nextLong();
                    if (live.add(x)) {
                        liveList.add(x);
                        f.put(x);
                    }
                } else {
                    int i = rnd.nextInt(liveList.size());
                    long x = liveList.get(i);
                    liveList.set(i, liveList.get(liveList.size() - 1));
                    liveList.remove(liveList.size() - 1);
                    live.remove(x);
                    assertThat(f.remove(x)).isTrue();
                }
                if (step % 5000 == 0) {
                    for (long x : live) {
                        assertThat(f.mightContain(x)).isTrue();
                    }
                }
            }
            assertThat(f.saturatedCounters()).isZero();
            for (long x : live) {
                assertThat(f.mightContain(x)).isTrue();
                assertThat(f.count(x)).isGreaterThanOrEqualTo(1);
            }
            assertThat(f.rejectedRemovals()).isZero();
        }
    }

    /** Also for byte slices and strings, whose remove overloads hash the same way as put. */
    @Test
    void countingFilterRemoveOverloadsMatchPut() {
        CountingBloomFilter f = CountingBloomFilter.withCounters(10_000, 5, 4, 3);
        byte[] buf = "xxhello worldxx".getBytes(StandardCharsets.UTF_8);
        long[] empty = f.counterValues();
        f.put(buf, 2, 11);
        f.put("abc");
        f.put(7L);
        assertThat(f.remove("hello world".getBytes(StandardCharsets.UTF_8), 0, 11)).isTrue();
        assertThat(f.remove(new StringBuilder("abc"))).isTrue();
        assertThat(f.remove(7L)).isTrue();
        assertThat(f.counterValues()).isEqualTo(empty);
        assertThat(f.bitCount()).isZero();
    }

    // ------------------------------------------------------------------ placement of the k indexes

    /** Indexes of the set bits of a bit-array filter. */
    static Set<Long> setBits(BitArrayFilter f) {
        Set<Long> out = new HashSet<>();
        for (long i = 0; i < f.bitSize(); i++) {
            if (f.getBit(i)) {
                out.add(i);
            }
        }
        return out;
    }

    @Test
    void standardFilterSetsExactlyTheDoubleHashingIndexes() {
        SplittableRandom rnd = new SplittableRandom(22);
        for (Probing p : Probing.values()) {
            for (int trial = 0; trial < 200; trial++) {
                long m = 1 + rnd.nextLong(5000);
                int k = 1 + rnd.nextInt(12);
                StandardBloomFilter f = StandardBloomFilter.withBits(m, k, rnd.nextLong(), p);
                long item = rnd.nextLong();
                f.put(item);
                long h1 = f.hasher().hash(item);
                long[] idx = new long[k];
                DoubleHashing.indexes(h1, ItemHasher.h2(h1), m, p, p.offsets(k, m), idx);
                Set<Long> expected = new HashSet<>();
                for (long i : idx) {
                    expected.add(i);
                }
                assertThat(setBits(f)).isEqualTo(expected);
                assertThat(f.bitCount()).isEqualTo(expected.size());
            }
        }
    }

    @Test
    void partitionedFilterSetsOneBitPerPartition() {
        SplittableRandom rnd = new SplittableRandom(23);
        for (int trial = 0; trial < 300; trial++) {
            int k = 1 + rnd.nextInt(12);
            PartitionedBloomFilter f = PartitionedBloomFilter.withBits(1 + rnd.nextLong(20_000), k, rnd.nextLong());
            long p = f.partitionBits();
            assertThat(io.linerate.sketches.hash.Primes.isPrime(p)).isTrue();
            assertThat(f.bitSize()).isEqualTo(p * k);
            long item = rnd.nextLong();
            f.put(item);
            long h1 = f.hasher().hash(item);
            long[] idx = new long[k];
            DoubleHashing.partitionIndexes(h1, ItemHasher.h2(h1), p, idx);
            Set<Long> expected = new HashSet<>();
            for (long i : idx) {
                expected.add(i);
            }
            assertThat(expected).hasSize(k);
            assertThat(setBits(f)).isEqualTo(expected);
        }
    }

    /** All k bits in the block chosen by h1, at independent log2(B)-bit fields of h2 (re-mixed when used up). */
    @Test
    void blockedFilterSetsTheProbePositionsInOneBlock() {
        SplittableRandom rnd = new SplittableRandom(24);
        for (int block : new int[] {64, 128, 512, 4096}) {
            int shift = Integer.numberOfTrailingZeros(block);
            for (int trial = 0; trial < 200; trial++) {
                int k = 1 + rnd.nextInt(Math.min(block, 64));
                BlockedBloomFilter f = BlockedBloomFilter.withBits(1 + rnd.nextLong(1 << 16), k, rnd.nextLong(), block);
                assertThat(f.bitSize()).isEqualTo(f.blocks() * block);
                long item = rnd.nextLong();
                f.put(item);
                long h1 = f.hasher().hash(item);
                long start = DoubleHashing.reduce(h1, f.blocks()) * block;
                Set<Long> expected = new HashSet<>();
                long state = ItemHasher.h2(h1);
                long v = state;
                for (int i = 0; i < k; i++) {
                    if (i > 0 && i % (64 / shift) == 0) {
                        state = BlockProbes.remix(state);
                        v = state;
                    }
                    expected.add(start + (v & (block - 1)));
                    v >>>= shift;
                }
                assertThat(setBits(f)).isEqualTo(expected);
            }
        }
    }

    /** One bit in each of the 8 words of the block chosen by h1: bit (h2 >>> 6j) mod 64 of word j. */
    @Test
    void splitBlockFilterSetsOneBitInEachWordOfOneBlock() {
        SplittableRandom rnd = new SplittableRandom(25);
        for (int trial = 0; trial < 500; trial++) {
            SplitBlockBloomFilter f = SplitBlockBloomFilter.withBits(1 + rnd.nextLong(1 << 16), rnd.nextLong());
            assertThat(f.bitSize()).isEqualTo(f.blocks() * SplitBlockBloomFilter.BLOCK_BITS);
            long item = rnd.nextLong();
            assertThat(f.put(item)).isTrue();
            long h1 = f.hasher().hash(item);
            long h2 = ItemHasher.h2(h1);
            long start = DoubleHashing.reduce(h1, f.blocks()) * SplitBlockBloomFilter.BLOCK_BITS;
            Set<Long> expected = new HashSet<>();
            for (int j = 0; j < SplitBlockBloomFilter.HASH_COUNT; j++) {
                expected.add(start + 64L * j + ((h2 >>> (6 * j)) & 63));
            }
            assertThat(setBits(f)).isEqualTo(expected);
            assertThat(f.bitCount()).isEqualTo(8);
            assertThat(f.put(item)).as("a second put changes nothing").isFalse();
        }
    }

    @Test
    void countingFilterIncrementsTheDoubleHashingIndexes() {
        SplittableRandom rnd = new SplittableRandom(25);
        for (int trial = 0; trial < 300; trial++) {
            long m = 1 + rnd.nextLong(3000);
            int k = 1 + rnd.nextInt(12);
            CountingBloomFilter f = CountingBloomFilter.withCounters(m, k, 8, rnd.nextLong());
            long item = rnd.nextLong();
            f.put(item);
            long h1 = f.hasher().hash(item);
            long[] idx = new long[k];
            DoubleHashing.indexes(h1, ItemHasher.h2(h1), m, Probing.ENHANCED_CUBIC,
                    Probing.ENHANCED_CUBIC.offsets(k, m), idx);
            long[] expected = new long[(int) m];
            for (long i : idx) {
                expected[(int) i]++;
            }
            assertThat(f.counterValues()).isEqualTo(expected);
        }
    }
}
