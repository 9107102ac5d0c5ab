package io.linerate.flink.flowmeter;

import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.flink.flowmeter.Packets.Packet;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The per-packet path allocates nothing on the heap backend once compiled: table update, amortised sweep,
 * state access, metrics, and the Flink timestamp (whose boxed {@code Long} the JIT removes). Measured with the
 * thread's allocation counter around the harness's own processElement, which allocates nothing either.
 */
@SuppressWarnings("try") // the harness's close() may throw InterruptedException
class FlowMeterAllocationTest {

    private static final int BATCH = 100_000;

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void noAllocationPerPacketOnceCompiled(boolean timestampSelector) throws Exception {
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        FlowMeter.Builder<Packet, String> builder = Packets.meter().capacity(10_000).tick(Duration.ofDays(1));
        if (timestampSelector) {
            builder.timestamps(p -> p.ts);
        }
        try (var h = Harnesses.open(builder.build(), null, 1, 0, null)) {
            h.open();
            List<StreamRecord<Packet>> records = new ArrayList<>();
            for (int i = 0; i < 1_000; i++) {
                records.add(new StreamRecord<>(new Packet("a", i % 200, 0x10, 100, 5_000_000_000L), 5_000_000_000L));
            }
            long perRecord = Long.MAX_VALUE;
            for (int round = 0; round < 40 && perRecord > 0; round++) { // until C2 has compiled the path
                long before = threads.getCurrentThreadAllocatedBytes();
                for (int i = 0; i < BATCH; i++) {
                    h.processElement(records.get(i % records.size()));
                }
                perRecord = (threads.getCurrentThreadAllocatedBytes() - before) / BATCH;
            }
            assertThat(perRecord).as("bytes allocated per packet").isZero();
        }
    }
}
