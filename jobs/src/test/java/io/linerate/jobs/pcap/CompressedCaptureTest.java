package io.linerate.jobs.pcap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import io.linerate.jobs.pcap.Traffic.Sample;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;

/** gzip-compressed captures read exactly like the plain ones; a damaged gzip stream fails like a damaged file. */
class CompressedCaptureTest {

    private static final long T = 1_700_000_000_000_000_000L;

    private static byte[] classic(int repeats) {
        CaptureWriter.Pcap file = new CaptureWriter.Pcap(ByteOrder.LITTLE_ENDIAN, true, 65535, LinkTypes.ETHERNET);
        long ts = T;
        for (int i = 0; i < repeats; i++) {
            for (Sample s : Traffic.mix()) {
                file.packet(ts += 1_234_567, Frames.frame(LinkTypes.ETHERNET, s.ip()));
            }
            file.packet(ts += 1, Frames.arp());
        }
        return file.bytes();
    }

    private static byte[] pcapng(int repeats) {
        CaptureWriter.PcapNg file = new CaptureWriter.PcapNg(ByteOrder.BIG_ENDIAN)
                .iface(LinkTypes.ETHERNET, 65535, 9, 0).iface(LinkTypes.RAW, 65535, -1, 0);
        long ts = T;
        for (int i = 0; i < repeats; i++) {
            for (Sample s : Traffic.mix()) {
                file.epb(0, ts += 1_000_003, Frames.frame(LinkTypes.ETHERNET, s.ip())).epb(1, (ts += 7) / 1000, s.ip());
            }
        }
        return file.bytes();
    }

