package io.linerate.flink.flowmeter;

import static io.linerate.flink.flowmeter.Harnesses.PACKET;
import static io.linerate.flink.flowmeter.Harnesses.send;
import static io.linerate.flink.flowmeter.Harnesses.sendAll;
import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.flink.flowmeter.Packets.Expected;
import io.linerate.flink.flowmeter.Packets.Packet;
import io.linerate.flink.rejects.Rejected;
import io.linerate.sketches.flowtable.ExportReason;
import io.linerate.sketches.hash.FiveTuple;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

/** The flow meter in an operator test harness: exact records, reasons, timers, late and malformed records. */
@SuppressWarnings("try") // the harness's close() may throw InterruptedException
class FlowMeterHarnessTest {

    private static final long IDLE = 10_000;
    private static final long ACTIVE = 60_000;

    private static FlowMeter<Packet, String> meter(long capacity) {
        return Packets.meter().capacity(capacity).idleTimeout(Duration.ofMillis(IDLE))
                .activeTimeout(Duration.ofMillis(ACTIVE)).tick(Duration.ofSeconds(1)).build();
    }

    private static MeteredFlow<String> flow(String scope, int flowId, long packets, long bytes, long first, long last,
                                            int flags, ExportReason reason) {
        MeteredFlow<String> f = new MeteredFlow<>();
        Packet p = new Packet(scope, flowId, 0, 0, 0);
        f.scope = scope;
        f.srcLow = p.src & 0xFFFF_FFFFL;
        f.dstLow = p.dst & 0xFFFF_FFFFL;
        f.srcPort = p.srcPort;
        f.dstPort = p.dstPort;
        f.protocol = p.protocol;
        f.packets = packets;
        f.bytes = bytes;
        f.firstTimestamp = first;
        f.lastTimestamp = last;
        f.tcpFlags = flags;
        f.reason = reason;
        return f;
    }

    private static List<MeteredFlow<String>> drain(
            KeyedOneInputStreamOperatorTestHarness<String, Packet, MeteredFlow<String>> h) {
        List<MeteredFlow<String>> out = h.extractOutputValues();
        h.getOutput().clear();
        return out;
    }

    @Test
    void idleTimeoutFiresFromTheTickTimerWhenTrafficStopsAndNotBefore() throws Exception {
        Harnesses.Metrics metrics = new Harnesses.Metrics();
        try (var h = Harnesses.open(meter(64), null, 1, 0, metrics)) {
            h.open();
            send(h, new Packet("a", 1, 0x02, 100, 0));
            send(h, new Packet("a", 1, 0x10, 200, 1_000));
            send(h, new Packet("a", 1, 0x11, 300, 2_000));
            // one tick timer per tick crossed by the scope's now (ticks ending 1 s, 2 s, 3 s) + end of input
            assertThat(h.numEventTimeTimers()).isEqualTo(4);

            h.processWatermark(11_999); // the last packet is 9,999 ms old: not idle yet
            assertThat(drain(h)).isEmpty();
            assertThat(h.numEventTimeTimers()).isEqualTo(2); // re-armed at 12 s, and the end-of-input timer

            h.processWatermark(12_000); // idle for exactly idleTimeout: exported by the timer's sweep
            assertThat(drain(h)).containsExactly(flow("a", 1, 3, 600, 0, 2_000, 0x13, ExportReason.IDLE_TIMEOUT));
            // the sweep emptied the table: the quiet scope's table and timers are freed, not kept at full capacity;
            // only its now (one long) stays
            assertThat(Harnesses.tableImage(h, "a")).isNull();
            assertThat(h.numKeyedStateEntries()).isEqualTo(1);
            assertThat(h.numEventTimeTimers()).isZero();
            assertThat(metrics.count("flowsIdleTimeout")).isEqualTo(1);
            assertThat(metrics.count("itemsProcessed")).isEqualTo(3);
            assertThat(metrics.gaugeValue("activeFlows")).isEqualTo(0);

            send(h, new Packet("a", 1, 0x02, 100, 30_000)); // the scope's next packet starts a new table
            assertThat(h.numKeyedStateEntries()).isEqualTo(1);
            h.processWatermark(Long.MAX_VALUE);
            assertThat(drain(h)).containsExactly(flow("a", 1, 1, 100, 30_000, 30_000, 0x02, ExportReason.FLUSHED));
            assertThat(h.numKeyedStateEntries()).isZero();
            assertThat(h.numEventTimeTimers()).isZero();
        }
    }

