package io.linerate.flink.heavyhitters;

import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.flink.items.ItemSelector;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Hot paths: no allocation per record on the heap backend once compiled. Heavy items that have already alerted in
 * their sub-window keep crossing the threshold at every record; the operator must not build their presentable item
 * (a boxed Long, a String, a cloned byte[] in a ByteItem) only to find them in the alerted set and drop it.
 */
@SuppressWarnings("try")
class HeavyHittersAllocationTest {

    private static final int BATCH = 100_000;
    private static final byte[][] BYTES = new byte[8][];

    static {
        for (int i = 0; i < BYTES.length; i++) {
            BYTES[i] = ("item-" + i + "-0123456789").getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        }
    }

    static ItemSelector<Tuple3<String, Long, Integer>> selector(String kind) {
        return switch (kind) {
            case "longs" -> ItemSelector.longs(r -> r.f1);
            case "bytes" -> ItemSelector.bytes(r -> BYTES[(int) (r.f1 & 7)]);
            default -> ItemSelector.strings(r -> StringBuilderHolder.TEXT[(int) (r.f1 & 7)]);
        };
    }

    /** The same CharSequence per item (not a new one per record): what the record would hold. */
    static final class StringBuilderHolder {
        static final StringBuilder[] TEXT = new StringBuilder[8];

        static {
            for (int i = 0; i < TEXT.length; i++) {
                TEXT[i] = new StringBuilder("item-" + i);
            }
        }

        CharSequence text(int i) {
            return TEXT[i];
        }
    }

    @ParameterizedTest
    @CsvSource({"longs, 0", "longs, 5", "bytes, 0", "bytes, 5", "texts, 5"})
    void noAllocationPerRecordOnceCompiled(String kind, long alertAtWeight) throws Exception {
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        var builder = HeavyHitterDetector.builder(Fixtures.LINK, selector(kind)).timestamps(r -> 1_000L)
                .tumbling(Duration.ofDays(1)).phi(0.1).capacity(100);
        if (alertAtWeight > 0) {
            builder.alertAtWeight(alertAtWeight);
        }
        HeavyHitterDetector<Tuple3<String, Long, Integer>, String> detector = builder.build();
        try (KeyedOneInputStreamOperatorTestHarness<String, Tuple3<String, Long, Integer>, HeavyHitterReport<String>>
                     h = new KeyedOneInputStreamOperatorTestHarness<>(detector.operator(Fixtures.TYPE, Types.STRING),
                             Fixtures.LINK, Types.STRING, Fixtures.MAX_PARALLELISM, 1, 0)) {
            h.open();
            List<StreamRecord<Tuple3<String, Long, Integer>>> records = new ArrayList<>();
            for (int i = 0; i < 1_000; i++) {
                records.add(new StreamRecord<>(Tuple3.of("a", 1_000L + (i & 7), 1), 1_000L));
            }
            long perRecord = Long.MAX_VALUE;
            for (long end = System.nanoTime() + 8_000_000_000L; System.nanoTime() < end && perRecord > 0; ) {
                long before = threads.getCurrentThreadAllocatedBytes();
                for (int i = 0; i < BATCH; i++) {
                    h.processElement(records.get(i % records.size()));
                }
                perRecord = (threads.getCurrentThreadAllocatedBytes() - before) / BATCH;
                h.getOutput().clear();
            }
            assertThat(perRecord).as("bytes allocated per record (" + kind + ", alertAtWeight " + alertAtWeight + ")")
                    .isZero();
        }
    }
}
