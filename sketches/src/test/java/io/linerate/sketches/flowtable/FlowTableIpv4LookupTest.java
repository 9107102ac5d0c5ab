package io.linerate.sketches.flowtable;

import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.sketches.hash.FiveTuple;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The IPv4-only lookup path (two key longs per slot), for every scheme with and without the summary: every
 * packet lands in its own flow at loads up to the stash, lazily deleted entries are never found (also when
 * the same flow lives again in a later sub-table), and the sweep still exports exactly the idle flows.
 */
class FlowTableIpv4LookupTest {

    private static FlowTable.Builder ipv4(InsertionScheme scheme, boolean summary, List<ExportReason> sink) {
        return FlowTable.builder().capacity(2000).scheme(scheme).summary(summary)
                .keyFormat(FlowKeyFormat.IPV4_ONLY).stashCapacity(256)
                .exporter(r -> sink.add(r.reason())) // the record is a view: keep what is needed now
                .idleTimeout(Long.MAX_VALUE).activeTimeout(Long.MAX_VALUE);
    }

    private static int[] flow(int i) {
        return new int[] {0x0A000000 | i, 0xC0A80000 | (i * 7919 & 0xFFFF), 1024 + i % 50_000, 443, i % 3 == 0 ? 17 : 6};
    }

    @ParameterizedTest
    @EnumSource(value = InsertionScheme.class, names = {"STANDARD", "SECOND_CHANCE", "SECOND_CHANCE_2",
        "CONSERVATIVE", "EXTREME_SECOND_CHANCE"})
    void everyPacketIsCountedInItsOwnFlow(InsertionScheme scheme) {
        for (boolean summary : new boolean[] {false, true}) {
            List<ExportReason> sink = new ArrayList<>();
            FlowTable t = ipv4(scheme, summary, sink).build();
            Map<Integer, long[]> truth = new HashMap<>();
            SplittableRandom rnd = new SplittableRandom(11);
            for (int p = 0; p < 40_000; p++) {
                int i = p < 1800 ? p : rnd.nextInt(1800); // 90% of the capacity, every flow seen first in turn
                int[] f = flow(i);
                int len = 40 + rnd.nextInt(1000);
                t.updateIpv4(f[0], f[1], f[2], f[3], f[4], 0, len, p);
                long[] c = truth.computeIfAbsent(i, k -> new long[2]);
                c[0]++;
                c[1] += len;
            }
            assertThat(t.evictions()).as("%s summary=%b", scheme, summary).isZero();
            assertThat(t.size()).isEqualTo(1800);
            for (int i = 0; i < 1800; i++) {
                int[] f = flow(i);
                FlowRecord r = t.record(t.find(FiveTuple.ipv4(f[0], f[1], f[2], f[3], f[4])));
                assertThat(r.packets()).as("%s summary=%b flow %d", scheme, summary, i).isEqualTo(truth.get(i)[0]);
                assertThat(r.bytes()).isEqualTo(truth.get(i)[1]);
            }
            assertThat(t.find(FiveTuple.ipv4(0x0A000000, 1, 2, 3, 6))).isEqualTo(-1);
        }
    }

