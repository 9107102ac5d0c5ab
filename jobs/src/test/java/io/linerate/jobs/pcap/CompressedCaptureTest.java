package io.linerate.jobs.pcap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import io.linerate.jobs.pcap.Traffic.Sample;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteOrder;
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
        assertThatThrownBy(() -> Collected.read(gzip("GIF89a, not a capture".getBytes())))
                .isInstanceOf(PcapFormatException.class)
                .hasMessageContaining("pcapng section header (0a0d0d0a) in the decompressed gzip stream, got 47494638");
        byte[] badMethod = gzip(classic(1));
        badMethod[2] = 7; // compression method: only 8 (deflate) exists
        assertThatThrownBy(() -> Collected.read(badMethod)).isInstanceOf(PcapFormatException.class)
                .hasMessageStartingWith("offset 0: the gzip stream is corrupt (");
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
