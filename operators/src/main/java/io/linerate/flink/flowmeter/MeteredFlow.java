package io.linerate.flink.flowmeter;

import io.linerate.sketches.flowtable.ExportReason;
import io.linerate.sketches.flowtable.FlowRecord;
import io.linerate.sketches.hash.FiveTuple;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.typeutils.PojoField;
import org.apache.flink.api.java.typeutils.PojoTypeInfo;

/**
 * One flow record the flow meter exported: the scope it was metered in, the 5-tuple, packet and byte counts,
 * first and last packet timestamps (event time, milliseconds), the OR of the packets' TCP flags, and why it was
 * exported. A Flink POJO (public fields, no-argument constructor) serialized field by field through
 * {@link #typeInfo}; the scope keeps the key's own type information.
 *
 * <p>Addresses are stored as in the flow table: for IPv4, {@code srcLow}/{@code dstLow} hold the 32-bit address
 * (network order, zero-extended) and the high words are 0.
 */
public final class MeteredFlow<K> {

    /** The scope key (observation point, link) the flow was metered in. */
    public K scope;
    /** Whether the addresses are IPv6 (all four words) rather than IPv4 (the low words). */
    public boolean ipv6;
    /** Source address, high 64 bits (0 for IPv4). */
    public long srcHigh;
    /** Source address, low 64 bits (for IPv4 the 32-bit address, zero-extended). */
    public long srcLow;
    /** Destination address, high 64 bits (0 for IPv4). */
    public long dstHigh;
    /** Destination address, low 64 bits (for IPv4 the 32-bit address, zero-extended). */
    public long dstLow;
    /** Source port, as the packet selector gave it. */
    public int srcPort;
    /** Destination port, as the packet selector gave it. */
    public int dstPort;
    /** IP protocol number (6 TCP, 17 UDP, ...). */
    public int protocol;
    /** Packets in this record. */
    public long packets;
    /** Bytes in this record (saturating at {@code Long.MAX_VALUE}). */
    public long bytes;
    /** Smallest packet timestamp of this record. */
    public long firstTimestamp;
    /** Largest packet timestamp of this record. */
    public long lastTimestamp;
    /** OR of the TCP flags of the record's packets. */
    public int tcpFlags;
    /** Why the record was exported. */
    public ExportReason reason;

    /** For Flink's POJO serializer. */
    public MeteredFlow() {
    }

    /** A copy of the table's reused record view (which is valid only inside the exporter callback). */
    public static <K> MeteredFlow<K> copyOf(K scope, FlowRecord record) {
        MeteredFlow<K> f = new MeteredFlow<>();
        f.scope = scope;
        f.ipv6 = record.isIpv6();
        f.srcHigh = record.srcHigh();
        f.srcLow = record.srcLow();
        f.dstHigh = record.dstHigh();
        f.dstLow = record.dstLow();
        f.srcPort = record.srcPort();
        f.dstPort = record.dstPort();
        f.protocol = record.protocol();
        f.packets = record.packets();
        f.bytes = record.bytes();
        f.firstTimestamp = record.firstTimestamp();
        f.lastTimestamp = record.lastTimestamp();
        f.tcpFlags = record.tcpFlags();
        f.reason = record.reason();
        return f;
    }

    /** The 5-tuple as an object (allocates). */
    public FiveTuple fiveTuple() {
        return ipv6
                ? FiveTuple.ipv6(srcHigh, srcLow, dstHigh, dstLow, srcPort, dstPort, protocol)
                : FiveTuple.ipv4((int) srcLow, (int) dstLow, srcPort, dstPort, protocol);
    }

    /** Type information of {@code MeteredFlow<K>} for scope keys of type {@code scopeType}. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    public static <K> TypeInformation<MeteredFlow<K>> typeInfo(TypeInformation<K> scopeType) {
        Objects.requireNonNull(scopeType, "scopeType");
        List<PojoField> fields = new ArrayList<>();
        try {
            fields.add(new PojoField(MeteredFlow.class.getField("scope"), scopeType));
            fields.add(new PojoField(MeteredFlow.class.getField("ipv6"), Types.BOOLEAN));
            for (String name : List.of("srcHigh", "srcLow", "dstHigh", "dstLow", "packets", "bytes",
                    "firstTimestamp", "lastTimestamp")) {
                fields.add(new PojoField(MeteredFlow.class.getField(name), Types.LONG));
            }
            for (String name : List.of("srcPort", "dstPort", "protocol", "tcpFlags")) {
                fields.add(new PojoField(MeteredFlow.class.getField(name), Types.INT));
            }
            fields.add(new PojoField(MeteredFlow.class.getField("reason"), Types.ENUM(ExportReason.class)));
        } catch (NoSuchFieldException e) {
            throw new AssertionError(e);
        }
        return (TypeInformation) new PojoTypeInfo<>(MeteredFlow.class, fields);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof MeteredFlow<?> f && Objects.equals(scope, f.scope) && ipv6 == f.ipv6
                && srcHigh == f.srcHigh && srcLow == f.srcLow && dstHigh == f.dstHigh && dstLow == f.dstLow
                && srcPort == f.srcPort && dstPort == f.dstPort && protocol == f.protocol && packets == f.packets
                && bytes == f.bytes && firstTimestamp == f.firstTimestamp && lastTimestamp == f.lastTimestamp
                && tcpFlags == f.tcpFlags && reason == f.reason;
    }

    @Override
    public int hashCode() {
        return Objects.hash(scope, ipv6, srcHigh, srcLow, dstHigh, dstLow, srcPort, dstPort, protocol, packets,
                bytes, firstTimestamp, lastTimestamp, tcpFlags, reason);
    }

    @Override
    public String toString() {
        return "MeteredFlow[" + scope + " " + fiveTuple() + ", packets=" + packets + ", bytes=" + bytes
                + ", first=" + firstTimestamp + ", last=" + lastTimestamp + ", tcpFlags=0x"
                + Integer.toHexString(tcpFlags) + ", " + reason + "]";
    }
}
