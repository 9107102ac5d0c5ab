package io.linerate.flink.flowmeter;

import io.linerate.sketches.flowtable.ExportReason;
import io.linerate.sketches.hash.FiveTuple;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;

/** Test packets, packet streams and the exact flow model the flow meter is checked against. */
final class Packets {

    private Packets() {
    }

    /** A packet record as a job would carry it (a Flink POJO). */
    public static final class Packet {
        public String scope;
        public int src;
        public int dst;
        public int srcPort;
        public int dstPort;
        public int protocol;
        public int flags;
        public long length;
        public long ts;

        public Packet() {
        }

        Packet(String scope, int flow, int flags, long length, long ts) {
            this.scope = scope;
            this.src = 0x0A00_0000 | flow;
            this.dst = 0xC0A8_0001;
            this.srcPort = 1024 + flow % 50_000;
            this.dstPort = 443;
            this.protocol = 6;
            this.flags = flags;
            this.length = length;
            this.ts = ts;
        }

        FiveTuple tuple() {
            return FiveTuple.ipv4(src, dst, srcPort, dstPort, protocol);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Packet p && Objects.equals(scope, p.scope) && src == p.src && dst == p.dst
                    && srcPort == p.srcPort && dstPort == p.dstPort && protocol == p.protocol && flags == p.flags
                    && length == p.length && ts == p.ts;
        }

        @Override
        public int hashCode() {
            return Objects.hash(scope, src, srcPort, ts);
        }

        @Override
        public String toString() {
            return "Packet[" + scope + " " + tuple() + " ts=" + ts + " len=" + length + "]";
        }
    }

    /** A batch record: packets of one scope, as one Flink record (a Flink POJO). */
    public static final class Batch {
        public String scope;
        public Packet[] packets;

        public Batch() {
        }

        Batch(String scope, List<Packet> packets) {
            this.scope = scope;
            this.packets = packets.toArray(new Packet[0]);
        }

        /** The largest packet timestamp: the batch record's Flink timestamp in the tests. */
        long lastTimestamp() {
            long max = Long.MIN_VALUE;
            for (Packet p : packets) {
                max = Math.max(max, p.ts);
            }
            return max;
        }

        @Override
        public String toString() {
            return "Batch[" + scope + " " + java.util.Arrays.toString(packets) + "]";
        }
    }

    /** The packets of a {@link Batch}, without allocating. */
    static final io.linerate.flink.items.ElementsOf<Batch, Packet> ELEMENTS = (batch, each) -> {
        Packet[] packets = batch.packets;
        for (int i = 0; i < packets.length; i++) {
            each.accept(packets[i]);
        }
    };

    /** The meter most tests use: milliseconds, the given timeouts and tick, primitive 5-tuple hand-over. */
    static FlowMeter.Builder<Packet, String> meter() {
        return FlowMeter.<Packet>builder()
                .scope(p -> p.scope, org.apache.flink.api.common.typeinfo.Types.STRING)
                .packets((p, sink) -> sink.ipv4(p.src, p.dst, p.srcPort, p.dstPort, p.protocol))
                .bytes(p -> p.length)
                .tcpFlags(p -> p.flags)
                .seed(42);
    }

    /**
     * A stream with flows that come and go: packet i goes to a flow among 60 of the current "era" (eras of
     * 400 packets overlap by half), timestamps rise by 0–399 ms, so flows start, pause past the idle timeout
     * and stop. Scope = flow mod {@code scopes}.
     */
    static List<Packet> churn(long seed, int packets, int scopes) {
        SplittableRandom random = new SplittableRandom(seed);
        List<Packet> out = new ArrayList<>(packets);
        long ts = 1_000;
        for (int i = 0; i < packets; i++) {
            ts += random.nextInt(400);
            int era = i / 200;
            int flow = era * 30 + random.nextInt(60);
            int flags = 1 << random.nextInt(9);
            out.add(new Packet("s" + (flow % scopes), flow, flags, 40 + random.nextInt(1460), ts));
        }
        return out;
    }

