package io.linerate.flink.countmin;

import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.flink.items.ItemSelector;
import io.linerate.sketches.frequency.CountMinSketch;
import io.linerate.sketches.hash.FiveTuple;
import java.lang.management.ManagementFactory;
import org.apache.flink.api.java.tuple.Tuple3;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The aggregate's per-record {@code add} (what the window operator calls per record) allocates nothing. */
class CountMinAggregateAllocationTest {

    private static final int N = 1_000_000;
    private static final StringBuilder[] TEXT = new StringBuilder[64];
    private static final byte[][] BYTES = new byte[64][];
    private static final FiveTuple[] TUPLES = new FiveTuple[64];

    static {
        for (int i = 0; i < 64; i++) {
            TEXT[i] = new StringBuilder("item-" + i);
            BYTES[i] = ("item-" + i).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            TUPLES[i] = FiveTuple.ipv4(i, ~i, 1000 + i, 80, 6);
        }
    }

    static ItemSelector<Tuple3<String, Long, Long>> selector(String kind) {
        return switch (kind) {
            case "longs" -> ItemSelector.longs(r -> r.f1);
            case "strings" -> ItemSelector.strings(r -> TEXT[(int) (r.f1 & 63)]);
            case "bytes" -> ItemSelector.bytes(r -> BYTES[(int) (r.f1 & 63)]);
            default -> ItemSelector.fiveTuples(r -> TUPLES[(int) (r.f1 & 63)]);
        };
    }

    @ParameterizedTest
    @ValueSource(strings = {"longs", "strings", "bytes", "tuples"})
    void addAllocatesNothingPerRecord(String kind) {
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        CountMinAggregate<Tuple3<String, Long, Long>> agg = CountMinAggregate.<Tuple3<String, Long, Long>>builder()
                .item(selector(kind)).weight(r -> r.f2).memory(64 * 1024, 4).seed(3).build();
        CountMinSketch sketch = agg.createAccumulator();
        @SuppressWarnings("unchecked")
        Tuple3<String, Long, Long>[] records = new Tuple3[1024];
        for (int i = 0; i < records.length; i++) {
            records[i] = Tuple3.of("a", 1_000L + i, 1L);
        }
        for (int round = 0; round < 5; round++) {
            for (int i = 0; i < N / 4; i++) {
                agg.add(records[i & 1023], sketch);
            }
        }
        long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < N; i++) {
            agg.add(records[i & 1023], sketch);
        }
        double perRecord = (double) (threads.getCurrentThreadAllocatedBytes() - before) / N;
        assertThat(perRecord).as(kind + ": bytes per record").isLessThan(1.0);
    }
}
