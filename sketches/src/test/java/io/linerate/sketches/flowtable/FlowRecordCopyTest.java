package io.linerate.sketches.flowtable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.linerate.sketches.hash.FiveTuple;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** {@link FlowRecord#copy()}: what the exporter saw, kept after the table reused its view and changed. */
class FlowRecordCopyTest {

    /** Every value of a record, read through its accessors. */
    private static String values(FlowRecord r, int userSlots) {
        StringBuilder s = new StringBuilder().append(r.reason()).append(' ').append(r.key()).append(' ')
                .append(r.isIpv6()).append(' ').append(r.srcAddress()).append(' ').append(r.dstAddress()).append(' ')
                .append(r.srcHigh()).append(' ').append(r.srcLow()).append(' ').append(r.dstHigh()).append(' ')
                .append(r.dstLow()).append(' ').append(r.srcPort()).append(' ').append(r.dstPort()).append(' ')
                .append(r.protocol()).append(' ').append(r.tcpFlags()).append(' ').append(r.packets()).append(' ')
                .append(r.bytes()).append(' ').append(r.firstTimestamp()).append(' ').append(r.lastTimestamp());
        for (int i = 0; i < userSlots; i++) {
            s.append(" u").append(r.userSlot(i));
        }
        return s.toString();
    }

    @Test
    void copiesKeepEveryValueTheExporterSaw() {
        List<String> seen = new ArrayList<>();
        List<FlowRecord> copies = new ArrayList<>();
        List<FlowRecord> views = new ArrayList<>();
        FlowTable t = FlowTable.builder().capacity(64).userSlots(2).stashCapacity(4).exporter(r -> {
            seen.add(values(r, 2));
            copies.add(r.copy());
            views.add(r);
        }).build();
        SplittableRandom random = new SplittableRandom(11);
        for (int i = 0; i < 5_000; i++) { // far more flows than the table holds: evictions, views reused
            int flow = random.nextInt(400);
            int slot = flow % 3 == 0
                    ? t.update(FiveTuple.ipv6(0x20010db8_00000000L, flow, 0x20010db8_00000000L, flow + 1,
                            1000 + flow, 443, 6), random.nextInt(256), 40 + random.nextInt(1400), i)
                    : t.updateIpv4(0x0A000000 | flow, 0xC0000201, 2000 + flow, 53, 17, 0, 40 + flow, i);
            t.addToUserSlot(slot, 0, flow);
            t.addToUserSlot(slot, 1, -i);
        }
        t.flush();
        assertThat(copies).hasSizeGreaterThan(1_000);
        for (int i = 0; i < copies.size(); i++) {
            assertThat(values(copies.get(i), 2)).as("copy %d", i).isEqualTo(seen.get(i));
        }
        // the views are one reused object, which is why a copy is needed
        assertThat(views).allSatisfy(v -> assertThat(v).isSameAs(views.get(0)));
        FlowRecord c = copies.get(0);
        assertThat(c.copy()).isSameAs(c);
        assertThatThrownBy(() -> c.userSlot(2)).isInstanceOf(IndexOutOfBoundsException.class)
                .hasMessage("user slot must be in [0, 2), got 2");
        assertThatThrownBy(() -> c.userSlot(-1)).isInstanceOf(IndexOutOfBoundsException.class);
    }

    @Test
    void aCopyOfALiveFlowDoesNotFollowTheTable() {
        FlowTable t = FlowTable.builder().capacity(100).keyFormat(FlowKeyFormat.IPV4_ONLY).build();
        int slot = t.updateIpv4(1, 2, 3, 4, 6, 0x02, 60, 10);
        FlowRecord copy = t.record(slot).copy();
        t.updateIpv4(1, 2, 3, 4, 6, 0x10, 1500, 20);
        assertThat(t.record(slot).packets()).isEqualTo(2);
        assertThat(copy.packets()).isEqualTo(1);
        assertThat(copy.bytes()).isEqualTo(60);
        assertThat(copy.lastTimestamp()).isEqualTo(10);
        assertThat(copy.tcpFlags()).isEqualTo(0x02);
        assertThat(copy.reason()).isNull();
        assertThat(copy.key()).isEqualTo(FiveTuple.ipv4(1, 2, 3, 4, 6));
    }
}
