package io.linerate.jobs.pcap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import io.linerate.jobs.pcap.Traffic.Sample;
import java.io.ByteArrayInputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.assertj.core.api.AbstractThrowableAssert;
import org.junit.jupiter.api.Test;

/** A malformed or truncated FILE fails with the byte offset and what was expected; never another exception. */
class MalformedCaptureTest {

    private static final long T = 1_700_000_000_000_000_000L;

    private static AbstractThrowableAssert<?, ?> reading(byte[] file) {
        return assertThatThrownBy(() -> Collected.read(file)).isInstanceOf(PcapFormatException.class);
    }

    private static void failsAt(byte[] file, long offset, String expected) {
        reading(file).hasMessageStartingWith("offset " + offset + ": ").hasMessageContaining(expected)
                .matches(e -> ((PcapFormatException) e).offset() == offset, "offset() == " + offset);
    }

    private static byte[] classic(ByteOrder order, int snaplen) {
        CaptureWriter.Pcap file = new CaptureWriter.Pcap(order, false, snaplen, LinkTypes.ETHERNET);
        long ts = T;
        for (Sample s : Traffic.mix()) {
            file.packet(ts += 1000, Frames.frame(LinkTypes.ETHERNET, s.ip()));
        }
        return file.bytes();
    }

    @Test
    void notACaptureFile() {
        failsAt(new byte[0], 0, "expected a pcap or pcapng magic number (4 bytes), the file ends after 0");
        failsAt(new byte[] {(byte) 0xA1, (byte) 0xB2}, 0, "the file ends after 2");
        failsAt("GIF89a".getBytes(StandardCharsets.US_ASCII), 0, "got 47494638");
        // gzip is read (CompressedCaptureTest); a gzip header cut short is the gzip stream's error
        failsAt(new byte[] {0x1F, (byte) 0x8B, 8, 0, 0, 0}, 0, "the gzip stream ends early (a truncated file?)");
    }

    @Test
    void classicFileHeader() {
        byte[] file = classic(ByteOrder.BIG_ENDIAN, 65535);
        failsAt(Arrays.copyOf(file, 10), 0, "truncated pcap file header: expected 24 bytes, the file ends after 10");
        byte[] version = file.clone();
        version[5] = 3;
        failsAt(version, 4, "expected pcap major version 2, got 3");
    }

    @Test
    void classicRecordsCutShort() {
        byte[] file = classic(ByteOrder.LITTLE_ENDIAN, 65535);
        byte[] extra = Arrays.copyOf(file, file.length + 5);
        failsAt(extra, file.length, "truncated record header: expected 16 bytes, the file ends after 5");
        // the first record: header at 24, 16 + 14 + 40 bytes
        failsAt(Arrays.copyOf(file, 24 + 16 + 30), 24,
                "truncated packet data: the record declares 54 captured bytes after its 16-byte header,"
                        + " the file ends after 30");
    }

    @Test
    void classicSnaplenViolations() {
        byte[] frame = new byte[200];
        byte[] tooLong = new CaptureWriter.Pcap(ByteOrder.BIG_ENDIAN, true, 100, LinkTypes.ETHERNET)
                .record(1, 0, 200, 200, frame).record(1, 0, 262_145, 262_145, new byte[262_145]).bytes();
        failsAt(tooLong, 24 + 16 + 200 + 8,
                "captured length 262145 exceeds the file's snaplen 100 and libpcap's largest, 262144");
        byte[] huge = new CaptureWriter.Pcap(ByteOrder.LITTLE_ENDIAN, true, 0, LinkTypes.ETHERNET)
                .record(1, 0, 64, 64, new byte[64]).record(1, 0, -2, 10, new byte[0]).bytes();
        failsAt(huge, 24 + 80 + 8, "captured length 4294967294 exceeds the reader's maximum packet size");
    }

    private static CaptureWriter.PcapNg ng(ByteOrder order) {
        return new CaptureWriter.PcapNg(order).iface(LinkTypes.ETHERNET, 128, -1, 0);
    }

    private static final int SHB = 28;
    private static final int IDB = 20 + 8 + 4; // fixed part, if_name option, end of options

    @Test
    void pcapngSectionHeader() {
        byte[] file = ng(ByteOrder.LITTLE_ENDIAN).bytes();
        byte[] bom = file.clone();
        bom[8] = 0x55;
        failsAt(bom, 8, "expected the pcapng byte-order magic 0x1A2B3C4D in either byte order, got 0x553C2B1A");
        byte[] version = file.clone();
        version[12] = 2;
        failsAt(version, 12, "expected pcapng major version 1, got 2");
        failsAt(Arrays.copyOf(file, 10), 0, "truncated section header block: expected 12 bytes");
    }

