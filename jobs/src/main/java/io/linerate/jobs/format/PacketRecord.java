package io.linerate.jobs.format;

import io.linerate.flink.flowmeter.FlowMeter;
import io.linerate.flink.flowmeter.FiveTupleSink;
import io.linerate.flink.flowmeter.PacketSelector;
import io.linerate.flink.items.TimestampOf;
import io.linerate.flink.items.WeightOf;
import io.linerate.sketches.hash.FiveTuple;
import org.apache.flink.api.common.typeinfo.TypeInfo;

/**
 * One packet as the jobs see it: event time (epoch <b>milliseconds</b>, Flink's event-time unit), the IPv4 or IPv6
 * 5-tuple, the IP length in bytes, the TCP flags and the observation point (an {@code int} id: probe, link or
 * capture interface) it was seen at.
 *
 * <p>Mutable and reusable: {@link PacketBatch#forEach} hands ONE instance, refilled for every packet, to its
 * consumer (a flyweight), so operators read packets through selectors ({@link #FIVE_TUPLE}, {@link #TIMESTAMP},
 * {@link #LENGTH}, {@link #TCP_FLAGS}) without allocating. Keep a packet beyond the callback with {@link #copy()}.
 *
 * <p>Addresses are kept as in {@link FiveTuple}: an IPv4 address is the 32-bit value in network order
 * (10.0.0.1 = 0x0A000001) in the low word, zero-extended, with the high word 0; an IPv6 address is its high and
 * low 64 bits in network order. Ranges (checked by {@link #validate()}, the encoder and the decoder): timestamp
 * 0–{@link #MAX_TIMESTAMP}, ports
 * 0–65535, protocol 0–255, TCP flags 0–255 and 0 unless the protocol is TCP (6), length
 * {@value #MIN_IPV4_LENGTH}–{@value #MAX_IPV4_LENGTH} (IPv4 total length) or
 * {@value #MIN_IPV6_LENGTH}–{@value #MAX_IPV6_LENGTH} (IPv6: 40-byte header + payload length, or a jumbogram's
 * length); lengths above 64 KiB come from packets captured before segmentation offload (see {@link #MAX_LENGTH}).
 */
@TypeInfo(PacketRecordTypeInfo.Factory.class)
public final class PacketRecord {

    /**
     * The largest packet timestamp (epoch ms): 2<sup>63</sup> − 1 − (2<sup>31</sup> − 1), the largest base
     * timestamp of the packet-batch format, so that any packet can be the smallest of a batch.
     */
    public static final long MAX_TIMESTAMP = Long.MAX_VALUE - PacketBatch.MAX_SPAN_MS;

    public static final int TCP = 6;
    public static final int MIN_IPV4_LENGTH = 20;
    /**
     * Longest IP length of a record, IPv4 and IPv6 alike: the most a 3-byte length varint of the packet-batch format
     * holds. Above 65,535 (IPv4) and 65,575 (IPv6) only for packets captured before segmentation offload (an IPv4
     * total length of 0, Linux "BIG TCP", up to 512 KiB) and IPv6 jumbograms (RFC 2675).
     */
    public static final int MAX_LENGTH = (1 << 21) - 1;
    public static final int MAX_IPV4_LENGTH = MAX_LENGTH;
    public static final int MIN_IPV6_LENGTH = 40;
    public static final int MAX_IPV6_LENGTH = MAX_LENGTH;

    /** The 5-tuple for the flow meter and {@code ItemSelector}-free callers; allocates nothing. */
    public static final PacketSelector<PacketRecord> FIVE_TUPLE = PacketRecord::sendTo;
    /** The packet's event time, epoch ms. */
    public static final TimestampOf<PacketRecord> TIMESTAMP = PacketRecord::timestamp;
    /** The packet's IP length as a weight (bytes). */
    public static final WeightOf<PacketRecord> LENGTH = PacketRecord::length;
    /** The packet's TCP flags. */
    public static final FlowMeter.TcpFlagsOf<PacketRecord> TCP_FLAGS = PacketRecord::tcpFlags;

