package io.linerate.sketches.flowtable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.linerate.sketches.hash.FiveTuple;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * User slots (the user-defined longs of an entry, see {@link FlowTable}): each of a flow's slots holds what the
 * caller added and set, read back per slot; they go out with the record and start at 0 in the flow's next record,
 * as its TCP flags start empty. One bucket of one slot, so flows 2 and 3 are in the stash, right after flow 1's
 * slot: a change spilling past an entry would reach the next flow's key.
 */
class FlowTableUserSlotsTest {

    private static final int SYN = 0x02;
    private static final int ACK = 0x10;

    private final List<FlowRecord> exported = new ArrayList<>();

    private static int packet(FlowTable t, int flow, int flags, long timestamp) {
        return t.updateIpv4(flow, 9, 1, 1, 6, flags, 10, timestamp);
    }

    private static FiveTuple key(int flow) {
        return FiveTuple.ipv4(flow, 9, 1, 1, 6);
    }

    @Test
    void eachUserSlotHoldsItsOwnValueUntilTheRecordEnds() {
        FlowTable t = FlowTable.builder().capacity(4).scheme(InsertionScheme.STANDARD).buckets(1).stashCapacity(4)
                .keyFormat(FlowKeyFormat.IPV4_ONLY).userSlots(3).idleTimeout(100).activeTimeout(1_000_000)
                .sweepSlotsPerUpdate(0).exporter(r -> exported.add(r.copy())).build();
        assertThat(packet(t, 1, ACK, 1000)).isEqualTo(0);
        assertThat(packet(t, 2, SYN, 1000)).isEqualTo(1);
        assertThat(packet(t, 3, ACK, 1000)).isEqualTo(2);
        t.addToUserSlot(1, 1, 5);
        t.addToUserSlot(1, 1, 7);
        t.addToUserSlot(1, 2, -3);
        t.setUserSlot(1, 0, 42);
        t.setUserSlot(2, 2, 99);
        assertThat(new long[] {t.userSlot(1, 0), t.userSlot(1, 1), t.userSlot(1, 2)}).containsExactly(42, 12, -3);
        assertThat(new long[] {t.userSlot(2, 0), t.userSlot(2, 1), t.userSlot(2, 2)}).containsExactly(0, 0, 99);
        assertThat(new long[] {t.userSlot(0, 0), t.userSlot(0, 1), t.userSlot(0, 2)}).containsExactly(0, 0, 0);
        assertThat(t.record(1).userSlot(1)).isEqualTo(12);

        for (int bad : new int[] {-1, 3}) {
            String message = "user slot must be in [0, 3), got " + bad;
            assertThatThrownBy(() -> t.userSlot(1, bad)).isInstanceOf(IndexOutOfBoundsException.class)
                    .hasMessage(message);
            assertThatThrownBy(() -> t.setUserSlot(1, bad, 5)).isInstanceOf(IndexOutOfBoundsException.class)
                    .hasMessage(message);
        }
        assertThatThrownBy(() -> t.setUserSlot(3, 0, 5)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("slot 3 holds no live flow");

        // flow 2 has idled since 1000: its record goes out with its slots and SYN; the next starts with none of them
        assertThat(packet(t, 2, ACK, 1200)).isEqualTo(1);
        assertThat(exported).hasSize(1);
        FlowRecord ended = exported.get(0);
        assertThat(ended.reason()).isEqualTo(ExportReason.IDLE_TIMEOUT);
        assertThat(ended.srcAddress()).isEqualTo(2);
        assertThat(new long[] {ended.userSlot(0), ended.userSlot(1), ended.userSlot(2)}).containsExactly(42, 12, -3);
        assertThat(ended.tcpFlags()).isEqualTo(SYN);
        FlowRecord next = t.record(1);
        assertThat(new long[] {next.userSlot(0), next.userSlot(1), next.userSlot(2)}).containsExactly(0, 0, 0);
        assertThat(next.tcpFlags()).isEqualTo(ACK);
        assertThat(next.packets()).isEqualTo(1);
        assertThat(next.bytes()).isEqualTo(10);
        // the flows either side are untouched
        assertThat(t.find(key(1))).isEqualTo(0);
        assertThat(t.record(0).tcpFlags()).isEqualTo(ACK);
        assertThat(t.find(key(3))).isEqualTo(2);
        assertThat(t.userSlot(2, 2)).isEqualTo(99);
    }
}
