package io.linerate.jobs.pcap;

import java.io.IOException;

/**
 * Classic libpcap format: a 24-byte file header (magic a1b2c3d4 = microseconds or a1b23c4d = nanoseconds, written
 * in the writer's byte order; version 2.x; snaplen; link type) then records of a 16-byte header (seconds,
 * fraction, captured length, original length) and the captured bytes.
 */
final class ClassicPcapSource implements RecordSource {

    static final int MAGIC_MICROS = 0xA1B2C3D4;
    static final int MAGIC_NANOS = 0xA1B23C4D;
    /**
     * libpcap's {@code MAXIMUM_SNAPLEN}: a record's captured length beyond the file's snaplen is read (cut to the
     * snaplen) up to this size, as libpcap does; beyond it the file is damaged.
     */
    static final int LIBPCAP_MAX_SNAPLEN = 262_144;

    private final InputBuffer in;
    private final long fractionToNanos;
    private final int snaplen;
    private final int linkType;
    private final int maxPacket;

    /** Reads the file header; {@code in} is at offset 0 with at least 4 bytes available. */
    ClassicPcapSource(InputBuffer in, int maxPacket) throws IOException {
        this.in = in;
        this.maxPacket = maxPacket;
        int raw = InputBuffer.be32(in.buf, in.pos);
        in.bigEndian = raw == MAGIC_MICROS || raw == MAGIC_NANOS;
        int magic = in.u32(in.pos);
        fractionToNanos = magic == MAGIC_NANOS ? 1 : 1000;
        int available = in.fill(24);
        if (available < 24) {
            throw new PcapFormatException(0, "truncated pcap file header: expected 24 bytes, the file ends after "
                    + available);
        }
        int major = in.u16(in.pos + 4);
        if (major != 2) {
            throw new PcapFormatException(4, "expected pcap major version 2, got " + major);
        }
        snaplen = in.u32(in.pos + 16);
        // bits 0-15: link type; the upper bits may carry the FCS length, which does not concern the IP headers
        linkType = in.u32(in.pos + 20) & 0xFFFF;
        in.advance(24);
    }

    @Override
    public boolean next(PacketDecoder decoder) throws IOException {
        long at = in.offset();
        int available = in.fill(16);
        if (available == 0) {
            return false;
        }
        if (available < 16) {
            throw new PcapFormatException(at, "truncated record header: expected 16 bytes, the file ends after "
                    + available);
        }
        int p = in.pos;
        long seconds = in.u32(p) & 0xFFFFFFFFL;
        long fraction = in.u32(p + 4) & 0xFFFFFFFFL;
        int caplen = in.u32(p + 8);
        long limit = snaplen != 0 ? Math.min(Math.max(snaplen & 0xFFFFFFFFL, LIBPCAP_MAX_SNAPLEN), maxPacket)
                : maxPacket;
        if ((caplen & 0xFFFFFFFFL) > limit) {
            throw new PcapFormatException(at + 8, "captured length " + Integer.toUnsignedString(caplen)
                    + (limit < maxPacket ? " exceeds the file's snaplen " + Integer.toUnsignedString(snaplen)
                    + " and libpcap's largest, " + LIBPCAP_MAX_SNAPLEN
                    : " exceeds the reader's maximum packet size " + maxPacket));
        }
        available = in.fill(16 + caplen);
        if (available < 16 + caplen) {
            throw new PcapFormatException(at, "truncated packet data: the record declares " + caplen
                    + " captured bytes after its 16-byte header, the file ends after " + (available - 16));
        }
        // a record longer than the snaplen (libpcap 1.5.0-1.5.1 wrote such files): its first snaplen bytes, as
        // libpcap reads it
        int kept = snaplen != 0 && Integer.compareUnsigned(caplen, snaplen) > 0 ? snaplen : caplen;
        decoder.decode(linkType, in.buf, in.pos + 16, kept, in.u32(in.pos + 12),
                seconds * 1_000_000_000L + fraction * fractionToNanos);
        in.advance(16 + caplen);
        return true;
    }

    @Override
    public int interfaceId() {
        return 0;
    }

    @Override
    public int linkType() {
        return linkType;
    }

    @Override
    public long blocksSkipped() {
        return 0;
    }
}
