package io.linerate.jobs.format;

import io.linerate.flink.flowmeter.MeteredFlow;
import io.linerate.sketches.flowtable.ExportReason;
import java.io.IOException;
import java.util.Locale;
import java.util.Objects;

/**
 * Writes a {@link MeteredFlow} as the {@code "flow"} object of {@code docs/FORMATS.md}, by hand into a {@link JsonOut}:
 * the flow meter writes one per flow record, which under a flood of new flows is one per packet, and Jackson's
 * generator took about as long per record as the flow table's update and the Kafka producer's send together. Field
 * names come pre-encoded, numbers and IPv4 addresses are written as ASCII digits without allocating, and the scope
 * key goes through its {@link ValueWriter} (integral keys of {@link ValueWriter#auto()}, the usual observation point
 * numbers, written directly). The text is byte for byte what the generic Jackson version wrote
 * ({@code FlowRecordJsonTest}).
 */
final class FlowRecordJson<K> implements JsonSerialization.Encoder<MeteredFlow<K>> {

    private static final long serialVersionUID = 1L;

    private static final byte[] START = JsonOut.ascii("{\"type\":\"" + OutputJson.FLOW + "\",\"scope\":");
    private static final byte[] IP_VERSION_4 = JsonOut.ascii(",\"ip_version\":4,\"src_addr\":");
    private static final byte[] IP_VERSION_6 = JsonOut.ascii(",\"ip_version\":6,\"src_addr\":");
    private static final byte[] DST_ADDR = JsonOut.ascii(",\"dst_addr\":");
    private static final byte[] SRC_PORT = JsonOut.ascii(",\"src_port\":");
    private static final byte[] DST_PORT = JsonOut.ascii(",\"dst_port\":");
    private static final byte[] PROTOCOL = JsonOut.ascii(",\"protocol\":");
    private static final byte[] PACKETS = JsonOut.ascii(",\"packets\":");
    private static final byte[] BYTES = JsonOut.ascii(",\"bytes\":");
    private static final byte[] FIRST_TIMESTAMP = JsonOut.ascii(",\"first_timestamp\":");
    private static final byte[] LAST_TIMESTAMP = JsonOut.ascii(",\"last_timestamp\":");
    private static final byte[] TCP_FLAGS = JsonOut.ascii(",\"tcp_flags\":");
    private static final byte[] EXPORT_REASON = JsonOut.ascii(",\"export_reason\":");
    private static final byte[] END = JsonOut.ascii("}");
    /** {@code "<reason in lower case>"}, by ordinal. */
    private static final byte[][] REASONS = reasons();

    private final ValueWriter<? super K> scope;

    FlowRecordJson(ValueWriter<? super K> scope) {
        this.scope = Objects.requireNonNull(scope, "scope");
    }

    @Override
    public void encode(MeteredFlow<K> f, JsonOut out) throws IOException {
        out.raw(START);
        K key = f.scope;
        if (scope == AutoValueWriter.INSTANCE && (key instanceof Integer || key instanceof Long || key instanceof Short
                || key instanceof Byte)) {
            out.number(((Number) key).longValue());
        } else {
            out.value(scope, key);
        }
        if (f.ipv6) {
            out.raw(IP_VERSION_6);
            out.quotedPlain(Addresses.ipv6(f.srcHigh, f.srcLow));
            out.raw(DST_ADDR);
            out.quotedPlain(Addresses.ipv6(f.dstHigh, f.dstLow));
        } else {
            out.raw(IP_VERSION_4);
            out.quotedIpv4((int) f.srcLow);
            out.raw(DST_ADDR);
            out.quotedIpv4((int) f.dstLow);
        }
        out.numberField(SRC_PORT, f.srcPort);
        out.numberField(DST_PORT, f.dstPort);
        out.numberField(PROTOCOL, f.protocol);
        out.numberField(PACKETS, f.packets);
        out.numberField(BYTES, f.bytes);
        out.numberField(FIRST_TIMESTAMP, f.firstTimestamp);
        out.numberField(LAST_TIMESTAMP, f.lastTimestamp);
        out.numberField(TCP_FLAGS, f.tcpFlags);
        out.raw(EXPORT_REASON);
        if (f.reason == null) {
            out.nullValue();
        } else {
            out.raw(REASONS[f.reason.ordinal()]);
        }
        out.raw(END);
    }

    private static byte[][] reasons() {
        ExportReason[] values = ExportReason.values();
        byte[][] names = new byte[values.length][];
        for (ExportReason r : values) {
            names[r.ordinal()] = JsonOut.ascii('"' + r.name().toLowerCase(Locale.ROOT) + '"');
        }
        return names;
    }
}
