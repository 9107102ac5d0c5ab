package io.linerate.flink.flowmeter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.linerate.flink.flowmeter.Packets.Packet;
import io.linerate.sketches.flowtable.ExportReason;
import io.linerate.sketches.flowtable.FlowKeyFormat;
import io.linerate.sketches.flowtable.FlowTable;
import io.linerate.sketches.flowtable.InsertionScheme;
import java.time.Duration;
import org.apache.flink.api.common.typeinfo.Types;
import org.junit.jupiter.api.Test;

/** Configuration errors fail when the job is built, naming the parameter and its limit. */
class FlowMeterBuilderTest {

    @Test
    void requiredSettingsAreNamed() {
        assertThatThrownBy(() -> FlowMeter.<Packet>builder().capacity(10).build())
                .hasMessageContaining("scope must be set");
        assertThatThrownBy(() -> FlowMeter.<Packet>builder().scope(p -> p.scope, Types.STRING).capacity(10).build())
                .hasMessageContaining("packets must be set");
        assertThatThrownBy(() -> Packets.meter().bytes(null)).hasMessageContaining("bytes");
        assertThatThrownBy(() -> Packets.meter().build())
                .hasMessage("capacity (flows) or memoryBudget (bytes) must be set");
        assertThatThrownBy(() -> Packets.meter().capacity(10).memoryBudget(1 << 20).build())
                .hasMessage("set either capacity(flows) or memoryBudget(bytes), not both: the budget chooses the"
                        + " capacity (got capacity 10 and memoryBudget 1048576)");
    }

    @Test
    void rangesAreCheckedWithTheLimitInTheMessage() {
        assertThatThrownBy(() -> Packets.meter().capacity(0))
                .hasMessage("capacity must be in [1, 268435456] flows, got 0");
        assertThatThrownBy(() -> Packets.meter().activeTimeout(java.time.temporal.ChronoUnit.FOREVER.getDuration()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("activeTimeout must be at most 9223372036854775807 ms, got PT");
        assertThatThrownBy(() -> Packets.meter().idleTimeout(Duration.ZERO))
                .hasMessage("idleTimeout must be >= 1 ms, got PT0S");
        assertThatThrownBy(() -> Packets.meter().activeTimeout(Duration.ofNanos(10)))
                .hasMessage("activeTimeout must be >= 1 ms, got PT0.00000001S");
        assertThatThrownBy(() -> Packets.meter().tick(Duration.ofSeconds(-1)))
                .hasMessage("tick must be >= 1 ms, got PT-1S");
        assertThatThrownBy(() -> Packets.meter().stashCapacity(-1))
                .hasMessage("stashCapacity must be in [0, 65536], got -1");
        assertThatThrownBy(() -> Packets.meter().memoryBudget(0)).hasMessage("memoryBudget must be > 0 bytes, got 0");
        assertThatThrownBy(() -> Packets.meter().memoryBudget(100).build())
                .hasMessageContaining("memoryBudget of 100 bytes is below one flow's table");
        assertThatThrownBy(() -> Packets.meter().capacity(250_000_000).build())
                .hasMessageContaining("capacity 250000000 is too large for one scope's table: "
                        + "more than 268435456 slots");
        // second chance, d = 4: Σα = 1.285 slots per flow, so 257,000,000 slots + 64 stash + 1 scratch, 9 longs each
        assertThatThrownBy(() -> Packets.meter().capacity(200_000_000).build())
                .hasMessageContaining("capacity 200000000 is too large for one scope's table: 2313000585 longs of "
                        + "entries with scheme SECOND_CHANCE and keyFormat IPV4_AND_IPV6, limit is 2147483639 longs");
        // the largest budget gives the largest table whose image, once full, fits one checkpointed value (2^31 − 9
        // bytes): 73 bytes per slot (9 longs and a state byte), 1.285 slots per flow, about 22.9 million flows. A
        // larger table built and ran, then failed every checkpoint once it filled up.
        long most = Packets.meter().memoryBudget(Long.MAX_VALUE).build().capacity();
        assertThat(most).isBetween(22_000_000L, 23_500_000L);
        assertThat(Packets.meter().capacity(most).build().tablePlan().fullImageBytes())
                .isLessThanOrEqualTo(Integer.MAX_VALUE - 8);
        assertThatThrownBy(() -> Packets.meter().capacity(most + 1).build())
                .hasMessageStartingWith("capacity " + (most + 1) + " is too large: a full table's image (its state in a"
                        + " checkpoint) would have ")
                .hasMessageEndingWith("; the largest capacity with scheme SECOND_CHANCE, keyFormat IPV4_AND_IPV6 and "
                        + "stashCapacity 64 is " + most + " flows");
        // each limit's message names the largest capacity that fits, for the key format asked for
        long mostIpv4 = Packets.meter().keyFormat(FlowKeyFormat.IPV4_ONLY).memoryBudget(Long.MAX_VALUE).build()
                .capacity();
        assertThat(mostIpv4).isGreaterThan(most);
        assertThatThrownBy(() -> Packets.meter().keyFormat(FlowKeyFormat.IPV4_ONLY).capacity(250_000_000).build())
                .hasMessageContaining("more than 268435456 slots")
                .hasMessageEndingWith("keyFormat IPV4_ONLY and stashCapacity 64 is " + mostIpv4 + " flows");
    }

    @Test
    void memoryBudgetGivesTheLargestTableThatFits() {
        for (long budget : new long[] {10_000, 1_000_000, 64L << 20}) {
            for (FlowKeyFormat format : FlowKeyFormat.values()) {
                FlowMeter<Packet, String> meter = Packets.meter().memoryBudget(budget).keyFormat(format)
                        .scheme(InsertionScheme.STANDARD_2).build();
                assertThat(meter.newTable(null).memoryBytes()).isLessThanOrEqualTo(budget);
                FlowTable larger = FlowTable.builder().capacity(meter.capacity() + 1).keyFormat(format)
                        .scheme(InsertionScheme.STANDARD_2).build();
                // the next capacity up may keep the same bucket counts; it never fits in fewer bytes
                assertThat(larger.memoryBytes()).isGreaterThanOrEqualTo(meter.newTable(null).memoryBytes());
            }
        }
        long flows = Packets.meter().memoryBudget(64L << 20).build().capacity();
        // 72-byte slots, 1.29 slots per flow (second chance, Table 5.1): about 64 MiB / 94 bytes
        assertThat(flows).isBetween(700_000L, 730_000L);
    }

    @Test
    void theBuiltMeterIsSerializableWithItsSelectors() throws Exception {
        FlowMeter<Packet, String> meter = Packets.meter().capacity(100).build();
        FlowMeterFunction<Packet, Packet, String> function = meter.function(Harnesses.PACKET);
        byte[] bytes = org.apache.flink.util.InstantiationUtil.serializeObject(function);
        assertThat(bytes).isNotEmpty();
        assertThat(meter.outputType().getTypeClass()).isEqualTo(MeteredFlow.class);
        assertThat(ExportReason.values()).hasSize(5);
    }
}
