package io.linerate.sketches.bloom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.linerate.sketches.hash.ItemHasher;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The Balanced Bloom filter against Kanizo, Hay &amp; Keslassy (research notes part 1): the §10 experiment,
 * the Fig. 1 toy example, and the properties of notes part 3 items 1–8.
 */
class BalancedBloomFilterTest {

    private static final int SEEDS = 20;

    /** One §10 run: 1024 blocks, β = 40, a = 1.2, d = 3, n = 1024·B/40 random keys. */
    private record Run(double overflowFraction, double accessesPerInsert, int maxAccesses, double fpr,
                       double blockedFpr) {
    }

    private static Run section10(int blockBits, long seed) {
        BalancedParameters params = BalancedParameters.of(1024, blockBits, 40, 1.2, 3);
        BalancedBloomFilter filter = BalancedBloomFilter.create(params, seed);
        // single-choice blocked filter, same block size, same memory, same k
        BlockedBloomFilter blocked = BlockedBloomFilter.withBits(1024L * blockBits, params.hashCount(), seed,
                blockBits);
        SplittableRandom random = new SplittableRandom(seed * 31 + 7);
        long n = params.designCapacity();
        int maxAccesses = 0;
        List<Long> keys = new ArrayList<>();
        for (long i = 0; i < n; i++) {
            long key = random.nextLong();
            keys.add(key);
            long before = filter.insertAccesses();
            filter.put(key);
            maxAccesses = (int) Math.max(maxAccesses, filter.insertAccesses() - before);
            blocked.put(key);
        }
        for (long key : keys) {
            assertThat(filter.mightContain(key)).as("inserted key %d", key).isTrue();
        }
        assertThat(filter.storedElements()).isEqualTo(n);
        return new Run((double) filter.overflowSize() / n, (double) filter.insertAccesses() / n, maxAccesses,
                filter.expectedFpp(), blocked.expectedFpp());
    }

    private static void checkSection10(int blockBits, double publishedFpr) {
        double overflow = 0;
        double fpr = 0;
        double blockedFpr = 0;
        for (long seed = 1; seed <= SEEDS; seed++) {
            Run run = section10(blockBits, seed);
            assertThat(run.maxAccesses()).as("block accesses of one insertion, d = 3").isLessThanOrEqualTo(3);
            assertThat(run.accessesPerInsert()).as("average accesses, budget a = 1.2").isLessThanOrEqualTo(1.2);
            overflow += run.overflowFraction() / SEEDS;
            fpr += run.fpr() / SEEDS;
            blockedFpr += run.blockedFpr() / SEEDS;
        }
        // Theorem 5: γ_min = 0.4984% for a = 1.2, d = 3; the paper measured ≈ 0.5%
        assertThat(overflow).as("mean overflow fraction, B = %d", blockBits).isLessThanOrEqualTo(0.006);
        assertThat(fpr).as("mean FPR, B = %d, published %s", blockBits, publishedFpr)
                .isBetween(publishedFpr / 2, publishedFpr * 2);
        assertThat(blockedFpr / fpr).as("blocked/balanced FPR ratio, B = %d (paper: about 170x)", blockBits)
                .isGreaterThanOrEqualTo(50);
    }

    @Test
    void section10WithBlocksOf256Bits() {
        checkSection10(256, 2.0e-7);
    }

    @Test
    void section10WithBlocksOf512Bits() {
        checkSection10(512, 3.7e-8);
    }

    @Test
    void exactStateFprMatchesMeasuredRate() {
        // At β = 16 the rate is ~1.5e-3, measurable: 2e6 absent queries, bound 4 binomial standard errors.
        BalancedBloomFilter filter = BalancedBloomFilter.create(BalancedParameters.of(1024, 256, 16, 1.2, 3), 5);
        SplittableRandom random = new SplittableRandom(11);
        for (long i = 0; i < filter.parameters().designCapacity(); i++) {
            filter.put(random.nextLong() | 1); // inserted keys odd
        }
        long queries = 2_000_000;
        long falsePositives = 0;
        for (long q = 0; q < queries; q++) {
            falsePositives += filter.mightContain(random.nextLong() & ~1L) ? 1 : 0; // queries even: absent
        }
        double p = filter.expectedFpp();
        double se = Math.sqrt(queries * p * (1 - p));
        assertThat((double) falsePositives).isBetween(queries * p - 4 * se, queries * p + 4 * se);
    }

