package io.linerate.sketches.flowtable;

import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.sketches.hash.FiveTuple;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The exact edges of expiry and of the choice of a flow to make room (docs/flowtable.md, "Time, expiry and
 * export"; {@link ExportReason}): a flow is idle after <em>at least</em> the idle timeout without a packet, done
 * after <em>at least</em> the active timeout, and when both have passed the one whose deadline came first names
 * the record (idle on a tie). The tables have two sub-tables of one single-slot bucket each plus a stash, so the
 * candidates sit in slot 0, slot 1 and the stash, not only in slot 0.
 */
class FlowTableTimeoutBoundaryTest {

    private final List<String> exported = new ArrayList<>();

    private FlowTable.Builder twoSlots(int stash) {
        return FlowTable.builder().capacity(4).scheme(InsertionScheme.STANDARD).buckets(1, 1).stashCapacity(stash)
                .sweepSlotsPerUpdate(0).exporter(r -> exported.add(r.reason() + " " + r.srcAddress() + " packets "
                        + r.packets() + " [" + r.firstTimestamp() + ", " + r.lastTimestamp() + "]"));
    }

    /** Flow i's source address is i. */
    private static int packet(FlowTable t, int flow, long timestamp) {
        return t.updateIpv4(flow, 9, 1, 1, 6, 0, 10, timestamp);
    }

    @Test
    void theSweepExportsAFlowExactlyAtItsIdleDeadlineAndNotBefore() {
        FlowTable t = twoSlots(2).idleTimeout(100).activeTimeout(1_000_000).build();
        packet(t, 1, 1000);
        assertThat(t.advanceTime(1099, t.slots())).isZero();
        assertThat(t.advanceTime(1100, 1)).isEqualTo(1);
        assertThat(exported).containsExactly("IDLE_TIMEOUT 1 packets 1 [1000, 1000]");
        assertThat(t.size()).isZero();
    }

    @Test
    void theSweepExportsAFlowExactlyAtItsActiveDeadlineAndNotBefore() {
        FlowTable t = twoSlots(2).idleTimeout(1_000_000).activeTimeout(100).build();
        packet(t, 1, 1000);
        packet(t, 1, 1090);
        assertThat(t.advanceTime(1099, t.slots())).isZero();
        assertThat(t.advanceTime(1100, t.slots())).isEqualTo(1);
        assertThat(exported).containsExactly("ACTIVE_TIMEOUT 1 packets 2 [1000, 1090]");
    }

    /** docs/flowtable.md: with equal timeouts a one-packet flow ends by IDLE_TIMEOUT (both deadlines at once). */
    @Test
    void withEqualTimeoutsAOnePacketFlowEndsIdleAndALongerOneActive() {
        FlowTable t = twoSlots(2).idleTimeout(100).activeTimeout(100).build();
        packet(t, 1, 1000);
        packet(t, 1, 1100); // both deadlines are 1100
        packet(t, 1, 1150);
        packet(t, 1, 1300); // idle deadline 1250, active deadline 1200: active came first
        assertThat(exported).containsExactly("IDLE_TIMEOUT 1 packets 1 [1000, 1000]",
                "ACTIVE_TIMEOUT 1 packets 2 [1100, 1150]");
    }

    @Test
    void aPacketOneTickBeforeTheIdleDeadlineContinuesTheRecordAndOneAtItStartsANewOne() {
        FlowTable t = twoSlots(2).idleTimeout(100).activeTimeout(1_000_000).build();
        packet(t, 1, 1000);
        packet(t, 1, 1099); // now − last = 99 < 100
        assertThat(exported).isEmpty();
        packet(t, 1, 1199); // exactly the idle timeout since 1099
        assertThat(exported).containsExactly("IDLE_TIMEOUT 1 packets 2 [1000, 1099]");
        FlowRecord live = t.record(t.find(key(1)));
        assertThat(live.packets()).isEqualTo(1);
        assertThat(live.firstTimestamp()).isEqualTo(1199);
    }

    @Test
    void aPacketOneTickBeforeTheActiveDeadlineContinuesTheRecordAndOneAtItStartsANewOne() {
        FlowTable t = twoSlots(2).idleTimeout(1_000_000).activeTimeout(100).build();
        packet(t, 1, 1000);
        packet(t, 1, 1099);
        assertThat(exported).isEmpty();
        packet(t, 1, 1100);
        assertThat(exported).containsExactly("ACTIVE_TIMEOUT 1 packets 2 [1000, 1099]");
    }

    /** Idle deadline last + 100, active deadline first + 200: equal for last − first = 100, idle on the tie. */
    @Test
    void whenBothTimeoutsHavePassedTheEarlierDeadlineNamesTheRecordAndIdleWinsATie() {
        FlowTable t = twoSlots(2).idleTimeout(100).activeTimeout(200).build();
        for (long ts : new long[] {0, 50, 100}) { // in time order: "now" is the table's
            packet(t, 1, ts); // both deadlines at 200
            packet(t, 2, ts == 0 ? 0 : ts + 1); // idle at 201, active at 200
        }
        assertThat(t.advanceTime(500, t.slots())).isEqualTo(2);
        assertThat(exported).containsExactlyInAnyOrder("IDLE_TIMEOUT 1 packets 3 [0, 100]",
                "ACTIVE_TIMEOUT 2 packets 3 [0, 101]");
    }

    /**
     * Every candidate full, none idle: the one past its active timeout leaves (even under EXPORT_NEW), found in
     * sub-table 1's slot or deep in the stash, not the first candidate looked at.
     */
    @Test
    void theCandidatePastItsActiveTimeoutIsFoundWhereverItSits() {
        // flow 2 lands in sub-table 1; flow 4 in stash[1]
        for (int early : new int[] {2, 4}) {
            exported.clear();
            FlowTable t = twoSlots(2).idleTimeout(1_000).activeTimeout(100).overflowPolicy(OverflowPolicy.EXPORT_NEW)
                    .build();
            for (int flow = 1; flow <= 4; flow++) {
                packet(t, flow, flow == early ? 10 : 60);
            }
            for (int flow = 1; flow <= 4; flow++) {
                packet(t, flow, 105); // all equally recent
            }
            packet(t, 5, 125); // only the early flow's active deadline (110) has passed
            assertThat(exported).as("early flow %d", early)
                    .containsExactly("ACTIVE_TIMEOUT " + early + " packets 2 [10, 105]");
            assertThat(t.find(key(5))).isNotNegative();
            assertThat(t.evictions()).isZero();
        }
    }

    /** EVICT_LEAST_RECENT: the least recently updated candidate goes, wherever it sits. */
    @Test
    void theLeastRecentCandidateIsEvictedWhereverItSits() {
        for (int stale = 1; stale <= 4; stale++) {
            exported.clear();
            FlowTable t = twoSlots(2).idleTimeout(1_000).activeTimeout(1_000_000).build();
            for (int flow = 1; flow <= 4; flow++) {
                packet(t, flow, 100);
            }
            for (int flow = 1; flow <= 4; flow++) {
                if (flow != stale) {
                    packet(t, flow, 200 + flow);
                }
            }
            packet(t, 5, 300);
            assertThat(exported).as("stale flow %d", stale).containsExactly("EVICTED " + stale + " packets 1 [100, 100]");
            assertThat(t.find(key(5))).isNotNegative();
            assertThat(t.evictions()).isEqualTo(1);
            assertThat(t.size()).isEqualTo(4);
        }
    }

    @Test
    void removeExportsTheWholeRecordOnceAndReportsWhetherTheFlowWasThere() {
        FlowTable t = twoSlots(2).build();
        packet(t, 1, 10);
        packet(t, 1, 20);
        packet(t, 2, 15);
        assertThat(t.remove(key(1))).isTrue();
        assertThat(exported).containsExactly("REMOVED 1 packets 2 [10, 20]");
        assertThat(t.find(key(1))).isNegative();
        assertThat(t.remove(key(1))).isFalse();
        assertThat(exported).hasSize(1);
        assertThat(t.size()).isEqualTo(1);
        assertThat(t.record(t.find(key(2))).packets()).isEqualTo(1);
    }

    private static FiveTuple key(int flow) {
        return FiveTuple.ipv4(flow, 9, 1, 1, 6);
    }
}
