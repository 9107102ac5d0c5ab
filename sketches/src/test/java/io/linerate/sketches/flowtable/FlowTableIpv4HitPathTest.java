package io.linerate.sketches.flowtable;

import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.sketches.hash.FiveTuple;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The records that {@link FlowTable#updateIpv4} keeps on its hit path (an IPv4-only table without a summary and
 * with one entry per bucket: a flow found in sub-table 1 or 2 is counted without the general lookup) are the ones
 * docs/flowtable.md promises: packets, bytes, the first and last timestamps of out-of-order packets, the OR of the
 * TCP flags, a new record from a packet that comes exactly at the idle or the active timeout, the handle the update
 * returns, and a lazily deleted flow that is never counted again. {@link FlowTableIpv4LookupTest} checks packets
 * and bytes only, with timestamps in order and no timeouts.
 */
class FlowTableIpv4HitPathTest {

    private static final int FLOWS = 200;
    private static final long IDLE = 1_000;
    private static final long ACTIVE = 3_000;
    private static final long SPACING = 10_000; // flow i's packets are at i * SPACING + [0, ACTIVE]

    private static final int SYN = 0x02;
    private static final int PSH = 0x08;
    private static final int ACK = 0x10;
    private static final int FIN = 0x01;

    private final List<FlowRecord> exported = new ArrayList<>();

    /** Load 200/256: most flows in sub-table 1, some in sub-table 2, as the hit path sees them. */
    private FlowTable table() {
        FlowTable t = FlowTable.builder().capacity(256).keyFormat(FlowKeyFormat.IPV4_ONLY).summary(false)
                .scheme(InsertionScheme.SECOND_CHANCE).idleTimeout(IDLE).activeTimeout(ACTIVE)
                .exporter(r -> exported.add(r.copy())).build();
        return t;
    }

    private static int src(int i) {
        return 0x0A00_0000 | i;
    }

    private static FiveTuple key(int i) {
        return FiveTuple.ipv4(src(i), 0xC0A8_0001, 1024 + i, 443, 6);
    }

    private static int update(FlowTable t, int i, int flags, long bytes, long timestamp) {
        int handle = t.updateIpv4(src(i), 0xC0A8_0001, 1024 + i, 443, 6, flags, bytes, timestamp);
        assertThat(handle).as("flow %d: the handle the update returns", i).isEqualTo(t.find(key(i)));
        return handle;
    }

    private List<FlowRecord> recordsOf(int i) {
        List<FlowRecord> records = new ArrayList<>();
        for (FlowRecord r : exported) {
            if (r.srcAddress() == src(i)) {
                records.add(r);
            }
        }
        return records;
    }

    @Test
    void outOfOrderPacketsAndTheIdleTimeoutBoundary() {
        FlowTable t = table();
        for (int i = 0; i < FLOWS; i++) {
            long t0 = i * SPACING;
            update(t, i, SYN, 60, t0);
            update(t, i, ACK, 1500, t0 + 500);
            update(t, i, PSH, 0, t0 + 200); // out of order: neither first nor last moves
            // idle for exactly the idle timeout: the old record ends, this packet starts a new one
            int handle = update(t, i, FIN, 40, t0 + 500 + IDLE);
            assertThat(t.record(handle).packets()).as("flow %d: the new record", i).isEqualTo(1);
        }
        t.flush();
        for (int i = 0; i < FLOWS; i++) {
            long t0 = i * SPACING;
            List<FlowRecord> records = recordsOf(i);
            assertThat(records).as("flow %d", i).hasSize(2);
            check(records.get(0), ExportReason.IDLE_TIMEOUT, 3, 1560, t0, t0 + 500, SYN | ACK | PSH, i);
            FlowRecord second = records.get(1); // the sweep or the flush ends it
            assertThat(second.reason()).isIn(ExportReason.IDLE_TIMEOUT, ExportReason.FLUSHED);
            check(second, second.reason(), 1, 40, t0 + 500 + IDLE, t0 + 500 + IDLE, FIN, i);
        }
    }

    @Test
    void theActiveTimeoutBoundary() {
        FlowTable t = table();
        for (int i = 0; i < FLOWS; i++) {
            long t0 = i * SPACING;
            for (int k = 0; k < 4; k++) {
                update(t, i, ACK, 100, t0 + k * 900); // never idle for IDLE
            }
            update(t, i, FIN, 100, t0 + ACTIVE); // started exactly the active timeout ago
        }
        t.flush();
        for (int i = 0; i < FLOWS; i++) {
            long t0 = i * SPACING;
            List<FlowRecord> records = recordsOf(i);
            assertThat(records).as("flow %d", i).hasSize(2);
            check(records.get(0), ExportReason.ACTIVE_TIMEOUT, 4, 400, t0, t0 + 2700, ACK, i);
            assertThat(records.get(1).packets()).isEqualTo(1);
            assertThat(records.get(1).firstTimestamp()).isEqualTo(t0 + ACTIVE);
        }
    }

    @Test
    void aLazilyDeletedFlowIsNotCountedAgain() {
        FlowTable t = FlowTable.builder().capacity(256).keyFormat(FlowKeyFormat.IPV4_ONLY).summary(false)
                .scheme(InsertionScheme.SECOND_CHANCE).exporter(r -> exported.add(r.copy())).build();
        for (int i = 0; i < FLOWS; i++) {
            update(t, i, 0, 100, i);
        }
        for (int i = 0; i < FLOWS; i += 2) {
            assertThat(t.removeLazily(key(i))).isTrue();
        }
        for (int i = 0; i < FLOWS; i++) {
            update(t, i, 0, 100, FLOWS + i); // a removed flow starts a new record (in another slot)
        }
        t.flush();
        for (int i = 0; i < FLOWS; i++) {
            List<FlowRecord> records = recordsOf(i);
            if (i % 2 == 0) {
                assertThat(records).as("flow %d", i).hasSize(2);
                assertThat(records.get(0).reason()).isEqualTo(ExportReason.REMOVED);
                assertThat(records.get(0).packets()).isEqualTo(1);
                assertThat(records.get(1).packets()).as("flow %d after its removal", i).isEqualTo(1);
            } else {
                assertThat(records).as("flow %d", i).hasSize(1);
                assertThat(records.get(0).packets()).isEqualTo(2);
            }
        }
    }

    private static void check(FlowRecord r, ExportReason reason, long packets, long bytes, long first, long last,
                              int flags, int flow) {
        String what = "flow " + flow;
        assertThat(r.reason()).as(what).isEqualTo(reason);
        assertThat(r.packets()).as(what + " packets").isEqualTo(packets);
        assertThat(r.bytes()).as(what + " bytes").isEqualTo(bytes);
        assertThat(r.firstTimestamp()).as(what + " first").isEqualTo(first);
        assertThat(r.lastTimestamp()).as(what + " last").isEqualTo(last);
        assertThat(r.tcpFlags()).as(what + " flags").isEqualTo(flags);
    }
}