    static byte[] gzip(byte[]... members) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] member : members) {
            try (GZIPOutputStream gz = new GZIPOutputStream(new NoClose(out))) {
                gz.write(member);
            }
        }
        return out.toByteArray();
    }

    @Test
    void aGzipCaptureReadsExactlyLikeThePlainOne() throws Exception {
        for (byte[] plain : List.of(classic(400), pcapng(300))) {
            byte[] gz = gzip(plain);
            assertThat(gz.length).as("compressed below the plain size").isLessThan(plain.length / 2);

            Collected expected = Collected.read(plain, true);
            Collected actual = Collected.read(gz, true);

            assertThat(expected.reader.gzip()).isFalse();
            assertThat(actual.reader.gzip()).isTrue();
            assertThat(actual.reader.format()).isEqualTo(expected.reader.format());
            assertThat(actual.lines).hasSizeGreaterThan(1000).containsExactlyElementsOf(expected.lines);
            assertThat(actual.reader.recordsRead()).isEqualTo(expected.reader.recordsRead());
            assertThat(actual.reader.skippedTotal()).isEqualTo(expected.reader.skippedTotal());
            // offsets count the capture's own bytes; the source offset the compressed ones, for progress
            assertThat(actual.reader.offset()).isEqualTo(plain.length);
            assertThat(expected.reader.offset()).isEqualTo(plain.length);
            assertThat(actual.reader.sourceOffset()).isEqualTo(gz.length);
            assertThat(expected.reader.sourceOffset()).isEqualTo(plain.length);
        }
    }

    /** As {@code cat a.gz b.gz} or pigz/bgzip output: members one after another, split anywhere. */
    @Test
    void membersAreReadOneAfterAnother() throws Exception {
        byte[] plain = classic(50);
        List<String> expected = Collected.read(plain).lines;
        for (int cut : new int[] {1, 24, 25, 101, plain.length / 2, plain.length - 1}) {
            byte[] gz = gzip(Arrays.copyOf(plain, cut), Arrays.copyOfRange(plain, cut, plain.length));
            assertThat(Collected.read(gz).lines).as("split at %d", cut).containsExactlyElementsOf(expected);
        }
    }

    /**
     * From a pipe, where {@code available()} is 0 between reads: every member is still read (the JDK's
     * {@code GZIPInputStream} decides from {@code available()} whether another member follows, and ended here after
     * the first one without an error).
     */
    @Test
    void membersAreReadFromAPipeThatTricklesBytes() throws Exception {
        byte[] plain = classic(50);
        List<String> expected = Collected.read(plain).lines;
        int third = plain.length / 3;
        byte[] gz = gzip(Arrays.copyOf(plain, third), Arrays.copyOfRange(plain, third, 2 * third),
                Arrays.copyOfRange(plain, 2 * third, plain.length));
        Collected c = new Collected();
        try (CaptureReader reader = CaptureReader.open(new Trickle(gz))) {
            c.reader = reader;
            reader.readAll(c);
            assertThat(reader.offset()).isEqualTo(plain.length);
            assertThat(reader.sourceOffset()).isEqualTo(gz.length);
        }
        assertThat(c.lines).containsExactlyElementsOf(expected);
    }

    /** What follows a complete member is another member or the end: a damaged one or stray bytes fail, named. */
    @Test
    void whatFollowsAMemberIsAnotherMemberOrAnError() throws Exception {
        byte[] plain = classic(20);
        int cut = plain.length / 2;
        byte[] first = gzip(Arrays.copyOf(plain, cut));
        byte[] second = gzip(Arrays.copyOfRange(plain, cut, plain.length));
        List<String> all = Collected.read(concat(first, second)).lines;

        byte[] damaged = concat(first, second);
        damaged[first.length + second.length / 2] ^= 0x5A; // inside the second member's deflate data: an error
        assertFailsAfterAPrefix(damaged, all, "offset "); // from gzip, or from the capture if garbage inflated

        byte[] badCrc = concat(first, second);
        badCrc[badCrc.length - 8] ^= 1; // the second member's CRC-32
        assertFailsAfterAPrefix(badCrc, all, "the gzip stream is corrupt (CRC-32 of member 2 is ");

        byte[] damagedHeader = concat(first, second);
        damagedHeader[first.length + 2] = 7; // the second member's compression method
        assertFailsAfterAPrefix(damagedHeader, all, "compression method 7 in a member header");

        byte[] garbage = concat(first, second, "trailing text\n".getBytes(StandardCharsets.US_ASCII));
        assertFailsAfterAPrefix(garbage, all, "the bytes 74 72 at compressed offset "
                + (first.length + second.length) + ", after member 2, are not the start of another member");
        assertFailsAfterAPrefix(concat(first, second, new byte[] {0}), all, "the byte 00 at compressed offset");
        assertFailsAfterAPrefix(concat(first, second, new byte[] {0x1F}), all, "the gzip stream ends early");
        assertFailsAfterAPrefix(concat(first, Arrays.copyOf(second, 5)), all, "the gzip stream ends early");
    }

    /** The optional header fields of RFC 1952 §2.3.1 (extra, name, comment, header CRC-16) are read past. */
    @Test
    void optionalHeaderFieldsAreReadPast() throws Exception {
        byte[] plain = classic(5);
        byte[] gz = gzip(plain);
        byte[] deflate = Arrays.copyOfRange(gz, 10, gz.length); // deflate data and trailer of a bare header
        ByteArrayOutputStream header = new ByteArrayOutputStream();
        header.write(new byte[] {0x1F, (byte) 0x8B, 8, 4 | 8 | 16 | 2, 0, 0, 0, 0, 0, 3});
        header.write(new byte[] {3, 0, 'a', 'b', 'c'}); // FEXTRA: length 3, little-endian
        header.write("trace.pcap\0".getBytes(StandardCharsets.US_ASCII));
        header.write("a comment\0".getBytes(StandardCharsets.US_ASCII));
        java.util.zip.CRC32 crc = new java.util.zip.CRC32();
        crc.update(header.toByteArray());
        int crc16 = (int) crc.getValue() & 0xFFFF;
        byte[] withFields = concat(header.toByteArray(), new byte[] {(byte) crc16, (byte) (crc16 >> 8)}, deflate);
        assertThat(Collected.read(withFields).lines).containsExactlyElementsOf(Collected.read(plain).lines);

        withFields[header.size()] ^= 1; // the stored header CRC-16
        assertThatThrownBy(() -> Collected.read(withFields)).isInstanceOf(PcapFormatException.class)
                .hasMessageContaining("the gzip stream is corrupt (header CRC-16");
        byte[] reserved = gz.clone();
        reserved[3] = (byte) 0x20;
        assertThatThrownBy(() -> Collected.read(reserved)).isInstanceOf(PcapFormatException.class)
                .hasMessageContaining("reserved header flags set (20)");
    }

    private static void assertFailsAfterAPrefix(byte[] gz, List<String> all, String message) throws IOException {
        Collected c = new Collected();
        try (CaptureReader reader = CaptureReader.open(new ByteArrayInputStream(gz))) {
            c.reader = reader;
            assertThatThrownBy(() -> reader.readAll(c)).isInstanceOf(PcapFormatException.class)
                    .hasMessageContaining(message);
        }
        assertThat(c.lines).isNotEmpty().isEqualTo(all.subList(0, c.lines.size()));
    }

    private static byte[] concat(byte[]... parts) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] part : parts) {
            out.write(part);
        }
        return out.toByteArray();
    }

    /**
     * Every prefix of a gzip capture delivers a prefix of its packets and then fails with a
     * {@link PcapFormatException} saying the gzip stream ends early (a cut inside the first two bytes is not
     * recognisable as gzip: the capture's own error); never another exception, never a wrong packet.
     */
    @Test
    void everyTruncationFailsCleanlyAfterThePacketsBeforeIt() throws Exception {
        byte[] plain = classic(30);
        byte[] gz = gzip(plain);
        List<String> all = Collected.read(gz).lines;
        for (int length = 0; length < gz.length; length++) {
            Collected c = new Collected();
            try (CaptureReader reader = CaptureReader.open(new ByteArrayInputStream(gz, 0, length))) {
                c.reader = reader;
                reader.readAll(c);
                fail("prefix " + length + " of " + gz.length + " read without an error");
            } catch (PcapFormatException e) {
                if (length < 2) {
                    assertThat(e.getMessage()).contains("the file ends after " + length);
                } else {
                    assertThat(e.getMessage()).as("prefix %d", length).contains("the gzip stream ends early")
                            .contains("after " + length + " compressed bytes");
                    assertThat(e.offset()).isBetween(0L, (long) plain.length);
                }
                assertThat(c.lines.size()).isLessThanOrEqualTo(all.size()); // equal when only the trailer is cut
                assertThat(c.lines).isEqualTo(all.subList(0, c.lines.size()));
            }
        }
    }

    /** Any corrupted byte: a clean read (a header field gzip does not check) or a {@link PcapFormatException}. */
    @Test
    void corruptionFailsCleanly() throws Exception {
        byte[] gz = gzip(classic(10));
        List<String> all = Collected.read(gz).lines;
        int errors = 0;
        for (int at = 0; at < gz.length; at++) {
            byte[] corrupt = gz.clone();
            corrupt[at] ^= (byte) 0x5A;
            try {
                Collected c = Collected.read(corrupt);
                if (at >= 10 && at < gz.length - 8) { // the deflate data: a clean read must give the same packets
                    assertThat(c.lines).as("byte %d", at).isEqualTo(all);
                }
            } catch (PcapFormatException e) {
                errors++;
            } catch (Exception | Error e) {
                fail("byte " + at + " threw " + e, e);
            }
        }
        // the CRC-32 and length trailer catch any change of the content that inflates at all
        assertThat(errors).isGreaterThan(gz.length / 2);
    }

    @Test
    void otherCompressionsAreNamedInTheError() {
        byte[][] heads = {
            {0x28, (byte) 0xB5, 0x2F, (byte) 0xFD, 0, 0}, // zstd frame
            {(byte) 0xFD, '7', 'z', 'X', 'Z', 0}, // xz
            {'B', 'Z', 'h', '9', '1', 'A'}, // bzip2
            {0x04, 0x22, 0x4D, 0x18, 0, 0}, // lz4 frame
        };
        String[] tools = {"zstd", "xz", "bzip2", "lz4"};
        for (int i = 0; i < heads.length; i++) {
            byte[] head = heads[i];
            assertThatThrownBy(() -> Collected.read(head)).isInstanceOf(PcapFormatException.class)
                    .hasMessageContaining("(a " + tools[i] + " stream: decompress it first, e.g. " + tools[i]
                            + " -d FILE; gzip is read as is)");
        }
    }

    @Test
    void aGzipStreamThatHoldsNoCaptureSaysSo() throws Exception {
        assertThatThrownBy(() -> Collected.read(gzip("GIF89a, not a capture".getBytes(StandardCharsets.US_ASCII))))
                .isInstanceOf(PcapFormatException.class)
                .hasMessageContaining("pcapng section header (0a0d0d0a) in the decompressed gzip stream, got 47494638");
        byte[] badMethod = gzip(classic(1));
        badMethod[2] = 7; // compression method: only 8 (deflate) exists
        assertThatThrownBy(() -> Collected.read(badMethod)).isInstanceOf(PcapFormatException.class)
                .hasMessageStartingWith("offset 0: the gzip stream is corrupt (");
    }

    /** A pipe: at most 7 bytes per read, and nothing ever available without blocking. */
    private static final class Trickle extends ByteArrayInputStream {
        private int calls;

        Trickle(byte[] bytes) {
            super(bytes);
        }

        @Override
        public synchronized int read(byte[] b, int off, int len) {
            return super.read(b, off, Math.min(len, 1 + calls++ % 7));
        }

        @Override
        public synchronized int available() {
            return 0;
        }
    }

    private static final class NoClose extends java.io.FilterOutputStream {
        NoClose(java.io.OutputStream out) {
            super(out);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            out.write(b, off, len);
        }

        @Override
        public void close() throws IOException {
            flush();
        }
    }
}