    @ParameterizedTest
    @EnumSource(value = InsertionScheme.class, names = {"STANDARD", "SECOND_CHANCE", "SECOND_CHANCE_2"})
    void aLazilyDeletedFlowIsNeverFoundAndStartsAgainElsewhere(InsertionScheme scheme) {
        List<ExportReason> sink = new ArrayList<>();
        FlowTable t = ipv4(scheme, false, sink).build();
        int[] slotOf = new int[1500];
        for (int i = 0; i < 1500; i++) {
            int[] f = flow(i);
            slotOf[i] = t.updateIpv4(f[0], f[1], f[2], f[3], f[4], 0, 100, i);
        }
        int firstLevelSlots = t.layout().buckets(0) * t.layout().bucketCapacity();
        int deleted = 0;
        for (int i = 0; i < 1500 && deleted < 50; i++) {
            int[] f = flow(i);
            if (slotOf[i] < firstLevelSlots && t.find(FiveTuple.ipv4(f[0], f[1], f[2], f[3], f[4])) == slotOf[i]) {
                assertThat(t.removeLazily(FiveTuple.ipv4(f[0], f[1], f[2], f[3], f[4]))).isTrue();
                assertThat(t.find(FiveTuple.ipv4(f[0], f[1], f[2], f[3], f[4]))).isEqualTo(-1);
                // the flow comes back: a new entry somewhere else, its old key still in its old slot
                int again = t.updateIpv4(f[0], f[1], f[2], f[3], f[4], 0, 7, 10_000 + i);
                assertThat(again).isNotEqualTo(slotOf[i]);
                assertThat(t.updateIpv4(f[0], f[1], f[2], f[3], f[4], 0, 7, 10_001 + i)).isEqualTo(again);
                FlowRecord r = t.record(t.find(FiveTuple.ipv4(f[0], f[1], f[2], f[3], f[4])));
                assertThat(r.packets()).isEqualTo(2);
                assertThat(r.bytes()).isEqualTo(14);
                deleted++;
            }
        }
        assertThat(deleted).isEqualTo(50);
        assertThat(sink).hasSize(50).containsOnly(ExportReason.REMOVED);
        assertThat(t.size()).isEqualTo(1500);
        // an image holds each deleted entry beside its flow's live one: a legal image, not a flow stored twice
        byte[] image = t.toByteArray();
        assertThat(FlowTable.fromByteArray(image, null).toByteArray()).isEqualTo(image);
        t.rebuild();
        int[] live = {0};
        t.forEach(r -> live[0]++);
        assertThat(live[0]).isEqualTo(1500);
        for (int i = 0; i < 1500; i++) {
            int[] f = flow(i);
            assertThat(t.find(FiveTuple.ipv4(f[0], f[1], f[2], f[3], f[4]))).as("flow %d", i).isNotNegative();
        }
    }

    @ParameterizedTest
    @EnumSource(value = InsertionScheme.class, names = {"STANDARD", "SECOND_CHANCE", "SECOND_CHANCE_2"})
    void theSweepExportsExactlyTheIdleFlows(InsertionScheme scheme) {
        List<Long> idle = new ArrayList<>();
        FlowTable t = FlowTable.builder().capacity(2000).scheme(scheme).keyFormat(FlowKeyFormat.IPV4_ONLY)
                .idleTimeout(1000).activeTimeout(1_000_000).sweepSlotsPerUpdate(4)
                .exporter(r -> {
                    assertThat(r.reason()).isEqualTo(ExportReason.IDLE_TIMEOUT);
                    idle.add(r.srcLow());
                }).build();
        for (int i = 0; i < 1800; i++) {
            int[] f = flow(i);
            t.updateIpv4(f[0], f[1], f[2], f[3], f[4], 0, 100, 0);
        }
        // flows 0..899 get a packet every 225 time units and stay active; 900..1799 go idle at time 1000, and
        // two full passes of the sweep follow
        int packets = 4000 + 2 * (t.slots() / 4 + 1);
        for (int p = 0; p < packets; p++) {
            int[] f = flow(p % 900);
            t.updateIpv4(f[0], f[1], f[2], f[3], f[4], 0, 100, 1 + p / 4);
        }
        assertThat(idle).hasSize(900);
        assertThat(idle).allMatch(src -> (src & 0xFFFF) >= 900);
        assertThat(t.size()).isEqualTo(900);
    }

