package io.linerate.sketches.bloom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code putAll} and {@code mightContainAll} are exactly that many single calls: the same filter afterwards (byte for
 * byte), the same answers, the same counts, for batches shorter and longer than the prefetch group, at any offset,
 * with repeated items inside one batch.
 */
class BatchOperationsTest {

    private static Arguments variant(String name, Supplier<BloomFilter> factory) {
        return Arguments.of(name, factory);
    }

    static Stream<Arguments> variants() {
        List<Arguments> out = new ArrayList<>();
        for (Variant v : Variant.values()) {
            out.add(variant(v.name(), () -> v.create(5000, 0.01, 77)));
        }
        out.add(variant("BLOCKED 4096-bit blocks",
                () -> BlockedBloomFilter.withBits(60_000, 9, 77, 4096)));
        out.add(variant("BALANCED", () -> BalancedBloomFilter.create(5000, 0.01, 77)));
        return out.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("variants")
    void batchesEqualSingleCalls(String name, Supplier<BloomFilter> factory) {
        SplittableRandom rnd = new SplittableRandom(name.hashCode());
        long[] items = new long[6000];
        for (int i = 0; i < items.length; i++) {
            items[i] = i % 11 == 0 && i > 0 ? items[rnd.nextInt(i)] : rnd.nextLong(); // repeats inside a batch
        }
        BloomFilter single = factory.get();
        BloomFilter batched = factory.get();
        int[] cuts = {0, 1, 2, 17, 33, 500, 501, 4000, items.length}; // batches of 1, 15, 16, 467, 1, 3499, 2000 items
        for (int c = 0; c + 1 < cuts.length; c++) {
            int changed = 0;
            for (int i = cuts[c]; i < cuts[c + 1]; i++) {
                changed += single.put(items[i]) ? 1 : 0;
            }
            assertThat(batched.putAll(items, cuts[c], cuts[c + 1])).as("changed in [%d, %d)", cuts[c], cuts[c + 1])
                    .isEqualTo(changed);
        }
        assertThat(batched.toByteArray()).isEqualTo(single.toByteArray());
        assertThat(batched.bitCount()).isEqualTo(single.bitCount());

        long[] queries = new long[3000];
        for (int i = 0; i < queries.length; i++) {
            queries[i] = i % 2 == 0 ? items[rnd.nextInt(items.length)] : rnd.nextLong();
        }
        boolean[] results = new boolean[queries.length + 5];
        results[queries.length + 4] = true; // outside the range: must stay as it is
        int present = batched.mightContainAll(queries, 3, queries.length, results);
        int expectedPresent = 0;
        for (int i = 3; i < queries.length; i++) {
            assertThat(results[i]).as("query %d", i).isEqualTo(single.mightContain(queries[i]));
            expectedPresent += results[i] ? 1 : 0;
            if (i % 2 == 0) {
                assertThat(results[i]).as("inserted item %d", i).isTrue();
            }
        }
        assertThat(present).isEqualTo(expectedPresent);
        assertThat(results[0] || results[1] || results[2]).as("before the range").isFalse();
        assertThat(results[queries.length + 4]).as("after the range").isTrue();
        assertThat(batched.mightContainAll(queries, 7, 7, results)).isZero();
    }

    @Test
    void rangesOutsideTheArraysAreRejected() {
        for (Variant v : Variant.values()) {
            BloomFilter f = v.create(1000, 0.01, 1);
            long[] items = new long[10];
            assertThatThrownBy(() -> f.putAll(items, 5, 11)).isInstanceOf(IndexOutOfBoundsException.class)
                    .hasMessageContaining("[5, 11)").hasMessageContaining("10");
            assertThatThrownBy(() -> f.putAll(items, 6, 5)).isInstanceOf(IndexOutOfBoundsException.class);
            assertThatThrownBy(() -> f.putAll(items, -1, 5)).isInstanceOf(IndexOutOfBoundsException.class);
            assertThatThrownBy(() -> f.mightContainAll(items, 0, 10, new boolean[9]))
                    .isInstanceOf(IndexOutOfBoundsException.class).hasMessageContaining("9");
            assertThat(f.bitCount()).as("nothing inserted by a rejected call").isZero();
        }
    }
}
