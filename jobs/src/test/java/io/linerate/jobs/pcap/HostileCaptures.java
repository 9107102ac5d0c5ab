package io.linerate.jobs.pcap;

import io.linerate.jobs.fuzz.Allocations;
import io.linerate.jobs.fuzz.FuzzBytes;
import io.linerate.jobs.fuzz.Mutations;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.zip.GZIPOutputStream;

/**
 * The hostile-bytes harness of {@link CaptureFilesFuzzTest} and {@link FramesFuzzTest}: turns fuzzer bytes into capture
 * files and frames and checks the capture reader and the frame decoder against their contracts.
 *
 * <p><b>Capture files</b> ({@link CaptureReader}: classic pcap, pcapng, either gzip-compressed). Reading any bytes
 * to the end either succeeds or throws {@link PcapFormatException} with a message and an offset of at least 0 (within
 * the content for an uncompressed one); nothing else (no other exception or error). Every record read is delivered
 * or counted under a {@link SkipReason}. Allocation: at most {@value #FIXED_BYTES} bytes (the 1 MiB read buffer, the
 * gzip input buffer, messages) plus {@value #BYTES_PER_CONTENT_BYTE} per byte of the capture's content (the read
 * buffer grows only as the bytes of a record arrive, up to twice what is there), so a record or block length claiming
 * up to the reader's 16 or 64 MiB limits in a short file fails before it sizes a buffer. For a compressed input the
 * content is what the harness compressed; for bytes the fuzzer made into a gzip stream itself, the bound assumes
 * deflate's largest ratio, 1032 to 1.
 *
 * <p><b>Frames</b> ({@link PacketDecoder}, every link type the reader decodes and unknown ones): any bytes are
 * delivered as one packet or counted as one skipped record, never an exception; the decoder reads nothing past the
 * captured length (the same frame followed by other bytes decodes the same); a delivered packet has ports in
 * [0, 65535], a protocol and TCP flags in [0, 255] (flags 0 unless TCP) and an IP length of at least its header's
 * 20 (IPv4) or 40 (IPv6) bytes.
 *
 * <p><b>Round trips.</b> Valid packets generated from the fuzzer's bytes (IPv4 or IPv6; TCP, UDP or ICMP; addresses,
 * ports, flags, payload length and timestamp), framed for a link type, written as a classic pcap (either byte order,
 * micro- or nanoseconds) or pcapng file (enhanced or simple packet blocks), plain or gzip-compressed, read back as
 * the packets written.
 */
final class HostileCaptures {

    static final long FIXED_BYTES = 2L << 20;
    static final long BYTES_PER_CONTENT_BYTE = 4;
    /** Deflate's largest compression ratio (a run of one byte), for inputs that are gzip streams as they are. */
    static final long DEFLATE_MAX_RATIO = 1032;

    static final int[] LINK_TYPES = {LinkTypes.ETHERNET, LinkTypes.LINUX_SLL, LinkTypes.LINUX_SLL2, LinkTypes.RAW,
        LinkTypes.NULL, LinkTypes.LOOP, LinkTypes.PPP, LinkTypes.PPP_HDLC, LinkTypes.C_HDLC, LinkTypes.IPV4,
        LinkTypes.IPV6};

    private HostileCaptures() {
    }

    // ------------------------------------------------------------------ capture files

    /**
     * Fuzzer bytes to a capture, by the first byte: 0 the rest as it is; 1 a valid capture generated from the rest
     * (checked for its round trip); 2 such a capture, mutated by the rest ({@link Mutations}); 3 a valid capture,
     * gzip-compressed (round trip); 4 a mutated capture, gzip-compressed; 5 a valid compressed capture whose
     * compressed bytes are mutated. Then {@link #checkCapture}.
     */
    static void captureFile(byte[] data) {
        FuzzBytes in = new FuzzBytes(data);
        int mode = in.u8() % 6;
        if (mode == 0) {
            byte[] raw = in.rest();
            checkCapture(raw, isGzip(raw) ? DEFLATE_MAX_RATIO * raw.length : raw.length);
            return;
        }
        List<String> expected = new ArrayList<>();
        byte[] capture = generatedCapture(in, expected);
        if (mode == 1 || mode == 3) {
            byte[] file = mode == 3 ? gzip(capture) : capture;
            List<String> got = new ArrayList<>();
            try (CaptureReader reader = CaptureReader.open(new ByteArrayInputStream(file))) {
                reader.readAll(recorder(got));
            } catch (IOException e) {
                throw new AssertionError("a valid capture cannot be read: " + e + "; " + Allocations.hex(capture), e);
            }
            if (!got.equals(expected)) {
                throw new AssertionError("read " + got + ", wrote " + expected + "; " + Allocations.hex(capture));
            }
            checkCapture(file, capture.length);
        } else if (mode == 2 || mode == 4) {
            byte[] mutated = Mutations.apply(capture, in);
            checkCapture(mode == 4 ? gzip(mutated) : mutated, mutated.length);
        } else {
            byte[] mutated = Mutations.apply(gzip(capture), in);
            checkCapture(mutated, DEFLATE_MAX_RATIO * mutated.length);
        }
    }

