package io.linerate.sketches.flowtable;

import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.sketches.hash.FiveTuple;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Which flows a new flow that finds no room may end (docs/flowtable.md, "Time, expiry and export"): only the
 * candidates, i.e. the flows in its d buckets and in the stash. A flow past its active timeout elsewhere in the
 * table waits for the sweep. The tables are STANDARD with two buckets in sub-table 1 and one in sub-table 2, so a flow's
 * slots are found by inserting it into an empty table: its first slot is 0 or 1, its second always 2.
 */
class FlowTableEvictionCandidatesTest {

    private final List<String> exported = new ArrayList<>();

    private FlowTable.Builder table(int stash, int... buckets) {
        return table(FlowKeyFormat.IPV4_AND_IPV6, stash, OverflowPolicy.EXPORT_NEW, 100, buckets);
    }

    private FlowTable.Builder table(FlowKeyFormat format, int stash, OverflowPolicy policy, long activeTimeout,
                                    int... buckets) {
        return FlowTable.builder().capacity(4).keyFormat(format).scheme(InsertionScheme.STANDARD).buckets(buckets)
                .stashCapacity(stash)
                .sweepSlotsPerUpdate(0).seed(7).idleTimeout(1_000_000).activeTimeout(activeTimeout)
                .overflowPolicy(policy)
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

    /*
     * Which candidate the policy picks (docs/flowtable.md, "When there is no room"): the least recently updated, or,
     * when that one has not timed out, the one that started first if it is past its active timeout. Each case puts
     * the candidate to pick where reading another word of an entry (its key words, another slot's timestamp) picks
     * a different one: in IPv4-only tables the key words of these flows (source address << 32, ports and protocol)
     * are larger than any timestamp, and the first candidate scanned is not the one to pick (or, where it is, is in
     * slot 0); both key formats, as their entries differ in length. No two candidates share the timestamp compared:
     * which of two equal ones is taken is not specified.
     */

    @ParameterizedTest
    @EnumSource(FlowKeyFormat.class)
    void theLeastRecentlyUpdatedCandidateIsEvicted(FlowKeyFormat format) {
        int p = flowWithFirstSlot(0, 0);   // slot 0: not a candidate of x, updated before every candidate
        int a = flowWithFirstSlot(1, 0);   // slot 1
        int c = flowWithFirstSlot(1, a);   // slot 1 taken by a: slot 2
        int x = flowWithFirstSlot(1, c);   // x's candidates: slots 1 and 2
        FlowTable t = table(format, 0, OverflowPolicy.EVICT_LEAST_RECENT, Long.MAX_VALUE, 2, 1).build();
        assertThat(packet(t, p, 1000)).isEqualTo(0);
        assertThat(packet(t, a, 1010)).isEqualTo(1);
        assertThat(packet(t, c, 1020)).isEqualTo(2);
        packet(t, c, 1050);
        packet(t, a, 1080);
        // a was updated last at 1080, c at 1050: c leaves
        assertThat(packet(t, x, 1100)).isEqualTo(2);
        assertThat(exported).containsExactly("EVICTED " + c + " packets 2");
        assertThat(t.find(FiveTuple.ipv4(a, 9, 1, 1, 6))).isEqualTo(1);
        assertThat(t.find(FiveTuple.ipv4(p, 9, 1, 1, 6))).isEqualTo(0);
    }

    @ParameterizedTest
    @EnumSource(FlowKeyFormat.class)
    void aCandidateInTheFirstSlotPastItsActiveTimeoutEndsBeforeTheLeastRecentIsEvicted(FlowKeyFormat format) {
        int a = flowWithFirstSlot(0, 0);   // slot 0
        int c = flowWithFirstSlot(0, a);   // slot 0 taken by a: slot 2
        int x = flowWithFirstSlot(0, c);   // x's candidates: slots 0 and 2
        FlowTable t = table(format, 0, OverflowPolicy.EVICT_LEAST_RECENT, 100, 2, 1).build();
        assertThat(packet(t, a, 1000)).isEqualTo(0);
        assertThat(packet(t, c, 1050)).isEqualTo(2);
        packet(t, a, 1090);
        // now 1120: c is the least recent (1050) but within both timeouts; a started at 1000, 120 ago
        assertThat(packet(t, x, 1120)).isEqualTo(0);
        assertThat(exported).containsExactly("ACTIVE_TIMEOUT " + a + " packets 2");
        assertThat(t.find(FiveTuple.ipv4(c, 9, 1, 1, 6))).isEqualTo(2);
    }

    @ParameterizedTest
    @EnumSource(FlowKeyFormat.class)
    void aCandidateInALaterSubTablePastItsActiveTimeoutEndsBeforeTheLeastRecentIsEvicted(FlowKeyFormat format) {
        int a = flowWithFirstSlot(1, 0);   // slot 1
        int c = flowWithFirstSlot(1, a);   // slot 1 taken by a: slot 2
        int x = flowWithFirstSlot(1, c);   // x's candidates: slots 1 and 2 (slot 0 stays empty)
        FlowTable t = table(format, 0, OverflowPolicy.EVICT_LEAST_RECENT, 100, 2, 1).build();
        assertThat(packet(t, a, 920)).isEqualTo(1);
        assertThat(packet(t, c, 1000)).isEqualTo(2);
        packet(t, a, 1030);                // past a's active timeout: a's record ends, the next starts at 1030
        packet(t, c, 1060);
        exported.clear();
        // now 1120: a is the least recent (1030) but started 90 ago; c started at 1000, 120 ago
        assertThat(packet(t, x, 1120)).isEqualTo(2);
        assertThat(exported).containsExactly("ACTIVE_TIMEOUT " + c + " packets 2");
        assertThat(t.find(FiveTuple.ipv4(a, 9, 1, 1, 6))).isEqualTo(1);
    }

    @ParameterizedTest
    @EnumSource(FlowKeyFormat.class)
    void aStashCandidatePastItsActiveTimeoutEndsBeforeTheLeastRecentIsEvicted(FlowKeyFormat format) {
        int p = flowWithFirstSlot(0, 0);   // slot 0: not a candidate of x, started after every candidate
        int a = flowWithFirstSlot(1, 0);   // slot 1
        int c = flowWithFirstSlot(1, a);   // slot 2
        int s0 = flowWithFirstSlot(1, c);  // slots 1 and 2 taken: stash slot 3
        int s1 = flowWithFirstSlot(1, s0); // stash slot 4
        int x = flowWithFirstSlot(1, s1);  // x's candidates: slots 1 and 2 and the stash
        FlowTable t = table(format, 2, OverflowPolicy.EVICT_LEAST_RECENT, 100, 2, 1).build();
        assertThat(packet(t, a, 900)).isEqualTo(1);
        assertThat(packet(t, c, 900)).isEqualTo(2);
        assertThat(packet(t, s0, 1000)).isEqualTo(3);
        packet(t, a, 1030);                // a's and c's records end (active timeout), the next start at 1030
        packet(t, c, 1030);
        assertThat(packet(t, s1, 1040)).isEqualTo(4);
        assertThat(packet(t, p, 1090)).isEqualTo(0);
        packet(t, s0, 1095);
        exported.clear();
        // now 1120: a and c are the least recent (1030) but started 90 ago, s1 80 ago; s0 started at 1000, 120 ago
        assertThat(packet(t, x, 1120)).isGreaterThanOrEqualTo(3);
        assertThat(exported).containsExactly("ACTIVE_TIMEOUT " + s0 + " packets 2");
        assertThat(t.size()).isEqualTo(5);
        assertThat(t.find(FiveTuple.ipv4(s1, 9, 1, 1, 6))).isGreaterThanOrEqualTo(3);
    }
}