    @Test
    void blockLoadsFollowTheLowerBoundDistribution() {
        // notes part 3 item 6: r = 8, a = 1.2, d = 3; the final loads follow P_LB (Theorem 5)
        BalancedParameters params = BalancedParameters.of(20_000, 512, 64, 1.2, 3);
        BalancedBloomFilter filter = BalancedBloomFilter.create(params, 3);
        SplittableRandom random = new SplittableRandom(3);
        for (long i = 0; i < params.designCapacity(); i++) {
            filter.put(random.nextLong());
        }
        double[] expected = params.loadDistribution();
        long[] histogram = new long[expected.length + 1];
        for (long load : filter.blockLoads()) {
            histogram[(int) Math.min(load, expected.length)]++;
        }
        assertThat(histogram[expected.length]).as("blocks above h + 1").isZero();
        for (int i = 0; i < expected.length; i++) {
            double observed = (double) histogram[i] / params.blocks();
            // per-bin binomial standard error over 20,000 blocks is at most 0.0036; allow ~4 SE
            assertThat(observed).as("fraction of blocks with load %d (P_LB = %.4f)", i, expected[i])
                    .isCloseTo(expected[i], org.assertj.core.api.Assertions.within(0.015));
        }
    }

    @Test
    void overflowCapacityIsCappedAtWhatTheOverflowTableCanHold() {
        // 393,217 blocks of 512 bits: 2·bits + 16 admits a capacity above 402,653,184, whose table would need
        // 2^30 slots (long[2^31], a NegativeArraySizeException after allocating the 25 MB of block words)
        long[] blocks = {393_217};
        int limit = BalancedParameters.MAX_OVERFLOW_CAPACITY;
        assertThat(limit).isEqualTo(402_653_184);
        for (int capacity : new int[] {limit + 1, 536_870_911}) {
            assertThatThrownBy(() -> BalancedParameters.explicit(512, blocks, 8, 14, 0.375, 100, Long.MAX_VALUE,
                    capacity)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("overflowCapacity must be in [0, 402653184]")
                    .hasMessageContaining("got " + capacity);
        }
        assertThat(BalancedParameters.explicit(512, blocks, 8, 14, 0.375, 100, Long.MAX_VALUE, limit)
                .overflowCapacity()).isEqualTo(limit);
    }

    @Test
    void createSizesATinyFilterAtOneElementPerBlock() {
        // n = 1 and 2 used to ask BalancedParameters for 1536 and 768 bits per element, more than a block holds
        for (long n = 1; n <= 4; n++) {
            for (double fpp : new double[] {0.1, 0.01, 1e-9}) {
                BalancedBloomFilter filter = BalancedBloomFilter.create(n, fpp, 5);
                BalancedParameters p = filter.parameters();
                assertThat(p.blocks()).isEqualTo(3);
                assertThat(p.designCapacity()).isGreaterThanOrEqualTo(n);
                assertThat(BalancedBloomFilter.modelFpp(p)).isLessThanOrEqualTo(fpp);
                for (long key = 0; key < n; key++) {
                    filter.put(key);
                }
                for (long key = 0; key < n; key++) {
                    assertThat(filter.mightContain(key)).isTrue();
                }
                int falsePositives = 0;
                for (long key = 1_000; key < 101_000; key++) {
                    falsePositives += filter.mightContain(key) ? 1 : 0;
                }
                assertThat(falsePositives).as("n=%d fpp=%s", n, fpp).isLessThanOrEqualTo((int) (100_000 * fpp));
            }
        }
    }

    @Test
    void figure1ToyExample() {
        // 3 subtables of 4, 2 and 1 blocks, h = 3, no coin (the §2 simple variant), no access budget.
        BalancedParameters params = BalancedParameters.explicit(64, new long[] {4, 2, 1}, 2, 3, 0.0, 100,
                Long.MAX_VALUE, 10);
        BalancedBloomFilter filter = BalancedBloomFilter.create(params, 1);
        ItemHasher hasher = filter.hasher();
        // items whose first choice is T1 block "10" (2) and second choice T2 block "01" (global 4 + 1)
        List<long[]> aimed = new ArrayList<>();
        for (long key = 0; aimed.size() < 12; key++) {
            long h1 = hasher.hash(key);
            long h2 = ItemHasher.h2(h1);
            if (filter.blockAddress(h1, h2, 0) == 2 && filter.blockAddress(h1, h2, 1) == 5) {
                aimed.add(new long[] {h1, h2});
            }
        }
        for (int i = 0; i < 5; i++) {
            filter.put(aimed.get(i)[0], aimed.get(i)[1]); // 3 fill T1[10], the next 2 go to T2[01]
        }
        long[] loads = filter.blockLoads();
        assertThat(loads[2]).isEqualTo(3);
        assertThat(loads[5]).isEqualTo(2);
        long before = filter.insertAccesses();
        long[] y = aimed.get(5);
        assertThat(filter.put(y[0], y[1])).isTrue();
        assertThat(filter.blockLoads()[5]).as("y lands in T2 address 01").isEqualTo(3);
        assertThat(filter.blockLoads()[6]).as("T3 is never touched").isZero();
        assertThat(filter.insertAccesses() - before).as("two block reads").isEqualTo(2);
        // T3's only block fills up; the next such element x finds all its blocks full: overflow list
        for (int i = 6; i < 9; i++) {
            filter.put(aimed.get(i)[0], aimed.get(i)[1]);
        }
        assertThat(filter.blockLoads()[6]).isEqualTo(3);
        long[] x = aimed.get(9);
        filter.put(x[0], x[1]);
        assertThat(filter.overflowSize()).isEqualTo(1);
        assertThat(filter.mightContain(x[0], x[1])).isTrue();
    }

    @Test
    void noFalseNegativesAndBoundedMemoryFarBeyondDesignCapacity() {
        BalancedBloomFilter filter = BalancedBloomFilter.create(BalancedParameters.of(256, 512, 20, 1.2, 3), 9);
        long memory = filter.memoryBytes();
        long n = filter.parameters().designCapacity();
        SplittableRandom random = new SplittableRandom(9);
        long[] keys = new long[(int) (4 * n)];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = random.nextLong();
            filter.put(keys[i]);
        }
        for (long key : keys) {
            assertThat(filter.mightContain(key)).isTrue();
        }
        assertThat(filter.overflowSize()).isEqualTo(filter.parameters().overflowCapacity());
        assertThat(filter.forcedPlacements()).isPositive();
        assertThat(filter.memoryBytes()).isEqualTo(memory);
    }