    /** One record of the model: contents exact, reasons allowed. */
    record Expected(String scope, FiveTuple tuple, long packets, long bytes, long first, long last, int flags,
                    EnumSet<ExportReason> reasons) {

        boolean matches(MeteredFlow<String> f) {
            return scope.equals(f.scope) && tuple.equals(f.fiveTuple()) && packets == f.packets && bytes == f.bytes
                    && first == f.firstTimestamp && last == f.lastTimestamp && flags == f.tcpFlags
                    && reasons.contains(f.reason);
        }
    }

    /**
     * NetFlow records of an in-order stream with room for every flow: a flow's packet at t ends the current
     * record if t − last ≥ idle (IDLE_TIMEOUT) or t − first ≥ active (ACTIVE_TIMEOUT). The export may come
     * earlier, from a sweep at some now' ≤ t, which reports IDLE if now' − last ≥ idle and else ACTIVE: so
     * IDLE is possible iff t − last ≥ idle, ACTIVE iff t − first ≥ active and first + active < last + idle
     * (a now' where only the active condition holds). A flow's last record
     * may be swept by {@code horizon} (the latest time the scope's table is advanced to before the flush):
     * IDLE or ACTIVE if that condition holds there; FLUSHED is always possible for it.
     */
    static List<Expected> model(List<Packet> packets, long idle, long active, Map<String, Long> horizon) {
        Map<String, List<Packet>> byFlow = new LinkedHashMap<>();
        for (Packet p : packets) {
            byFlow.computeIfAbsent(p.scope + "|" + p.tuple(), k -> new ArrayList<>()).add(p);
        }
        List<Expected> out = new ArrayList<>();
        for (List<Packet> flow : byFlow.values()) {
            Packet head = flow.get(0);
            long first = head.ts;
            long last = head.ts;
            long count = 0;
            long bytes = 0;
            int flags = 0;
            for (Packet p : flow) {
                if (count > 0) {
                    boolean idled = p.ts - last >= idle;
                    boolean aged = p.ts - first >= active;
                    if (idled || aged) {
                        EnumSet<ExportReason> reasons = EnumSet.noneOf(ExportReason.class);
                        if (idled) {
                            reasons.add(ExportReason.IDLE_TIMEOUT);
                        }
                        if (aged && first + active < last + idle) {
                            reasons.add(ExportReason.ACTIVE_TIMEOUT); // a sweep at now' in [first + active, t]
                        }
                        out.add(new Expected(head.scope, head.tuple(), count, bytes, first, last, flags, reasons));
                        first = p.ts;
                        last = p.ts;
                        count = 0;
                        bytes = 0;
                        flags = 0;
                    }
                }
                count++;
                bytes += p.length;
                flags |= p.flags;
                last = Math.max(last, p.ts);
            }
            EnumSet<ExportReason> reasons = EnumSet.of(ExportReason.FLUSHED);
            long h = horizon.get(head.scope);
            if (h - last >= idle) {
                reasons.add(ExportReason.IDLE_TIMEOUT);
            }
            if (h - first >= active && first + active < last + idle) {
                reasons.add(ExportReason.ACTIVE_TIMEOUT);
            }
            out.add(new Expected(head.scope, head.tuple(), count, bytes, first, last, flags, reasons));
        }
        return out;
    }

    /** Records in a canonical order (scope, tuple, first timestamp) for comparing runs whose keys interleave. */
    static List<MeteredFlow<String>> canonical(List<MeteredFlow<String>> flows) {
        List<MeteredFlow<String>> sorted = new ArrayList<>(flows);
        sorted.sort(Comparator.<MeteredFlow<String>, String>comparing(f -> f.scope)
                .thenComparing(f -> f.fiveTuple().toString()).thenComparingLong(f -> f.firstTimestamp));
        return sorted;
    }
}
