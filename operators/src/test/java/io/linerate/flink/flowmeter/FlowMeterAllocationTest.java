package io.linerate.flink.flowmeter;

import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.flink.flowmeter.Packets.Batch;
import io.linerate.flink.flowmeter.Packets.Packet;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The per-packet path allocates nothing on the heap backend once compiled: table update, amortised sweep,
 * state access, metrics. Measured with the thread's allocation counter around the harness's own processElement,
 * which allocates nothing either. The batch path too: no allocation per packet nor per batch (the per-packet
 * consumer is a field, not a lambda made per batch).
 *
 * <p>The one exception is Flink's API: {@code Context.timestamp()} returns a boxed {@code Long} (24 bytes).
 * C2's escape analysis removes it when it runs alone, but not in every JVM: it cannot remove an allocation
 * merged with {@code Long.valueOf}'s cached instances, and whether that branch is in the JVM-wide profile
 * depends on what ran before (in the whole test suite it stays). So with the Flink timestamp the bound is one
 * box per input record: per packet for packet records, per batch (not per packet) for batches; with a
 * {@code timestamps} selector the bound is zero.
 */
@SuppressWarnings("try") // the harness's close() may throw InterruptedException
class FlowMeterAllocationTest {

    private static final int BATCH = 100_000;
    /** A {@code java.lang.Long} with compressed class pointers: 12-byte header + 8 bytes, aligned to 24. */
    private static final long BOXED_LONG = 24;

    private static FlowMeter<Packet, String> meter(boolean timestampSelector) {
        FlowMeter.Builder<Packet, String> builder = Packets.meter().capacity(10_000).tick(Duration.ofDays(1));
        if (timestampSelector) {
            builder.timestamps(p -> p.ts);
        }
        return builder.build();
    }

    /**
     * Rounds run until nothing is allocated or 20 s have passed: on a loaded machine C2 may take seconds to
     * compile the path (a fixed count of rounds made the test flaky under load).
     */
    private static long deadline() {
        return System.nanoTime() + 20_000_000_000L;
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void noAllocationPerPacketOnceCompiled(boolean timestampSelector) throws Exception {
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        try (var h = Harnesses.open(meter(timestampSelector), null, 1, 0, null)) {
            h.open();
            List<StreamRecord<Packet>> records = new ArrayList<>();
            for (int i = 0; i < 1_000; i++) {
                records.add(new StreamRecord<>(new Packet("a", i % 200, 0x10, 100, 5_000_000_000L), 5_000_000_000L));
            }
            long allowed = timestampSelector ? 0 : BOXED_LONG;
            long perRecord = Long.MAX_VALUE;
            for (long end = deadline(); System.nanoTime() < end && perRecord > allowed; ) { // until C2 compiled it
                long before = threads.getCurrentThreadAllocatedBytes();
                for (int i = 0; i < BATCH; i++) {
                    h.processElement(records.get(i % records.size()));
                }
                perRecord = (threads.getCurrentThreadAllocatedBytes() - before) / BATCH;
            }
            assertThat(perRecord).as("bytes allocated per packet").isLessThanOrEqualTo(allowed);
        }
    }

    /** Batches of 1 and of 64 packets: nothing allocated per packet, at most the timestamp box per batch record. */
    @ParameterizedTest
    @CsvSource({"false, 64", "true, 64", "true, 1"})
    void noAllocationPerPacketNorPerBatchOnceCompiled(boolean timestampSelector, int batchSize) throws Exception {
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        try (var h = Harnesses.openBatches(meter(timestampSelector), null, 1, 0, null)) {
            h.open();
            List<StreamRecord<Batch>> records = new ArrayList<>();
            for (int b = 0; b < 1_000 / batchSize + 1; b++) {
                List<Packet> packets = new ArrayList<>();
                for (int i = 0; i < batchSize; i++) {
                    packets.add(new Packet("a", (b * batchSize + i) % 200, 0x10, 100, 5_000_000_000L));
                }
                records.add(new StreamRecord<>(new Batch("a", packets), 5_000_000_000L));
            }
            int batches = BATCH / batchSize;
            long allowed = timestampSelector ? 0 : BOXED_LONG; // one box per batch record, not per packet
            long perBatch = Long.MAX_VALUE;
            for (long end = deadline(); System.nanoTime() < end && perBatch > allowed; ) { // until C2 compiled it
                long before = threads.getCurrentThreadAllocatedBytes();
                for (int i = 0; i < batches; i++) {
                    h.processElement(records.get(i % records.size()));
                }
                perBatch = (threads.getCurrentThreadAllocatedBytes() - before) / batches;
            }
            assertThat(perBatch).as("bytes allocated per batch record").isLessThanOrEqualTo(allowed);
        }
    }
}