    @Test
    void duplicatesChangeNothing() {
        BalancedBloomFilter filter = BalancedBloomFilter.create(10_000, 0.001, 4);
        assertThat(filter.put("flow-1")).isTrue();
        byte[] image = filter.toByteArray();
        long accesses = filter.insertAccesses();
        assertThat(filter.put("flow-1")).isFalse();
        assertThat(filter.storedElements()).isEqualTo(1);
        assertThat(filter.insertAccesses() - accesses).isLessThanOrEqualTo(3);
        assertThat(BloomFilters.fromByteArray(filter.toByteArray()).bitCount()).isEqualTo(
                BloomFilters.fromByteArray(image).bitCount());
    }

    @Test
    void createMeetsItsTargetFpp() {
        for (double fpp : new double[] {1e-2, 1e-3}) {
            BalancedBloomFilter filter = BalancedBloomFilter.create(100_000, fpp, 8);
            SplittableRandom random = new SplittableRandom(8);
            for (int i = 0; i < 100_000; i++) {
                filter.put(random.nextLong() | 1);
            }
            long queries = 1_000_000;
            long fp = 0;
            for (long q = 0; q < queries; q++) {
                fp += filter.mightContain(random.nextLong() & ~1L) ? 1 : 0;
            }
            double measured = (double) fp / queries;
            assertThat(filter.expectedFpp()).as("state FPR at target %s", fpp).isLessThanOrEqualTo(fpp * 1.1);
            // 4 binomial SEs above the target
            assertThat(measured).isLessThanOrEqualTo(fpp + 4 * Math.sqrt(fpp / queries));
        }
    }

