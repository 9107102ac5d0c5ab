package io.linerate.sketches.bloom;

import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.sketches.hash.DoubleHashing;
import io.linerate.sketches.hash.ItemHasher;
import io.linerate.sketches.hash.Probing;
import io.linerate.sketches.image.TestImages;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Model-based checks of the Bloom family against simple exact models (a BitSet or a counter array driven by a
 * re-implementation of the documented index formulas, and a HashSet / multiset of the items), with fixed seeds;
 * and the long counters of the images, which must survive one more operation at the values the reader accepts.
 */
class BloomFamilyModelTest {

    /** The documented formula: g_i = (reduce(h1) + i·stride + f(i)) mod m, in exact arithmetic. */
    private static long[] documentedIndexes(long h1, long h2, long m, int k, Probing probing) {
        BigInteger mm = BigInteger.valueOf(m);
        BigInteger x = new BigInteger(Long.toUnsignedString(h1)).multiply(mm).shiftRight(64);
        BigInteger s = new BigInteger(Long.toUnsignedString(h2)).multiply(mm).shiftRight(64);
        if (probing == Probing.DOUBLE && s.signum() == 0 && m > 1) {
            s = BigInteger.ONE;
        }
        int degree = probing == Probing.DOUBLE ? 0 : probing == Probing.ENHANCED_QUADRATIC ? 2 : 3;
        long[] out = new long[k];
        for (int i = 0; i < k; i++) {
            BigInteger f = degree == 0 ? BigInteger.ZERO : BigInteger.valueOf(i).pow(degree);
            out[i] = x.add(s.multiply(BigInteger.valueOf(i))).add(f).mod(mm).longValueExact();
        }
        return out;
    }

    @Test
    void indexDerivationMatchesTheDocumentedFormulaForAnyTableSize() {
        SplittableRandom rnd = new SplittableRandom(1);
        long[] sizes = {1, 2, 3, 63, 64, 65, 1_000_003, (1L << 31) - 1, 1L << 31, (1L << 31) + 1, (1L << 36) - 1,
            1L << 36, (1L << 62) - 57, 1L << 62};
        for (long m : sizes) {
            for (Probing probing : Probing.values()) {
                for (int t = 0; t < 100; t++) {
                    long h1 = t == 0 ? Long.MIN_VALUE : rnd.nextLong();
                    long h2 = t == 1 ? 0 : t == 2 ? -1 : rnd.nextLong();
                    int k = 1 + rnd.nextInt(BloomFilter.MAX_HASH_COUNT);
                    long[] out = new long[k];
                    DoubleHashing.indexes(h1, h2, m, probing, probing.offsets(k, m), out);
                    assertThat(out).as("m=%d %s h1=%d h2=%d", m, probing, h1, h2)
                            .containsExactly(documentedIndexes(h1, h2, m, k, probing));
                }
            }
        }
    }

    @Test
    void standardFilterAgreesWithABitSetModelForSmallAndOddSizes() {
        SplittableRandom rnd = new SplittableRandom(2);
        for (int trial = 0; trial < 250; trial++) {
            long m = 1 + rnd.nextInt(300);
            int k = 1 + rnd.nextInt(12);
            Probing probing = Probing.values()[rnd.nextInt(3)];
            StandardBloomFilter f = StandardBloomFilter.withBits(m, k, rnd.nextLong(), probing);
            BitSet model = new BitSet();
            Set<Long> items = new HashSet<>();
            for (int op = 0; op < 60; op++) {
                long x = rnd.nextInt(500);
                long h1 = f.hasher().hash(x);
                boolean changed = false;
                for (long g : documentedIndexes(h1, ItemHasher.h2(h1), m, k, probing)) {
                    changed |= !model.get((int) g);
                    model.set((int) g);
                }
                assertThat(f.put(x)).isEqualTo(changed);
                items.add(x);
            }
            assertThat(f.bitCount()).isEqualTo(model.cardinality());
            for (long x : items) {
                assertThat(f.mightContain(x)).isTrue();
            }
            for (int q = 0; q < 100; q++) {
                long y = rnd.nextLong();
                long h1 = f.hasher().hash(y);
                boolean all = true;
                for (long g : documentedIndexes(h1, ItemHasher.h2(h1), m, k, probing)) {
                    all &= model.get((int) g);
                }
                assertThat(f.mightContain(y)).isEqualTo(all);
            }
            assertThat(BloomFilters.fromByteArray(f.toByteArray()).toByteArray()).isEqualTo(f.toByteArray());
        }
    }

