package io.linerate.jobs.pcap;

import static io.linerate.jobs.pcap.Frames.ACK;
import static io.linerate.jobs.pcap.Frames.TCP;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The capture file readers' checks at their exact boundaries: a length, resolution or offset exactly at the largest
 * (or smallest) value the format or the reader allows is read, one step beyond it fails; a file cut exactly where a
 * check reads names the structure it cuts. Files are written byte by byte (draft-ietf-opsawg-pcap, -pcapng).
 */
class CaptureFileBoundariesTest {

    private static final long T = 1_700_000_000_000_000_000L;
    /** Section header block (28 bytes) and an interface description block with if_name and if_tsresol (40). */
    private static final int SHB = 28;
    private static final int IDB = 40;

    /** Ethernet + IPv4 + TCP (20-byte header) + 20 bytes of data: 74 bytes. */
    private static final byte[] FRAME = Frames.ethernet(0x0800,
            Frames.ipv4("10.0.0.1", "10.0.0.2", TCP, Frames.tcp(1000, 2000, ACK, 20)));
    private static final String LINE_AT_0 = Collected.expect(0, TCP, "10.0.0.1", 1000, "10.0.0.2", 2000, ACK, 60);

    private static String line(long ts) {
        return Collected.expect(ts, TCP, "10.0.0.1", 1000, "10.0.0.2", 2000, ACK, 60);
    }

    private static void failsAt(byte[] file, long offset, String expected) {
        assertThatThrownBy(() -> Collected.read(file)).isInstanceOf(PcapFormatException.class)
                .hasMessageStartingWith("offset " + offset + ": ").hasMessageContaining(expected)
                .matches(e -> ((PcapFormatException) e).offset() == offset, "offset() == " + offset);
    }

    private static ByteBuffer body(ByteOrder order, int size) {
        return ByteBuffer.allocate(size).order(order);
    }

    // --- classic pcap ---

    /** libpcap reads a record up to its MAXIMUM_SNAPLEN (262,144) beyond the file's snaplen, cut to the snaplen. */
    @Test
    void aClassicRecordOfLibpcapsLargestSnaplenIsRead() throws Exception {
        byte[] largest = Arrays.copyOf(FRAME, ClassicPcapSource.LIBPCAP_MAX_SNAPLEN);
        byte[] file = new CaptureWriter.Pcap(ByteOrder.LITTLE_ENDIAN, true, 100, LinkTypes.ETHERNET)
                .record(1, 0, largest.length, largest.length, largest).packet(2_000_000_000L, FRAME).bytes();
        Collected c = Collected.read(file);
        assertThat(c.lines).containsExactly(line(1_000_000_000L), line(2_000_000_000L));
        assertThat(c.reader.recordsRead()).isEqualTo(2);
    }

    /** The link type is the low 16 bits of the header's field (the upper ones may carry an FCS length). */
    @Test
    void aClassicRecordHasTheFilesLinkType() throws Exception {
        for (ByteOrder order : List.of(ByteOrder.BIG_ENDIAN, ByteOrder.LITTLE_ENDIAN)) {
            byte[] sll = Frames.sll(0x0800, Frames.ipv4("10.0.0.1", "10.0.0.2", TCP, Frames.tcp(1000, 2000, ACK, 20)));
            byte[] file = new CaptureWriter.Pcap(order, false, 0, 0x1000_0000 | LinkTypes.LINUX_SLL)
                    .packet(0, sll).bytes();
            assertThat(Collected.read(file, true).lines).as("%s", order)
                    .containsExactly(LINE_AT_0 + " if=0 lt=" + LinkTypes.LINUX_SLL);
        }
    }

    // --- pcapng block headers ---

    private static CaptureWriter.PcapNg ng(ByteOrder order, int snaplen) {
        return new CaptureWriter.PcapNg(order).iface(LinkTypes.ETHERNET, snaplen, 9, 0);
    }

