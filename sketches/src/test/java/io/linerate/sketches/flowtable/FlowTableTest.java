package io.linerate.sketches.flowtable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.linerate.sketches.hash.FiveTuple;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class FlowTableTest {

    private final List<String> exported = new ArrayList<>();

    private FlowTable.Builder small() {
        return FlowTable.builder().capacity(1000).exporter(r -> exported.add(r.reason() + " " + r.key() + " "
                + r.packets() + " " + r.bytes() + " " + r.firstTimestamp() + " " + r.lastTimestamp()));
    }

    @Test
    void countsPacketsBytesFlagsAndTimestampsPerFlow() {
        FlowTable t = small().build();
        int a = 0x0A000001;
        int b = 0x0A000002;
        t.updateIpv4(a, b, 1234, 80, 6, 0x02, 60, 1000);
        t.updateIpv4(a, b, 1234, 80, 6, 0x10, 1500, 1005);
        t.updateIpv4(b, a, 80, 1234, 6, 0x12, 60, 1002);
        int slot = t.find(FiveTuple.ipv4(a, b, 1234, 80, 6));
        FlowRecord r = t.record(slot);
        assertThat(r.packets()).isEqualTo(2);
        assertThat(r.bytes()).isEqualTo(1560);
        assertThat(r.tcpFlags()).isEqualTo(0x12);
        assertThat(r.firstTimestamp()).isEqualTo(1000);
        assertThat(r.lastTimestamp()).isEqualTo(1005);
        assertThat(r.key()).isEqualTo(FiveTuple.ipv4(a, b, 1234, 80, 6));
        assertThat(t.size()).isEqualTo(2);
        assertThat(t.find(FiveTuple.ipv4(a, b, 1234, 81, 6))).isEqualTo(-1);
    }

    @Test
    void ipv6FlowsAndIpv4OnlyTablesRejectThemClearly() {
        FlowTable t = small().build();
        FiveTuple v6 = FiveTuple.parse("2001:db8::1 2001:db8::2 5000 443 17");
        t.update(v6, 0, 100, 1);
        t.update(v6, 0, 100, 2);
        assertThat(t.record(t.find(v6)).packets()).isEqualTo(2);
        assertThat(t.record(t.find(v6)).key()).isEqualTo(v6);
        // in the table's first slot too: a table of one slot, which is every flow's bucket
        FlowTable oneSlot = small().scheme(InsertionScheme.STANDARD).buckets(1).stashCapacity(1).build();
        assertThat(oneSlot.update(v6, 0, 100, 1)).isZero();
        assertThat(oneSlot.update(v6, 0, 100, 2)).isZero();
        assertThat(oneSlot.record(0).key()).isEqualTo(v6);
        assertThat(oneSlot.record(0).packets()).isEqualTo(2);
        FlowTable v4 = small().keyFormat(FlowKeyFormat.IPV4_ONLY).build();
        assertThatThrownBy(() -> v4.update(v6, 0, 1, 1)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("IPV4_AND_IPV6");
    }

    /**
     * removeLazily (§4.10.1) marks a flow in a sub-table deleted until the rebuild, but frees a stash slot at once;
     * either way the flow is exported as REMOVED and no longer found, and a key it cannot find is reported false.
     * A freed slot holds no key words (updateIpv4's hit path relies on that).
     */
    @Test
    void removeLazilyFreesAStashSlotAtOnceAndMarksATableSlot() {
        FlowTable t = small().scheme(InsertionScheme.STANDARD).buckets(1).stashCapacity(2).build();
        FiveTuple first = FiveTuple.ipv4(1, 9, 1, 1, 6);
        FiveTuple second = FiveTuple.ipv4(2, 9, 1, 1, 6);
        assertThat(t.update(first, 0, 10, 1)).isZero();
        assertThat(t.update(second, 0, 20, 2)).isEqualTo(1); // the stash
        assertThat(t.removeLazily(second)).isTrue();
        assertThat(t.stashSize()).isZero();
        assertThat(t.lazilyDeleted()).isZero();
        assertThat(t.unoccupiedSlotsHoldNoKey()).as("the freed stash slot's key words cleared").isTrue();
        assertThat(t.find(second)).isEqualTo(-1);
        assertThat(t.removeLazily(second)).isFalse();
        assertThat(t.removeLazily(first)).isTrue();
        assertThat(t.lazilyDeleted()).isOne();
        assertThat(t.find(first)).isEqualTo(-1);
        assertThat(exported).containsExactly("REMOVED " + second + " 1 20 2 2", "REMOVED " + first + " 1 10 1 1");
    }

    /** What a table reports of its settings, and of its sub-tables' load and the moves made. */
    @Test
    void theTableReportsItsSettingsLoadAndMoves() {
        FlowTable t = small().keyFormat(FlowKeyFormat.IPV4_ONLY).idleTimeout(123).activeTimeout(456)
                .scheme(InsertionScheme.SECOND_CHANCE).buckets(8, 6, 4).stashCapacity(8).build();
        assertThat(t.keyFormat()).isEqualTo(FlowKeyFormat.IPV4_ONLY);
        assertThat(t.idleTimeout()).isEqualTo(123);
        assertThat(t.activeTimeout()).isEqualTo(456);
        int inFirst = 0;
        for (int i = 1; i <= 12; i++) {
            t.updateIpv4(i, 9, 1, 1, 6, 0, 10, 0);
        }
        for (int i = 1; i <= 12; i++) {
            inFirst += t.find(FiveTuple.ipv4(i, 9, 1, 1, 6)) < 8 ? 1 : 0;
        }
        assertThat(t.load(0)).isEqualTo(inFirst / 8.0);
        assertThat(t.moves()).as("second chance moved flows to the right").isPositive();
        for (int i = 1; i <= 12; i++) { // every flow of sub-table 1: the others' buckets there then hold none
            FiveTuple key = FiveTuple.ipv4(i, 9, 1, 1, 6);
            if (t.find(key) < 8) {
                t.removeLazily(key);
            }
        }
        long moved = t.rebuild();
        assertThat(moved).as("flows moved left into sub-table 1").isPositive();
        assertThat(t.rebuildMoves()).isEqualTo(moved);
    }

    @Test
    void idleFlowsAreExportedByTheSweepAndActiveOnesOnTheirNextPacket() {
        FlowTable t = small().idleTimeout(100).activeTimeout(1000).sweepSlotsPerUpdate(16).build();
        t.updateIpv4(1, 2, 3, 4, 17, 0, 10, 0);
        for (int i = 0; i < 2000; i++) {
            t.updateIpv4(5, 6, 7, 8, 17, 0, 10, i); // keeps "now" moving; flow 1 goes idle at 100
        }
        assertThat(t.exports(ExportReason.IDLE_TIMEOUT)).isEqualTo(1);
        assertThat(t.exports(ExportReason.ACTIVE_TIMEOUT)).isEqualTo(1); // flow 5 restarted at t = 1000
        assertThat(t.record(t.find(FiveTuple.ipv4(5, 6, 7, 8, 17))).packets()).isEqualTo(1000);
        assertThat(exported).anyMatch(s -> s.startsWith("ACTIVE_TIMEOUT") && s.contains(" 1000 10000 0 999"));
    }

    /**
     * A flow past both timeouts is exported for the one whose deadline came first, whenever the sweep finds it:
     * flow 1 (packets every 1500 from 0 to 4500) reaches its active deadline (5000) before its idle deadline
     * (6500); flow 9 (one packet at 0) its idle deadline (2000) first. Sweeping at 5500, 7000 or 60000 gives the
     * same records,
     * so a job's output does not depend on how often its tables are swept.
     */
    @Test
    void theReasonIsTheDeadlineThatCameFirstHoweverLateTheSweepFindsIt() {
        for (long sweepAt : new long[] {5_500, 7_000, 60_000}) {
            FlowTable t = small().idleTimeout(2_000).activeTimeout(5_000).build();
            t.updateIpv4(9, 2, 3, 4, 17, 0, 10, 0);
            for (long ts = 0; ts <= 4_500; ts += 1_500) {
                t.updateIpv4(1, 2, 3, 4, 17, 0, 10, ts);
            }
            t.advanceTime(sweepAt, t.slots());
            assertThat(t.exports(ExportReason.ACTIVE_TIMEOUT)).as("active exports, sweep at %d", sweepAt).isEqualTo(1);
            assertThat(t.exports(ExportReason.IDLE_TIMEOUT)).as("idle exports, sweep at %d", sweepAt).isEqualTo(1);
            assertThat(t.size()).isZero();
        }
    }

    @Test
    void noPacketIsLostWhenTheTableOverflows() {
        for (OverflowPolicy policy : OverflowPolicy.values()) {
            long[] exportedPackets = new long[1];
            FlowTable t = FlowTable.builder().capacity(100).stashCapacity(4).overflowPolicy(policy)
                    .idleTimeout(Long.MAX_VALUE).activeTimeout(Long.MAX_VALUE)
                    .exporter(r -> exportedPackets[0] += r.packets()).build();
            SplittableRandom rnd = new SplittableRandom(7);
            for (int i = 0; i < 20_000; i++) {
                t.updateIpv4(rnd.nextInt(1000), 1, 1, 1, 6, 0, 1, i);
            }
            long[] live = new long[1];
            t.forEach(r -> live[0] += r.packets());
            assertThat(live[0] + exportedPackets[0]).as(policy.name()).isEqualTo(20_000);
            assertThat(t.evictions()).as(policy.name()).isPositive();
            assertThat(t.size()).isLessThanOrEqualTo(t.slots());
        }
    }

    /** A builder's plan is the shape of the table it builds, known without allocating it. */
    @Test
    void aBuildersPlanIsTheShapeOfItsTable() {
        for (InsertionScheme scheme : InsertionScheme.values()) {
            FlowTable.Builder b = small().capacity(10_000).scheme(scheme).keyFormat(FlowKeyFormat.IPV4_ONLY).seed(42)
                    .userSlots(2);
            assertThat(b.plan()).as(scheme.name()).isEqualTo(b.build().plan());
        }
        // a plan names its layout: another stash or other buckets, another plan
        FlowTable.Builder b = small().capacity(10_000);
        assertThat(small().capacity(10_000).stashCapacity(65).plan()).isNotEqualTo(b.plan());
        assertThat(small().capacity(10_000).levels(3).plan().layout()).isNotEqualTo(b.plan().layout());
        assertThat(b.plan().layout()).isNotEqualTo(null);
        assertThatThrownBy(() -> FlowTable.builder().plan()).hasMessage("capacity (flows) must be set: it sizes the"
                + " sub-tables (or give their bucket counts with buckets(..))");
    }

    private FlowTable.Builder twoSlots(OverflowPolicy policy) {
        return FlowTable.builder().capacity(1).scheme(InsertionScheme.STANDARD).buckets(1).stashCapacity(1)
                .idleTimeout(100).activeTimeout(Long.MAX_VALUE).sweepSlotsPerUpdate(0).overflowPolicy(policy)
                .exporter(r -> exported.add(r.reason() + " " + r.key() + " " + r.packets()));
    }

    /**
     * A candidate that has idled out but that no sweep has reached leaves with its timeout as the reason when a new
     * flow needs room: not as an eviction, and (EXPORT_NEW) not at the cost of the new flow's packets.
     */
    @Test
    void aNewFlowFindingOnlyExpiredFlowsTakesTheSlotOfOneWithItsTimeout() {
        for (OverflowPolicy policy : OverflowPolicy.values()) {
            exported.clear();
            FlowTable t = twoSlots(policy).build();
            t.updateIpv4(1, 9, 1, 1, 6, 0, 10, 0);
            t.updateIpv4(2, 9, 1, 1, 6, 0, 10, 1);
            t.updateIpv4(3, 9, 1, 1, 6, 0, 10, 500); // both idle for ≥ 100: the least recent leaves, idle
            t.updateIpv4(3, 9, 1, 1, 6, 0, 10, 501);
            assertThat(t.evictions()).as(policy.name()).isZero();
            assertThat(exported).as(policy.name()).hasSize(1).allMatch(e -> e.startsWith("IDLE_TIMEOUT ")
                    && e.endsWith(" 1"));
            assertThat(t.find(FiveTuple.ipv4(3, 9, 1, 1, 6))).as(policy.name()).isNotNegative();
            assertThat(t.record(t.find(FiveTuple.ipv4(3, 9, 1, 1, 6))).packets()).isEqualTo(2);
            assertThat(t.newFlows()).as(policy.name()).isEqualTo(3);
        }
        // not expired: the policy applies, and a packet turned away by EXPORT_NEW starts no flow entry
        exported.clear();
        FlowTable t = twoSlots(OverflowPolicy.EXPORT_NEW).build();
        t.updateIpv4(1, 9, 1, 1, 6, 0, 10, 0);
        t.updateIpv4(2, 9, 1, 1, 6, 0, 10, 1);
        t.updateIpv4(3, 9, 1, 1, 6, 0, 10, 50);
        t.updateIpv4(3, 9, 1, 1, 6, 0, 10, 51);
        assertThat(t.evictions()).isEqualTo(2);
        assertThat(t.newFlows()).as("entries started").isEqualTo(2);
    }

    /**
     * OverflowPolicy's documented exception: no stash, and the new flow's only bucket lazily deleted. There is no
     * live flow to displace, so even EVICT_LEAST_RECENT exports the packet at once (update returns −1); after a
     * rebuild the slot is free again.
     */
    @Test
    void withNoStashANewFlowWhoseBucketsAreLazilyDeletedIsExportedAtOnce() {
        exported.clear();
        FlowTable t = twoSlots(OverflowPolicy.EVICT_LEAST_RECENT).stashCapacity(0).build();
        t.updateIpv4(1, 9, 1, 1, 6, 0, 10, 0);
        assertThat(t.removeLazily(FiveTuple.ipv4(1, 9, 1, 1, 6))).isTrue();
        assertThat(t.lazilyDeleted()).isEqualTo(1);
        assertThat(t.updateIpv4(2, 9, 1, 1, 6, 0, 10, 1)).isEqualTo(-1);
        assertThat(exported).containsExactly("REMOVED " + FiveTuple.ipv4(1, 9, 1, 1, 6) + " 1",
                "EVICTED " + FiveTuple.ipv4(2, 9, 1, 1, 6) + " 1");
        assertThat(t.find(FiveTuple.ipv4(2, 9, 1, 1, 6))).isNegative();
        t.rebuild();
        assertThat(t.updateIpv4(2, 9, 1, 1, 6, 0, 10, 2)).isNotNegative();
        assertThat(t.record(t.find(FiveTuple.ipv4(2, 9, 1, 1, 6))).packets()).isEqualTo(1);
    }

    /** Timestamps more than Long.MAX_VALUE apart: the elapsed time is compared unsigned and cannot wrap. */
    @Test
    void flowsExpireWhateverTheDistanceBetweenTimestamps() {
        FlowTable t = small().idleTimeout(100).activeTimeout(1_000).build();
        t.updateIpv4(1, 9, 1, 1, 6, 0, 10, Long.MIN_VALUE + 5);
        t.updateIpv4(2, 9, 1, 1, 6, 0, 10, 1_000);
        t.advanceTime(1_000_000, t.slots());
        assertThat(t.find(FiveTuple.ipv4(1, 9, 1, 1, 6))).isNegative();
        assertThat(t.find(FiveTuple.ipv4(2, 9, 1, 1, 6))).isNegative();
        assertThat(exported).hasSize(2).allMatch(e -> e.startsWith("IDLE_TIMEOUT"));
        // and through a flow's own next packet: the old record ends first
        exported.clear();
        FlowTable u = small().idleTimeout(100).activeTimeout(1_000).sweepSlotsPerUpdate(0).build();
        u.updateIpv4(1, 9, 1, 1, 6, 0, 10, Long.MIN_VALUE + 5);
        u.updateIpv4(1, 9, 1, 1, 6, 0, 10, Long.MAX_VALUE - 5);
        assertThat(exported).hasSize(1).allMatch(e -> e.startsWith("IDLE_TIMEOUT"));
    }

    /** One bucket slot and one stash slot: each new flow that finds its bucket full is one overflow. */
    @Test
    void overflowsCountEachNewFlowOnceWhereverTheEvictedFlowWas() {
        for (boolean victimInStash : new boolean[] {true, false}) {
            FlowTable t = FlowTable.builder().capacity(1).scheme(InsertionScheme.STANDARD).buckets(1)
                    .stashCapacity(1).idleTimeout(Long.MAX_VALUE).activeTimeout(Long.MAX_VALUE)
                    .exporter(r -> exported.add(r.reason() + " " + r.key())).build();
            assertThat(t.slots()).isEqualTo(2);
            t.updateIpv4(1, 9, 1, 1, 6, 0, 10, 1); // A: the bucket
            t.updateIpv4(2, 9, 1, 1, 6, 0, 10, 2); // B: the stash, overflow 1
            if (victimInStash) {
                t.updateIpv4(1, 9, 1, 1, 6, 0, 10, 3); // A again: B is now the least recent
            } else {
                t.updateIpv4(2, 9, 1, 1, 6, 0, 10, 3); // B again: A is now the least recent
            }
            t.updateIpv4(3, 9, 1, 1, 6, 0, 10, 4); // C: overflow 2, evicts the least recent
            assertThat(t.evictions()).isEqualTo(1);
            assertThat(t.newFlows()).isEqualTo(3);
            assertThat(t.overflows()).as("victim in the stash: %s", victimInStash).isEqualTo(2);
            assertThat(t.find(FiveTuple.ipv4(3, 9, 1, 1, 6))).isNotNegative();
        }
    }

    @Test
    void imageRoundTripKeepsEveryFlowAndCounter() {
        FlowTable t = small().summary(true).userSlots(2).build();
        SplittableRandom rnd = new SplittableRandom(3);
        for (int i = 0; i < 5000; i++) {
            int h = t.updateIpv4(rnd.nextInt(900), 7, 1, 2, 6, 0, 100, i);
            t.addToUserSlot(h, 1, 3);
        }
        t.removeLazily(FiveTuple.ipv4(1, 7, 1, 2, 6));
        byte[] image = t.toByteArray();
        FlowTable u = FlowTable.fromByteArray(image, null);
        assertThat(u.toByteArray()).isEqualTo(image);
        assertThat(u.size()).isEqualTo(t.size());
        t.forEach(r -> {
            FlowRecord c = u.record(u.find(r.key()));
            assertThat(c.packets()).isEqualTo(r.packets());
            assertThat(c.userSlot(1)).isEqualTo(r.userSlot(1));
        });
        image[image.length / 2] ^= 1;
        assertThatThrownBy(() -> FlowTable.fromByteArray(image, null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("CRC32C");
    }

    @Test
    void aRestoredTableExportsThroughTheExporterAttachedAfterTheRestore() {
        FlowTable t = small().idleTimeout(10).build();
        t.updateIpv4(1, 2, 3, 4, 6, 0, 100, 0);
        FlowTable restored = FlowTable.fromByteArray(t.toByteArray(), null);
        restored.setExporter(r -> exported.add("restored " + r.reason() + " " + r.packets()));
        restored.updateIpv4(1, 2, 3, 4, 6, 0, 100, 50); // idle for 50 >= 10: the old record is exported first
        assertThat(exported).containsExactly("restored IDLE_TIMEOUT 1");
    }

    /**
     * A table whose image, once full, would not fit one image (2^31 − 9 bytes, what a checkpoint holds per value) is
     * refused when built, before anything is allocated: it used to build and run, then fail every checkpoint once
     * it filled up.
     */
    @Test
    void aTableWhoseFullImageCannotBeCheckpointedIsRefusedWithoutAllocating() {
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        // IPv4 keys and 16 user slots: 22 longs and a state byte per slot, 1.285 slots per flow
        FlowTable.Builder big = FlowTable.builder().capacity(13_000_000).keyFormat(FlowKeyFormat.IPV4_ONLY)
                .userSlots(16);
        assertThat(big.fullImageBytes()).isGreaterThan(Integer.MAX_VALUE - 8);
        long before = threads.getCurrentThreadAllocatedBytes();
        assertThatThrownBy(big::build).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("capacity 13000000 is too large: a full table's image (its state in a "
                        + "checkpoint) would have " + big.fullImageBytes() + " bytes with keyFormat IPV4_ONLY and "
                        + "userSlots 16");
        assertThatThrownBy(big::plan).hasMessageStartingWith("capacity 13000000 is too large");
        // a few MB for layouts, messages and the assertions' own work; the table would take 2.9 GB
        assertThat(threads.getCurrentThreadAllocatedBytes() - before).isLessThan(64L << 20);
        // the same capacity without user slots fits: 7 longs and a state byte per slot
        assertThat(big.userSlots(0).fullImageBytes()).isLessThan(Integer.MAX_VALUE - 8);
        // and a small table's full image is what it writes when every slot and the stash hold a flow
        FlowTable small = FlowTable.builder().capacity(40).scheme(InsertionScheme.STANDARD).buckets(8, 4)
                .stashCapacity(3).keyFormat(FlowKeyFormat.IPV4_ONLY).userSlots(1).build();
        for (int i = 0; small.size() < small.slots(); i++) {
            small.updateIpv4(i, 1, 2, 3, 6, 0, 10, 0);
        }
        assertThat(small.toByteArray()).hasSize((int) small.plan().fullImageBytes());
    }
}