    /**
     * Two sub-tables, the fewest the inline hit path of updateIpv4 serves (it reads the key's slots in sub-tables 1
     * and 2): a second packet of every flow finds it, wherever it went; the table's default sizes have d = 4.
     */
    @ParameterizedTest
    @EnumSource(value = InsertionScheme.class, names = {"STANDARD", "SECOND_CHANCE"})
    void withTwoSubTablesEverySecondPacketFindsItsFlow(InsertionScheme scheme) {
        FlowTable t = ipv4(scheme, false, new ArrayList<>()).buckets(64, 48).stashCapacity(64).build();
        int flows = 100; // beyond sub-table 1's 64 buckets: many flows live in sub-table 2
        for (int round = 0; round < 2; round++) {
            for (int i = 0; i < flows; i++) {
                int[] f = flow(i);
                assertThat(t.updateIpv4(f[0], f[1], f[2], 443, f[4], 0, 100, round)).isNotNegative();
            }
        }
        assertThat(t.size()).as("one entry per flow").isEqualTo(flows);
        for (int i = 0; i < flows; i++) {
            int[] f = flow(i);
            assertThat(t.record(t.find(FiveTuple.ipv4(f[0], f[1], f[2], 443, f[4]))).packets()).isEqualTo(2);
        }
        assertThat(t.load(1)).as("sub-table 2 used").isPositive();
    }

    /** One sub-table (buckets of one slot, no summary): the lookup without the two-sub-table shortcut. */
    @org.junit.jupiter.api.Test
    void withOneSubTableEverySecondPacketFindsItsFlow() {
        FlowTable t = ipv4(InsertionScheme.STANDARD, false, new ArrayList<>()).buckets(64).stashCapacity(64).build();
        for (int round = 0; round < 2; round++) {
            for (int i = 0; i < 80; i++) { // beyond the 64 buckets: some flows live in the stash
                int[] f = flow(i);
                assertThat(t.updateIpv4(f[0], f[1], f[2], f[3], f[4], 0, 100, round)).isNotNegative();
            }
        }
        assertThat(t.size()).as("one entry per flow").isEqualTo(80);
        for (int i = 0; i < 80; i++) {
            int[] f = flow(i);
            assertThat(t.record(t.find(FiveTuple.ipv4(f[0], f[1], f[2], f[3], f[4]))).packets()).isEqualTo(2);
        }
    }

    /**
     * The summary's counters (FlowTable's summaryLookups, summaryFalsePositives, summaryFailures): every update and
     * find of a table with a summary consults it once, and a few of the lookups for absent keys (B0's false
     * positives, at most its design rate of 0.6%) waste a bucket read; a table without one counts nothing, for
     * either key format.
     */
    @ParameterizedTest
    @EnumSource(FlowKeyFormat.class)
    void theSummaryCountersCountLookupsOnlyInATableWithASummary(FlowKeyFormat format) {
        for (boolean summary : new boolean[] {false, true}) {
            FlowTable t = ipv4(InsertionScheme.SECOND_CHANCE, summary, new ArrayList<>()).keyFormat(format).build();
            for (int i = 0; i < 3600; i++) { // 1,800 new flows (90% of the capacity), then a second packet of each
                int[] f = flow(i % 1800);
                t.updateIpv4(f[0], f[1], f[2], f[3], f[4], 0, 100, i);
            }
            for (int i = 0; i < 3800; i++) { // 1,800 present keys, 2,000 absent
                int[] f = flow(i);
                assertThat(t.find(FiveTuple.ipv4(f[0], f[1], f[2], f[3], f[4])) >= 0).isEqualTo(i < 1800);
            }
            assertThat(t.hasSummary()).isEqualTo(summary);
            String table = format + (summary ? " with a summary" : " without a summary");
            assertThat(t.summaryLookups()).as(table).isEqualTo(summary ? 7400 : 0);
            assertThat(t.summaryFailures()).as(table).isZero();
            if (summary) {
                // 3,800 lookups of absent keys (the new flows' first packets, the finds): 3 with the fixed seed
                assertThat(t.summaryFalsePositives()).as(table).isBetween(1L, 23L);
            } else {
                assertThat(t.summaryFalsePositives()).as(table).isZero();
            }
            // an IPv6 key is in no IPv4-only table (and not in this one, which holds IPv4 flows only)
            assertThat(t.find(FiveTuple.ipv6(0x2001_0db8L << 32, 1, 0, 2, 1024, 443, 6))).isEqualTo(-1);
        }
    }
}
