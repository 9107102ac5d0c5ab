package io.linerate.benchmarks.frequency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.linerate.sketches.frequency.HeavyHitters;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.datasketches.frequencies.ErrorType;
import org.apache.datasketches.frequencies.LongsSketch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class FrequencyAdaptersTest {

    private static final ZipfKeys SMALL = ZipfKeys.generate(10_000, 1.1, 200_000, 3);

    static Iterable<String> countMins() {
        return CountMins.ALL;
    }

    static Iterable<String> trackers() {
        return java.util.stream.Stream.concat(HeavyHitterTrackers.ALL.stream(),
                java.util.stream.Stream.of("purge-2048")).toList();
    }

    @Test
    void sparksSizingForEpsilonAndConfidenceIs2000By7() {
        org.apache.spark.util.sketch.CountMinSketch spark = org.apache.spark.util.sketch.CountMinSketch.create(
                CountMins.EPSILON, CountMins.CONFIDENCE, 1);
        assertThat(spark.width()).isEqualTo((int) Math.ceil(2 / 0.001)).isEqualTo(2000);
        assertThat(spark.depth()).isEqualTo((int) Math.ceil(-Math.log(1 - 0.99) / Math.log(2))).isEqualTo(7);
        assertThat(io.linerate.sketches.hash.Primes.isPrime(CountMins.PRIME_WIDTH)).isTrue();
        for (int w = CountMins.PRIME_WIDTH + 1; w <= CountMins.WIDTH; w++) {
            assertThat(io.linerate.sketches.hash.Primes.isPrime(w)).isFalse();
        }
    }

    @ParameterizedTest
    @MethodSource("countMins")
    void everyCountMinHasTheSameMemoryAndNeverUnderestimates(String impl) {
        CountMinAdapter sketch = CountMins.create(impl);
        assertThat(sketch.name()).isEqualTo(impl);
        if (impl.equals("linerate-blocked")) { // the same memory in 64-byte blocks of 32-bit counters
            assertThat(sketch.counterBytes()).isEqualTo(1_749L * 64).isEqualTo(sketch.width() * 4L);
        } else {
            assertThat(sketch.depth()).isEqualTo(7);
            assertThat(sketch.width()).isBetween(CountMins.PRIME_WIDTH, CountMins.WIDTH);
        }
        assertThat(sketch.counterBytes()).isBetween((long) CountMins.PRIME_WIDTH * 7 * 8 - 64,
                (long) CountMins.WIDTH * 7 * 8);
        for (long key : SMALL.stream()) {
            sketch.update(key);
        }
        for (int r = 0; r < SMALL.universe(); r += 7) {
            assertThat(sketch.estimate(SMALL.key(r))).isGreaterThanOrEqualTo(SMALL.exactCount(r));
        }
        assertThat(sketch.estimate(SMALL.key(0))).isLessThan(SMALL.exactCount(0) + 2_000);
        assertThat(HeapSize.of(sketch.unwrap())).isGreaterThanOrEqualTo(sketch.counterBytes());
    }

    @ParameterizedTest
    @MethodSource("trackers")
    void everyTrackerFindsTheTopTen(String impl) {
        HeavyHitterAdapter tracker = HeavyHitterTrackers.create(impl);
        assertThat(tracker.name()).isEqualTo(impl);
        for (long key : SMALL.stream()) {
            tracker.update(key);
        }
        int[] byCount = SMALL.ranksByCount();
        Set<Long> reported = new HashSet<>();
        for (long[] entry : tracker.top(10)) {
            reported.add(entry[0]);
        }
        for (int i = 0; i < 10; i++) {
            assertThat(reported).contains(SMALL.key(byCount[i]));
        }
        assertThat(tracker.memoryBasis()).isNotBlank();
    }

    /**
     * HeavyHittersUnionBenchmark's unions: of the stream's two halves, and of eight parts of it, the top ten of the
     * whole, inputs unchanged.
     */
    @ParameterizedTest
    @MethodSource("trackers")
    void theUnionOfTheStreamsPartsFindsTheTopTenOfTheWhole(String impl) {
        theUnionOfPartsFindsTheTopTen(impl, 2);
        theUnionOfPartsFindsTheTopTen(impl, 8);
    }

    private static void theUnionOfPartsFindsTheTopTen(String impl, int parts) {
        List<HeavyHitterAdapter> all = new java.util.ArrayList<>();
        for (int p = 0; p < parts; p++) {
            all.add(HeavyHitterTrackers.create(impl));
        }
        long[] keys = SMALL.stream();
        for (int i = 0; i < keys.length; i++) {
            all.get((int) ((long) i * parts / keys.length)).update(keys[i]);
        }
        HeavyHitterAdapter first = all.get(0);
        List<HeavyHitterAdapter> others = all.subList(1, parts);
        if (impl.startsWith("streamsummary") || impl.startsWith("purge")) {
            assertThatThrownBy(() -> first.union(others)).isInstanceOf(UnsupportedOperationException.class);
            return;
        }
        List<long[]> firstTop = first.top(10);
        Object union = first.union(others);
        HeavyHitterAdapter second = others.get(0);
        assertThat(union).isNotSameAs(first.unwrap()).isNotSameAs(second.unwrap());
        assertThat(first.top(10)).usingRecursiveComparison().as("the first input unchanged").isEqualTo(firstTop);
        Set<Long> reported = new HashSet<>();
        if (union instanceof HeavyHitters h) {
            h.topK(10).forEach(x -> reported.add((Long) x.item()));
        } else {
            for (LongsSketch.Row row : ((LongsSketch) union).getFrequentItems(ErrorType.NO_FALSE_NEGATIVES)) {
                reported.add(row.getItem());
            }
        }
        int[] byCount = SMALL.ranksByCount();
        for (int i = 0; i < 10; i++) {
            assertThat(reported).contains(SMALL.key(byCount[i]));
        }
    }

    @Test
    void memoryOfTheTrackers() {
        assertThat(HeavyHitterTrackers.create("spacesaving").reportedBytes()).isLessThanOrEqualTo(64 * 1024);
        assertThat(HeavyHitterTrackers.create("cmheap").reportedBytes()).isLessThanOrEqualTo(64 * 1024);
        assertThat(HeavyHitterTrackers.create("longs-2048").reportedBytes()).isEqualTo(36_864);
        HeavyHitterAdapter longs = HeavyHitterTrackers.create("longs-2048");
        for (long key : SMALL.stream()) {
            longs.update(key);
        }
        // the arrays of the full-size map, plus object headers
        assertThat(HeapSize.of(longs.unwrap())).isBetween(36_864L, 36_864L + 1_024);
        assertThat(HeavyHitterTrackers.create("streamsummary-460").reportedBytes()).isEqualTo(-1);
        assertThatThrownBy(() -> HeavyHitterTrackers.create("cuckoo")).isInstanceOf(IllegalArgumentException.class);
    }

    /**
     * The prototype's Misra–Gries guarantee for every key of the stream: count ≤ true ≤ count + offset, and
     * offset ≤ N / (maxItems / 2 + 1) since every purge removes at least half of the items with at least the
     * subtracted amount each (maxItems = 3/4 of the slots).
     */
    @Test
    void purgePrototypeBoundsHoldForEveryKey() {
        PurgeTrackerPrototype p = new PurgeTrackerPrototype(256, 5);
        for (long key : SMALL.stream()) {
            p.update(key, 1);
        }
        assertThat(p.offset()).as("purges happened").isPositive()
                .isLessThanOrEqualTo(p.totalWeight() / (256 / 4 * 3 / 2 + 1));
        for (int r = 0; r < SMALL.universe(); r++) {
            long c = p.count(SMALL.key(r));
            assertThat(c).as("lower bound of key %d", r).isLessThanOrEqualTo(SMALL.exactCount(r));
            assertThat(c + p.offset()).as("upper bound of key %d", r).isGreaterThanOrEqualTo(SMALL.exactCount(r));
        }
        assertThatThrownBy(() -> new PurgeTrackerPrototype(100, 5)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> p.update(1, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void zipfStreamIsDeterministicWithExactCounts() {
        ZipfKeys again = ZipfKeys.generate(10_000, 1.1, 200_000, 3);
        assertThat(again.stream()).isEqualTo(SMALL.stream());
        long total = 0;
        for (int r = 0; r < SMALL.universe(); r++) {
            total += SMALL.exactCount(r);
        }
        assertThat(total).isEqualTo(200_000);
        int[] byCount = SMALL.ranksByCount();
        assertThat(SMALL.exactCount(byCount[0])).isGreaterThanOrEqualTo(SMALL.exactCount(byCount[1]));
        // Zipf 1.1 over 10k keys: the top key has about 1/H(10k, 1.1) = 14% of the stream
        assertThat(SMALL.exactCount(byCount[0]) / 200_000.0).isBetween(0.12, 0.18);
    }

    @Test
    void dataSketches9NeedsJava25AndTheProfileJar() {
        if (Runtime.version().feature() < 25) {
            assertThat(DataSketches9CountMin.isAvailable()).isFalse();
            assertThat(DataSketches9CountMin.problem()).contains("Java 25");
            assertThat(CountMins.available()).isEqualTo(List.copyOf(CountMins.ALL));
            assertThatThrownBy(() -> CountMins.create(CountMins.DATASKETCHES9))
                    .isInstanceOf(IllegalStateException.class);
        }
    }
}
