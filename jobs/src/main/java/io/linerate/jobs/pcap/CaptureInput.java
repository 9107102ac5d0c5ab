package io.linerate.jobs.pcap;

import java.io.EOFException;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PushbackInputStream;
import java.util.zip.GZIPInputStream;
import java.util.zip.ZipException;

/**
 * The bytes of a capture as the reader sees them: the stream itself, or its decompressed content when it starts
 * with the gzip magic number (RFC 1952: {@code 1f 8b}), as trace archives such as CAIDA's and MAWI's are published.
 * Counts the bytes taken from the underlying stream, so progress can be reported against the file's size.
 */
final class CaptureInput {

    /** Inflater input buffer: large reads keep the per-call overhead of the underlying stream small. */
    private static final int GZIP_BUFFER_BYTES = 64 << 10;

    final InputStream content;
    final boolean gzip;
    private final Counting source;

    private CaptureInput(InputStream content, boolean gzip, Counting source) {
        this.content = content;
        this.gzip = gzip;
        this.source = source;
    }

    /** Looks at the first bytes of {@code stream}; a gzip stream is decompressed (its members one after another). */
    static CaptureInput of(InputStream stream) throws IOException {
        Counting counted = new Counting(stream);
        PushbackInputStream peek = new PushbackInputStream(counted, 2);
        byte[] head = peek.readNBytes(2);
        peek.unread(head);
        if (head.length == 2 && (head[0] & 0xFF) == 0x1F && (head[1] & 0xFF) == 0x8B) {
            Gunzip gunzip = new Gunzip(peek, counted);
            return new CaptureInput(gunzip, true, counted);
        }
        return new CaptureInput(peek, false, counted);
    }

    /** Bytes taken from the underlying stream so far (read ahead in blocks when decompressing). */
    long sourceBytes() {
        return source.count;
    }

    /** Counts the bytes read through it. */
    private static final class Counting extends FilterInputStream {
        long count;

        Counting(InputStream in) {
            super(in);
        }

        @Override
        public int read() throws IOException {
            int b = in.read();
            if (b >= 0) {
                count++;
            }
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = in.read(b, off, len);
            if (n > 0) {
                count += n;
            }
            return n;
        }
    }

    /**
     * Decompresses, and turns the JDK's errors for a cut or damaged gzip stream ({@link EOFException},
     * {@link ZipException}) into a {@link PcapFormatException} at the decompressed offset where reading stopped, so
     * that a truncated {@code .pcap.gz} fails like a truncated {@code .pcap}: the packets before it delivered, then
     * one error naming where.
     */
    private static final class Gunzip extends InputStream {
        private final PushbackInputStream compressed;
        private final Counting source;
        private final byte[] one = new byte[1];
        private GZIPInputStream inflating;
        private long produced;

        Gunzip(PushbackInputStream compressed, Counting source) {
            this.compressed = compressed;
            this.source = source;
        }

        @Override
        public int read() throws IOException {
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF; // the reader reads in blocks; this is for completeness
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            try {
                if (inflating == null) {
                    inflating = new GZIPInputStream(compressed, GZIP_BUFFER_BYTES); // reads the first header
                }
                int n = inflating.read(b, off, len);
                if (n > 0) {
                    produced += n;
                }
                return n;
            } catch (EOFException e) {
                throw error("the gzip stream ends early (a truncated file?)", e);
            } catch (ZipException e) {
                throw error("the gzip stream is corrupt (" + e.getMessage() + ")", e);
            }
        }

        private PcapFormatException error(String what, IOException cause) {
            PcapFormatException e = new PcapFormatException(produced, what + ", after " + source.count
                    + " compressed bytes (offsets count decompressed bytes)");
            e.initCause(cause);
            return e;
        }

        @Override
        public void close() throws IOException {
            if (inflating != null) {
                inflating.close(); // frees the inflater's native memory, closes the stream under it
            } else {
                compressed.close();
            }
        }
    }
}
