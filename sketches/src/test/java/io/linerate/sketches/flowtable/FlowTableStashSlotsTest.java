package io.linerate.sketches.flowtable;

import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.sketches.hash.FiveTuple;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The stash keeps a copy of each flow's hash and last timestamp beside the entries (docs/flowtable.md, Structure):
 * a flow the stash moves into a freed slot, and every stash flow of a table read back from its image, is still
 * found, and the least recently updated one is still the one evicted. One sub-table of one slot, so every flow but
 * the first is in the stash.
 */
class FlowTableStashSlotsTest {

    private final List<String> exported = new ArrayList<>();

    private FlowTable table() {
        return table(FlowKeyFormat.IPV4_AND_IPV6);
    }

    private FlowTable table(FlowKeyFormat format) {
        return FlowTable.builder().keyFormat(format).capacity(4).scheme(InsertionScheme.STANDARD).buckets(1)
                .stashCapacity(3).idleTimeout(Long.MAX_VALUE).activeTimeout(Long.MAX_VALUE).sweepSlotsPerUpdate(0)
                .exporter(r -> exported.add(r.reason() + " " + r.srcAddress() + " packets " + r.packets())).build();
    }

    private static FiveTuple key(int flow) {
        return FiveTuple.ipv4(flow, 9, 1, 1, 6);
    }

    private static void packet(FlowTable t, int flow, long timestamp) {
        t.update(key(flow), 0, 10, timestamp);
    }

    /** An update of a stash flow refreshes its timestamp copy, in the first stash slot too (IPv4 path included). */
    @ParameterizedTest
    @EnumSource(FlowKeyFormat.class)
    void anUpdatedStashFlowIsNoLongerTheLeastRecent(FlowKeyFormat format) {
        FlowTable t = table(format);
        for (int flow = 1; flow <= 4; flow++) {
            t.updateIpv4(flow, 9, 1, 1, 6, 0, 10, flow); // flow 1 in the sub-table, 2, 3, 4 in stash slots 0, 1, 2
        }
        t.updateIpv4(2, 9, 1, 1, 6, 0, 10, 10);
        t.updateIpv4(1, 9, 1, 1, 6, 0, 10, 11);
        t.updateIpv4(5, 9, 1, 1, 6, 0, 10, 12); // no room: flow 3 (at 3) is the least recently updated
        assertThat(exported).containsExactly("EVICTED 3 packets 1");
    }

    @Test
    void theFlowMovedIntoTheFirstStashSlotIsStillFound() {
        FlowTable t = table();
        for (int flow = 1; flow <= 4; flow++) {
            packet(t, flow, flow); // flow 1 in the sub-table, flows 2, 3, 4 in stash slots 0, 1, 2
        }
        assertThat(t.stashSize()).isEqualTo(3);
        assertThat(t.remove(key(2))).isTrue(); // flow 4 moves into stash slot 0
        packet(t, 4, 10);
        assertThat(t.size()).isEqualTo(3);
        assertThat(t.record(t.find(key(4))).packets()).as("flow 4 counted in its own record").isEqualTo(2);
    }

    @Test
    void aTableReadFromItsImageFindsAndEvictsItsStashFlowsAsTheOriginal() {
        FlowTable t = table();
        packet(t, 1, 20);
        packet(t, 2, 21);
        packet(t, 3, 10); // stash slot 1: the least recently updated flow
        packet(t, 4, 22);
        FlowTable u = FlowTable.fromByteArray(t.toByteArray(), r -> exported.add(r.reason() + " " + r.srcAddress()
                + " packets " + r.packets()));
        for (int flow = 1; flow <= 4; flow++) {
            assertThat(u.find(key(flow))).as("flow %d", flow).isEqualTo(t.find(key(flow)));
        }
        for (int flow : new int[] {1, 2, 4}) {
            packet(u, flow, 30 + flow);
        }
        assertThat(u.size()).as("every flow found, none added").isEqualTo(4);
        assertThat(exported).isEmpty();
        packet(u, 5, 40); // no room: the least recently updated, flow 3 (at 10, from the image), is evicted
        assertThat(exported).containsExactly("EVICTED 3 packets 1");
        assertThat(u.find(key(3))).isEqualTo(-1);
        assertThat(u.record(u.find(key(5))).packets()).isEqualTo(1);
    }
}