    @Test
    void countingFilterAgreesWithASaturatingCounterModelThroughPutsAndRemoves() {
        SplittableRandom rnd = new SplittableRandom(3);
        for (int trial = 0; trial < 400; trial++) {
            long m = 1 + rnd.nextInt(120);
            int k = 1 + rnd.nextInt(6);
            int w = new int[] {2, 4, 8}[rnd.nextInt(3)];
            long max = (1L << w) - 1;
            CountingBloomFilter f = CountingBloomFilter.withCounters(m, k, w, rnd.nextLong());
            long[] model = new long[(int) m];
            Map<Long, Integer> live = new HashMap<>();
            long lost = 0;
            long rejected = 0;
            for (int op = 0; op < 200; op++) {
                boolean remove = rnd.nextInt(3) == 0;
                long x = rnd.nextInt(remove ? 60 : 40);
                long h1 = f.hasher().hash(x);
                long[] idx = documentedIndexes(h1, ItemHasher.h2(h1), m, k, Probing.ENHANCED_CUBIC);
                if (!remove) {
                    boolean absent = false;
                    for (long i : idx) {
                        if (model[(int) i] == max) {
                            lost++;
                            continue;
                        }
                        absent |= model[(int) i] == 0;
                        model[(int) i]++;
                    }
                    assertThat(f.put(x)).isEqualTo(absent);
                    live.merge(x, 1, Integer::sum);
                } else {
                    long[] before = model.clone();
                    boolean ok = true;
                    for (long i : idx) {
                        if (model[(int) i] == 0) {
                            ok = false;
                            break;
                        }
                        if (model[(int) i] != max) {
                            model[(int) i]--;
                        }
                    }
                    if (!ok) {
                        model = before;
                        rejected++;
                    }
                    assertThat(f.remove(x)).isEqualTo(ok);
                    if (ok && live.containsKey(x)) {
                        live.compute(x, (key, c) -> c == 1 ? null : c - 1);
                    } else if (ok) {
                        live.clear(); // a false-positive removal: the documented exception to "no false negatives"
                    }
                }
                assertThat(f.counterValues()).isEqualTo(model);
                for (long y : live.keySet()) {
                    assertThat(f.mightContain(y)).as("false negative for %d", y).isTrue();
                }
            }
            long[] end = model;
            assertThat(f.bitCount()).isEqualTo(Arrays.stream(end).filter(c -> c != 0).count());
            assertThat(f.saturatedCounters()).isEqualTo(Arrays.stream(end).filter(c -> c == max).count());
            assertThat(f.lostIncrements()).isEqualTo(lost);
            assertThat(f.rejectedRemovals()).isEqualTo(rejected);
        }
    }

    /** Tiny explicit shapes that force overflow, budget cut-offs and forced placements; images and copies mid-stream. */
    @Test
    void balancedFilterHasNoFalseNegativesThroughOverflowForcedPlacementsImagesAndCopies() {
        SplittableRandom rnd = new SplittableRandom(4);
        for (int trial = 0; trial < 250; trial++) {
            int blockBits = 64 * (1 + rnd.nextInt(4));
            int d = 1 + rnd.nextInt(4);
            long[] sizes = new long[d];
            for (int j = 0; j < d; j++) {
                sizes[j] = 1 + rnd.nextInt(5);
            }
            int h = rnd.nextInt(6);
            int counterBits = 64 - Long.numberOfLeadingZeros(h + 1L);
            int k = 1 + rnd.nextInt(Math.min(10, blockBits - counterBits));
            double p = rnd.nextInt(3) == 0 ? 0 : rnd.nextInt(3) == 0 ? 1 : rnd.nextDouble();
            long budget = rnd.nextInt(3) == 0 ? Long.MAX_VALUE : rnd.nextInt(60);
            BalancedParameters params = BalancedParameters.explicit(blockBits, sizes, k, h, p, 10, budget,
                    rnd.nextInt(6));
            BalancedBloomFilter f = BalancedBloomFilter.create(params, rnd.nextLong());
            List<Long> items = new ArrayList<>();
            for (int op = 0; op < 120; op++) {
                long x = rnd.nextInt(150);
                f.put(x);
                items.add(x);
                if (op % 37 == 0) {
                    byte[] image = f.toByteArray();
                    BalancedBloomFilter back = (BalancedBloomFilter) BloomFilters.fromByteArray(image);
                    assertThat(back.toByteArray()).isEqualTo(image);
                    assertThat(back.bitCount()).isEqualTo(f.bitCount());
                    assertThat(back.approximateElementCount()).isEqualTo(f.approximateElementCount());
                    f = rnd.nextBoolean() ? back : f.copy();
                }
                for (long y : items) {
                    assertThat(f.mightContain(y)).as("false negative for %d in %s", y, f).isTrue();
                }
                assertThat(f.insertAccesses()).isBetween(0L, budget);
            }
        }
    }