    private static boolean isGzip(byte[] b) {
        return b.length >= 2 && (b[0] & 0xFF) == 0x1F && (b[1] & 0xFF) == 0x8B;
    }

    static byte[] gzip(byte[] content) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream z = new GZIPOutputStream(out)) {
            z.write(content);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    /**
     * Reads {@code file} to its end: a clean end or a {@link PcapFormatException} with a message, every record
     * accounted for, within the allocation bound for {@code contentBytes} bytes of content.
     */
    static void checkCapture(byte[] file, long contentBytes) {
        long limit = FIXED_BYTES + BYTES_PER_CONTENT_BYTE * contentBytes;
        Allocations.within("CaptureReader", file, limit, () -> {
            CaptureReader reader = null;
            try {
                reader = CaptureReader.open(new ByteArrayInputStream(file));
                reader.readAll(COUNTING);
            } catch (PcapFormatException e) {
                if (e.getMessage() == null || e.getMessage().isBlank() || e.offset() < 0
                        || !isGzip(file) && e.offset() > file.length) {
                    throw new AssertionError("PcapFormatException " + e.getMessage() + " at " + e.offset()
                            + " for " + Allocations.hex(file), e);
                }
            } catch (IOException e) {
                throw new AssertionError("the reader threw " + e + ", not a PcapFormatException, for "
                        + Allocations.hex(file), e);
            }
            if (reader != null) {
                if (reader.recordsRead() != reader.packetsDelivered() + reader.skippedTotal()) {
                    throw new AssertionError(reader.recordsRead() + " records read, " + reader.packetsDelivered()
                            + " delivered, " + reader.skippedTotal() + " skipped: " + Allocations.hex(file));
                }
                try {
                    reader.close();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        });
    }

    /**
     * A valid capture of 1 to 4 generated packets in one link type: classic pcap (either byte order, micro- or
     * nanoseconds) or pcapng (either byte order, micro- or nanosecond interface, enhanced or simple packet blocks);
     * {@code expected} gets what the reader must deliver.
     */
    static byte[] generatedCapture(FuzzBytes in, List<String> expected) {
        int linkType = LINK_TYPES[in.u8() % LINK_TYPES.length];
        ByteOrder order = in.bit() ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN;
        boolean nanos = in.bit();
        int packets = 1 + in.u8() % 4;
        if (in.bit()) {
            CaptureWriter.Pcap pcap = new CaptureWriter.Pcap(order, nanos, 65_535, linkType);
            for (int i = 0; i < packets; i++) {
                long ts = in.atMost(0xFFFF_FFFFL * 1_000_000_000L + 999_999_999L);
                byte[] frame = Frames.frame(linkType, generatedPacket(in, linkType,
                        nanos ? ts : ts / 1000 * 1000, expected));
                pcap.packet(ts, frame);
            }
            return pcap.bytes();
        }
        CaptureWriter.PcapNg ng = new CaptureWriter.PcapNg(order);
        ng.iface(linkType, 0, nanos ? 9 : -1, 0);
        for (int i = 0; i < packets; i++) {
            if (in.bit()) {
                ng.spb(Frames.frame(linkType, generatedPacket(in, linkType, 0, expected)));
            } else {
                long units = in.atMost(Long.MAX_VALUE / 1000);
                ng.epb(0, units, Frames.frame(linkType, generatedPacket(in, linkType, nanos ? units : units * 1000,
                        expected)));
            }
        }
        return ng.bytes();
    }

    /** An IP packet (IPv4 unless the link type is IPv6, IPv6 if it is), adding its expected line. */
    static byte[] generatedPacket(FuzzBytes in, int linkType, long tsNanos, List<String> expected) {
        boolean v6 = linkType == LinkTypes.IPV6 || linkType != LinkTypes.IPV4 && in.bit();
        int protocol = switch (in.u8() % 3) {
            case 0 -> Frames.TCP;
            case 1 -> Frames.UDP;
            default -> v6 ? Frames.ICMPV6 : Frames.ICMP;
        };
        int srcPort = in.u16();
        int dstPort = in.u16();
        int flags = in.u8();
        int payload = in.u8() % 64;
        byte[] l4;
        if (protocol == Frames.TCP) {
            l4 = Frames.tcp(srcPort, dstPort, flags, payload);
        } else if (protocol == Frames.UDP) {
            l4 = Frames.udp(srcPort, dstPort, payload);
            flags = 0;
        } else {
            l4 = Frames.icmp(srcPort >> 8, srcPort & 0xFF);
            dstPort = srcPort & 0xFFFF;
            srcPort = 0;
            flags = 0;
        }
        byte[] src = in.take(v6 ? 16 : 4);
        byte[] dst = in.take(v6 ? 16 : 4);
        src = Arrays.copyOf(src, v6 ? 16 : 4);
        dst = Arrays.copyOf(dst, v6 ? 16 : 4);
        byte[] packet = v6 ? ipv6(src, dst, protocol, l4) : Frames.ipv4(literal(src), literal(dst), protocol, l4);
        expected.add(line(v6, tsNanos, hex(src), hex(dst), srcPort, dstPort, protocol, flags,
                (v6 ? 40 : 20) + l4.length));
        return packet;
    }

    /** As {@link Frames#ipv6}, from the addresses' bytes (a literal of an IPv4-mapped address reads as IPv4). */
    private static byte[] ipv6(byte[] src, byte[] dst, int nextHeader, byte[] rest) {
        return java.nio.ByteBuffer.allocate(40 + rest.length).putInt(0x60000000).putShort((short) rest.length)
                .put((byte) nextHeader).put((byte) 64).put(src).put(dst).put(rest).array();
    }

    /** The literal of a 4-byte address. */
    private static String literal(byte[] address) {
        try {
            return InetAddress.getByAddress(address).getHostAddress();
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(e);
        }
    }

    private static String hex(byte[] b) {
        return java.util.HexFormat.of().formatHex(b);
    }

    private static String line(boolean v6, long ts, String src, String dst, int srcPort, int dstPort, int protocol,
                               int flags, int length) {
        return (v6 ? "v6 " : "v4 ") + ts + " " + src + ":" + srcPort + " > " + dst + ":" + dstPort + " p" + protocol
                + " f" + flags + " len" + length;
    }

    /** A visitor that writes each packet as a line, addresses in hex. */
    static PacketVisitor recorder(List<String> lines) {
        return new PacketVisitor() {
            @Override
            public void ipv4(long ts, int src, int dst, int srcPort, int dstPort, int protocol, int tcpFlags,
                             int ipLength) {
                lines.add(line(false, ts, String.format(Locale.ROOT, "%08x", src),
                        String.format(Locale.ROOT, "%08x", dst), srcPort, dstPort, protocol, tcpFlags, ipLength));
            }

            @Override
            public void ipv6(long ts, long srcHigh, long srcLow, long dstHigh, long dstLow, int srcPort, int dstPort,
                             int protocol, int tcpFlags, int ipLength) {
                lines.add(line(true, ts, String.format(Locale.ROOT, "%016x%016x", srcHigh, srcLow),
                        String.format(Locale.ROOT, "%016x%016x", dstHigh, dstLow), srcPort, dstPort, protocol,
                        tcpFlags, ipLength));
            }
        };
    }

    /** Checks the ranges of every delivered packet and keeps nothing (no allocation per packet). */
    private static final PacketVisitor COUNTING = new PacketVisitor() {
        @Override
        public void ipv4(long ts, int src, int dst, int srcPort, int dstPort, int protocol, int tcpFlags,
                         int ipLength) {
            checkRanges(srcPort, dstPort, protocol, tcpFlags, ipLength, 20);
        }

        @Override
        public void ipv6(long ts, long srcHigh, long srcLow, long dstHigh, long dstLow, int srcPort, int dstPort,
                         int protocol, int tcpFlags, int ipLength) {
            checkRanges(srcPort, dstPort, protocol, tcpFlags, ipLength, 40);
        }
    };

    static void checkRanges(int srcPort, int dstPort, int protocol, int tcpFlags, int ipLength, int minLength) {
        if (srcPort < 0 || srcPort > 0xFFFF || dstPort < 0 || dstPort > 0xFFFF || protocol < 0 || protocol > 255
                || tcpFlags < 0 || tcpFlags > 255 || tcpFlags != 0 && protocol != PacketDecoder.TCP
                || ipLength < minLength) {
            throw new AssertionError("a packet out of range: ports " + srcPort + ", " + dstPort + ", protocol "
                    + protocol + ", flags " + tcpFlags + ", length " + ipLength);
        }
    }

    // ------------------------------------------------------------------ frames

    /**
     * Fuzzer bytes to a frame, by the first byte: even, a link type (one the reader decodes, or any 16-bit value),
     * an original length and the rest as the frame; odd, a valid generated packet framed for a link type (checked for
     * its round trip), then mutated by the rest unless the second byte is even. Then {@link #checkFrame}.
     */
    static void frame(byte[] data) {
        FuzzBytes in = new FuzzBytes(data);
        int mode = in.u8();
        if ((mode & 1) == 0) {
            int linkType = (mode & 2) == 0 ? LINK_TYPES[in.u8() % LINK_TYPES.length] : in.u16();
            int originalLength = in.bit() ? in.i32() : -1;
            byte[] frame = in.rest();
            checkFrame(linkType, frame, originalLength == -1 ? frame.length : originalLength);
            return;
        }
        boolean mutate = (in.u8() & 1) != 0;
        int linkType = LINK_TYPES[in.u8() % LINK_TYPES.length];
        List<String> expected = new ArrayList<>();
        byte[] frame = Frames.frame(linkType, generatedPacket(in, linkType, 7, expected));
        if (mutate) {
            frame = Mutations.apply(frame, in);
            checkFrame(linkType, frame, frame.length);
            return;
        }
        String got = checkFrame(linkType, frame, frame.length);
        if (!expected.get(0).equals(got)) {
            throw new AssertionError("link type " + linkType + ": decoded " + got + ", expected " + expected.get(0)
                    + "; " + Allocations.hex(frame));
        }
    }

    /**
     * Decodes {@code frame} at two offsets of two buffers whose bytes after it differ: the same outcome (the packet,
     * or the skip reason) both times, exactly one outcome per frame, values in range. Returns the packet's line, or
     * "skipped REASON".
     */
    static String checkFrame(int linkType, byte[] frame, int originalLength) {
        String first = decodeIn(linkType, frame, originalLength, 0, (byte) 0x00);
        String second = decodeIn(linkType, frame, originalLength, 5, (byte) 0xFF);
        if (!first.equals(second)) {
            throw new AssertionError("link type " + linkType + ": the bytes after the captured ones change the "
                    + "outcome (" + first + " / " + second + "): " + Allocations.hex(frame));
        }
        return first;
    }

    private static String decodeIn(int linkType, byte[] frame, int originalLength, int offset, byte filler) {
        byte[] buffer = new byte[offset + frame.length + 64];
        Arrays.fill(buffer, filler);
        System.arraycopy(frame, 0, buffer, offset, frame.length);
        List<String> lines = new ArrayList<>();
        PacketVisitor recorder = recorder(lines);
        PacketDecoder decoder = new PacketDecoder();
        decoder.visitor(new PacketVisitor() {
            @Override
            public void ipv4(long ts, int src, int dst, int srcPort, int dstPort, int protocol, int tcpFlags,
                             int ipLength) {
                checkRanges(srcPort, dstPort, protocol, tcpFlags, ipLength, 20);
                recorder.ipv4(ts, src, dst, srcPort, dstPort, protocol, tcpFlags, ipLength);
            }

            @Override
            public void ipv6(long ts, long srcHigh, long srcLow, long dstHigh, long dstLow, int srcPort, int dstPort,
                             int protocol, int tcpFlags, int ipLength) {
                checkRanges(srcPort, dstPort, protocol, tcpFlags, ipLength, 40);
                recorder.ipv6(ts, srcHigh, srcLow, dstHigh, dstLow, srcPort, dstPort, protocol, tcpFlags, ipLength);
            }
        });
        decoder.decode(linkType, buffer, offset, frame.length, originalLength, 7);
        List<String> skipped = new ArrayList<>();
        long skips = 0;
        for (SkipReason r : SkipReason.values()) {
            skips += decoder.skipped(r);
            if (decoder.skipped(r) > 0) {
                skipped.add("skipped " + r);
            }
        }
        if (decoder.delivered() + skips != 1 || lines.size() != decoder.delivered()) {
            throw new AssertionError("link type " + linkType + ": " + decoder.delivered() + " delivered, " + skipped
                    + " for one frame: " + Allocations.hex(frame));
        }
        return lines.isEmpty() ? skipped.get(0) : lines.get(0);
    }
}