    long timestamp;
    boolean ipv6;
    long srcHigh;
    long srcLow;
    long dstHigh;
    long dstLow;
    int srcPort;
    int dstPort;
    int protocol;
    int tcpFlags;
    int length;
    int observationPoint;

    public PacketRecord() {
    }

    /** Makes this an IPv4 packet (addresses as 32-bit network-order values). Returns {@code this}. */
    public PacketRecord setIpv4(long timestamp, int srcAddress, int dstAddress, int srcPort, int dstPort,
                                int protocol, int tcpFlags, int length, int observationPoint) {
        return set(timestamp, false, 0, srcAddress & 0xFFFF_FFFFL, 0, dstAddress & 0xFFFF_FFFFL, srcPort, dstPort,
                protocol, tcpFlags, length, observationPoint);
    }

    /** Makes this an IPv6 packet (each address as high and low 64 bits). Returns {@code this}. */
    public PacketRecord setIpv6(long timestamp, long srcHigh, long srcLow, long dstHigh, long dstLow, int srcPort,
                                int dstPort, int protocol, int tcpFlags, int length, int observationPoint) {
        return set(timestamp, true, srcHigh, srcLow, dstHigh, dstLow, srcPort, dstPort, protocol, tcpFlags, length,
                observationPoint);
    }

    PacketRecord set(long timestamp, boolean ipv6, long srcHigh, long srcLow, long dstHigh, long dstLow, int srcPort,
                     int dstPort, int protocol, int tcpFlags, int length, int observationPoint) {
        this.timestamp = timestamp;
        this.ipv6 = ipv6;
        this.srcHigh = srcHigh;
        this.srcLow = srcLow;
        this.dstHigh = dstHigh;
        this.dstLow = dstLow;
        this.srcPort = srcPort;
        this.dstPort = dstPort;
        this.protocol = protocol;
        this.tcpFlags = tcpFlags;
        this.length = length;
        this.observationPoint = observationPoint;
        return this;
    }

    /** Copies every field of {@code other} into this. Returns {@code this}. */
    public PacketRecord copyFrom(PacketRecord other) {
        return set(other.timestamp, other.ipv6, other.srcHigh, other.srcLow, other.dstHigh, other.dstLow,
                other.srcPort, other.dstPort, other.protocol, other.tcpFlags, other.length, other.observationPoint);
    }

    /** A new, independent copy. */
    public PacketRecord copy() {
        return new PacketRecord().copyFrom(this);
    }

    /** Event time, epoch milliseconds. */
    public long timestamp() {
        return timestamp;
    }

    public boolean isIpv6() {
        return ipv6;
    }

    public long srcHigh() {
        return srcHigh;
    }

    public long srcLow() {
        return srcLow;
    }

    public long dstHigh() {
        return dstHigh;
    }

    public long dstLow() {
        return dstLow;
    }

    /** The IPv4 source address as a 32-bit network-order value (meaningless for IPv6). */
    public int srcIpv4() {
        return (int) srcLow;
    }

    /** The IPv4 destination address as a 32-bit network-order value (meaningless for IPv6). */
    public int dstIpv4() {
        return (int) dstLow;
    }

    public int srcPort() {
        return srcPort;
    }

    public int dstPort() {
        return dstPort;
    }

    public int protocol() {
        return protocol;
    }

    public int tcpFlags() {
        return tcpFlags;
    }

    /** IP length in bytes (IPv4 total length; IPv6 40 + payload length). */
    public int length() {
        return length;
    }

    public int observationPoint() {
        return observationPoint;
    }

    /** Hands the 5-tuple to {@code sink} as primitives (one call, no allocation). */
    public void sendTo(FiveTupleSink sink) {
        if (ipv6) {
            sink.ipv6(srcHigh, srcLow, dstHigh, dstLow, srcPort, dstPort, protocol);
        } else {
            sink.ipv4((int) srcLow, (int) dstLow, srcPort, dstPort, protocol);
        }
    }