    // ---- long counters at the largest values an image may declare ----

    /** Offset of a balanced image's field {@code fieldOffset} (o + …, STATE-FORMAT.md) for d choices. */
    private static int balancedField(int d, int fromO) {
        return TestImages.FIELDS + 16 + 8 * d + fromO;
    }

    @Test
    void aBalancedFilterWithoutAccessBudgetKeepsItsImageReadableAtTheLargestAccessesUsed() {
        BalancedParameters params = BalancedParameters.explicit(512, new long[] {4, 4, 4}, 4, 3, 0.5, 100,
                Long.MAX_VALUE, 16);
        BalancedBloomFilter f = BalancedBloomFilter.create(params, 7);
        // accessesUsed ∈ [0, accessBudget] is what the reader accepts; Long.MAX_VALUE is "no budget"
        byte[] image = TestImages.edit(f.toByteArray(),
                b -> b.putLong(balancedField(3, 36), Long.MAX_VALUE));
        BalancedBloomFilter read = (BalancedBloomFilter) BloomFilters.fromByteArray(image);
        assertThat(read.insertAccesses()).isEqualTo(Long.MAX_VALUE);

        for (long x = 0; x < 10; x++) {
            read.put(x);
        }

        assertThat(read.insertAccesses()).as("accesses used stay within the budget").isBetween(0L, Long.MAX_VALUE);
        BloomFilter back = BloomFilters.fromByteArray(read.toByteArray());
        for (long x = 0; x < 10; x++) {
            assertThat(back.mightContain(x)).isTrue();
        }
    }

    @Test
    void aBalancedFilterKeepsItsImageReadableAtTheLargestForcedPlacementCount() {
        // no overflow room and threshold 0 with a losing coin: every new element is forced into a block
        BalancedParameters params = BalancedParameters.explicit(512, new long[] {4, 4, 4}, 4, 0, 0, 100, 1000, 0);
        BalancedBloomFilter f = BalancedBloomFilter.create(params, 7);
        byte[] image = TestImages.edit(f.toByteArray(), b -> b.putLong(balancedField(3, 44), Long.MAX_VALUE));
        BalancedBloomFilter read = (BalancedBloomFilter) BloomFilters.fromByteArray(image);

        read.put(1L);

        assertThat(read.forcedPlacements()).isEqualTo(Long.MAX_VALUE);
        assertThat(BloomFilters.fromByteArray(read.toByteArray()).mightContain(1L)).isTrue();
    }

    @Test
    void aCountingFilterKeepsItsImageReadableAtTheLargestLostIncrementsAndRejectedRemovals() {
        CountingBloomFilter f = CountingBloomFilter.withCounters(64, 3, 2, 5);
        for (int i = 0; i < 3; i++) {
            f.put(42L); // 2-bit counters: the item's counters are saturated now
        }
        // the reader accepts lostIncrements and rejectedRemovals in [0, Long.MAX_VALUE]
        byte[] image = TestImages.edit(f.toByteArray(), b -> {
            b.putLong(TestImages.FIELDS + 28, Long.MAX_VALUE);
            b.putLong(TestImages.FIELDS + 36, Long.MAX_VALUE);
        });
        CountingBloomFilter read = (CountingBloomFilter) BloomFilters.fromByteArray(image);

        read.put(42L); // every increment is lost
        long absent = 0;
        while (read.mightContain(absent)) {
            absent++;
        }
        assertThat(read.remove(absent)).isFalse(); // a rejected removal

        assertThat(read.lostIncrements()).isEqualTo(Long.MAX_VALUE);
        assertThat(read.rejectedRemovals()).isEqualTo(Long.MAX_VALUE);
        CountingBloomFilter back = (CountingBloomFilter) BloomFilters.fromByteArray(read.toByteArray());
        assertThat(back.mightContain(42L)).isTrue();

        // a union adds the other's totals: it saturates there too
        CountingBloomFilter other = (CountingBloomFilter) BloomFilters.fromByteArray(image);
        read.union(other);
        assertThat(read.lostIncrements()).isEqualTo(Long.MAX_VALUE);
        assertThat(read.rejectedRemovals()).isEqualTo(Long.MAX_VALUE);
        assertThat(BloomFilters.fromByteArray(read.toByteArray()).mightContain(42L)).isTrue();
    }
}