    /** Near Long.MAX_VALUE the next tick overflows: the timers neither wrap nor re-fire without end. */
    @Test
    void timersNearTheEndOfTimeNeitherWrapNorLoop() throws Exception {
        org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofSeconds(20), () -> {
            try (var h = Harnesses.open(meter(64), null, 1, 0, new Harnesses.Metrics())) {
                h.open();
                send(h, new Packet("a", 1, 0x02, 100, Long.MAX_VALUE - 50_000));
                send(h, new Packet("a", 2, 0x02, 100, Long.MAX_VALUE - 3));
                h.processWatermark(Long.MAX_VALUE - 2); // flow 1 idle: swept; flow 2 stays
                assertThat(drain(h)).extracting(f -> f.reason).containsExactly(ExportReason.IDLE_TIMEOUT);
                h.processWatermark(Long.MAX_VALUE - 1);
                h.processWatermark(Long.MAX_VALUE);
                assertThat(drain(h)).extracting(f -> f.reason).containsExactly(ExportReason.FLUSHED);
                assertThat(h.numEventTimeTimers()).isZero();
            }
        });
    }

    @Test
    void aSelectorThatThrowsAnyRuntimeExceptionRejectsThePacketNotTheJob() throws Exception {
        FlowMeter<Packet, String> meter = Packets.meter().capacity(64)
                .bytes(p -> Math.multiplyExact(p.length, 1L << 40)) // user arithmetic that can overflow
                .build();
        Harnesses.Metrics metrics = new Harnesses.Metrics();
        try (var h = Harnesses.open(meter, null, 1, 0, metrics)) {
            h.open();
            Packet good = new Packet("a", 1, 0, 100, 1_000);
            Packet huge = new Packet("a", 2, 0, 1L << 30, 1_000);
            send(h, good);
            send(h, huge);
            h.processWatermark(Long.MAX_VALUE);
            List<Rejected<Packet>> rejected = h.getSideOutput(meter.malformedTag(PACKET)).stream()
                    .map(StreamRecord::getValue).collect(Collectors.toList());
            assertThat(rejected).extracting(r -> r.record).containsExactly(huge);
            assertThat(rejected.get(0).reason).contains("selector failed", "ArithmeticException", "long overflow");
            assertThat(metrics.count("malformedRecords")).isEqualTo(1);
            assertThat(h.extractOutputValues()).containsExactly(
                    flow("a", 1, 1, 100L << 40, 1_000, 1_000, 0, ExportReason.FLUSHED));
        }
    }

    @Test
    void activeIdleAndFlushedReasonsAreExact() throws Exception {
        Harnesses.Metrics metrics = new Harnesses.Metrics();
        try (var h = Harnesses.open(meter(64), null, 1, 0, metrics)) {
            h.open();
            // flow 2: a packet every 5 s from 20 s to 90 s; at 80 s it has lasted activeTimeout
            // flow 3: packets at 20 s and 35 s (15 s gap > idle), then nothing until the end
            for (long t = 20_000; t <= 90_000; t += 5_000) {
                send(h, new Packet("a", 2, 0x10, 100, t));
                if (t == 20_000 || t == 35_000) {
                    send(h, new Packet("a", 3, 0x01, 50, t));
                }
            }
            assertThat(h.numEventTimeTimers()).as("one timer per tick crossed, never per packet or flow")
                    .isEqualTo(15 + 1);
            List<MeteredFlow<String>> before = drain(h);
            // certain before any watermark: flow 2's packet at 80 s ends its record (ACTIVE), flow 3's at 35 s
            // ends its first (IDLE), whether that packet or the table's amortised sweep found them expired
            assertThat(before).contains(
                    flow("a", 2, 12, 1_200, 20_000, 75_000, 0x10, ExportReason.ACTIVE_TIMEOUT),
                    flow("a", 3, 1, 50, 20_000, 20_000, 0x01, ExportReason.IDLE_TIMEOUT));
            assertThat(before).noneMatch(f -> f.reason == ExportReason.FLUSHED);

            h.processWatermark(Long.MAX_VALUE); // end of a bounded input
            List<MeteredFlow<String>> after = drain(h);
            // flow 3's second record is idle at the scope's now (90 s): the amortised sweep or, at the latest,
            // the tick timers' full sweep exports it as IDLE; flow 2's last record is not idle, and only the
            // end-of-input timer exports it
            assertThat(after).contains(flow("a", 2, 3, 300, 80_000, 90_000, 0x10, ExportReason.FLUSHED));
            List<MeteredFlow<String>> all = new ArrayList<>(before);
            all.addAll(after);
            assertThat(all).containsExactlyInAnyOrder(
                    flow("a", 2, 12, 1_200, 20_000, 75_000, 0x10, ExportReason.ACTIVE_TIMEOUT),
                    flow("a", 3, 1, 50, 20_000, 20_000, 0x01, ExportReason.IDLE_TIMEOUT),
                    flow("a", 3, 1, 50, 35_000, 35_000, 0x01, ExportReason.IDLE_TIMEOUT),
                    flow("a", 2, 3, 300, 80_000, 90_000, 0x10, ExportReason.FLUSHED));
            assertThat(h.numEventTimeTimers()).isZero();
            assertThat(h.numKeyedStateEntries()).as("the flushed scope's table is cleared").isZero();
            assertThat(metrics.count("flowsExported")).isEqualTo(4);
            assertThat(metrics.count("flowsActiveTimeout")).isEqualTo(1);
            assertThat(metrics.count("flowsFlushed")).isEqualTo(1);
        }
    }

    @Test
    void everyPacketIsInExactlyOneRecordThatMatchesTheModel() throws Exception {
        List<Packet> packets = Packets.churn(7, 6_000, 4);
        Harnesses.Metrics metrics = new Harnesses.Metrics();
        List<MeteredFlow<String>> out;
        try (var h = Harnesses.open(meter(1_000), null, 1, 0, metrics)) {
            h.open();
            sendAll(h, packets, 100, 2_000);
            long lastWatermark = packets.get(packets.size() / 100 * 100 - 1).ts - 2_000;
            h.processWatermark(Long.MAX_VALUE);
            out = h.extractOutputValues();
            Map<String, Long> horizon = new HashMap<>();
            for (Packet p : packets) {
                long tickEnd = (p.ts / 1_000 + 1) * 1_000;
                horizon.merge(p.scope, Math.max(tickEnd, (lastWatermark / 1_000 + 1) * 1_000), Math::max);
            }
            List<Expected> expected = Packets.model(packets, IDLE, ACTIVE, horizon);
            assertThat(out).hasSameSizeAs(expected);
            List<MeteredFlow<String>> unmatched = new ArrayList<>(out);
            for (Expected e : expected) {
                MeteredFlow<String> hit = unmatched.stream().filter(e::matches).findFirst().orElse(null);
                assertThat(hit).as("record %s", e).isNotNull();
                unmatched.remove(hit);
            }
            assertThat(out.stream().mapToLong(f -> f.packets).sum()).isEqualTo(packets.size());
            assertThat(out.stream().map(f -> f.reason).distinct())
                    .contains(ExportReason.IDLE_TIMEOUT, ExportReason.FLUSHED);
            assertThat(metrics.count("itemsProcessed")).isEqualTo(packets.size());
            assertThat(metrics.count("flowsExported")).isEqualTo(out.size());
            assertThat(metrics.count("evictions")).isZero();
            assertThat(metrics.count("lateRecords")).isZero();
        }
    }

    @Test
    void evictionsNeverLoseAPacketOrAByte() throws Exception {
        // 16-flow tables with a 4-entry stash meet ~60 live flows per scope: many evictions
        FlowMeter<Packet, String> small = Packets.meter().capacity(16).stashCapacity(4)
                .idleTimeout(Duration.ofMillis(IDLE)).activeTimeout(Duration.ofMillis(ACTIVE)).build();
        List<Packet> packets = Packets.churn(11, 5_000, 2);
        Harnesses.Metrics metrics = new Harnesses.Metrics();
        try (var h = Harnesses.open(small, null, 1, 0, metrics)) {
            h.open();
            sendAll(h, packets, 50, 1_000);
            h.processWatermark(Long.MAX_VALUE);
            List<MeteredFlow<String>> out = h.extractOutputValues();
            Map<String, long[]> sent = new HashMap<>();
            for (Packet p : packets) {
                long[] s = sent.computeIfAbsent(p.scope + p.tuple(), k -> new long[3]);
                s[0]++;
                s[1] += p.length;
                s[2] |= p.flags;
            }
            Map<String, long[]> metered = new HashMap<>();
            for (MeteredFlow<String> f : out) {
                long[] m = metered.computeIfAbsent(f.scope + f.fiveTuple(), k -> new long[3]);
                m[0] += f.packets;
                m[1] += f.bytes;
                m[2] |= f.tcpFlags;
            }
            assertThat(metered.keySet()).isEqualTo(sent.keySet());
            sent.forEach((flow, s) -> assertThat(metered.get(flow)).as(flow).containsExactly(s));
            long evicted = out.stream().filter(f -> f.reason == ExportReason.EVICTED).count();
            assertThat(evicted).isGreaterThan(100);
            assertThat(metrics.count("evictions")).isEqualTo(evicted);
            assertThat((Long) metrics.gaugeValue("stateBytesPerKey")).isPositive();
        }
    }

    @Test
    void malformedRecordsGoToTheSideOutputAndChangeNothing() throws Exception {
        FlowMeter<Packet, String> meter = Packets.meter().capacity(64)
                .packets((p, sink) -> {
                    if (p.protocol == 99) {
                        return; // hands over nothing
                    }
                    sink.ipv4(p.src, p.dst, p.srcPort, p.dstPort, p.protocol);
                })
                .build();
        Harnesses.Metrics metrics = new Harnesses.Metrics();
        try (var h = Harnesses.open(meter, null, 1, 0, metrics)) {
            h.open();
            Packet good = new Packet("a", 1, 0, 100, 1_000);
            Packet badPort = new Packet("a", 2, 0, 100, 1_000);
            badPort.srcPort = 70_000;
            Packet negative = new Packet("a", 3, 0, -1, 1_000);
            Packet nothing = new Packet("a", 4, 0, 100, 1_000);
            nothing.protocol = 99;
            Packet badFlags = new Packet("a", 5, 0x1_0000, 100, 1_000);
            Packet noTimestamp = new Packet("a", 6, 0, 100, 1_000);
            send(h, good);
            send(h, badPort);
            send(h, negative);
            send(h, nothing);
            send(h, badFlags);
            h.processElement(new StreamRecord<>(noTimestamp)); // no timestamp
            h.processWatermark(Long.MAX_VALUE);

            List<Rejected<Packet>> rejected = h.getSideOutput(meter.malformedTag(PACKET)).stream()
                    .map(StreamRecord::getValue).collect(Collectors.toList());
            assertThat(rejected).extracting(r -> r.record).containsExactly(badPort, negative, nothing, badFlags,
                    noTimestamp);
            assertThat(rejected).extracting(r -> r.reason).satisfiesExactly(
                    r -> assertThat(r).contains("srcPort must be in [0, 65535], got 70000"),
                    r -> assertThat(r).contains("bytes must be >= 0, got -1"),
                    r -> assertThat(r).contains("exactly one 5-tuple, handed 0"),
                    r -> assertThat(r).contains("tcpFlags must be in [0, 65535], got 65536"),
                    r -> assertThat(r).contains("timestamp missing"));
            assertThat(metrics.count("malformedRecords")).isEqualTo(5);
            assertThat(metrics.count("itemsProcessed")).isEqualTo(1);
            assertThat(h.extractOutputValues()).containsExactly(
                    flow("a", 1, 1, 100, 1_000, 1_000, 0, ExportReason.FLUSHED));
        }
    }

    @Test
    void latePacketsAreCountedAndStillMetered() throws Exception {
        Harnesses.Metrics metrics = new Harnesses.Metrics();
        try (var h = Harnesses.open(meter(64), null, 1, 0, metrics)) {
            h.open();
            send(h, new Packet("a", 1, 0, 100, 5_000));
            h.processWatermark(6_000);
            send(h, new Packet("a", 1, 0, 100, 4_000)); // behind the watermark: late, same record
            send(h, new Packet("a", 1, 0, 100, 6_000)); // at the watermark: not late
            h.processWatermark(Long.MAX_VALUE);
            assertThat(metrics.count("lateRecords")).isEqualTo(1);
            assertThat(h.extractOutputValues()).containsExactly(
                    flow("a", 1, 3, 300, 4_000, 6_000, 0, ExportReason.FLUSHED));
        }
    }

    @Test
    void fiveTupleObjectsAndIpv6AreMeteredToo() throws Exception {
        FiveTuple v6 = FiveTuple.parse("2001:db8::1 2001:db8::2 5000 53 17");
        FlowMeter<Packet, String> meter = Packets.meter().capacity(64)
                .packets(PacketSelector.fiveTuples(p -> p.protocol == 17 ? v6 : p.tuple())).build();
        try (var h = Harnesses.open(meter, null, 1, 0, null)) {
            h.open();
            Packet udp = new Packet("a", 1, 0, 80, 1_000);
            udp.protocol = 17;
            send(h, udp);
            send(h, udp);
            send(h, new Packet("a", 2, 0x02, 60, 1_000));
            h.processWatermark(Long.MAX_VALUE);
            assertThat(h.extractOutputValues()).extracting(MeteredFlow::fiveTuple, f -> f.packets, f -> f.bytes)
                    .containsExactlyInAnyOrder(
                            org.assertj.core.groups.Tuple.tuple(v6, 2L, 160L),
                            org.assertj.core.groups.Tuple.tuple(new Packet("a", 2, 0, 0, 0).tuple(), 1L, 60L));
        }
    }

    @Test
    void ipv6PacketsAreMalformedForAnIpv4OnlyTable() throws Exception {
        FiveTuple v6 = FiveTuple.parse("2001:db8::1 2001:db8::2 5000 53 17");
        FlowMeter<Packet, String> meter = Packets.meter().capacity(64)
                .keyFormat(io.linerate.sketches.flowtable.FlowKeyFormat.IPV4_ONLY)
                .packets(PacketSelector.fiveTuples(p -> p.protocol == 17 ? v6 : p.tuple())).build();
        Harnesses.Metrics metrics = new Harnesses.Metrics();
        try (var h = Harnesses.open(meter, null, 1, 0, metrics)) {
            h.open();
            Packet udp = new Packet("a", 1, 0, 80, 1_000);
            udp.protocol = 17;
            send(h, udp);
            send(h, new Packet("a", 2, 0, 60, 1_000));
            h.processWatermark(Long.MAX_VALUE);
            assertThat(h.getSideOutput(meter.malformedTag(PACKET))).singleElement()
                    .satisfies(r -> assertThat(r.getValue().reason).contains("IPV4_ONLY"));
            assertThat(h.extractOutputValues()).singleElement().satisfies(f -> assertThat(f.packets).isEqualTo(1));
            assertThat(metrics.count("malformedRecords")).isEqualTo(1);
        }
    }

    /**
     * A packet the table would refuse, as a scope's first, creates no table and no end-of-input timer: an
     * all-malformed flood over many scopes would otherwise build (and drop) a full-capacity table per packet.
     */
    @Test
    void aRefusedFirstPacketOfAScopeBuildsNoTableAndSetsNoTimer() throws Exception {
        FlowMeter<Packet, String> meter = Packets.meter().capacity(64)
                .keyFormat(io.linerate.sketches.flowtable.FlowKeyFormat.IPV4_ONLY)
                .packets((p, sink) -> {
                    if (p.protocol == 17) {
                        sink.ipv6(1, 2, 3, 4, 5000, 53, 17);
                    } else {
                        sink.ipv4(p.src, p.dst, (p.src & 0xFF) == 1 ? 70_000 : p.srcPort, p.dstPort, p.protocol);
                    }
                }).build();
        Harnesses.Metrics metrics = new Harnesses.Metrics();
        try (var h = Harnesses.open(meter, null, 1, 0, metrics)) {
            h.open();
            Packet udp = new Packet("a", 2, 0, 80, 1_000);
            udp.protocol = 17;
            send(h, udp);
            send(h, new Packet("b", 1, 0, 60, 1_000)); // flow 1: srcPort 70,000
            assertThat(h.getSideOutput(meter.malformedTag(PACKET))).extracting(r -> r.getValue().reason)
                    .satisfiesExactly(r -> assertThat(r).contains("IPV4_ONLY"),
                            r -> assertThat(r).isEqualTo("srcPort must be in [0, 65535], got 70000"));
            assertThat(h.numEventTimeTimers()).isZero();
            assertThat(h.numKeyedStateEntries()).isZero();
            // a good packet of scope a then builds its table as usual
            send(h, new Packet("a", 2, 0, 60, 1_000));
            assertThat(h.numKeyedStateEntries()).isEqualTo(1);
            assertThat(h.numEventTimeTimers()).isPositive();
            h.processWatermark(Long.MAX_VALUE);
            assertThat(h.extractOutputValues()).singleElement().satisfies(f -> assertThat(f.packets).isEqualTo(1));
            assertThat(metrics.count("malformedRecords")).isEqualTo(2);
        }
    }

    @Test
    void aTimestampSelectorReplacesTheFlinkTimestamp() throws Exception {
        FlowMeter<Packet, String> meter = Packets.meter().capacity(64).idleTimeout(Duration.ofMillis(IDLE))
                .timestamps(p -> p.ts).build();
        try (var h = Harnesses.open(meter, null, 1, 0, null)) {
            h.open();
            // the Flink timestamps (or their absence) are ignored: the record's own ts counts
            h.processElement(new StreamRecord<>(new Packet("a", 1, 0, 10, 1_000)));
            h.processElement(new StreamRecord<>(new Packet("a", 1, 0, 10, 2_000), 999_999));
            h.processWatermark(12_000);
            assertThat(h.extractOutputValues()).containsExactly(
                    flow("a", 1, 2, 20, 1_000, 2_000, 0, ExportReason.IDLE_TIMEOUT));
        }
    }

    @Test
    void anIdleFlowLeavesByTheFirstTickAfterItsTimeoutWhileOtherFlowsKeepSending() throws Exception {
        // a large table: the updates' amortised sweep (2 slots each) is unlikely to reach flow 1 first, so it is
        // the tick timers that must find it; the bound holds either way
        Harnesses.Metrics metrics = new Harnesses.Metrics();
        try (var h = Harnesses.open(meter(10_000), null, 1, 0, metrics)) {
            h.open();
            send(h, new Packet("a", 1, 0, 10, 1_500)); // idle from 1.5 s: due at 11.5 s, first tick boundary 12 s
            for (long t = 1_000; t <= 30_000; t += 100) {
                send(h, new Packet("a", 2, 0, 10, t));
                h.processWatermark(t - 50);
                boolean exported = h.extractOutputValues().stream().anyMatch(f -> f.srcPort == 1025);
                if (t - 50 >= 12_000) {
                    assertThat(exported).as("flow 1 exported once the watermark is at %d", t - 50).isTrue();
                } else if (t < 11_500) {
                    assertThat(exported).as("flow 1 not idle yet at %d", t).isFalse();
                }
            }
            assertThat(h.extractOutputValues()).containsExactly(
                    flow("a", 1, 1, 10, 1_500, 1_500, 0, ExportReason.IDLE_TIMEOUT));
            // one chain timer within a tick of the watermark, one per tick the packets entered, end of input
            assertThat(h.numEventTimeTimers()).isLessThanOrEqualTo(3);
        }
    }
}
