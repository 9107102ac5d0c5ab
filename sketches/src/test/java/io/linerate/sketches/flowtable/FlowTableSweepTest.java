package io.linerate.sketches.flowtable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.ConcurrentModificationException;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Expiry at the edges of the sweep and of the overflow path: a record's reason must not depend on how far the sweep
 * has got (docs/flowtable.md, "Time, expiry and export"). One bucket of one slot, so flows 2.. go to the stash.
 */
class FlowTableSweepTest {

    private final List<String> exported = new ArrayList<>();

    private FlowTable.Builder oneSlot(int stash) {
        return FlowTable.builder().capacity(4).scheme(InsertionScheme.STANDARD).buckets(1).stashCapacity(stash)
                .sweepSlotsPerUpdate(0).exporter(r -> exported.add(r.reason() + " " + r.srcAddress()));
    }

    /** Flow i's source address is i; all flows share one destination, so they compete for the same bucket. */
    private static void packet(FlowTable t, int flow, long timestamp) {
        t.updateIpv4(flow, 9, 1, 1, 6, 0, 10, timestamp);
    }

    private FlowTable fullStashWithTwoIdleFlows() {
        FlowTable t = oneSlot(4).idleTimeout(100).activeTimeout(1_000_000).build();
        packet(t, 1, 1000); // the bucket
        packet(t, 2, 950); // stash[0], idle from 1050
        packet(t, 3, 950); // stash[1], idle from 1050
        packet(t, 4, 1000); // stash[2]
        packet(t, 5, 1000); // stash[3]: the stash is full
        assertThat(t.advanceTime(1000, 3)).isZero(); // the cursor is left at stash[2]
        return t;
    }

    /**
     * A budget of slots() spent from the cursor re-examined the stash entry moved into a freed slot (examined before
     * the wrap) and ran out before the last one: flow 3 stayed, and the end of input flushed it as FLUSHED.
     */
    @Test
    void aSweepOfAllSlotsExportsEveryExpiredFlowWhereverTheCursorIs() {
        FlowTable t = fullStashWithTwoIdleFlows();
        assertThat(t.advanceTime(1060, t.slots())).isEqualTo(2);
        assertThat(exported).containsExactlyInAnyOrder("IDLE_TIMEOUT 2", "IDLE_TIMEOUT 3");
        t.flush();
        assertThat(exported).containsExactlyInAnyOrder("IDLE_TIMEOUT 2", "IDLE_TIMEOUT 3", "FLUSHED 1", "FLUSHED 4",
                "FLUSHED 5");
    }

    /**
     * No candidate has idled out, but the bucket's flow is past its active timeout though updated more recently than
     * the stash's: it leaves with ACTIVE_TIMEOUT, and no live flow is evicted nor the new one turned away.
     */
    @Test
    void aCandidatePastItsActiveTimeoutMakesRoomBeforeThePolicyApplies() {
        for (OverflowPolicy policy : OverflowPolicy.values()) {
            exported.clear();
            FlowTable t = oneSlot(1).idleTimeout(1_000).activeTimeout(100).overflowPolicy(policy).build();
            packet(t, 1, 0);
            packet(t, 1, 90);
            packet(t, 2, 50); // the stash; the least recent candidate, not expired
            packet(t, 3, 120); // flow 1 started at 0: past its active timeout at 100
            assertThat(exported).as(policy.name()).containsExactly("ACTIVE_TIMEOUT 1");
            assertThat(t.evictions()).as(policy.name()).isZero();
            assertThat(t.size()).as(policy.name()).isEqualTo(2);
        }
    }

    /**
     * advanceTime examines at most maxSlots slots from the sweep's cursor (a budget of 0 only moves "now"); a stash
     * slot freed by an export is examined again, as the stash's last entry has moved into it.
     */
    @Test
    void advanceTimeExaminesAtMostItsBudgetOfSlotsFromTheCursor() {
        FlowTable t = oneSlot(4).idleTimeout(100).activeTimeout(1_000_000).build();
        packet(t, 1, 1000); // the bucket
        packet(t, 2, 1000); // stash[0]
        packet(t, 3, 1000); // stash[1]
        packet(t, 4, 1000); // stash[2]; all four idle from 1100
        assertThat(t.advanceTime(1100, 0)).isZero();
        assertThat(t.now()).isEqualTo(1100);
        assertThat(t.advanceTime(1100, 1)).isEqualTo(1); // the bucket
        assertThat(exported).containsExactly("IDLE_TIMEOUT 1");
        assertThat(t.advanceTime(1100, 2)).isEqualTo(2); // stash[0] twice: flow 2, then flow 4 moved into its place
        assertThat(exported).containsExactly("IDLE_TIMEOUT 1", "IDLE_TIMEOUT 2", "IDLE_TIMEOUT 4");
        assertThat(t.size()).isEqualTo(1);
    }

