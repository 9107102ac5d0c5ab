package io.linerate.jobs.pcap;

import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.jobs.pcap.Traffic.Sample;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Both containers, both byte orders, every timestamp resolution and every supported link type. */
class CaptureFormatsTest {

    private static final long T0 = 1_700_000_000_123_456_789L;

    static Stream<Arguments> ordersAndResolutions() {
        return Stream.of(Arguments.of(ByteOrder.BIG_ENDIAN, false), Arguments.of(ByteOrder.BIG_ENDIAN, true),
                Arguments.of(ByteOrder.LITTLE_ENDIAN, false), Arguments.of(ByteOrder.LITTLE_ENDIAN, true));
    }

    @ParameterizedTest(name = "{0} nanoseconds={1}")
    @MethodSource("ordersAndResolutions")
    void classicPcapInBothByteOrdersAndResolutions(ByteOrder order, boolean nanos) throws Exception {
        CaptureWriter.Pcap file = new CaptureWriter.Pcap(order, nanos, 65535, LinkTypes.ETHERNET);
        List<String> expected = new ArrayList<>();
        long ts = T0;
        for (Sample s : Traffic.mix()) {
            file.packet(ts, Frames.frame(LinkTypes.ETHERNET, s.ip()));
            expected.add(s.expect(nanos ? ts : ts / 1000 * 1000));
            ts += 1_000_001_001L;
        }
        file.packet(ts, Frames.arp());

        Collected c = Collected.read(file.bytes());

        assertThat(c.reader.format())
                .isEqualTo(nanos ? CaptureFormat.PCAP_NANOSECONDS : CaptureFormat.PCAP_MICROSECONDS);
        assertThat(c.lines).containsExactlyElementsOf(expected);
        assertThat(c.reader.recordsRead()).isEqualTo(7);
        assertThat(c.reader.packetsDelivered()).isEqualTo(6);
        assertThat(c.reader.skipped(SkipReason.NOT_IP)).isEqualTo(1);
        assertThat(c.reader.skippedTotal()).isEqualTo(1);
    }

    @ParameterizedTest(name = "link type {0}")
    @ValueSource(ints = {LinkTypes.NULL, LinkTypes.ETHERNET, LinkTypes.RAW, LinkTypes.LOOP, LinkTypes.LINUX_SLL,
            LinkTypes.LINUX_SLL2, LinkTypes.PPP, LinkTypes.PPP_HDLC, LinkTypes.C_HDLC})
    void everyLinkTypeCarriesIpv4AndIpv6(int linkType) throws Exception {
        CaptureWriter.Pcap file = new CaptureWriter.Pcap(ByteOrder.LITTLE_ENDIAN, true, 65535, linkType);
        List<String> expected = new ArrayList<>();
        long ts = T0;
        for (Sample s : Traffic.mix()) {
            file.packet(ts, Frames.frame(linkType, s.ip()));
            expected.add(s.expect(ts));
            ts += 7;
        }
        Collected c = Collected.read(file.bytes());
        assertThat(c.lines).containsExactlyElementsOf(expected);
        assertThat(c.reader.skippedTotal()).isZero();
    }

    @Test
    void nullLinkTypeInBigEndianHostOrderAndOtherFamilies() throws Exception {
        Sample v4 = Traffic.mix().get(0);
        Sample v6 = Traffic.mix().get(3);
        CaptureWriter.Pcap file = new CaptureWriter.Pcap(ByteOrder.BIG_ENDIAN, false, 65535, LinkTypes.NULL)
                .packet(T0, Frames.loopback(2, ByteOrder.BIG_ENDIAN, v4.ip()))
                .packet(T0, Frames.loopback(28, ByteOrder.BIG_ENDIAN, v6.ip()))
                .packet(T0, Frames.loopback(24, ByteOrder.LITTLE_ENDIAN, v6.ip()))
                .packet(T0, Frames.loopback(7, ByteOrder.LITTLE_ENDIAN, v4.ip()));
        Collected c = Collected.read(file.bytes());
        long micros = T0 / 1000 * 1000;
        assertThat(c.lines).containsExactly(v4.expect(micros), v6.expect(micros), v6.expect(micros));
        assertThat(c.reader.skipped(SkipReason.NOT_IP)).isEqualTo(1);
    }

