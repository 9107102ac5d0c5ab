package io.linerate.sketches.bloom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.linerate.sketches.hash.Probing;
import io.linerate.sketches.image.TestImages;
import java.util.SplittableRandom;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class UnionTest {

    /** A ∪ B built by union equals, bit for bit, the filter built from both sets. */
    static void assertUnionEqualsFilterOfBothSets(Supplier<BloomFilter> factory, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        BloomFilter a = factory.get();
        BloomFilter b = factory.get();
        BloomFilter both = factory.get();
        long[] xs = new long[5000];
        long[] ys = new long[5000];
        for (int i = 0; i < xs.length; i++) {
            xs[i] = rnd.nextLong();
            ys[i] = i % 7 == 0 ? xs[i] : rnd.nextLong();
            a.put(xs[i]);
            b.put(ys[i]);
            both.put(xs[i]);
            both.put(ys[i]);
        }
        byte[] bImage = b.toByteArray();
        a.union(b);
        assertThat(a.toByteArray()).isEqualTo(both.toByteArray());
        assertThat(a.bitCount()).isEqualTo(both.bitCount());
        assertThat(b.toByteArray()).as("the argument is not modified").isEqualTo(bImage);
        for (int i = 0; i < xs.length; i++) {
            assertThat(a.mightContain(xs[i])).isTrue();
            assertThat(a.mightContain(ys[i])).isTrue();
        }
        for (long z = 0; z < 20_000; z++) {
            assertThat(a.mightContain(z)).isEqualTo(both.mightContain(z));
        }
    }

    @Test
    void unionEqualsTheFilterBuiltFromBothSets() {
        for (Probing p : Probing.values()) {
            assertUnionEqualsFilterOfBothSets(() -> StandardBloomFilter.withBits(60_001, 6, 3, p), 1);
        }
        assertUnionEqualsFilterOfBothSets(() -> StandardBloomFilter.create(10_000, 0.01, 3), 2);
        assertUnionEqualsFilterOfBothSets(() -> PartitionedBloomFilter.withBits(60_000, 6, 3), 3);
        for (int block : new int[] {64, 512, 4096}) {
            assertUnionEqualsFilterOfBothSets(() -> BlockedBloomFilter.withBits(60_000, 6, 3, block), 4);
        }
        assertUnionEqualsFilterOfBothSets(() -> SplitBlockBloomFilter.withBits(60_000, 3), 6);
        assertUnionEqualsFilterOfBothSets(() -> SplitBlockBloomFilter.create(10_000, 0.01, 3), 7);
        for (int w : new int[] {4, 8, 16}) {
            assertUnionEqualsFilterOfBothSets(() -> CountingBloomFilter.withCounters(60_000, 6, w, 3), 5);
        }
    }

    @ParameterizedTest
    @EnumSource(Variant.class)
    void unionWithEmptyFilterChangesNothing(Variant v) {
        BloomFilter a = v.withBits(10_000, 4, 8);
        for (long i = 0; i < 500; i++) {
            a.put(i);
        }
        byte[] before = a.toByteArray();
        a.union(v.withBits(10_000, 4, 8));
        assertThat(a.toByteArray()).isEqualTo(before);
    }

    @ParameterizedTest
    @EnumSource(Variant.class)
    void mismatchedSizeSeedOrHashCountIsRejectedByName(Variant v) {
        BloomFilter a = v.withBits(100_000, 5, 1);
        assertThatThrownBy(() -> a.union(v.withBits(200_000, 5, 1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(v == Variant.COUNTING ? "counters" : "bitSize");
        assertThatThrownBy(() -> a.union(v.withBits(100_000, 5, 2)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("seed");
        if (v != Variant.PARTITIONED && !v.kIsFixed()) { // partitioned: its bitSize k·p changes with k; see the next test
            assertThatThrownBy(() -> a.union(v.withBits(100_000, 6, 1)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("hashCount");
        }
        assertThatThrownBy(() -> a.union(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("null");
    }

    @Test
    void partitionedWithSameBitsButDifferentHashCountIsRejected() {
        // 3 partitions of 5 bits and 5 partitions of 3 bits: equal bitSize 15, different k. withBits no longer builds
        // the second (p ≥ k for both makes p·k = p'·k' impossible), but an image written before may hold it
        PartitionedBloomFilter a = PartitionedBloomFilter.withBits(15, 3, 1);
        byte[] older = io.linerate.sketches.image.TestImages.edit(a.toByteArray(),
                image -> image.putInt(io.linerate.sketches.image.TestImages.FIELDS + 16, 5)
                        .putLong(io.linerate.sketches.image.TestImages.FIELDS + 20, 3));
        PartitionedBloomFilter b = (PartitionedBloomFilter) BloomFilters.fromByteArray(older);
        assertThat(b.hashCount()).isEqualTo(5);
        assertThat(b.partitionBits()).isEqualTo(3);
        assertThat(a.bitSize()).isEqualTo(b.bitSize()).isEqualTo(15);
        assertThatThrownBy(() -> a.union(b)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("hashCount");
        assertThatThrownBy(() -> a.union(PartitionedBloomFilter.withBits(6054, 3, 1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bitSize");
    }

    @Test
    void mismatchedProbingIsRejectedByName() {
        StandardBloomFilter a = StandardBloomFilter.withBits(10_000, 4, 1, Probing.DOUBLE);
        assertThatThrownBy(() -> a.union(StandardBloomFilter.withBits(10_000, 4, 1, Probing.ENHANCED_CUBIC)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("probing");
        // counting filters are built with ENHANCED_CUBIC; one read from an image declaring DOUBLE must not merge
        CountingBloomFilter c = CountingBloomFilter.withCounters(1000, 4, 4, 1);
        byte[] image = c.toByteArray();
        int probingOffset = TestImages.FIELDS + 8 + 8 + 4 + 4;
        byte[] asDouble = TestImages.edit(image, b -> b.putInt(probingOffset, Probing.DOUBLE.id()));
        BloomFilter d = BloomFilters.fromByteArray(asDouble);
        assertThatThrownBy(() -> c.union(d)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("probing");
    }

    @Test
    void mismatchedBlockBitsIsRejectedByName() {
        BlockedBloomFilter a = BlockedBloomFilter.withBits(8192, 4, 1, 512);
        BlockedBloomFilter b = BlockedBloomFilter.withBits(8192, 4, 1, 64);
        assertThat(a.bitSize()).isEqualTo(b.bitSize());
        assertThatThrownBy(() -> a.union(b)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("blockBits");
    }

    @Test
    void mismatchedCounterBitsIsRejectedByName() {
        CountingBloomFilter a = CountingBloomFilter.withCounters(1000, 4, 4, 1);
        assertThatThrownBy(() -> a.union(CountingBloomFilter.withCounters(1000, 4, 8, 1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("counterBits");
    }

    @Test
    void mismatchedVariantsAreRejectedByName() {
        BloomFilter[] all = {
            StandardBloomFilter.withBits(4096, 3, 1), PartitionedBloomFilter.withBits(4096, 3, 1),
            BlockedBloomFilter.withBits(4096, 3, 1, 512), SplitBlockBloomFilter.withBits(4096, 1),
            CountingBloomFilter.withCounters(4096, 3, 4, 1)};
        for (BloomFilter a : all) {
            for (BloomFilter b : all) {
                if (a == b) {
                    continue;
                }
                assertThatThrownBy(() -> a.union(b)).isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining(a.getClass().getSimpleName())
                        .hasMessageContaining(b.getClass().getSimpleName());
            }
        }
    }
}