    /** Past the last stash entry the cursor wraps to slot 0 without spending budget on the empty stash slots. */
    @Test
    void theSweepWrapsAfterTheLastStashEntry() {
        FlowTable t = oneSlot(4).idleTimeout(100).activeTimeout(1_000_000).build();
        packet(t, 1, 1000); // the bucket; the stash is empty
        assertThat(t.advanceTime(1000, 1)).isZero(); // the bucket, not expired: the cursor is past the last entry
        assertThat(t.advanceTime(1100, 1)).isEqualTo(1);
        assertThat(exported).containsExactly("IDLE_TIMEOUT 1");
    }

    /**
     * The sweep exports every flow past a timeout whatever its words hold: timestamps on both sides of 0 (their
     * difference, not their sum, is compared), packets of 0 bytes, a destination address whose value is close to
     * the timestamps.
     */
    @Test
    void theSweepFindsExpiredFlowsWhateverTheirTimestampsBytesAndAddresses() {
        FlowTable idle = oneSlot(1).idleTimeout(500).activeTimeout(Long.MAX_VALUE).build();
        packet(idle, 1, -900);
        assertThat(idle.advanceTime(1000, idle.slots())).isEqualTo(1);
        FlowTable active = oneSlot(1).idleTimeout(Long.MAX_VALUE).activeTimeout(500).build();
        packet(active, 2, -900);
        assertThat(active.advanceTime(1000, active.slots())).isEqualTo(1);
        FlowTable empty = oneSlot(1).idleTimeout(100).activeTimeout(1_000_000).build();
        empty.updateIpv4(3, 9, 1, 1, 6, 0, 0, 1000); // 0 bytes
        assertThat(empty.advanceTime(1100, empty.slots())).isEqualTo(1);
        FlowTable near = oneSlot(1).idleTimeout(1_000_000).activeTimeout(100).build();
        int tenDotOne = 0x0A00_0001; // 10.0.0.1 = 167,772,161
        near.updateIpv4(4, tenDotOne, 1, 1, 6, 0, 10, 167_772_100);
        assertThat(near.advanceTime(167_772_200, near.slots())).isEqualTo(1);
        assertThat(exported).containsExactly("IDLE_TIMEOUT 1", "ACTIVE_TIMEOUT 2", "IDLE_TIMEOUT 3",
                "ACTIVE_TIMEOUT 4");
    }

    /** Long.MAX_VALUE disables a timeout even for timestamps more than Long.MAX_VALUE apart (compared unsigned). */
    @Test
    void aDisabledTimeoutNeverFiresHoweverFarApartTheTimestamps() {
        FlowTable t = oneSlot(2).idleTimeout(Long.MAX_VALUE).activeTimeout(Long.MAX_VALUE).build();
        packet(t, 1, Long.MIN_VALUE);
        packet(t, 2, 0);
        packet(t, 3, Long.MAX_VALUE); // now − first of flow 1 is 2^64 − 1 unsigned
        assertThat(t.advanceTime(Long.MAX_VALUE, t.slots())).isZero();
        assertThat(exported).isEmpty();
        packet(t, 1, Long.MAX_VALUE);
        assertThat(exported).isEmpty();
        assertThat(t.size()).isEqualTo(3);
    }

    @Test
    void forEachFailsFastWhenItsActionChangesTheTable() {
        FlowTable t = fullStashWithTwoIdleFlows();
        assertThatThrownBy(() -> t.forEach(r -> {
            if (r.srcAddress() == 2) {
                t.advanceTime(1060, t.slots());
            }
        })).isInstanceOf(ConcurrentModificationException.class);
        List<Integer> seen = new ArrayList<>();
        t.forEach(r -> seen.add(r.srcAddress()));
        assertThat(seen).containsExactlyInAnyOrder(1, 4, 5);
    }

    /** Flows last seen at Long.MAX_VALUE are still candidates: EVICT_LEAST_RECENT evicts one, not the new flow. */
    @Test
    void flowsLastSeenAtTheLargestTimestampCanStillBeEvicted() {
        FlowTable t = oneSlot(1).idleTimeout(Long.MAX_VALUE).activeTimeout(Long.MAX_VALUE)
                .overflowPolicy(OverflowPolicy.EVICT_LEAST_RECENT).build();
        packet(t, 1, Long.MAX_VALUE);
        packet(t, 2, Long.MAX_VALUE); // the stash
        packet(t, 3, Long.MAX_VALUE); // no room: one of flows 1 and 2 is evicted, flow 3 takes its place
        assertThat(exported).hasSize(1).allMatch(r -> r.equals("EVICTED 1") || r.equals("EVICTED 2"));
        assertThat(t.size()).isEqualTo(2);
        assertThat(t.find(io.linerate.sketches.hash.FiveTuple.ipv4(3, 9, 1, 1, 6))).isNotNegative();
    }
}
