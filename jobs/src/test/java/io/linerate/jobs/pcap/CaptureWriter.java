package io.linerate.jobs.pcap;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes classic pcap and pcapng files byte for byte, in either byte order, for the tests. Remembers the offset at
 * which each unit (file header, record, block) starts, for the truncation tests.
 */
abstract class CaptureWriter<W extends CaptureWriter<W>> {

    final ByteOrder order;
    private final OutputStream out;
    private long written;
    /** Start offsets of the file header, each record (pcap) or block (pcapng), and finally the end offset. */
    final List<Long> unitStarts = new ArrayList<>();
    /** Per unit: whether it is a packet record (counted by {@link CaptureReader#recordsRead()}). */
    final List<Boolean> unitIsRecord = new ArrayList<>();

    CaptureWriter(ByteOrder order, OutputStream out) {
        this.order = order;
        this.out = out;
    }

    final ByteBuffer buffer(int size) {
        return ByteBuffer.allocate(size).order(order);
    }

    final void unit(boolean record, byte[] bytes) {
        unitStarts.add(written);
        unitIsRecord.add(record);
        write(bytes);
    }

    final void write(byte[] bytes) {
        try {
            out.write(bytes);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        written += bytes.length;
    }

    /** The bytes written, when writing to memory. */
    final byte[] bytes() {
        return ((ByteArrayOutputStream) out).toByteArray();
    }

    final long size() {
        return written;
    }

    /** Classic libpcap format. */
    static final class Pcap extends CaptureWriter<Pcap> {

        private final boolean nanos;
        private final int snaplen;

        Pcap(ByteOrder order, boolean nanos, int snaplen, int linkType) {
            this(order, nanos, snaplen, linkType, new ByteArrayOutputStream());
        }

        Pcap(ByteOrder order, boolean nanos, int snaplen, int linkType, OutputStream out) {
            super(order, out);
            this.nanos = nanos;
            this.snaplen = snaplen;
            ByteBuffer h = buffer(24);
            h.putInt(nanos ? 0xA1B23C4D : 0xA1B2C3D4).putShort((short) 2).putShort((short) 4).putInt(0).putInt(0);
            h.putInt(snaplen).putInt(linkType);
            unit(false, h.array());
        }

        /** A packet at {@code tsNanos}, cut to the snaplen. */
        Pcap packet(long tsNanos, byte[] frame) {
            int caplen = snaplen == 0 ? frame.length : Math.min(frame.length, snaplen);
            long fraction = tsNanos % 1_000_000_000L;
            return record(tsNanos / 1_000_000_000L, nanos ? fraction : fraction / 1000, caplen, frame.length,
                    frame);
        }

        /** A record with the header fields as given (they may contradict the data, for malformed files). */
        Pcap record(long seconds, long fraction, int caplen, int originalLength, byte[] frame) {
            int kept = Math.max(0, Math.min(caplen, frame.length));
            ByteBuffer r = buffer(16 + kept);
            r.putInt((int) seconds).putInt((int) fraction).putInt(caplen).putInt(originalLength);
            r.put(frame, 0, kept);
            unit(true, r.array());
            return this;
        }
    }

    /** pcapng: starts with a section header block in {@code order}. */
    static final class PcapNg extends CaptureWriter<PcapNg> {

        private final List<Integer> snaplens = new ArrayList<>();

        PcapNg(ByteOrder order) {
            this(order, new ByteArrayOutputStream());
        }

        PcapNg(ByteOrder order, OutputStream out) {
            super(order, out);
            section();
        }

        /** A section header block (new section: interfaces restart at 0). */
        PcapNg section() {
            snaplens.clear();
            ByteBuffer body = buffer(16);
            body.putInt(0x1A2B3C4D).putShort((short) 1).putShort((short) 0).putLong(-1L);
            return block(0x0A0D0D0A, body.array(), false);
        }

        /**
         * An interface description block; {@code tsresol} is the if_tsresol byte or -1 for none (microseconds),
         * {@code tsoffsetSeconds} the if_tsoffset option or 0 for none.
         */
        PcapNg iface(int linkType, int snaplen, int tsresol, long tsoffsetSeconds) {
            snaplens.add(snaplen);
            ByteBuffer body = buffer(8 + 8 + 12 + 4 + 12);
            body.putShort((short) linkType).putShort((short) 0).putInt(snaplen);
            // if_name "eth0" (code 2), to exercise option skipping
            body.putShort((short) 2).putShort((short) 4).put(new byte[] {'e', 't', 'h', '0'});
            if (tsresol >= 0) {
                body.putShort((short) 9).putShort((short) 1).put((byte) tsresol).put(new byte[3]);
            }
            if (tsoffsetSeconds != 0) {
                body.putShort((short) 14).putShort((short) 8).putLong(tsoffsetSeconds);
            }
            body.putShort((short) 0).putShort((short) 0); // opt_endofopt
            return block(1, trim(body), false);
        }

        /** An enhanced packet block; {@code units} is the timestamp in the interface's resolution. */
        PcapNg epb(int iface, long units, byte[] frame) {
            int caplen = snaplens.get(iface) == 0 ? frame.length : Math.min(frame.length, snaplens.get(iface));
            ByteBuffer body = buffer(20 + pad(caplen));
            body.putInt(iface).putInt((int) (units >>> 32)).putInt((int) units).putInt(caplen).putInt(frame.length);
            body.put(frame, 0, caplen);
            return block(6, body.array(), true);
        }

        /** A simple packet block (interface 0). */
        PcapNg spb(byte[] frame) {
            int caplen = snaplens.get(0) == 0 ? frame.length : Math.min(frame.length, snaplens.get(0));
            ByteBuffer body = buffer(4 + pad(caplen));
            body.putInt(frame.length).put(frame, 0, caplen);
            return block(3, body.array(), true);
        }

        /** An obsolete packet block (type 2). */
        PcapNg opb(int iface, long units, byte[] frame) {
            ByteBuffer body = buffer(20 + pad(frame.length));
            body.putShort((short) iface).putShort((short) 0).putInt((int) (units >>> 32)).putInt((int) units);
            body.putInt(frame.length).putInt(frame.length).put(frame);
            return block(2, body.array(), true);
        }

        /** Any block: {type, total length, body (padded), total length}. */
        PcapNg block(int type, byte[] body, boolean record) {
            int length = 12 + pad(body.length);
            ByteBuffer b = buffer(length);
            b.putInt(type).putInt(length).put(body);
            b.position(length - 4);
            b.putInt(length);
            unit(record, b.array());
            return this;
        }

        private static byte[] trim(ByteBuffer b) {
            byte[] a = new byte[b.position()];
            System.arraycopy(b.array(), 0, a, 0, a.length);
            return a;
        }

        static int pad(int n) {
            return (n + 3) & ~3;
        }
    }
}
