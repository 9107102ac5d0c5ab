package io.linerate.sketches.flowtable;

import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.sketches.hash.FiveTuple;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Which flows a new flow that finds no room may end (docs/flowtable.md, "Time, expiry and export"): only the
 * candidates, i.e. the flows in its d buckets and in the stash. A flow past its active timeout elsewhere in the
 * table waits for the sweep. The tables are STANDARD with two buckets in sub-table 1 and one in sub-table 2, so a flow's
 * slots are found by inserting it into an empty table: its first slot is 0 or 1, its second always 2.
 */
class FlowTableEvictionCandidatesTest {

    private final List<String> exported = new ArrayList<>();

    private FlowTable.Builder table(int stash, int... buckets) {
        return FlowTable.builder().capacity(4).scheme(InsertionScheme.STANDARD).buckets(buckets).stashCapacity(stash)
                .sweepSlotsPerUpdate(0).seed(7).idleTimeout(1_000_000).activeTimeout(100)
                .overflowPolicy(OverflowPolicy.EXPORT_NEW)
                .exporter(r -> exported.add(r.reason() + " " + r.srcAddress() + " packets " + r.packets()));
    }

    private static int packet(FlowTable t, int flow, long timestamp) {
        return t.updateIpv4(flow, 9, 1, 1, 6, 0, 10, timestamp);
    }

    /** The next source address after {@code from} whose flow takes slot {@code slot} of an empty table. */
    private int flowWithFirstSlot(int slot, int from) {
        for (int flow = from + 1; ; flow++) {
            FlowTable probe = table(0, 2, 1).build();
            if (packet(probe, flow, 0) == slot) {
                return flow;
            }
        }
    }

    @Test
    void aFlowPastItsActiveTimeoutOutsideTheNewFlowsBucketsIsNotEnded() {
        int b = flowWithFirstSlot(1, 0);   // slot 1: not a candidate of x
        int a = flowWithFirstSlot(0, 0);   // slot 0
        int c = flowWithFirstSlot(0, a);   // slot 0 taken by a: slot 2
        int x = flowWithFirstSlot(0, c);   // x's candidates: slots 0 and 2
        FlowTable t = table(0, 2, 1).build();
        assertThat(packet(t, b, 0)).isEqualTo(1);
        assertThat(packet(t, a, 50)).isEqualTo(0);
        assertThat(packet(t, c, 60)).isEqualTo(2);
        // now 120: b (slot 1) is past its active timeout, a and c are not; x finds its buckets full
        assertThat(packet(t, x, 120)).isEqualTo(-1);
        assertThat(exported).containsExactly("EVICTED " + x + " packets 1");
        assertThat(t.size()).isEqualTo(3);
        assertThat(t.find(FiveTuple.ipv4(b, 9, 1, 1, 6))).isEqualTo(1);
    }
}