    @Test
    void rawIpv4AndIpv6LinkTypesCheckTheVersion() throws Exception {
        Sample v4 = Traffic.mix().get(1);
        Sample v6 = Traffic.mix().get(4);
        byte[] four = new CaptureWriter.Pcap(ByteOrder.BIG_ENDIAN, true, 65535, LinkTypes.IPV4)
                .packet(T0, v4.ip()).packet(T0, v6.ip()).bytes();
        byte[] six = new CaptureWriter.Pcap(ByteOrder.BIG_ENDIAN, true, 65535, LinkTypes.IPV6)
                .packet(T0, v6.ip()).packet(T0, v4.ip()).bytes();

        Collected c4 = Collected.read(four);
        Collected c6 = Collected.read(six);

        assertThat(c4.lines).containsExactly(v4.expect(T0));
        assertThat(c4.reader.skipped(SkipReason.MALFORMED_IP)).isEqualTo(1);
        assertThat(c6.lines).containsExactly(v6.expect(T0));
        assertThat(c6.reader.skipped(SkipReason.MALFORMED_IP)).isEqualTo(1);
    }

    @Test
    void unsupportedLinkTypeIsCountedNotFatal() throws Exception {
        CaptureWriter.Pcap file = new CaptureWriter.Pcap(ByteOrder.BIG_ENDIAN, false, 65535, 147)
                .packet(T0, new byte[] {1, 2, 3, 4}).packet(T0, new byte[] {5});
        Collected c = Collected.read(file.bytes());
        assertThat(c.lines).isEmpty();
        assertThat(c.reader.recordsRead()).isEqualTo(2);
        assertThat(c.reader.skipped(SkipReason.UNSUPPORTED_LINK_TYPE)).isEqualTo(2);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"BIG_ENDIAN", "LITTLE_ENDIAN"})
    void pcapngWithInterfacesOfDifferentLinkTypesAndResolutions(String byteOrder) throws Exception {
        ByteOrder order = byteOrder.equals("BIG_ENDIAN") ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN;
        ByteOrder other = order == ByteOrder.BIG_ENDIAN ? ByteOrder.LITTLE_ENDIAN : ByteOrder.BIG_ENDIAN;
        List<Sample> mix = Traffic.mix();
        long seconds = 1_700_000_000L;
        CaptureWriter.PcapNg file = new CaptureWriter.PcapNg(order)
                .iface(LinkTypes.ETHERNET, 65535, -1, 0)                 // 0: microseconds (default)
                .iface(LinkTypes.LINUX_SLL2, 65535, 9, 0)                // 1: nanoseconds
                .block(0x0BAD_F00D, new byte[] {1, 2, 3, 4, 5}, false)   // unknown block type, skipped by length
                .iface(LinkTypes.RAW, 65535, 0x80 | 20, 0)               // 2: 2^-20 s
                .iface(LinkTypes.IPV6, 65535, 3, 1_000_000_000L)         // 3: milliseconds, offset 10^9 s
                .epb(0, seconds * 1_000_000 + 123_456, Frames.frame(LinkTypes.ETHERNET, mix.get(0).ip()))
                .epb(1, seconds * 1_000_000_000 + 123_456_789, Frames.frame(LinkTypes.LINUX_SLL2, mix.get(1).ip()))
                .block(4, new byte[] {0, 0, 0, 0}, false)                // name resolution block (empty)
                .epb(2, (seconds << 20) | (1 << 19), mix.get(2).ip())    // .5 s
                .epb(3, 700_000_000_000L + 250, mix.get(3).ip())         // 7e8 s + 0.25 s, plus the offset
                .block(5, new byte[16], false)                           // interface statistics block
                .spb(Frames.frame(LinkTypes.ETHERNET, mix.get(0).ip()))  // interface 0, no timestamp
                .opb(0, 0, Frames.frame(LinkTypes.ETHERNET, mix.get(0).ip()))
                .epb(1, seconds * 1_000_000_000 + 5, Frames.arp());      // SLL2 interface, Ethernet frame: not IP
        // a second section in the other byte order: interfaces restart at 0
        CaptureWriter.PcapNg second = new CaptureWriter.PcapNg(other)
                .iface(LinkTypes.LINUX_SLL, 65535, 6, 0)
                .epb(0, seconds * 1_000_000 + 1, Frames.frame(LinkTypes.LINUX_SLL, mix.get(4).ip()));
        byte[] bytes = Frames.concat(file.bytes(), second.bytes());

        Collected c = Collected.read(bytes, true);

        assertThat(c.reader.format()).isEqualTo(CaptureFormat.PCAPNG);
        assertThat(c.lines).containsExactly(
                mix.get(0).expect(seconds * 1_000_000_000 + 123_456_000) + " if=0 lt=1",
                mix.get(1).expect(seconds * 1_000_000_000 + 123_456_789) + " if=1 lt=276",
                mix.get(2).expect(seconds * 1_000_000_000 + 500_000_000) + " if=2 lt=101",
                mix.get(3).expect(1_700_000_000_250_000_000L) + " if=3 lt=229",
                mix.get(0).expect(0) + " if=0 lt=1",
                mix.get(4).expect(seconds * 1_000_000_000 + 1000) + " if=0 lt=113");
        assertThat(c.reader.recordsRead()).isEqualTo(8);
        assertThat(c.reader.packetsDelivered()).isEqualTo(6);
        assertThat(c.reader.skipped(SkipReason.OBSOLETE_PACKET_BLOCK)).isEqualTo(1);
        assertThat(c.reader.skipped(SkipReason.NOT_IP)).isEqualTo(1);
        assertThat(c.reader.blocksSkipped()).isEqualTo(3);
    }

    @Test
    void binaryResolutionFractionsAreExact() throws Exception {
        // 2^-30 s units: 3 s + 2^29 units = 3.5 s; 2^-30 * 3 = 2.79... ns -> truncated to 2 ns
        Sample s = Traffic.mix().get(0);
        byte[] bytes = new CaptureWriter.PcapNg(ByteOrder.LITTLE_ENDIAN)
                .iface(LinkTypes.RAW, 0, 0x80 | 30, 0)
                .epb(0, (3L << 30) | (1L << 29), s.ip())
                .epb(0, 3, s.ip())
                .bytes();
        Collected c = Collected.read(bytes);
        assertThat(c.lines).containsExactly(s.expect(3_500_000_000L), s.expect(2));
    }

    @Test
    void oneRecordAtATimeWithItsInterfaceAndOffset() throws Exception {
        Sample v4 = Traffic.mix().get(0);
        Sample v6 = Traffic.mix().get(3);
        byte[] ethernet = Frames.frame(LinkTypes.ETHERNET, v4.ip());
        byte[] bytes = new CaptureWriter.PcapNg(ByteOrder.BIG_ENDIAN)
                .iface(LinkTypes.ETHERNET, 65535, 9, 0).iface(LinkTypes.IPV6, 65535, 9, 0)
                .epb(1, 5, v6.ip()).block(5, new byte[8], false).epb(0, 6, ethernet).bytes();
        int shbAndIdbs = 28 + 2 * 40;                                   // IDBs with if_name and if_tsresol
        int firstEpb = 32 + v6.ip().length;
        Collected c = new Collected();
        try (CaptureReader reader = CaptureReader.open(java.nio.channels.Channels.newChannel(
                new java.io.ByteArrayInputStream(bytes)))) {
            c.reader = reader;
            assertThat(reader.offset()).isZero();                  // open() only looked at the first 4 bytes
            assertThat(reader.next(c)).isTrue();
            assertThat(reader.interfaceId()).isEqualTo(1);
            assertThat(reader.linkType()).isEqualTo(LinkTypes.IPV6);
            assertThat(reader.offset()).isEqualTo(shbAndIdbs + firstEpb);
            assertThat(reader.next(c)).isTrue();
            assertThat(reader.interfaceId()).isZero();
            assertThat(reader.linkType()).isEqualTo(LinkTypes.ETHERNET);
            assertThat(reader.next(c)).isFalse();
            assertThat(reader.offset()).isEqualTo(bytes.length);
            assertThat(reader.blocksSkipped()).isEqualTo(1);
        }
        assertThat(c.lines).containsExactly(v6.expect(5), v4.expect(6));
    }

    @Test
    void recordsLargerThanTheReadBufferAreRead() throws Exception {
        Sample s = Traffic.mix().get(1);
        byte[] huge = java.util.Arrays.copyOf(Frames.frame(LinkTypes.ETHERNET, s.ip()), 3 << 20); // padded 3 MiB
        byte[] small = Frames.frame(LinkTypes.ETHERNET, s.ip());
        byte[] classic = new CaptureWriter.Pcap(ByteOrder.LITTLE_ENDIAN, true, 0, LinkTypes.ETHERNET)
                .packet(1, small).packet(2, huge).packet(3, small).packet(4, huge).bytes();
        byte[] ng = new CaptureWriter.PcapNg(ByteOrder.BIG_ENDIAN).iface(LinkTypes.ETHERNET, 0, 9, 0)
                .epb(0, 1, small).epb(0, 2, huge).epb(0, 3, small).epb(0, 4, huge).bytes();
        for (byte[] file : List.of(classic, ng)) {
            assertThat(Collected.read(file).lines)
                    .containsExactly(s.expect(1), s.expect(2), s.expect(3), s.expect(4));
        }
    }
}