    /**
     * A block claiming the largest size (64 MiB) in a file of 3 MiB: the buffer grows as the bytes arrive (1, 2,
     * then 4 MiB), not to the claimed size before reading.
     */
    @Test
    void aClaimedLengthCostsOnlyWhatTheStreamHolds() {
        int epb = SHB + IDB;
        byte[] file = Arrays.copyOf(ng(ByteOrder.BIG_ENDIAN).epb(0, 1, new byte[60]).bytes(), 3 << 20);
        ByteBuffer.wrap(file).putInt(epb + 4, CaptureReader.MAX_BLOCK_BYTES);
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long before = threads.getThreadAllocatedBytes(Thread.currentThread().getId());
        failsAt(file, epb, "truncated block: the block of type 0x00000006 declares 67108864 bytes, the file ends"
                + " after " + (file.length - epb));
        long allocated = threads.getThreadAllocatedBytes(Thread.currentThread().getId()) - before;
        assertThat(allocated).as("bytes allocated").isLessThan(16L << 20); // 1 + 2 + 4 MiB, then messages
    }

    @Test
    void pcapngBlockLengths() {
        byte[] file = ng(ByteOrder.BIG_ENDIAN).epb(0, 1, new byte[60]).bytes();
        int epb = SHB + IDB;
        assertThat(ByteBuffer.wrap(file).getInt(epb)).isEqualTo(6);
        byte[] odd = file.clone();
        odd[epb + 7] = (byte) (odd[epb + 7] + 1);
        failsAt(odd, epb + 4, "block total length 93: expected a multiple of 4, at least 12");
        byte[] small = file.clone();
        ByteBuffer.wrap(small).putInt(epb + 4, 8);
        failsAt(small, epb + 4, "block total length 8: expected a multiple of 4, at least 12");
        byte[] mismatch = file.clone();
        ByteBuffer.wrap(mismatch).putInt(file.length - 4, 96);
        failsAt(mismatch, file.length - 4, "block length mismatch: the block at offset " + epb
                + " declares 92 bytes at its start and 96 at its end");
        byte[] huge = file.clone();
        ByteBuffer.wrap(huge).putInt(epb + 4, 0x7FFFFFF0);
        failsAt(huge, epb + 4, "block total length 2147483632 exceeds the reader's maximum block size");
        failsAt(Arrays.copyOf(file, file.length - 3), epb,
                "truncated block: the block of type 0x00000006 declares 92 bytes, the file ends after 89");
        failsAt(Arrays.copyOf(file, epb + 5), epb, "truncated block header: expected 8 bytes (block type and total"
                + " length), the file ends after 5");
    }

    @Test
    void pcapngPacketBlocks() {
        int epb = SHB + IDB;
        byte[] file = ng(ByteOrder.LITTLE_ENDIAN).epb(0, 1, new byte[60]).bytes();
        byte[] caplen = file.clone();
        ByteBuffer.wrap(caplen).order(ByteOrder.LITTLE_ENDIAN).putInt(epb + 20, 61);
        failsAt(caplen, epb + 20, "captured length 61 does not fit in the enhanced packet block of 92 bytes");
        byte[] iface = file.clone();
        ByteBuffer.wrap(iface).order(ByteOrder.LITTLE_ENDIAN).putInt(epb + 8, 5);
        failsAt(iface, epb + 8, "interface id 5: expected one of the 1 interfaces described before it");
        byte[] overSnaplen = ng(ByteOrder.BIG_ENDIAN).iface(LinkTypes.RAW, 40, -1, 0)
                .epb(0, 1, new byte[60]).block(6, epbBody(1, 60), true).bytes();
        failsAt(overSnaplen, SHB + 2 * IDB + 92 + 20, "captured length 60 exceeds the snaplen 40 of interface 1");
        byte[] noInterface = new CaptureWriter.PcapNg(ByteOrder.BIG_ENDIAN).block(3, new byte[4], true).bytes();
        failsAt(noInterface, SHB, "interface id 0: expected one of the 0 interfaces");
        byte[] shortEpb = ng(ByteOrder.BIG_ENDIAN).block(6, new byte[16], true).bytes();
        failsAt(shortEpb, SHB + IDB + 4, "enhanced packet block of 28 bytes: expected at least 32");
    }

    private static byte[] epbBody(int iface, int caplen) {
        ByteBuffer b = ByteBuffer.allocate(20 + caplen);
        b.putInt(iface).putInt(0).putInt(1).putInt(caplen).putInt(caplen);
        return b.array();
    }

