package io.linerate.jobs.format;

import java.util.Locale;

/**
 * The binary Kafka value encoding of a {@link PacketBatch}, version {@value #VERSION} (layout in
 * {@code docs/FORMATS.md}). Big-endian fixed-width fields, except two unsigned LEB128 varints per packet: the
 * timestamp delta from the batch's base (smallest) timestamp, and the IP length.
 *
 * <pre>
 * header (20 bytes): magic "LR" (0x4C 0x52) | version u8 = 1 | flags u8 = 0 | observation point i32
 *                    | count u32 (1..65536) | base timestamp i64 (epoch ms, 0..2^63−1−(2^31−1); so is base + delta)
 * packet (17..47 bytes): ip version u8 (4|6) | protocol u8 | tcp flags u8 | src port u16 | dst port u16
 *                    | timestamp delta varint (≤ 2^31−1) | length varint | src address (4|16) | dst address (4|16)
 * </pre>
 *
 * <p>The decoder checks every byte it reads: bad magic, unknown version, unknown flags, a count outside
 * [1, {@link PacketBatch#MAX_PACKETS}] or larger than the remaining bytes allow ({@value #MIN_PACKET_BYTES} bytes
 * per packet at least) — checked BEFORE any array is sized from it —, a truncated packet, an IP version other than
 * 4 or 6, overlong or too large varints, an impossible length, TCP flags on a non-TCP packet, and trailing bytes.
 * It reports a {@link MalformedRecordException} with the reason and the offset of the first byte of the bad field
 * (relative to the start of the value), and throws nothing else.
 */
public final class PacketBatchCodec {

    public static final byte MAGIC_0 = 0x4C; // 'L'
    public static final byte MAGIC_1 = 0x52; // 'R'
    public static final int VERSION = 1;
    public static final int HEADER_BYTES = 20;
    /** IPv4 packet with 1-byte delta and 1-byte length. */
    public static final int MIN_PACKET_BYTES = 17;
    /** IPv6 packet with 5-byte delta and 3-byte length. */
    public static final int MAX_PACKET_BYTES = 47;
    /** The largest value a v1 encoding can have. */
    public static final int MAX_ENCODED_BYTES = HEADER_BYTES + PacketBatch.MAX_PACKETS * MAX_PACKET_BYTES;
    /** The largest base timestamp: base + any delta still fits a long. */
    public static final long MAX_BASE_TIMESTAMP = Long.MAX_VALUE - PacketBatch.MAX_SPAN_MS;

    /** The decoder as a {@link BytesDecoder}, for {@link KafkaDecoding}. */
    public static final BytesDecoder<PacketBatch> DECODER = PacketBatchCodec::decode;

    private PacketBatchCodec() {
    }

    // ------------------------------------------------------------------ encoder

    /** Bytes {@link #encode} writes for {@code batch}. */
    public static int encodedSize(PacketBatch batch) {
        int n = batch.size();
        long base = batch.minTimestamp();
        int bytes = HEADER_BYTES;
        for (int i = 0; i < n; i++) {
            int addressBytes = batch.ipv6At(i) ? 32 : 8;
            bytes += 7 + addressBytes + varintSize(batch.timestampAt(i) - base) + varintSize(batch.lengthAt(i));
        }
        return bytes;
    }

    /** The encoding of {@code batch} as a new array. */
    public static byte[] encode(PacketBatch batch) {
        byte[] out = new byte[encodedSize(batch)];
        encode(batch, out, 0);
        return out;
    }

    /**
     * Writes {@code batch} into {@code out} from {@code offset}; returns the bytes written.
     *
     * @throws IllegalArgumentException if the batch is empty
     * @throws IndexOutOfBoundsException if {@code out} has fewer than {@link #encodedSize} bytes from offset
     */
    public static int encode(PacketBatch batch, byte[] out, int offset) {
        int n = batch.size();
        if (n == 0) {
            throw new IllegalArgumentException("an empty batch has no encoding (count must be >= 1)");
        }
        long base = batch.minTimestamp();
        int p = offset;
        out[p++] = MAGIC_0;
        out[p++] = MAGIC_1;
        out[p++] = VERSION;
        out[p++] = 0;
        p = putInt(out, p, batch.observationPoint());
        p = putInt(out, p, n);
        p = putLong(out, p, base);
        for (int i = 0; i < n; i++) {
            boolean v6 = batch.ipv6At(i);
            out[p++] = (byte) (v6 ? 6 : 4);
            out[p++] = (byte) batch.protocolAt(i);
            out[p++] = (byte) batch.tcpFlagsAt(i);
            p = putInt(out, p, batch.portsAt(i));
            p = putVarint(out, p, batch.timestampAt(i) - base);
            p = putVarint(out, p, batch.lengthAt(i));
            if (v6) {
                p = putLong(out, p, batch.srcHighAt(i));
                p = putLong(out, p, batch.srcLowAt(i));
                p = putLong(out, p, batch.dstHighAt(i));
                p = putLong(out, p, batch.dstLowAt(i));
            } else {
                p = putInt(out, p, (int) batch.srcLowAt(i));
                p = putInt(out, p, (int) batch.dstLowAt(i));
            }
        }
        return p - offset;
    }