    /**
     * A file that ends once the 8 bytes of a block's type and length are there is a truncated block (not a
     * truncated block header); one that ends 12 bytes into a section header block, once its byte-order magic is
     * there, too.
     */
    @Test
    void aFileCutAfterABlocksHeaderFieldsIsATruncatedBlock() {
        for (ByteOrder order : List.of(ByteOrder.BIG_ENDIAN, ByteOrder.LITTLE_ENDIAN)) {
            byte[] file = ng(order, 0).epb(0, T, FRAME).bytes();
            int epb = SHB + IDB;
            failsAt(Arrays.copyOf(file, epb + 8), epb,
                    "truncated block: the block of type 0x00000006 declares 108 bytes, the file ends after 8");
            byte[] twoSections = ng(order, 0).section().bytes();
            failsAt(Arrays.copyOf(twoSections, epb + 12), epb,
                    "truncated block: the block of type 0x0A0D0D0A declares 28 bytes, the file ends after 12");
            failsAt(Arrays.copyOf(twoSections, epb + 11), epb,
                    "truncated section header block: expected 12 bytes up to the byte-order magic, the file ends"
                            + " after 11");
        }
    }

    /** The smallest block is 12 bytes: type, length, length (an empty body). */
    @Test
    void aBlockOfTwelveBytesIsSkipped() throws Exception {
        byte[] file = ng(ByteOrder.BIG_ENDIAN, 0).block(0x0BAD, new byte[0], false).epb(0, 0, FRAME).bytes();
        assertThat(file).hasSize(SHB + IDB + 12 + 108);
        Collected c = Collected.read(file);
        assertThat(c.lines).containsExactly(LINE_AT_0);
        assertThat(c.reader.blocksSkipped()).isEqualTo(1);
    }

    /** Each block type's minimum total length: SHB 28, IDB 20, EPB 32, SPB 16; 4 bytes less fails. */
    @Test
    void eachBlockTypeHasItsMinimumLength() throws Exception {
        ByteOrder le = ByteOrder.LITTLE_ENDIAN;
        // a section header block without its section length: 24 bytes
        CaptureWriter.PcapNg shortShb = new CaptureWriter.PcapNg(le);
        shortShb.block(0x0A0D0D0A, body(le, 12).putInt(0x1A2B3C4D).putShort((short) 1).array(), false);
        failsAt(shortShb.bytes(), SHB + 4, "section header block of 24 bytes: expected at least 28");
        // an interface description block without options (20 bytes) is whole; without its snaplen (16) it is not
        byte[] bare = body(le, 8).putShort((short) LinkTypes.ETHERNET).putShort((short) 0).putInt(0).array();
        CaptureWriter.PcapNg file = new CaptureWriter.PcapNg(le).block(1, bare, false);
        byte[] noOptions = file.block(6, epbBody(le, 0, 0, FRAME.length, FRAME.length, FRAME), true).bytes();
        assertThat(Collected.read(noOptions, true).lines)
                .containsExactly(LINE_AT_0 + " if=0 lt=" + LinkTypes.ETHERNET); // microseconds by default
        byte[] shortIdb = new CaptureWriter.PcapNg(le).block(1, Arrays.copyOf(bare, 4), false).bytes();
        failsAt(shortIdb, SHB + 4, "interface description block of 16 bytes: expected at least 20");
        // an enhanced packet block of nothing captured (32 bytes) is a record, the packet truncated
        byte[] emptyEpb = ng(le, 0).block(6, epbBody(le, 0, 0, 0, 74, new byte[0]), true).bytes();
        Collected c = Collected.read(emptyEpb);
        assertThat(c.reader.recordsRead()).isEqualTo(1);
        assertThat(c.reader.skipped(SkipReason.TRUNCATED)).isEqualTo(1);
        // a simple packet block of nothing captured (16 bytes), and one of 12
        byte[] emptySpb = ng(le, 0).block(3, body(le, 4).putInt(74).array(), true).bytes();
        c = Collected.read(emptySpb);
        assertThat(c.reader.recordsRead()).isEqualTo(1);
        assertThat(c.reader.skipped(SkipReason.TRUNCATED)).isEqualTo(1);
        failsAt(ng(le, 0).block(3, new byte[0], true).bytes(), SHB + IDB + 4,
                "simple packet block of 12 bytes: expected at least 16");
    }