    /** The 5-tuple as an object (allocates). */
    public FiveTuple fiveTuple() {
        return ipv6
                ? FiveTuple.ipv6(srcHigh, srcLow, dstHigh, dstLow, srcPort, dstPort, protocol)
                : FiveTuple.ipv4((int) srcLow, (int) dstLow, srcPort, dstPort, protocol);
    }

    /** The source address as text: IPv4 dotted quad, IPv6 in RFC 5952 form. */
    public String srcAddress() {
        return ipv6 ? Addresses.ipv6(srcHigh, srcLow) : Addresses.ipv4((int) srcLow);
    }

    /** The destination address as text: IPv4 dotted quad, IPv6 in RFC 5952 form. */
    public String dstAddress() {
        return ipv6 ? Addresses.ipv6(dstHigh, dstLow) : Addresses.ipv4((int) dstLow);
    }

    /** {@code null} if every field is in range (see the class comment), else the first violation. */
    public String validate() {
        if (timestamp < 0 || timestamp > MAX_TIMESTAMP) {
            return "timestamp must be in [0, " + MAX_TIMESTAMP + "] (epoch ms), got " + timestamp;
        }
        if (!ipv6 && (srcHigh != 0 || dstHigh != 0 || (srcLow >>> 32) != 0 || (dstLow >>> 32) != 0)) {
            return "IPv4 address wider than 32 bits";
        }
        if (srcPort < 0 || srcPort > 0xFFFF) {
            return "srcPort must be in [0, 65535], got " + srcPort;
        }
        if (dstPort < 0 || dstPort > 0xFFFF) {
            return "dstPort must be in [0, 65535], got " + dstPort;
        }
        if (protocol < 0 || protocol > 0xFF) {
            return "protocol must be in [0, 255], got " + protocol;
        }
        if (tcpFlags < 0 || tcpFlags > 0xFF) {
            return "tcpFlags must be in [0, 255], got " + tcpFlags;
        }
        if (tcpFlags != 0 && protocol != TCP) {
            return "tcpFlags must be 0 for protocol " + protocol + " (not TCP), got " + tcpFlags;
        }
        int min = ipv6 ? MIN_IPV6_LENGTH : MIN_IPV4_LENGTH;
        int max = ipv6 ? MAX_IPV6_LENGTH : MAX_IPV4_LENGTH;
        if (length < min || length > max) {
            return "length of an IPv" + (ipv6 ? 6 : 4) + " packet must be in [" + min + ", " + max + "], got "
                    + length;
        }
        return null;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PacketRecord p && timestamp == p.timestamp && ipv6 == p.ipv6 && srcHigh == p.srcHigh
                && srcLow == p.srcLow && dstHigh == p.dstHigh && dstLow == p.dstLow && srcPort == p.srcPort
                && dstPort == p.dstPort && protocol == p.protocol && tcpFlags == p.tcpFlags && length == p.length
                && observationPoint == p.observationPoint;
    }

    @Override
    public int hashCode() {
        long h = timestamp;
        h = h * 31 + srcHigh;
        h = h * 31 + srcLow;
        h = h * 31 + dstHigh;
        h = h * 31 + dstLow;
        h = h * 31 + FiveTuple.meta(ipv6, srcPort, dstPort, protocol);
        h = h * 31 + ((long) tcpFlags << 32 | length);
        h = h * 31 + observationPoint;
        return Long.hashCode(h);
    }

    /** {@code Packet{@ts op=.. src dst srcPort dstPort protocol len=.. flags=0x..}}. */
    @Override
    public String toString() {
        return "Packet{@" + timestamp + " op=" + observationPoint + " " + srcAddress() + " " + dstAddress() + " "
                + srcPort + " " + dstPort + " " + protocol + " len=" + length + " flags=0x"
                + Integer.toHexString(tcpFlags) + "}";
    }
}