    /** A writer lists each overflow item once; an image listing one twice would count it twice in the list's size. */
    @Test
    void anImageThatListsAnOverflowItemTwiceIsRejected() {
        BalancedBloomFilter filter = BalancedBloomFilter.create(BalancedParameters.of(64, 256, 24, 1.2, 3), 12);
        SplittableRandom random = new SplittableRandom(12);
        for (int i = 0; i < 2 * filter.parameters().designCapacity(); i++) {
            filter.put(random.nextLong());
        }
        assertThat(filter.overflowSize()).isGreaterThanOrEqualTo(2);
        int entries = 24 + 8 * filter.parameters().subtableBlocks().length + 56; // STATE-FORMAT.md, family 4
        byte[] image = filter.toByteArray();
        byte[] repeated = io.linerate.sketches.image.TestImages.edit(image, b -> {
            b.putLong(entries + 16, b.getLong(entries));
            b.putLong(entries + 24, b.getLong(entries + 8));
        });
        assertThatThrownBy(() -> BloomFilters.fromByteArray(repeated)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("overflow entry 1 repeats an item");
        assertThat(BloomFilters.fromByteArray(image).toByteArray()).isEqualTo(image); // the offset is right
    }

    @Test
    void imageRoundTripKeepsEveryAnswer() {
        BalancedBloomFilter filter = BalancedBloomFilter.create(BalancedParameters.of(64, 256, 24, 1.2, 3), 12);
        SplittableRandom random = new SplittableRandom(12);
        for (int i = 0; i < 2 * filter.parameters().designCapacity(); i++) {
            filter.put(random.nextLong());
        }
        byte[] image = filter.toByteArray();
        BalancedBloomFilter copy = (BalancedBloomFilter) BloomFilters.fromByteArray(image);
        assertThat(copy.toByteArray()).isEqualTo(image);
        assertThat(copy.overflowSize()).isEqualTo(filter.overflowSize());
        assertThat(copy.bitCount()).isEqualTo(filter.bitCount());
        assertThat(copy.expectedFpp()).isEqualTo(filter.expectedFpp());
        SplittableRandom queries = new SplittableRandom(99);
        for (int i = 0; i < 100_000; i++) {
            long key = queries.nextLong();
            assertThat(copy.mightContain(key)).isEqualTo(filter.mightContain(key));
        }
        for (int cut = 0; cut < image.length; cut += 97) {
            byte[] truncated = java.util.Arrays.copyOf(image, cut);
            assertThatThrownBy(() -> BloomFilters.fromByteArray(truncated))
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }

    /**
     * The overflow list is an open-addressing table; an entry that wrapped past its end must come after the
     * entry that pushed it there in the image, or the table read back lays them out differently and writes
     * other bytes. Small lists wrap often: 300 filters with a 40-entry list.
     */
    @Test
    void imageOfAFullOverflowListRoundTripsToTheSameBytes() {
        int withOverflow = 0;
        for (int seed = 0; seed < 300; seed++) {
            BalancedParameters p = BalancedParameters.explicit(512, new long[] {6, 3, 2}, 8, 14, 0.375, 100,
                    1_000_000, 40);
            BalancedBloomFilter filter = BalancedBloomFilter.create(p, seed);
            SplittableRandom random = new SplittableRandom(seed);
            for (int i = 0; i < 300; i++) {
                filter.put(random.nextLong());
            }
            withOverflow += filter.overflowSize() > 0 ? 1 : 0;
            byte[] image = filter.toByteArray();
            assertThat(BloomFilters.fromByteArray(image).toByteArray()).as("seed %d", seed).isEqualTo(image);
        }
        assertThat(withOverflow).isGreaterThan(100);
    }

    /** Reading counts the set bits once, not once per block (it was quadratic in the number of blocks). */
    @Test
    void readingALargeImageTakesLinearTime() {
        BalancedBloomFilter filter = BalancedBloomFilter.withBits(1L << 27, 7, 5); // 262,144 blocks, 16 MiB
        SplittableRandom random = new SplittableRandom(5);
        for (int i = 0; i < 100_000; i++) {
            filter.put(random.nextLong());
        }
        byte[] image = filter.toByteArray();
        long start = System.nanoTime();
        BloomFilter copy = BloomFilters.fromByteArray(image);
        long millis = (System.nanoTime() - start) / 1_000_000;
        assertThat(copy.bitCount()).isEqualTo(filter.bitCount());
        assertThat(millis).as("milliseconds to read a 16 MiB image").isLessThan(10_000);
    }

    @Test
    void unionIsRefusedWithAReason() {
        BalancedBloomFilter a = BalancedBloomFilter.create(1000, 0.01, 1);
        BalancedBloomFilter b = BalancedBloomFilter.create(1000, 0.01, 1);
        assertThatThrownBy(() -> a.union(b)).isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("order of insertion");
    }

    @Test
    void badInputNamesTheParameter() {
        assertThatThrownBy(() -> BalancedBloomFilter.create(0, 0.01))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("expectedItems");
        assertThatThrownBy(() -> BalancedBloomFilter.create(1000, 1.0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("fpp");
        assertThatThrownBy(() -> BalancedBloomFilter.withBits(BloomFilter.MAX_BITS + 1, 7, 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bits");
    }

    /**
     * Past the design capacity the block counters saturate (h + 1 bits): storedElements is then a lower bound and
     * approximateElementCount estimates the saturated blocks from their fill (it undercounted by 12% at 2×).
     */
    @org.junit.jupiter.api.Test
    void elementCountsPastTheDesignCapacity() {
        BalancedBloomFilter f = BalancedBloomFilter.create(1000, 0.01, 1);
        java.util.SplittableRandom r = new java.util.SplittableRandom(3);
        long changed = 0;
        for (int i = 0; i < 2000; i++) {
            changed += f.put(r.nextLong()) ? 1 : 0;
        }
        org.assertj.core.api.Assertions.assertThat(f.forcedPlacements()).isPositive();
        org.assertj.core.api.Assertions.assertThat(f.storedElements()).isLessThan(changed);
        org.assertj.core.api.Assertions.assertThat(f.approximateElementCount())
                .isBetween(0.9 * changed, 1.1 * changed);
        BalancedBloomFilter light = BalancedBloomFilter.create(1000, 0.01, 1);
        for (int i = 0; i < 500; i++) {
            light.put(r.nextLong());
        }
        org.assertj.core.api.Assertions.assertThat(light.approximateElementCount())
                .isEqualTo((double) light.storedElements()).isEqualTo(500.0); // exact below capacity
    }

    /**
     * The access budget a·n: an item is stored in a block only while its accesses fit what is left of it; after
     * that new items go to the overflow list (charged nothing), and a repeat of an overflow item changes nothing.
     */
    @Test
    void onceTheAccessBudgetIsSpentNewItemsGoToTheOverflowList() {
        BalancedParameters params = BalancedParameters.explicit(512, new long[] {4, 4, 4}, 4, 2, 0.5, 4, 1, 8);
        BalancedBloomFilter filter = BalancedBloomFilter.create(params, 5);
        long a1 = 0x9E3779B97F4A7C15L;
        long a2 = 0xC2B2AE3D27D4EB4FL;
        long b1 = 0x165667B19E3779F9L;
        long b2 = 0xD6E8FEB86659FD93L;
        assertThat(filter.put(a1, a2)).isTrue(); // one access, the whole budget: stored in its first block
        assertThat(filter.insertAccesses()).isEqualTo(1);
        assertThat(filter.overflowSize()).isZero();
        assertThat(filter.storedElements()).isEqualTo(1);
        assertThat(filter.put(b1, b2)).isTrue();
        assertThat(filter.overflowSize()).isEqualTo(1);
        assertThat(filter.insertAccesses()).isEqualTo(1);
        assertThat(filter.put(b1, b2)).as("a repeat of an overflow item").isFalse();
        assertThat(filter.put(a1, a2)).as("a repeat of a block item").isFalse();
        assertThat(filter.overflowSize()).isEqualTo(1);
        assertThat(filter.storedElements()).isEqualTo(2);
        assertThat(filter.mightContain(a1, a2)).isTrue();
        assertThat(filter.mightContain(b1, b2)).isTrue();
    }

    /** bitSize, hashCount, bitCount and memoryBytes describe the blocks and the overflow table actually built. */
    @Test
    void sizeAccessorsDescribeTheBlocksBuilt() {
        BalancedParameters params = BalancedParameters.of(256, 512, 20, 1.2, 3);
        BalancedBloomFilter filter = BalancedBloomFilter.create(params, 9);
        long blocks = java.util.Arrays.stream(params.subtableBlocks()).sum();
        assertThat(filter.bitSize()).isEqualTo(blocks * 512);
        assertThat(filter.hashCount()).isEqualTo(params.hashCount()).isPositive();
        assertThat(filter.memoryBytes()).isEqualTo(blocks * 512 / 8 + new OverflowList(params.overflowCapacity())
                .memoryBytes());
        SplittableRandom random = new SplittableRandom(9);
        for (int i = 0; i < 500; i++) {
            filter.put(random.nextLong());
        }
        assertThat(filter.bitCount()).isEqualTo(java.util.Arrays.stream(filter.blockFill()).asLongStream().sum())
                .isPositive();
        // withBits rounds up to whole 512-bit blocks, at least 3; its capacity follows from beta = k / ln 2
        assertThat(BalancedBloomFilter.withBits(100, 7, 1).bitSize()).isEqualTo(3 * 512);
        assertThat(BalancedBloomFilter.withBits(20 * 512 + 1, 7, 1).bitSize()).isEqualTo(21 * 512);
        assertThat(BalancedBloomFilter.withBits(20 * 512, 7, 1).parameters().designCapacity())
                .isEqualTo(Math.round(20 * 512 / (7 / Math.log(2))));
        assertThat(BalancedBloomFilter.create(1000, 0.01).toByteArray())
                .isEqualTo(BalancedBloomFilter.create(1000, 0.01, io.linerate.sketches.hash.ItemHasher.DEFAULT_SEED)
                        .toByteArray());
    }
}