    private static byte[] epbBody(ByteOrder order, int iface, long units, int caplen, int originalLength,
                                  byte[] data) {
        ByteBuffer b = body(order, 20 + CaptureWriter.PcapNg.pad(data.length));
        b.putInt(iface).putInt((int) (units >>> 32)).putInt((int) units).putInt(caplen).putInt(originalLength);
        return b.put(data).array();
    }

    // --- pcapng options ---

    /** An interface description block of the given options (code, value) and nothing else: no opt_endofopt. */
    private static byte[] idb(ByteOrder order, int snaplen, Object... codesAndValues) {
        ByteBuffer b = body(order, 1024);
        b.putShort((short) LinkTypes.ETHERNET).putShort((short) 0).putInt(snaplen);
        for (int i = 0; i < codesAndValues.length; i += 2) {
            byte[] value = (byte[]) codesAndValues[i + 1];
            b.putShort((short) (int) codesAndValues[i]).putShort((short) value.length).put(value);
            b.position(b.position() + (-value.length & 3));
        }
        return Arrays.copyOf(b.array(), b.position());
    }

    /**
     * opt_endofopt may be left out (draft-ietf-opsawg-pcapng: a reader MUST NOT assume it and must check for the
     * end of the block): an option ending exactly at the block's end is read; an option header in the last 4 bytes
     * that claims any value, or a value running 4 bytes past the end (into the trailing length), fails.
     */
    @Test
    void optionsEndingExactlyAtTheBlocksEndAreRead() throws Exception {
        for (ByteOrder order : List.of(ByteOrder.BIG_ENDIAN, ByteOrder.LITTLE_ENDIAN)) {
            // if_tsresol (milliseconds), then if_name, whose 4 bytes end exactly at the block's end
            byte[] idb = idb(order, 0, 9, new byte[] {3}, 2, "eth0".getBytes(StandardCharsets.US_ASCII));
            byte[] file = new CaptureWriter.PcapNg(order).block(1, idb, false)
                    .block(6, epbBody(order, 0, 5, FRAME.length, FRAME.length, FRAME), true).bytes();
            assertThat(Collected.read(file).lines).as("%s", order).containsExactly(line(5_000_000L));

            byte[] claimsFour = Arrays.copyOf(idb, idb.length + 4);
            ByteBuffer.wrap(claimsFour).order(order).putShort(idb.length, (short) 2).putShort(idb.length + 2,
                    (short) 4);
            failsAt(new CaptureWriter.PcapNg(order).block(1, claimsFour, false).bytes(), SHB + 8 + idb.length,
                    "option 2 of 4 bytes runs past the end of its interface description block");

            byte[] fourPast = idb.clone();
            ByteBuffer.wrap(fourPast).order(order).putShort(16 + 2, (short) 8); // if_name of 8 bytes in 4
            failsAt(new CaptureWriter.PcapNg(order).block(1, fourPast, false).bytes(), SHB + 8 + 16,
                    "option 2 of 8 bytes runs past the end of its interface description block");
        }
    }

    private static long firstTimestamp(int tsresol, long tsoffsetSeconds, long units) throws Exception {
        byte[] file = new CaptureWriter.PcapNg(ByteOrder.BIG_ENDIAN)
                .iface(LinkTypes.ETHERNET, 0, tsresol, tsoffsetSeconds).epb(0, units, FRAME).bytes();
        return Long.parseLong(Collected.read(file).lines.get(0).split(" ")[0]);
    }