    @Test
    void pcapngInterfaceOptions() {
        ByteBuffer body = ByteBuffer.allocate(16);
        body.putShort((short) 1).putShort((short) 0).putInt(0);
        body.putShort((short) 2).putShort((short) 40).putInt(0); // if_name of 40 bytes in a 4-byte space
        byte[] file = new CaptureWriter.PcapNg(ByteOrder.BIG_ENDIAN).block(1, body.array(), false).bytes();
        failsAt(file, SHB + 16, "option 2 of 40 bytes runs past the end of its interface description block");
    }

    /** Every prefix of a valid file reads cleanly up to its last whole record, or fails with the right offset. */
    @Test
    void truncationSweep() throws Exception {
        List<Sample> mix = Traffic.mix();
        CaptureWriter.Pcap classicLe = new CaptureWriter.Pcap(ByteOrder.LITTLE_ENDIAN, false, 65535,
                LinkTypes.ETHERNET);
        CaptureWriter.Pcap classicBe = new CaptureWriter.Pcap(ByteOrder.BIG_ENDIAN, true, 65535,
                LinkTypes.LINUX_SLL2);
        CaptureWriter.PcapNg ngLe = new CaptureWriter.PcapNg(ByteOrder.LITTLE_ENDIAN)
                .iface(LinkTypes.ETHERNET, 65535, 9, 0).block(0x99, new byte[7], false);
        CaptureWriter.PcapNg ngBe = new CaptureWriter.PcapNg(ByteOrder.BIG_ENDIAN)
                .iface(LinkTypes.RAW, 65535, -1, 0).iface(LinkTypes.LINUX_SLL, 65535, 3, 0);
        long ts = T;
        for (Sample s : mix) {
            classicLe.packet(ts += 1000, Frames.frame(LinkTypes.ETHERNET, s.ip()));
            classicBe.packet(ts += 1000, Frames.frame(LinkTypes.LINUX_SLL2, s.ip()));
            ngLe.epb(0, ts += 1000, Frames.frame(LinkTypes.ETHERNET, s.ip()));
            ngBe.epb(0, ts / 1000, s.ip()).epb(1, ts / 1_000_000, Frames.frame(LinkTypes.LINUX_SLL, s.ip()));
        }
        ngBe.spb(mix.get(0).ip()).opb(0, 1, mix.get(1).ip()).section().iface(LinkTypes.IPV4, 0, -1, 0)
                .epb(0, 5, mix.get(2).ip());
        for (CaptureWriter<?> w : List.of(classicLe, classicBe, ngLe, ngBe)) {
            sweep(w, false);
            sweep(w, true);
        }
    }

    /** Any single corrupted byte gives a clean read (possibly with skipped packets) or a PcapFormatException. */
    @Test
    void corruptionSweep() {
        List<Sample> mix = Traffic.mix();
        CaptureWriter.Pcap classic = new CaptureWriter.Pcap(ByteOrder.BIG_ENDIAN, true, 65535, LinkTypes.ETHERNET);
        CaptureWriter.PcapNg ng = new CaptureWriter.PcapNg(ByteOrder.LITTLE_ENDIAN)
                .iface(LinkTypes.ETHERNET, 65535, 0x80 | 20, 0).iface(LinkTypes.LINUX_SLL2, 200, 9, 3);
        for (Sample s : mix) {
            classic.packet(T, Frames.ethernet(s.isIpv6() ? 0x86DD : 0x0800, s.ip(), 0x8100));
            ng.epb(0, T, Frames.frame(LinkTypes.ETHERNET, s.ip())).epb(1, T, Frames.frame(LinkTypes.LINUX_SLL2,
                    s.ip()));
        }
        ng.spb(Frames.frame(LinkTypes.ETHERNET, mix.get(3).ip()));
        int formatErrors = 0;
        int cleanReads = 0;
        for (byte[] file : List.of(classic.bytes(), ng.bytes())) {
            for (int at = 0; at < file.length; at++) {
                for (int flip : new int[] {0xFF, 0x01, 0x80, 0x10}) {
                    byte[] corrupt = file.clone();
                    corrupt[at] ^= (byte) flip;
                    try {
                        Collected c = Collected.read(corrupt);
                        assertThat(c.reader.recordsRead())
                                .isEqualTo(c.reader.packetsDelivered() + c.reader.skippedTotal());
                        cleanReads++;
                    } catch (PcapFormatException e) {
                        assertThat(e.offset()).isBetween(0L, (long) corrupt.length);
                        formatErrors++;
                    } catch (Exception | Error e) {
                        fail("byte " + at + " ^ " + flip + " threw " + e, e);
                    }
                }
            }
        }
        assertThat(formatErrors).isPositive();
        assertThat(cleanReads).isPositive();
    }

