package io.linerate.jobs.pcap;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.Channels;
import java.nio.channels.ReadableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Streams the packets of a capture file (classic pcap in either byte order with microsecond or nanosecond
 * timestamps, or pcapng; either one plain or gzip-compressed) to a {@link PacketVisitor}: link types
 * {@link LinkTypes}, IPv4 and IPv6 (extension headers skipped), TCP/UDP/SCTP ports, TCP flags, ICMP type and code.
 * One reusable buffer, no allocation per packet, so captures of any size stream in constant memory (the buffer
 * grows only for a record larger than it).
 *
 * <pre>{@code
 * try (CaptureReader reader = CaptureReader.open(Path.of("trace.pcapng"))) {
 *     reader.readAll(visitor);
 *     long notIp = reader.skipped(SkipReason.NOT_IP);
 * }
 * }</pre>
 *
 * <p>A malformed or truncated file throws {@link PcapFormatException} naming the byte offset and what was expected
 * there; the packets before it have been delivered. A packet whose own headers are malformed or cut short by the
 * snaplen is counted under its {@link SkipReason} and reading goes on. Not thread-safe.
 */
public final class CaptureReader implements Closeable {

    /** Largest packet record accepted from a classic pcap file (beyond any real snaplen). */
    public static final int MAX_PACKET_BYTES = 16 << 20;
    /** Largest pcapng block accepted. */
    public static final int MAX_BLOCK_BYTES = 64 << 20;
    private static final int BUFFER_BYTES = 1 << 20;

    private final CaptureInput input;
    private final InputBuffer in;
    private final RecordSource source;
    private final CaptureFormat format;
    private final PacketDecoder decoder = new PacketDecoder();
    private long records;

    private CaptureReader(CaptureInput input) throws IOException {
        this.input = input;
        this.in = new InputBuffer(input.content, BUFFER_BYTES);
        int available = in.fill(4);
        if (available < 4) {
            throw new PcapFormatException(0, "expected a pcap or pcapng magic number (4 bytes), the file ends after "
                    + available);
        }
        int magic = InputBuffer.be32(in.buf, in.pos);
        if (magic == ClassicPcapSource.MAGIC_MICROS || magic == Integer.reverseBytes(ClassicPcapSource.MAGIC_MICROS)) {
            format = CaptureFormat.PCAP_MICROSECONDS;
            source = new ClassicPcapSource(in, MAX_PACKET_BYTES);
        } else if (magic == ClassicPcapSource.MAGIC_NANOS
                || magic == Integer.reverseBytes(ClassicPcapSource.MAGIC_NANOS)) {
            format = CaptureFormat.PCAP_NANOSECONDS;
            source = new ClassicPcapSource(in, MAX_PACKET_BYTES);
        } else if (magic == PcapNgSource.SECTION_HEADER) {
            format = CaptureFormat.PCAPNG;
            source = new PcapNgSource(in, MAX_BLOCK_BYTES);
        } else {
            throw new PcapFormatException(0, String.format(Locale.ROOT,
                    "expected a pcap magic number (a1b2c3d4 or a1b23c4d, either"
                    + " byte order) or a pcapng section header (0a0d0d0a)%s, got %08x%s",
                    input.gzip ? " in the decompressed gzip stream" : "", magic, compression(magic)));
        }
    }

    /** Names the compressed formats that are recognised but not read (gzip is), so the error says what to do. */
    private static String compression(int magic) {
        String tool;
        if (magic == 0x28B52FFD) {
            tool = "zstd";
        } else if (magic == 0xFD377A58) {
            tool = "xz";
        } else if ((magic >>> 8) == 0x425A68) { // "BZh"
            tool = "bzip2";
        } else if (magic == 0x04224D18) {
            tool = "lz4";
        } else {
            return "";
        }
        return " (a " + tool + " stream: decompress it first, e.g. " + tool + " -d FILE; gzip is read as is)";
    }

    /**
     * Reads the file header (or the first block's type) of {@code stream}; the reader closes the stream. A stream
     * that starts with the gzip magic number is decompressed first (see {@link #gzip()}).
     */
    public static CaptureReader open(InputStream stream) throws IOException {
        CaptureInput input = null;
        try {
            input = CaptureInput.of(stream);
            return new CaptureReader(input);
        } catch (IOException | RuntimeException e) {
            (input != null ? input.content : stream).close();
            throw e;
        }
    }

    /** Reads from a channel (a file, a pipe, a socket); the reader closes the channel. */
    public static CaptureReader open(ReadableByteChannel channel) throws IOException {
        return open(Channels.newInputStream(channel));
    }

    /** Opens a capture file. */
    public static CaptureReader open(Path file) throws IOException {
        return open(Files.newInputStream(file));
    }

    /**
     * Reads the next packet record and delivers it to {@code visitor} (or counts it as skipped).
     *
     * @return false at the end of the file (after its last whole record)
     * @throws PcapFormatException if the file is malformed or truncated at this point
     */
    public boolean next(PacketVisitor visitor) throws IOException {
        decoder.visitor(visitor);
        if (source.next(decoder)) {
            records++;
            return true;
        }
        return false;
    }

    /** Reads every remaining record; returns the number of records read by this call. */
    public long readAll(PacketVisitor visitor) throws IOException {
        long before = records;
        decoder.visitor(visitor);
        while (source.next(decoder)) {
            records++;
        }
        return records - before;
    }

    /** The container format. */
    public CaptureFormat format() {
        return format;
    }

    /**
     * Byte offset in the capture of the next record or block to read; for a gzip file, in its decompressed
     * content (as are the offsets in {@link PcapFormatException}s).
     */
    public long offset() {
        return in.offset();
    }

    /**
     * How far into the stream or file the reader is: {@link #offset()} for a plain capture, the compressed bytes
     * consumed for a gzip one (the inflater reads ahead in blocks of 64 KiB). For progress against the file's size.
     */
    public long sourceOffset() {
        return input.gzip ? input.sourceBytes() : in.offset();
    }

    /** Whether the capture is read through gzip decompression (it started with {@code 1f 8b}). */
    public boolean gzip() {
        return input.gzip;
    }

    /** The interface (pcapng interface id; 0 in classic pcap) of the record last read; valid inside a visit. */
    public int interfaceId() {
        return source.interfaceId();
    }

    /** The link type of the record last read; valid inside a visit. */
    public int linkType() {
        return source.linkType();
    }

    /** Packet records read so far (delivered + skipped). */
    public long recordsRead() {
        return records;
    }

    /** Packets delivered to the visitor so far. */
    public long packetsDelivered() {
        return decoder.delivered();
    }

    /** Packet records skipped so far for {@code reason}. */
    public long skipped(SkipReason reason) {
        return decoder.skipped(reason);
    }

    /** Packet records skipped so far, all reasons. */
    public long skippedTotal() {
        long total = 0;
        for (SkipReason r : SkipReason.values()) {
            total += decoder.skipped(r);
        }
        return total;
    }

    /** pcapng blocks that carry no packet and are not needed (name resolution, statistics, unknown types). */
    public long blocksSkipped() {
        return source.blocksSkipped();
    }

    @Override
    public void close() throws IOException {
        input.content.close();
    }
}