    static int varintSize(long v) {
        int n = 1;
        while ((v >>>= 7) != 0) {
            n++;
        }
        return n;
    }

    private static int putVarint(byte[] out, int p, long v) {
        while ((v & ~0x7FL) != 0) {
            out[p++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        out[p++] = (byte) v;
        return p;
    }

    private static int putInt(byte[] out, int p, int v) {
        out[p] = (byte) (v >>> 24);
        out[p + 1] = (byte) (v >>> 16);
        out[p + 2] = (byte) (v >>> 8);
        out[p + 3] = (byte) v;
        return p + 4;
    }

    private static int putLong(byte[] out, int p, long v) {
        putInt(out, p, (int) (v >>> 32));
        return putInt(out, p + 4, (int) v);
    }

    // ------------------------------------------------------------------ decoder

    /** Decodes a whole Kafka value into a new batch. */
    public static PacketBatch decode(byte[] value) throws MalformedRecordException {
        if (value == null) {
            throw new MalformedRecordException("record has no value (null)", MalformedRecordException.NO_OFFSET);
        }
        return decode(value, 0, value.length, null);
    }

    /**
     * Decodes {@code value[from, from + length)} into {@code reuse} (cleared first; a new batch when
     * {@code null}). Offsets in errors are relative to {@code from}. On error {@code reuse} holds a partial batch.
     */
    public static PacketBatch decode(byte[] value, int from, int length, PacketBatch reuse)
            throws MalformedRecordException {
        if (from < 0 || length < 0 || from > value.length - length) {
            throw new IllegalArgumentException("range [" + from + ", " + from + "+" + length + ") outside an array of "
                    + value.length);
        }
        Reader r = new Reader(value, from, from + length);
        r.need(2, "magic");
        if (value[from] != MAGIC_0 || value[from + 1] != MAGIC_1) {
            throw r.bad(String.format(Locale.ROOT, "bad magic 0x%02x%02x, expected 0x4c52 (\"LR\")", value[from] & 0xFF,
                    value[from + 1] & 0xFF));
        }
        r.skip(2);
        int version = r.u8("version");
        if (version != VERSION) {
            throw r.badAt("unknown version " + version + " (this decoder reads version " + VERSION + ")", 2);
        }
        int flags = r.u8("flags");
        if (flags != 0) {
            throw r.badAt(String.format(Locale.ROOT, "unknown flags 0x%02x (version 1 defines none)", flags), 3);
        }
        int observationPoint = r.i32("observation point");
        int count = r.i32("count");
        if (count < 1 || count > PacketBatch.MAX_PACKETS) {
            throw r.badAt("count " + Integer.toUnsignedString(count) + " outside [1, " + PacketBatch.MAX_PACKETS + "]",
                    8);
        }
        long base = r.i64("base timestamp");
        if (base < 0 || base > MAX_BASE_TIMESTAMP) {
            throw r.badAt("base timestamp " + base + " outside [0, " + MAX_BASE_TIMESTAMP + "]", 12);
        }
        long remaining = r.remaining();
        if ((long) count * MIN_PACKET_BYTES > remaining) {
            throw r.badAt("count " + count + " needs at least " + (long) count * MIN_PACKET_BYTES
                    + " bytes of packets, only " + remaining + " follow the header", 8);
        }
        PacketBatch batch = reuse == null ? new PacketBatch(observationPoint, count) : reuse;
        batch.clear(observationPoint);
        batch.ensureCapacity(count);
        for (int i = 0; i < count; i++) {
            r.packet = i;
            int ipVersion = r.u8("IP version");
            if (ipVersion != 4 && ipVersion != 6) {
                throw r.badAt("IP version " + ipVersion + ", expected 4 or 6", r.pos - 1 - r.from);
            }
            boolean v6 = ipVersion == 6;
            int protocol = r.u8("protocol");
            int tcpFlags = r.u8("TCP flags");
            if (tcpFlags != 0 && protocol != PacketRecord.TCP) {
                throw r.badAt("TCP flags 0x" + Integer.toHexString(tcpFlags) + " on a packet of protocol " + protocol
                        + " (not TCP)", r.pos - 1 - r.from);
            }
            int srcPort = r.u16("source port");
            int dstPort = r.u16("destination port");
            long delta = r.varint("timestamp delta", 5);
            if (delta > PacketBatch.MAX_SPAN_MS) {
                throw r.badAt("timestamp delta " + delta + " over " + PacketBatch.MAX_SPAN_MS, r.fieldStart);
            }
            // Every timestamp must be a valid base itself: after a keyBy the batch is encoded again with its smallest
            // timestamp as the base, and that encoding must decode (base + delta cannot overflow: both are bounded).
            if (delta > MAX_BASE_TIMESTAMP - base) {
                throw r.badAt("timestamp " + (base + delta) + " (base + delta) above " + MAX_BASE_TIMESTAMP,
                        r.fieldStart);
            }
            long len = r.varint("length", 3);
            int min = v6 ? PacketRecord.MIN_IPV6_LENGTH : PacketRecord.MIN_IPV4_LENGTH;
            int max = v6 ? PacketRecord.MAX_IPV6_LENGTH : PacketRecord.MAX_IPV4_LENGTH;
            if (len < min || len > max) {
                throw r.badAt("impossible length " + len + " of an IPv" + ipVersion + " packet, expected [" + min
                        + ", " + max + "]", r.fieldStart);
            }
            long sHigh = 0;
            long sLow;
            long dHigh = 0;
            long dLow;
            if (v6) {
                r.need(32, "IPv6 addresses");
                sHigh = r.i64("source address");
                sLow = r.i64("source address");
                dHigh = r.i64("destination address");
                dLow = r.i64("destination address");
            } else {
                r.need(8, "IPv4 addresses");
                sLow = r.i32("source address") & 0xFFFF_FFFFL;
                dLow = r.i32("destination address") & 0xFFFF_FFFFL;
            }
            batch.append(base + delta, v6, sHigh, sLow, dHigh, dLow, srcPort, dstPort, protocol, tcpFlags, (int) len);
        }
        r.packet = -1;
        if (r.remaining() != 0) {
            throw r.badAt(r.remaining() + " trailing bytes after the last of " + count + " packets", r.pos - r.from);
        }
        return batch;
    }

    /** Bounds-checked big-endian reads; every failure is a {@link MalformedRecordException} with an offset. */
    private static final class Reader {
        final byte[] b;
        final int from;
        final int end;
        int pos;
        int fieldStart;
        int packet = -1;

        Reader(byte[] b, int from, int end) {
            this.b = b;
            this.from = from;
            this.end = end;
            this.pos = from;
        }

        long remaining() {
            return end - pos;
        }

        void skip(int n) {
            pos += n;
        }

        void need(int n, String field) throws MalformedRecordException {
            if (end - pos < n) {
                throw badAt("truncated: " + field + " needs " + n + " bytes, " + (end - pos) + " left", pos - from);
            }
        }

        int u8(String field) throws MalformedRecordException {
            need(1, field);
            return b[pos++] & 0xFF;
        }

        int u16(String field) throws MalformedRecordException {
            need(2, field);
            int v = (b[pos] & 0xFF) << 8 | (b[pos + 1] & 0xFF);
            pos += 2;
            return v;
        }

        int i32(String field) throws MalformedRecordException {
            need(4, field);
            int v = (b[pos] & 0xFF) << 24 | (b[pos + 1] & 0xFF) << 16 | (b[pos + 2] & 0xFF) << 8 | (b[pos + 3] & 0xFF);
            pos += 4;
            return v;
        }

        long i64(String field) throws MalformedRecordException {
            need(8, field);
            long high = i32(field) & 0xFFFF_FFFFL;
            return high << 32 | (i32(field) & 0xFFFF_FFFFL);
        }

        /** Unsigned LEB128 of at most {@code maxBytes} bytes, minimal (no trailing 0x80 .. 0x00 padding). */
        long varint(String field, int maxBytes) throws MalformedRecordException {
            fieldStart = pos - from;
            long v = 0;
            for (int i = 0; i < maxBytes; i++) {
                if (pos >= end) {
                    throw badAt("truncated: " + field + " varint ends after " + i + " bytes", fieldStart);
                }
                int x = b[pos++] & 0xFF;
                v |= (long) (x & 0x7F) << (7 * i);
                if ((x & 0x80) == 0) {
                    if (x == 0 && i > 0) {
                        throw badAt("overlong " + field + " varint (" + (i + 1) + " bytes for " + v + ")",
                                fieldStart);
                    }
                    return v;
                }
            }
            throw badAt(field + " varint longer than " + maxBytes + " bytes", fieldStart);
        }

        MalformedRecordException bad(String reason) {
            return badAt(reason, pos - from);
        }

        MalformedRecordException badAt(String reason, long offset) {
            return new MalformedRecordException(packet >= 0 ? "packet " + packet + ": " + reason : reason, offset);
        }
    }
}