    private static void sweep(CaptureWriter<?> w, boolean shortReads) throws IOException {
        byte[] file = w.bytes();
        List<Long> starts = w.unitStarts;
        for (int length = 0; length <= file.length; length++) {
            int unit = 0;
            while (unit + 1 < starts.size() && starts.get(unit + 1) <= length) {
                unit++;
            }
            boolean atBoundary = length == file.length || (unit > 0 && starts.get(unit) == length);
            long wholeRecords = 0;
            for (int u = 0; u < starts.size() && (u + 1 < starts.size() ? starts.get(u + 1) : file.length) <= length;
                 u++) {
                wholeRecords += w.unitIsRecord.get(u) ? 1 : 0;
            }
            InputStream in = new ByteArrayInputStream(file, 0, length);
            if (shortReads) {
                in = new ShortReads(in);
            }
            Collected c = new Collected();
            try (CaptureReader reader = CaptureReader.open(in)) {
                c.reader = reader;
                reader.readAll(c);
                assertThat(atBoundary).as("prefix %d of %d read cleanly", length, file.length).isTrue();
                assertThat(reader.recordsRead()).as("records in prefix %d", length).isEqualTo(wholeRecords);
            } catch (PcapFormatException e) {
                assertThat(atBoundary).as("prefix %d of %d failed: %s", length, file.length, e.getMessage())
                        .isFalse();
                assertThat(e.offset()).as("offset for prefix %d: %s", length, e.getMessage())
                        .isEqualTo(starts.get(unit));
                assertThat(e.getMessage()).startsWith("offset " + e.offset() + ": ").contains("the file ends after");
                if (c.reader != null) {
                    assertThat(c.reader.recordsRead()).isEqualTo(wholeRecords);
                }
            } catch (Exception | AssertionError e) {
                if (e instanceof AssertionError) {
                    throw (AssertionError) e;
                }
                fail("prefix " + length + " of " + file.length + " threw " + e, e);
            }
        }
    }

    /** Hands out at most 7 bytes per read, to exercise refills across record boundaries. */
    private static final class ShortReads extends FilterInputStream {
        ShortReads(InputStream in) {
            super(in);
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            return super.read(b, off, Math.min(len, 7));
        }
    }

    /**
     * Timestamps beyond 64-bit nanoseconds (past 2262) are skipped as TIMESTAMP_OVERFLOW, not wrapped into a
     * plausible time; an if_tsoffset that cannot be held fails naming it; more than 65,536 interfaces in a section
     * fail (bounded per-interface arrays).
     */
    @Test
    void pcapngTimestampsThatOverflowAreSkippedAndAbsurdOffsetsOrInterfaceCountsFail() throws Exception {
        byte[] frame = Frames.frame(LinkTypes.ETHERNET, Traffic.mix().get(0).ip());
        byte[] file = new CaptureWriter.PcapNg(ByteOrder.LITTLE_ENDIAN).iface(LinkTypes.ETHERNET, 0, -1, 0)
                .iface(LinkTypes.ETHERNET, 0, 9, 0)
                .epb(0, 18446744073709552L, frame) // microseconds: 1.8e22 ns, was delivered as 384 ns
                .epb(0, 1L << 63, frame) // above 2^63 units: was a negative time
                .epb(1, Long.MAX_VALUE, frame) // nanoseconds: the largest that fits
                .epb(0, 1_700_000_000_000_000L, frame).bytes();
        Collected c = Collected.read(file);
        assertThat(c.reader.skipped(SkipReason.TIMESTAMP_OVERFLOW)).isEqualTo(2);
        assertThat(c.lines).hasSize(2);
        byte[] offset = new CaptureWriter.PcapNg(ByteOrder.BIG_ENDIAN).iface(LinkTypes.ETHERNET, 0, -1, 18446744074L)
                .epb(0, 1, frame).bytes();
        reading(offset).hasMessageContaining("if_tsoffset 18446744074 s of interface 0 is beyond");
        CaptureWriter.PcapNg many = new CaptureWriter.PcapNg(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i <= PcapNgSource.MAX_INTERFACES; i++) {
            many.iface(LinkTypes.ETHERNET, 0, -1, 0);
        }
        reading(many.bytes()).hasMessageContaining("more than 65536 interface description blocks");
    }
}
