package io.linerate.flink.dedup;

import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.flink.dedup.DedupHarnesses.Run;
import java.time.Duration;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The generation current when the input ends never closes: at the end of the input it is judged as a rotation
 * would judge it, so an overload of the last span counts in {@code overCapacityGenerations} (dedup.md, Metrics).
 * Generations of n = ⌈rate·S⌉ = 100 distinct items (rate 100/s, S = 1 s); 150 distinct items in one span.
 */
class DedupEndOfInputTest {

    private static final int DISTINCT = 150;

    private static Deduplicator.Builder<Tuple3<String, Long, Long>, String> builder() {
        return DedupHarnesses.builder(Duration.ofSeconds(3), 4).expectedRate(100).fpp(0.01);
    }

    private static StateBackend backend(String name) {
        return name.equals("rocksdb") ? new EmbeddedRocksDBStateBackend() : new HashMapStateBackend();
    }

    /**
     * Processing time: Flink drops pending processing-time timers at the end of the input, so no rotation closes
     * the last span; on RocksDB the ring is only in the state cache until the end-of-input write-back.
     */
    @ParameterizedTest
    @ValueSource(strings = {"heap", "rocksdb"})
    void anOverloadedLastSpanCountsAtTheEndOfTheInputInProcessingTime(String backend) throws Exception {
        var dedup = builder().processingTime().build();
        assertThat(dedup.sizing().itemsPerGeneration()).isEqualTo(100);
        Run run = DedupHarnesses.open(dedup, 1, 0, null, backend(backend));
        run.harness().setProcessingTime(0);
        for (long i = 0; i < DISTINCT; i++) {
            run.process(Tuple3.of("k", i, 0L), 0L);
        }
        run.process(Tuple3.of("quiet", 1L, 0L), 0L); // a key within capacity: not counted
        assertThat(run.function().overCapacityGenerations()).isZero(); // nothing closed yet
        run.harness().processWatermark(Long.MAX_VALUE); // a drained or bounded input ends with it: no rotation here
        run.close(); // finish(): the end of the input
        assertThat(run.function().overCapacityGenerations()).isEqualTo(1);
    }

    /** Event time: the final watermark's rotation judges the last span; the end of the input does not again. */
    @ParameterizedTest
    @ValueSource(strings = {"heap", "rocksdb"})
    void theFinalWatermarksRotationIsNotCountedTwice(String backend) throws Exception {
        var dedup = builder().eventTime().build();
        Run run = DedupHarnesses.open(dedup, 1, 0, null, backend(backend));
        for (long i = 0; i < DISTINCT; i++) {
            run.process(Tuple3.of("k", i, i), i);
        }
        run.harness().processWatermark(Long.MAX_VALUE);
        assertThat(run.function().overCapacityGenerations()).isEqualTo(1);
        run.close();
        assertThat(run.function().overCapacityGenerations()).isEqualTo(1);
    }
}
