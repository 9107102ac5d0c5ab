package io.linerate.sketches.bloom;

import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.sketches.hash.DoubleHashing;
import io.linerate.sketches.hash.ItemHasher;
import io.linerate.sketches.hash.Probing;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class CountingBloomFilterTest {

    static long[] indexes(CountingBloomFilter f, long item) {
        long m = f.bitSize();
        int k = f.hashCount();
        long h1 = f.hasher().hash(item);
        long[] idx = new long[k];
        DoubleHashing.indexes(h1, ItemHasher.h2(h1), m, Probing.ENHANCED_CUBIC, Probing.ENHANCED_CUBIC.offsets(k, m), idx);
        return idx;
    }

    /** Whether putting {@code x} now would take one of its counters (counted with multiplicity) to the maximum. */
    static boolean wouldSaturate(CountingBloomFilter f, long[] counters, long x) {
        long max = (1L << f.counterBits()) - 1;
        Map<Long, Integer> hits = new HashMap<>();
        for (long i : indexes(f, x)) {
            hits.merge(i, 1, Integer::sum);
        }
        return hits.entrySet().stream().anyMatch(e -> counters[(int) (long) e.getKey()] + e.getValue() >= max);
    }

    static long max(long[] v) {
        return Arrays.stream(v).max().orElse(0);
    }

    /**
     * Holds while no counter saturates. At 3000 items x 6 / 50,000 counters (load 0.36) 4-bit counters never
     * saturate (Pr(Poisson(0.36) ≥ 15) ≈ 10^-20 per counter); 2-bit counters saturate at 3 (Pr ≈ 0.6%), so
     * they get a light load of 100 items (load 0.012, expected counters at 3 below 0.02).
     */
    @ParameterizedTest(name = "w = {0}")
    @ValueSource(ints = {2, 4, 8, 16})
    void insertThenDeleteRestoresTheExactPriorState(int w) {
        CountingBloomFilter f = CountingBloomFilter.withCounters(50_000, 6, w, 31);
        SplittableRandom rnd = new SplittableRandom(31);
        List<Long> base = new ArrayList<>();
        int items = w == 2 ? 100 : 3000;
        for (int i = 0; i < items; i++) {
            long x = rnd.nextLong();
            base.add(x);
            f.put(x);
        }
        assertThat(f.saturatedCounters()).as("no counter saturated at this load").isZero();
        long[] counters = f.counterValues();
        byte[] image = f.toByteArray();
        long bitCount = f.bitCount();
        int rounds = w == 2 ? 200 : 2000;
        int tested = 0;
        for (int i = 0; i < rounds; i++) {
            // a fresh item, or one already present (its multiplicity goes 1 → 2 → 1)
            long x = i % 4 == 0 ? base.get(rnd.nextInt(base.size())) : rnd.nextLong();
            if (wouldSaturate(f, counters, x)) { // the state between rounds is the snapshot
                continue; // the property holds only without saturation (2-bit counters, repeated indexes)
            }
            tested++;
            f.put(x);
            assertThat(f.saturatedCounters()).isZero();
            assertThat(f.remove(x)).isTrue();
            assertThat(f.bitCount()).isEqualTo(bitCount);
        }
        assertThat(tested).isGreaterThan(rounds * 9 / 10);
        assertThat(f.counterValues()).isEqualTo(counters);
        assertThat(f.toByteArray()).isEqualTo(image);
        // a batch of inserts followed by the batch of deletes, in another order
        List<Long> batch = new ArrayList<>();
        long[] shadow = counters.clone(); // the counters the batch should produce
        while (batch.size() < rounds) {
            long x = rnd.nextLong();
            if (!wouldSaturate(f, shadow, x)) {
                batch.add(x);
                f.put(x);
                for (long i : indexes(f, x)) {
                    shadow[(int) i]++;
                }
            }
        }
        assertThat(f.counterValues()).isEqualTo(shadow);
        java.util.Collections.shuffle(batch, new java.util.Random(32));
        for (long x : batch) {
            assertThat(f.remove(x)).isTrue();
        }
        assertThat(f.saturatedCounters()).isZero();
        assertThat(f.counterValues()).isEqualTo(counters);
        assertThat(f.toByteArray()).isEqualTo(image);
        assertThat(f.lostIncrements()).isZero();
        assertThat(f.rejectedRemovals()).isZero();
    }

    @ParameterizedTest(name = "w = {0}")
    @ValueSource(ints = {2, 4, 8, 16})
    void countersNeverExceedTheirMaximumAndSaturatedCountersStay(int w) {
        long max = (1L << w) - 1;
        CountingBloomFilter f = CountingBloomFilter.withCounters(1000, 5, w, 41);
        long item = 4242;
        long[] idx = indexes(f, item);
        long distinct = Arrays.stream(idx).distinct().count();
        int puts = (int) max + 10;
        for (int i = 0; i < puts; i++) {
            f.put(item);
            assertThat(max(f.counterValues())).isLessThanOrEqualTo(max);
        }
        long[] counters = f.counterValues();
        for (long i : idx) {
            assertThat(counters[(int) i]).isEqualTo(max);
        }
        assertThat(f.saturatedCounters()).isEqualTo(distinct);
        assertThat(f.count(item)).isEqualTo(max);
        // every increment beyond the maximum was dropped and counted
        assertThat(f.lostIncrements()).isEqualTo((long) puts * idx.length - distinct * max);
        // removing more times than added: saturated counters are never decremented, no false negative
        for (int i = 0; i < puts + 5; i++) {
            assertThat(f.remove(item)).isTrue();
            assertThat(f.mightContain(item)).isTrue();
        }
        assertThat(f.counterValues()).isEqualTo(counters);
        assertThat(f.rejectedRemovals()).isZero();
    }

    /**
     * Under heavy load with 2-bit counters (many saturate), deleting half of the inserted items never makes the
     * other half disappear, and no counter that was saturated before the deletes is lower after them.
     */
    @Test
    void saturatedCountersProduceNoFalseNegatives() {
        CountingBloomFilter f = CountingBloomFilter.withCounters(20_000, 6, 2, 51);
        SplittableRandom rnd = new SplittableRandom(51);
        long[] items = new long[12_000];
        for (int i = 0; i < items.length; i++) {
            items[i] = rnd.nextLong();
            f.put(items[i]);
        }
        long[] before = f.counterValues();
        assertThat(f.saturatedCounters()).as("load 3.6 per counter saturates many 2-bit counters")
                .isGreaterThan(1000)
                .isEqualTo(Arrays.stream(before).filter(c -> c == 3).count());
        assertThat(f.lostIncrements()).isPositive();
        for (int i = 0; i < items.length; i += 2) {
            assertThat(f.remove(items[i])).isTrue();
        }
        long[] after = f.counterValues();
        for (int i = 0; i < before.length; i++) {
            if (before[i] == 3) {
                assertThat(after[i]).as("saturated counter %d", i).isEqualTo(3);
            }
        }
        for (int i = 1; i < items.length; i += 2) {
            assertThat(f.mightContain(items[i])).as("remaining item %d", i).isTrue();
        }
        assertThat(max(after)).isLessThanOrEqualTo(3);
        assertThat(f.bitCount()).isEqualTo(Arrays.stream(after).filter(c -> c != 0).count());
    }

    /**
     * An item with a zero counter was certainly never added: remove returns false, changes nothing (including
     * the counters it decremented before reaching the zero one) and is counted. The items chosen have their zero
     * counter after at least one non-zero one, so the undo path is exercised.
     */
    @Test
    void removeOfANeverInsertedItemChangesNothingAndIsCounted() {
        CountingBloomFilter f = CountingBloomFilter.withCounters(4000, 6, 4, 61);
        SplittableRandom rnd = new SplittableRandom(61);
        for (int i = 0; i < 400; i++) {
            f.put(rnd.nextLong());
        }
        int rejected = 0;
        int withUndo = 0;
        for (long z = 1_000_000; rejected < 500; z++) {
            if (f.mightContain(z)) {
                continue;
            }
            long[] idx = indexes(f, z);
            long[] counters = f.counterValues();
            if (counters[(int) idx[0]] != 0) {
                withUndo++;
            }
            byte[] image = f.toByteArray();
            long bitCount = f.bitCount();
            long saturated = f.saturatedCounters();
            assertThat(f.remove(z)).isFalse();
            rejected++;
            assertThat(f.rejectedRemovals()).isEqualTo(rejected);
            assertThat(f.counterValues()).isEqualTo(counters);
            assertThat(f.bitCount()).isEqualTo(bitCount);
            assertThat(f.saturatedCounters()).isEqualTo(saturated);
            // the image differs only in the rejectedRemovals field
            byte[] now = f.toByteArray();
            assertThat(now.length).isEqualTo(image.length);
            int differing = 0;
            for (int i = 0; i < now.length - 4; i++) {
                differing += now[i] != image[i] ? 1 : 0;
            }
            assertThat(differing).isBetween(1, 8);
        }
        assertThat(withUndo).as("cases where earlier counters were decremented and restored").isGreaterThan(50);
    }

    /**
     * The undo walks repeated indexes: with m = 1 all k indexes are one counter. A counter holding v in [1, k−1]
     * (set through the image format) is decremented v times, then found at zero: the removal is rejected and the
     * counter restored to v, including the non-zero count.
     */
    @ParameterizedTest(name = "k = {0}")
    @ValueSource(ints = {2, 3, 5})
    void rejectedRemovalRestoresCountersItDecrementedOnRepeatedIndexes(int k) {
        for (long v = 1; v < k; v++) {
            CountingBloomFilter f = withSingleCounter(k, v);
            assertThat(f.counterValues()).containsExactly(v);
            assertThat(f.bitCount()).isEqualTo(1);
            assertThat(f.remove(9L)).isFalse();
            assertThat(f.counterValues()).containsExactly(v);
            assertThat(f.bitCount()).isEqualTo(1);
            assertThat(f.rejectedRemovals()).isEqualTo(1);
            assertThat(f.mightContain(9L)).isTrue();
        }
        CountingBloomFilter f = withSingleCounter(k, k);
        assertThat(f.remove(9L)).isTrue();
        assertThat(f.counterValues()).containsExactly(0);
        assertThat(f.bitCount()).isZero();
    }

    /** A filter of one 4-bit counter holding {@code value}, built by editing the words field of an image. */
    private static CountingBloomFilter withSingleCounter(int k, long value) {
        byte[] img = CountingBloomFilter.withCounters(1, k, 4, 81).toByteArray();
        byte[] edited = io.linerate.sketches.image.TestImages.edit(img, b -> b.putLong(img.length - 4 - 8, value));
        return (CountingBloomFilter) BloomFilters.fromByteArray(edited);
    }

    @Test
    void countIsAnUpperBoundOnMultiplicity() {
        CountingBloomFilter f = CountingBloomFilter.withCounters(60_000, 5, 8, 91);
        SplittableRandom rnd = new SplittableRandom(91);
        Map<Long, Integer> multiplicity = new HashMap<>();
        for (int i = 0; i < 3000; i++) {
            long x = rnd.nextLong();
            int c = 1 + rnd.nextInt(5);
            multiplicity.put(x, c);
            for (int j = 0; j < c; j++) {
                f.put(x);
            }
        }
        assertThat(f.saturatedCounters()).isZero();
        int exact = 0;
        for (Map.Entry<Long, Integer> e : multiplicity.entrySet()) {
            assertThat(f.count(e.getKey())).isGreaterThanOrEqualTo(e.getValue());
            exact += f.count(e.getKey()) == e.getValue() ? 1 : 0;
        }
        // with 15,000 increments over 60,000 counters most items have one private counter
        assertThat(exact).isGreaterThan(2700);
    }

    /** Without saturation (hence w ≥ 4 at this load of 0.5 per counter; see the next test for w = 2). */
    @ParameterizedTest(name = "w = {0}")
    @ValueSource(ints = {4, 8, 16})
    void unionByCounterAdditionEqualsInsertingBothSets(int w) {
        SplittableRandom rnd = new SplittableRandom(101);
        CountingBloomFilter a = CountingBloomFilter.withCounters(30_000, 5, w, 7);
        CountingBloomFilter b = CountingBloomFilter.withCounters(30_000, 5, w, 7);
        CountingBloomFilter both = CountingBloomFilter.withCounters(30_000, 5, w, 7);
        for (int i = 0; i < 1500; i++) {
            long x = rnd.nextLong();
            long y = i % 10 == 0 ? x : rnd.nextLong(); // some items in both sets
            a.put(x);
            both.put(x);
            b.put(y);
            both.put(y);
        }
        assertThat(both.saturatedCounters()).isZero();
        a.union(b);
        assertThat(a.counterValues()).isEqualTo(both.counterValues());
        assertThat(a.bitCount()).isEqualTo(both.bitCount());
        assertThat(a.toByteArray()).isEqualTo(both.toByteArray());
    }

    @Test
    void unionSaturatesAndCountsLostIncrements() {
        CountingBloomFilter a = CountingBloomFilter.withCounters(10, 1, 2, 7);
        CountingBloomFilter b = CountingBloomFilter.withCounters(10, 1, 2, 7);
        for (int i = 0; i < 2; i++) {
            a.put(5L);
            b.put(5L);
        }
        a.union(b); // 2 + 2 = 4 > 3
        assertThat(max(a.counterValues())).isEqualTo(3);
        assertThat(a.count(5L)).isEqualTo(3);
        assertThat(a.saturatedCounters()).isEqualTo(1);
        assertThat(a.lostIncrements()).isEqualTo(1);
    }

    /** An item whose k = 2 indexes coincide (stride ≡ m − 1 under enhanced double hashing) still counts once. */
    @Test
    void anItemWhoseIndexesCoincideCountsEachPutOnce() {
        long m = 101;
        CountingBloomFilter f = CountingBloomFilter.withCounters(m, 2, 4, 7);
        long item = 0;
        while (DoubleHashing.reduce(ItemHasher.h2(f.hasher().hash(item)), m) != m - 1) {
            item++;
        }
        f.put(item);
        assertThat(f.count(item)).isEqualTo(1);
        f.put(item);
        assertThat(f.count(item)).isEqualTo(2);
        assertThat(f.bitCount()).isEqualTo(1); // one counter, holding 4
        assertThat(f.remove(item)).isTrue();
        assertThat(f.count(item)).isEqualTo(1);
        // once the shared counter saturates (15 at 4 bits), it is reported as is
        for (int i = 0; i < 8; i++) {
            f.put(item);
        }
        assertThat(f.count(item)).isEqualTo(15);
        assertThat(f.saturatedCounters()).isEqualTo(1);
    }

    @Test
    void aUnionWithItselfCountsEachLostIncrementOnce() {
        CountingBloomFilter f = CountingBloomFilter.withCounters(1, 1, 2, 1); // one 2-bit counter, max 3
        f.put(1L);
        f.put(2L);
        f.union(f); // 2 + 2 = 4 > 3: the counter saturates at 3, one increment lost
        assertThat(f.count(1L)).isEqualTo(3);
        assertThat(f.lostIncrements()).isEqualTo(1);
        f.union(f); // 3 + 3: three more lost, and the other side's one lost before, as for any other filter
        assertThat(f.lostIncrements()).isEqualTo(1 + 1 + 3);
    }

    /** Every remove overload says whether it removed: false for an item never added, true after a put. */
    @Test
    void everyRemoveOverloadReportsWhetherItRemoved() {
        CountingBloomFilter f = CountingBloomFilter.withCounters(10_000, 4, 4, 73);
        byte[] bytes = {9, 8, 7, 6, 5};
        io.linerate.sketches.hash.FiveTuple tuple = io.linerate.sketches.hash.FiveTuple.ipv4(1, 2, 3, 4, 6);
        assertThat(f.remove(bytes, 1, 3)).isFalse();
        assertThat(f.remove("flow")).isFalse();
        assertThat(f.remove(tuple)).isFalse();
        assertThat(f.rejectedRemovals()).isEqualTo(3);
        f.put(bytes, 1, 3);
        f.put("flow");
        f.put(tuple);
        assertThat(f.remove(bytes, 1, 3)).isTrue();
        assertThat(f.remove("flow")).isTrue();
        assertThat(f.remove(tuple)).isTrue();
        assertThat(f.bitCount()).isZero();
        assertThat(f.rejectedRemovals()).isEqualTo(3);
    }

    /** expectedFpp is (Z/m)^k for Z non-zero counters (its Javadoc); memory is the packed words, 16 counters each. */
    @Test
    void expectedFppAndMemoryFollowTheCounters() {
        CountingBloomFilter f = CountingBloomFilter.withCounters(1000, 3, 4, 79);
        assertThat(f.memoryBytes()).isEqualTo(8L * 63); // ceil(1000 / 16) words
        SplittableRandom rnd = new SplittableRandom(79);
        for (int i = 0; i < 100; i++) {
            f.put(rnd.nextLong());
        }
        long nonZero = Arrays.stream(f.counterValues()).filter(c -> c != 0).count();
        assertThat(f.bitCount()).isEqualTo(nonZero).isPositive();
        assertThat(f.expectedFpp()).isCloseTo(Math.pow(nonZero / 1000.0, 3), org.assertj.core.data.Offset.offset(1e-15));
        // create(n, fpp) is create(n, fpp, DEFAULT_SEED)
        assertThat(CountingBloomFilter.create(1000, 0.01).toByteArray())
                .isEqualTo(CountingBloomFilter.create(1000, 0.01, ItemHasher.DEFAULT_SEED).toByteArray());
    }
}
