package io.linerate.jobs.pcap;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PushbackInputStream;
import java.util.Locale;
import java.util.zip.CRC32;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;

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
     * Decompresses the gzip members of RFC 1952 one after another. Written out rather than taken from
     * {@link java.util.zip.GZIPInputStream} because that class decides whether another member follows from
     * {@code available()} and swallows what it cannot read there: from a pipe, or after a damaged second member or
     * trailing bytes, it ended the stream early without an error. Here, after each member's trailer (CRC-32 and
     * length checked), a blocking read decides: the end of the stream ends the capture, {@code 1f 8b} starts the
     * next member, anything else is an error. Every failure is a {@link PcapFormatException} at the decompressed
     * offset where reading stopped, so that a truncated {@code .pcap.gz} fails like a truncated {@code .pcap}: the
     * packets before it delivered, then one error naming where.
     */
    private static final class Gunzip extends InputStream {
        private static final int FHCRC = 2;
        private static final int FEXTRA = 4;
        private static final int FNAME = 8;
        private static final int FCOMMENT = 16;
        private static final int RESERVED_FLAGS = 0xE0;

        private final InputStream compressed;
        private final Counting source;
        private final byte[] input = new byte[GZIP_BUFFER_BYTES];
        private final Inflater inflater = new Inflater(true); // raw deflate: the gzip framing is read here
        private final CRC32 crc = new CRC32();
        private final CRC32 headerCrc = new CRC32();
        private final byte[] one = new byte[1];
        private int inputPos;
        private int inputEnd;
        private boolean inMember;
        private boolean ended;
        private int members;
        private long memberBytes;
        private long produced;

        Gunzip(InputStream compressed, Counting source) {
            this.compressed = compressed;
            this.source = source;
        }

        @Override
        public int read() throws IOException {
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF; // the reader reads in blocks; this is for completeness
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            java.util.Objects.checkFromIndexSize(off, len, b.length);
            if (len == 0) {
                return 0;
            }
            while (!ended) {
                if (!inMember && !startMember()) {
                    ended = true;
                    break;
                }
                int n = inflate(b, off, len);
                if (n > 0) {
                    crc.update(b, off, n);
                    memberBytes += n;
                    produced += n;
                    return n;
                }
                if (inflater.finished()) {
                    endMember();
                }
            }
            return -1;
        }

        private int inflate(byte[] b, int off, int len) throws IOException {
            while (true) {
                int n;
                try {
                    n = inflater.inflate(b, off, len);
                } catch (DataFormatException e) {
                    throw corrupt(e.getMessage() == null ? "invalid deflate data" : e.getMessage(), e);
                }
                if (n > 0 || inflater.finished()) {
                    return n;
                }
                if (inflater.needsDictionary()) {
                    throw corrupt("deflate data asks for a preset dictionary, which gzip does not have", null);
                }
                if (inflater.needsInput()) {
                    if (inputPos == inputEnd && !fill()) { // bytes left after a header are the member's first
                        throw endsEarly();
                    }
                    inflater.setInput(input, inputPos, inputEnd - inputPos);
                    inputPos = inputEnd; // the inflater holds them now; getRemaining() says what it left
                }
            }
        }

        /**
         * Reads a member header, or finds the end: false at the end of the stream after a complete member (or on an
         * empty stream, which {@link CaptureInput#of} never passes here).
         */
        private boolean startMember() throws IOException {
            long at = source.count - (inputEnd - inputPos); // compressed offset of the next byte
            int id1 = next();
            if (id1 < 0 && members > 0) {
                return false;
            }
            int id2 = next();
            if (id1 < 0 || id1 == 0x1F && id2 < 0) {
                throw endsEarly();
            }
            if (id1 != 0x1F || id2 != 0x8B) {
                throw corrupt(String.format(Locale.ROOT,
                        "%s at compressed offset %d, after member %d, are not the start of "
                        + "another member (1f 8b); trailing bytes are not skipped", id2 < 0
                        ? String.format(Locale.ROOT, "the byte %02x", id1)
                        : String.format(Locale.ROOT, "the bytes %02x %02x", id1, id2),
                        at, members), null);
            }
            headerCrc.reset();
            headerCrc.update(0x1F);
            headerCrc.update(0x8B);
            int method = headerByte();
            if (method != 8) {
                throw corrupt("compression method " + method + " in a member header; only 8 (deflate) exists", null);
            }
            int flags = headerByte();
            if ((flags & RESERVED_FLAGS) != 0) {
                throw corrupt(String.format(Locale.ROOT, "reserved header flags set (%02x)", flags), null);
            }
            for (int i = 0; i < 6; i++) { // modification time, extra flags, operating system: not used
                headerByte();
            }
            if ((flags & FEXTRA) != 0) {
                int extraLength = headerByte() | headerByte() << 8;
                for (int i = 0; i < extraLength; i++) {
                    headerByte();
                }
            }
            if ((flags & FNAME) != 0) {
                while (headerByte() != 0) { } // zero-terminated file name
            }
            if ((flags & FCOMMENT) != 0) {
                while (headerByte() != 0) { } // zero-terminated comment
            }
            if ((flags & FHCRC) != 0) {
                int expected = (int) headerCrc.getValue() & 0xFFFF;
                int stored = headerByte() | headerByte() << 8;
                if (stored != expected) {
                    throw corrupt(String.format(Locale.ROOT,
                            "header CRC-16 %04x, computed %04x", stored, expected), null);
                }
            }
            inflater.reset();
            crc.reset();
            memberBytes = 0;
            inMember = true;
            return true;
        }

        /** Checks the trailer of the member the inflater just finished: CRC-32 and length modulo 2^32. */
        private void endMember() throws IOException {
            inputPos = inputEnd - inflater.getRemaining(); // what the inflater read beyond the deflate data
            long storedCrc = trailerInt();
            long storedLength = trailerInt();
            if (storedCrc != crc.getValue()) {
                throw corrupt(String.format(Locale.ROOT,
                        "CRC-32 of member %d is %08x, its trailer says %08x", members + 1,
                        crc.getValue(), storedCrc), null);
            }
            if (storedLength != (memberBytes & 0xFFFF_FFFFL)) {
                throw corrupt("member " + (members + 1) + " inflates to " + memberBytes
                        + " bytes, its trailer says " + storedLength + " (modulo 2^32)", null);
            }
            members++;
            inMember = false;
        }

        private long trailerInt() throws IOException {
            long value = 0;
            for (int i = 0; i < 4; i++) {
                int b = next();
                if (b < 0) {
                    throw endsEarly();
                }
                value |= (long) b << (8 * i);
            }
            return value;
        }

        private int headerByte() throws IOException {
            int b = next();
            if (b < 0) {
                throw endsEarly();
            }
            headerCrc.update(b);
            return b;
        }

        /** The next compressed byte outside the deflate data, or -1 at the end of the stream. */
        private int next() throws IOException {
            if (inputPos == inputEnd && !fill()) {
                return -1;
            }
            return input[inputPos++] & 0xFF;
        }

        /** Reads more compressed bytes into the empty buffer, blocking; false at the end of the stream. */
        private boolean fill() throws IOException {
            int n = compressed.read(input, 0, input.length);
            while (n == 0) {
                n = compressed.read(input, 0, input.length);
            }
            inputPos = 0;
            inputEnd = Math.max(n, 0);
            return n > 0;
        }

        private PcapFormatException endsEarly() {
            return error("the gzip stream ends early (a truncated file?)", null);
        }

        private PcapFormatException corrupt(String why, Exception cause) {
            return error("the gzip stream is corrupt (" + why + ")", cause);
        }

        private PcapFormatException error(String what, Exception cause) {
            PcapFormatException e = new PcapFormatException(produced, what + ", after " + source.count
                    + " compressed bytes (offsets count decompressed bytes)");
            if (cause != null) {
                e.initCause(cause);
            }
            return e;
        }

        @Override
        public void close() throws IOException {
            inflater.end(); // frees the inflater's native memory
            compressed.close();
        }
    }
}