    /**
     * if_tsresol: the finest resolutions read are 2^-63 and 10^-27 s (units above 10^-9 s are divided by a power of
     * ten that a long holds, at most 10^18); one finer fails. if_tsoffset: ±9,223,372,036 s, the most 64-bit
     * nanoseconds hold, is read; one second more fails.
     */
    @Test
    void theFinestResolutionsAndLargestOffsetsAreRead() throws Exception {
        assertThat(firstTimestamp(0x80 | 63, 0, 3L << 62)).isEqualTo(1_500_000_000L);
        assertThat(firstTimestamp(27, 0, 5_999_999_999_999_999_999L))
                .isEqualTo(5L);
        assertThat(firstTimestamp(12, 0, 1_999)).isEqualTo(1L);           // picoseconds, truncated
        assertThat(firstTimestamp(10, 0, 123_456_789_019L)).isEqualTo(12_345_678_901L);
        long most = Long.MAX_VALUE / 1_000_000_000L;
        assertThat(firstTimestamp(9, most, 7)).isEqualTo(most * 1_000_000_000L + 7);
        assertThat(firstTimestamp(9, -most, 7)).isEqualTo(-most * 1_000_000_000L + 7);
        int idbAt = SHB;
        for (long beyond : new long[] {most + 1, -most - 1}) {
            failsAt(new CaptureWriter.PcapNg(ByteOrder.BIG_ENDIAN).iface(LinkTypes.ETHERNET, 0, 9, beyond).bytes(),
                    idbAt, "if_tsoffset " + beyond + " s of interface 0 is beyond ±" + most + " s");
        }
        failsAt(new CaptureWriter.PcapNg(ByteOrder.BIG_ENDIAN).iface(LinkTypes.ETHERNET, 0, 0x80 | 64, 0).bytes(),
                idbAt, "if_tsresol 2^-64 is not supported");
        failsAt(new CaptureWriter.PcapNg(ByteOrder.BIG_ENDIAN).iface(LinkTypes.ETHERNET, 0, 28, 0).bytes(),
                idbAt, "if_tsresol 10^-28 is not supported");
    }

    /**
     * A new section's interface 0 takes its own resolution, whatever the previous section's interface 0 had: here
     * whole seconds (2^0) after microseconds, also for units whose product alone is beyond 64-bit nanoseconds but
     * that a negative if_tsoffset brings back.
     */
    @Test
    void aNewSectionsInterfaceReplacesTheResolutionOfTheOldOne() throws Exception {
        byte[] file = ng(ByteOrder.LITTLE_ENDIAN, 0).epb(0, 1_000, FRAME)
                .section().iface(LinkTypes.ETHERNET, 0, 0x80, -9_000_000_000L)
                .epb(0, 9_000_000_005L, FRAME).epb(0, 10_000_000_000L, FRAME).bytes();
        assertThat(Collected.read(file).lines).containsExactly(line(1_000), line(5_000_000_000L),
                line(1_000_000_000_000_000_000L));
    }

    // --- pcapng simple packet blocks ---

    /** A simple packet block of {@code captured} bytes of FRAME, which was 74 bytes on the wire. */
    private static byte[] spb(ByteOrder order, int captured) {
        return body(order, 4 + captured).putInt(FRAME.length).put(FRAME, 0, captured).array();
    }

    /**
     * A simple packet block has no captured length: it is the original length, or the block's room if that is
     * smaller (the packet was cut), or the interface's snaplen if that is smaller still (0: none). Cut 48 bytes into
     * FRAME the TCP flags are there, cut 44 they are not.
     */
    @Test
    void aSimplePacketBlocksCapturedLengthIsTheSmallestOfItsBounds() throws Exception {
        ByteOrder be = ByteOrder.BIG_ENDIAN;
        Collected c = Collected.read(new CaptureWriter.PcapNg(be).iface(LinkTypes.ETHERNET, 0, -1, 0)
                .block(3, spb(be, 48), true).block(3, spb(be, 44), true).bytes());
        assertThat(c.lines).containsExactly(LINE_AT_0);
        assertThat(c.reader.skipped(SkipReason.TRUNCATED)).isEqualTo(1);
        // a snaplen above the room does not lengthen it; one below shortens it
        c = Collected.read(new CaptureWriter.PcapNg(be).iface(LinkTypes.ETHERNET, 64, -1, 0)
                .block(3, spb(be, 44), true).bytes());
        assertThat(c.reader.skipped(SkipReason.TRUNCATED)).isEqualTo(1);
        c = Collected.read(new CaptureWriter.PcapNg(be).iface(LinkTypes.ETHERNET, 47, -1, 0)
                .block(3, spb(be, 48), true).bytes());
        assertThat(c.reader.skipped(SkipReason.TRUNCATED)).isEqualTo(1);
    }
}
