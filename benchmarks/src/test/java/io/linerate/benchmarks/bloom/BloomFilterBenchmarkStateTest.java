package io.linerate.benchmarks.bloom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The batch benchmarks' key cursors for any {@code items}, not only the multiples of the batch size. */
class BloomFilterBenchmarkStateTest {

    @ParameterizedTest
    @ValueSource(ints = {1_000, 100_000, 1_024})
    void batchesStayInsideTheKeysAndCycle(int items) {
        BloomFilterBenchmark.PutState put = new BloomFilterBenchmark.PutState();
        put.impl = "split-block";
        put.items = items;
        put.generateKeys();
        put.freshFilter();
        BloomFilterBenchmark.QueryState query = new BloomFilterBenchmark.QueryState();
        query.impl = "split-block";
        query.items = items;
        query.populate();
        BloomFilterBenchmark benchmark = new BloomFilterBenchmark();
        int calls = 3 * items / BloomFilterBenchmark.BATCH + 3; // several passes over the keys
        assertThatCode(() -> {
            for (int i = 0; i < calls; i++) {
                benchmark.putBatch(put);
                benchmark.queryBatch(query);
            }
        }).doesNotThrowAnyException();
        // every batch starts inside the array and ends at or before its end
        for (int i = 0; i < calls; i++) {
            int from = put.nextBatch();
            assertThat(from + BloomFilterBenchmark.BATCH).isLessThanOrEqualTo(items);
        }
    }
}
