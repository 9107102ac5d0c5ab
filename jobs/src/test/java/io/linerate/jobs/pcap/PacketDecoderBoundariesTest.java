package io.linerate.jobs.pcap;

import static io.linerate.jobs.pcap.Frames.ACK;
import static io.linerate.jobs.pcap.Frames.ICMP;
import static io.linerate.jobs.pcap.Frames.ICMPV6;
import static io.linerate.jobs.pcap.Frames.TCP;
import static io.linerate.jobs.pcap.Frames.UDP;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * The decoder's length checks at their exact boundaries: a frame that ends exactly where a header does, one byte
 * shorter, and a declared length exactly at the transport's RFC minimum and one byte under it. Every frame is decoded
 * twice, from a buffer that ends at the captured length and from one that holds the rest of the frame after it: the
 * outcomes must agree (no byte past the captured length is read, and none is out of the buffer's bounds).
 */
class PacketDecoderBoundariesTest {

    private static final long T = 1_000_000_000L;
    private static final int SCTP = 132;
    private static final int GRE = 47;
    private static final int NO_NEXT_HEADER = 59;

    /** The packet line, or the name of the skip reason, for {@code frame} cut to {@code caplen} bytes. */
    private static String decode(int linkType, byte[] frame, int caplen, int wireLength) {
        String exact = decodeOnce(linkType, Arrays.copyOf(frame, caplen), 0, caplen, wireLength);
        byte[] withRest = Frames.concat(new byte[] {0x7F, 0x7F, 0x7F}, frame);
        String withBytesAfter = decodeOnce(linkType, withRest, 3, caplen, wireLength);
        assertThat(withBytesAfter).as("link type %d cut to %d bytes, the rest of the frame after them", linkType,
                caplen).isEqualTo(exact);
        return exact;
    }

    private static String decode(int linkType, byte[] frame, int caplen) {
        return decode(linkType, frame, caplen, frame.length);
    }

    private static String decode(int linkType, byte[] frame) {
        return decode(linkType, frame, frame.length);
    }

    private static String decodeOnce(int linkType, byte[] buffer, int off, int caplen, int wireLength) {
        PacketDecoder decoder = new PacketDecoder();
        Collected lines = new Collected();
        decoder.visitor(lines);
        decoder.decode(linkType, buffer, off, caplen, wireLength, T);
        if (decoder.delivered() == 1) {
            return lines.lines.get(0);
        }
        for (SkipReason reason : SkipReason.values()) {
            if (decoder.skipped(reason) == 1) {
                return reason.name();
            }
        }
        throw new AssertionError("neither delivered nor skipped");
    }

    private static byte[] ethernet(int etherType, byte[] payload) {
        return Frames.ethernet(etherType, payload);
    }

    @Test
    void aLinkHeaderEndingTheFrameIsReadWhole() {
        byte[] arp = ethernet(0x0806, new byte[0]);
        assertThat(decode(LinkTypes.ETHERNET, arp)).isEqualTo("NOT_IP");
        assertThat(decode(LinkTypes.ETHERNET, arp, 13)).isEqualTo("TRUNCATED");
        byte[] sll = Frames.sll(0x0806, new byte[0]);
        assertThat(decode(LinkTypes.LINUX_SLL, sll)).isEqualTo("NOT_IP");
        assertThat(decode(LinkTypes.LINUX_SLL, sll, 15)).isEqualTo("TRUNCATED");
        byte[] sll2 = Frames.sll2(0x0806, new byte[0]);
        assertThat(decode(LinkTypes.LINUX_SLL2, sll2)).isEqualTo("NOT_IP");
        assertThat(decode(LinkTypes.LINUX_SLL2, sll2, 19)).isEqualTo("TRUNCATED");
        byte[] slarp = Frames.withEtherType(LinkTypes.C_HDLC, 0x8035, new byte[0]);
        for (int linkType : new int[] {LinkTypes.C_HDLC, LinkTypes.PPP_HDLC}) {
            assertThat(decode(linkType, slarp)).isEqualTo("NOT_IP");
            assertThat(decode(linkType, slarp, 3)).isEqualTo("TRUNCATED");
        }
        byte[] appleTalk = Frames.loopback(16, ByteOrder.LITTLE_ENDIAN, new byte[0]);
        assertThat(decode(LinkTypes.NULL, appleTalk)).isEqualTo("NOT_IP");
        assertThat(decode(LinkTypes.NULL, appleTalk, 3)).isEqualTo("TRUNCATED");
        assertThat(decode(LinkTypes.LOOP, Frames.loopback(16, ByteOrder.BIG_ENDIAN, new byte[0]))).isEqualTo("NOT_IP");
        assertThat(decode(LinkTypes.LOOP, Frames.loopback(2, ByteOrder.BIG_ENDIAN, new byte[0])))
                .isEqualTo("TRUNCATED"); // IPv4, no header
    }

    @Test
    void aRawFrameOfOneByteIsJudgedByItsVersion() {
        assertThat(decode(LinkTypes.RAW, new byte[0])).isEqualTo("TRUNCATED");
        assertThat(decode(LinkTypes.RAW, new byte[] {0x45})).isEqualTo("TRUNCATED");
        assertThat(decode(LinkTypes.RAW, new byte[] {0x60})).isEqualTo("TRUNCATED");
        assertThat(decode(LinkTypes.RAW, new byte[] {0x50})).isEqualTo("MALFORMED_IP"); // version 5
        // behind an IP EtherType, one byte of the other version is already wrong
        assertThat(decode(LinkTypes.ETHERNET, ethernet(0x0800, new byte[] {0x60}))).isEqualTo("MALFORMED_IP");
        assertThat(decode(LinkTypes.ETHERNET, ethernet(0x86DD, new byte[] {0x45}))).isEqualTo("MALFORMED_IP");
        assertThat(decode(LinkTypes.ETHERNET, ethernet(0x0800, new byte[] {0x45}))).isEqualTo("TRUNCATED");
        assertThat(decode(LinkTypes.ETHERNET, ethernet(0x86DD, new byte[] {0x60}))).isEqualTo("TRUNCATED");
    }

    @Test
    void aVlanTagOrPppoeHeaderEndingTheFrameIsReadWhole() {
        byte[] taggedArp = Frames.ethernet(0x0806, new byte[0], 0x8100);
        assertThat(decode(LinkTypes.ETHERNET, taggedArp)).isEqualTo("NOT_IP");
        assertThat(decode(LinkTypes.ETHERNET, taggedArp, 17)).isEqualTo("TRUNCATED");
        assertThat(decode(LinkTypes.ETHERNET, taggedArp, 16)).isEqualTo("TRUNCATED");
        byte[] typeTwo = ethernet(0x8864, Frames.pppoe(0x12, 0, new byte[0]));
        assertThat(decode(LinkTypes.ETHERNET, typeTwo)).isEqualTo("NOT_IP");
        assertThat(decode(LinkTypes.ETHERNET, typeTwo, 19)).isEqualTo("TRUNCATED");
        assertThat(decode(LinkTypes.ETHERNET, ethernet(0x8864, Frames.pppoe(0x11, 0, new byte[0]))))
                .isEqualTo("TRUNCATED"); // session data without its PPP protocol
    }

    @Test
    void aPppProtocolFieldEndingTheFrameIsReadWhole() {
        assertThat(decode(LinkTypes.PPP, new byte[0])).isEqualTo("TRUNCATED");
        assertThat(decode(LinkTypes.PPP, new byte[] {(byte) 0xFF, 0x03})).isEqualTo("TRUNCATED");
        assertThat(decode(LinkTypes.PPP, new byte[] {(byte) 0xFF, 0x03, 0x23, 1})).isEqualTo("NOT_IP");
        assertThat(decode(LinkTypes.PPP, new byte[] {(byte) 0xFF, 0x03, 0x23, 1}, 2)).isEqualTo("TRUNCATED");
        assertThat(decode(LinkTypes.PPP, new byte[] {(byte) 0xC0, 0x21})).isEqualTo("NOT_IP"); // LCP
        assertThat(decode(LinkTypes.PPP, new byte[] {(byte) 0xC0, 0x21}, 1)).isEqualTo("TRUNCATED");
        assertThat(decode(LinkTypes.PPP, new byte[] {0x21})).isEqualTo("TRUNCATED"); // IPv4, no header
    }

    // --- IPv4 ---

    @Test
    void anIpv4HeaderAloneIsAPacket() {
        byte[] gre = Frames.ipv4("192.0.2.1", "192.0.2.2", GRE, new byte[0]);
        String line = Collected.expect(T, GRE, "192.0.2.1", 0, "192.0.2.2", 0, 0, 20);
        assertThat(decode(LinkTypes.RAW, gre)).isEqualTo(line);
        assertThat(decode(LinkTypes.RAW, gre, 19)).isEqualTo("TRUNCATED");
        // the bytes after a header without ports are not read as ports
        byte[] greWithPayload = Frames.ipv4("192.0.2.1", "192.0.2.2", GRE, new byte[] {0x12, 0x34, 0x56, 0x78});
        assertThat(decode(LinkTypes.RAW, greWithPayload))
                .isEqualTo(Collected.expect(T, GRE, "192.0.2.1", 0, "192.0.2.2", 0, 0, 24));
    }

    @Test
    void ipv4OptionsCutByTheCaptureAreTruncated() {
        byte[] withOption = Frames.ipv4("192.0.2.1", "192.0.2.2", GRE, new byte[0], 0, 1);
        for (int cut = 20; cut < 24; cut++) {
            assertThat(decode(LinkTypes.RAW, withOption, cut)).as("cut to %d", cut).isEqualTo("TRUNCATED");
        }
        assertThat(decode(LinkTypes.RAW, withOption))
                .isEqualTo(Collected.expect(T, GRE, "192.0.2.1", 0, "192.0.2.2", 0, 0, 24));
    }

    /**
     * The IP packet's declared length must hold the transport's whole fixed header (RFC 768: UDP 8 bytes; RFC 9293:
     * TCP 20; RFC 9260: SCTP 12; RFC 792: ICMP 8; RFC 4443: ICMPv6 4), not only the bytes read for the ports: a UDP
     * datagram of 4 bytes is malformed, however whole its capture. The capture needs only the bytes read.
     */
    @Test
    void aTransportHeaderShorterThanItsRfcMinimumIsMalformed() {
        int[][] minimums = {{UDP, 8}, {TCP, 20}, {SCTP, 12}, {ICMP, 8}, {136, 8}};
        for (int[] m : minimums) {
            byte[] header = Frames.tcp(1000, 2000, ACK, 0); // the ports (and flags) read as such for every protocol
            byte[] whole = Frames.ipv4("10.0.0.1", "10.0.0.2", m[0], Arrays.copyOf(header, m[1]));
            byte[] short1 = Frames.ipv4("10.0.0.1", "10.0.0.2", m[0], Arrays.copyOf(header, m[1] - 1));
            assertThat(decode(LinkTypes.RAW, short1)).as("IPv4 protocol %d, %d bytes", m[0], m[1] - 1)
                    .isEqualTo("MALFORMED_IP");
            assertThat(decode(LinkTypes.RAW, whole)).as("IPv4 protocol %d, %d bytes", m[0], m[1])
                    .startsWith(T + " p" + m[0] + " ").endsWith(" len" + (20 + m[1]));
            byte[] whole6 = Frames.ipv6("2001:db8::1", "2001:db8::2", m[0], Arrays.copyOf(header, m[1]));
            byte[] short6 = Frames.ipv6("2001:db8::1", "2001:db8::2", m[0], Arrays.copyOf(header, m[1] - 1));
            assertThat(decode(LinkTypes.RAW, short6)).as("IPv6 protocol %d, %d bytes", m[0], m[1] - 1)
                    .isEqualTo("MALFORMED_IP");
            assertThat(decode(LinkTypes.RAW, whole6)).as("IPv6 protocol %d, %d bytes", m[0], m[1])
                    .startsWith(T + " p" + m[0] + " ").endsWith(" len" + (40 + m[1]));
        }
        byte[] echo6 = Frames.ipv6("2001:db8::1", "2001:db8::2", ICMPV6, new byte[] {(byte) 128, 0, 0, 0});
        assertThat(decode(LinkTypes.RAW, echo6))
                .isEqualTo(Collected.expect(T, ICMPV6, "2001:db8::1", 0, "2001:db8::2", 128 << 8, 0, 44));
        byte[] short6 = Frames.ipv6("2001:db8::1", "2001:db8::2", ICMPV6, new byte[] {(byte) 128, 0, 0});
        assertThat(decode(LinkTypes.RAW, short6)).isEqualTo("MALFORMED_IP");
        // a snaplen keeping the 14 TCP bytes up to the flags of a whole 20-byte header still decodes
        byte[] tcp = Frames.ipv4("10.0.0.1", "10.0.0.2", TCP, Frames.tcp(1000, 2000, ACK, 0));
        assertThat(decode(LinkTypes.RAW, tcp, 34))
                .isEqualTo(Collected.expect(T, TCP, "10.0.0.1", 1000, "10.0.0.2", 2000, ACK, 40));
        assertThat(decode(LinkTypes.RAW, tcp, 33)).isEqualTo("TRUNCATED");
    }

    /** A TCP header of {@code words} 32-bit words (NOP options after the fixed 20 bytes), then {@code payload} bytes. */
    private static byte[] tcpHeaderOf(int words, int payload) {
        byte[] tcp = Frames.tcp(1000, 2000, ACK, words * 4 - 20 + payload);
        tcp[12] = (byte) (words << 4);
        Arrays.fill(tcp, 20, words * 4, (byte) 1); // NOP
        return tcp;
    }

    /**
     * RFC 9293 section 3.1: the data offset is the TCP header's length in 32-bit words, within the segment (the IP
     * packet's declared length after the IP and extension headers). A header ending exactly at the segment's end
     * (no data) is whole; one word more runs past the declared length: MALFORMED_IP, as tcpdump's "bad hdr length
     * ... - too long". The capture still needs only the 14 bytes up to the flags.
     */
    @Test
    void aTcpDataOffsetBeyondTheSegmentIsMalformed() {
        for (int words : new int[] {5, 6, 15}) {
            byte[] exact = tcpHeaderOf(words, 0);
            byte[] withData = tcpHeaderOf(words, 3);
            byte[] oneWordShort = Arrays.copyOf(tcpHeaderOf(words + 1, 0), words * 4);
            oneWordShort[12] = (byte) ((words + 1) << 4); // a header one word longer than the segment
            String v4 = Collected.expect(T, TCP, "10.0.0.1", 1000, "10.0.0.2", 2000, ACK, 20 + words * 4);
            assertThat(decode(LinkTypes.RAW, Frames.ipv4("10.0.0.1", "10.0.0.2", TCP, exact)))
                    .as("IPv4, data offset %d in a segment of %d bytes", words, words * 4).isEqualTo(v4);
            assertThat(decode(LinkTypes.RAW, Frames.ipv4("10.0.0.1", "10.0.0.2", TCP, withData)))
                    .endsWith(" len" + (20 + words * 4 + 3));
            if (words < 15) {
                byte[] tooLong = Frames.ipv4("10.0.0.1", "10.0.0.2", TCP, oneWordShort);
                assertThat(decode(LinkTypes.RAW, tooLong))
                        .as("IPv4, data offset %d in a segment of %d bytes", words + 1, words * 4)
                        .isEqualTo("MALFORMED_IP");
                // the offset is judged once the 14 bytes up to the flags are captured; a cut before them truncates
                assertThat(decode(LinkTypes.RAW, tooLong, 20 + 14)).isEqualTo("MALFORMED_IP");
                assertThat(decode(LinkTypes.RAW, tooLong, 20 + 13)).isEqualTo("TRUNCATED");
            }
            // behind an extension header, the segment is what the payload length leaves after it
            byte[] exact6 = Frames.ipv6("2001:db8::1", "2001:db8::2", 60,
                    Frames.concat(Frames.optionsHeader(TCP, 1), exact));
            assertThat(decode(LinkTypes.RAW, exact6)).isEqualTo(
                    Collected.expect(T, TCP, "2001:db8::1", 1000, "2001:db8::2", 2000, ACK, 40 + 8 + words * 4));
            if (words < 15) {
                byte[] tooLong6 = Frames.ipv6("2001:db8::1", "2001:db8::2", 60,
                        Frames.concat(Frames.optionsHeader(TCP, 1), oneWordShort));
                assertThat(decode(LinkTypes.RAW, tooLong6)).isEqualTo("MALFORMED_IP");
                assertThat(decode(LinkTypes.RAW, tooLong6, 40 + 8 + 14)).isEqualTo("MALFORMED_IP");
                assertThat(decode(LinkTypes.RAW, tooLong6, 40 + 8 + 13)).isEqualTo("TRUNCATED");
            }
        }
        // a whole 60-byte header cut by the snaplen after the flags is delivered (its options are not read)
        byte[] longHeader = Frames.ipv4("10.0.0.1", "10.0.0.2", TCP, tcpHeaderOf(15, 0));
        assertThat(decode(LinkTypes.RAW, longHeader, 20 + 14))
                .isEqualTo(Collected.expect(T, TCP, "10.0.0.1", 1000, "10.0.0.2", 2000, ACK, 80));
        // total length 0 (TSO): the segment is what the length on the wire leaves after the IP header
        byte[] tso = Frames.zeroTotalLength(Frames.ipv4("10.0.0.1", "10.0.0.2", TCP, tcpHeaderOf(6, 0)));
        assertThat(decode(LinkTypes.RAW, tso, tso.length, 20 + 24))
                .isEqualTo(Collected.expect(T, TCP, "10.0.0.1", 1000, "10.0.0.2", 2000, ACK, 44));
        assertThat(decode(LinkTypes.RAW, tso, 20 + 20, 20 + 20)).isEqualTo("MALFORMED_IP");
    }

    // --- IPv6 ---

    private static final String EMPTY_V6 = Collected.expect(T, NO_NEXT_HEADER, "2001:db8::1", 0, "2001:db8::2", 0, 0, 40);

    @Test
    void anIpv6HeaderAloneIsAPacket() {
        byte[] empty = Frames.ipv6("2001:db8::1", "2001:db8::2", NO_NEXT_HEADER, new byte[0]);
        assertThat(decode(LinkTypes.RAW, empty)).isEqualTo(EMPTY_V6);
        assertThat(decode(LinkTypes.RAW, empty, 39)).isEqualTo("TRUNCATED");
        // an empty payload that names an extension header: malformed, whatever the capture kept after it
        for (int next : new int[] {0, 43, 44, 51, 60}) {
            byte[] named = Frames.ipv6("2001:db8::1", "2001:db8::2", next, new byte[0]);
            assertThat(decode(LinkTypes.RAW, named)).as("next header %d", next).isEqualTo("MALFORMED_IP");
            byte[] followed = Frames.concat(named, Frames.optionsHeader(NO_NEXT_HEADER, 1));
            assertThat(decode(LinkTypes.RAW, followed)).as("next header %d, bytes after", next)
                    .isEqualTo("MALFORMED_IP");
        }
    }

    @Test
    void anExtensionHeaderIsReadFromItsFirstTwoBytes() {
        byte[] options = Frames.ipv6("2001:db8::1", "2001:db8::2", 60, Frames.optionsHeader(NO_NEXT_HEADER, 1));
        assertThat(decode(LinkTypes.RAW, options, 40)).isEqualTo("TRUNCATED");
        assertThat(decode(LinkTypes.RAW, options, 41)).isEqualTo("TRUNCATED");
        // next header and length read: the rest of the header is not needed
        String line = Collected.expect(T, NO_NEXT_HEADER, "2001:db8::1", 0, "2001:db8::2", 0, 0, 48);
        assertThat(decode(LinkTypes.RAW, options, 42)).isEqualTo(line);
        assertThat(decode(LinkTypes.RAW, options)).isEqualTo(line);
    }

    /**
     * Every extension header is at least 8 bytes (RFC 8200 section 4: a multiple of 8 octets), so a payload length
     * that leaves fewer than 8 for one is malformed, whether or not the capture kept the header's length byte.
     */
    @Test
    void aPayloadTooShortForAnyExtensionHeaderIsMalformed() {
        for (int payload = 1; payload < 8; payload++) {
            byte[] options = Frames.ipv6("2001:db8::1", "2001:db8::2", 60, Frames.optionsHeader(NO_NEXT_HEADER, 1));
            options[5] = (byte) payload;
            for (int cut : new int[] {40, 41, 48}) {
                assertThat(decode(LinkTypes.RAW, options, cut)).as("payload length %d, cut to %d", payload, cut)
                        .isEqualTo("MALFORMED_IP");
            }
        }
    }

    @Test
    void aFragmentHeaderEndingTheFrameOrThePayloadIsReadWhole() {
        // an atomic fragment (RFC 6946: offset 0, no more fragments) with nothing after it
        byte[] atomic = Frames.ipv6("2001:db8::1", "2001:db8::2", 44, Frames.fragmentHeader(NO_NEXT_HEADER, 0, false));
        assertThat(decode(LinkTypes.RAW, atomic))
                .isEqualTo(Collected.expect(T, NO_NEXT_HEADER, "2001:db8::1", 0, "2001:db8::2", 0, 0, 48));
        assertThat(decode(LinkTypes.RAW, atomic, 47)).isEqualTo("TRUNCATED");
        // a later fragment whose header the payload length does not hold
        byte[] later = Frames.ipv6("2001:db8::1", "2001:db8::2", 44, Frames.concat(
                Frames.fragmentHeader(UDP, 100, true), Frames.udp(1, 2, 0)));
        later[5] = 4;
        assertThat(decode(LinkTypes.RAW, later)).isEqualTo("MALFORMED_IP");
    }

    @Test
    void theFragmentOffsetIsTheFragmentHeaders() {
        // a later fragment right after the fixed header, its data starting with bytes that look like ports
        byte[] later = Frames.ipv6("2001:db8::1", "2001:db8::2", 44, Frames.concat(
                Frames.fragmentHeader(UDP, 185, false), Frames.udp(1111, 2222, 0)));
        assertThat(decode(LinkTypes.RAW, later))
                .isEqualTo(Collected.expect(T, UDP, "2001:db8::1", 0, "2001:db8::2", 0, 0, 56));
        // a first fragment after a destination address whose last 16 bits would read as an offset
        byte[] first = Frames.ipv6("2001:db8::1", "2001:db8::fff8", 44, Frames.concat(
                Frames.fragmentHeader(UDP, 0, true), Frames.udp(1111, 2222, 0)));
        assertThat(decode(LinkTypes.RAW, first))
                .isEqualTo(Collected.expect(T, UDP, "2001:db8::1", 1111, "2001:db8::fff8", 2222, 0, 56));
        // a first fragment's fragmentable part may start with a destination options header (RFC 8200 section 4.5)
        byte[] withOptions = Frames.ipv6("2001:db8::1", "2001:db8::2", 44, Frames.concat(
                Frames.fragmentHeader(60, 0, true), Frames.optionsHeader(UDP, 1), Frames.udp(1111, 2222, 0)));
        assertThat(decode(LinkTypes.RAW, withOptions))
                .isEqualTo(Collected.expect(T, UDP, "2001:db8::1", 1111, "2001:db8::2", 2222, 0, 64));
    }

    /** An IPv6 packet whose payload length field is 0. */
    private static byte[] payloadLengthZero(int next, byte[] rest) {
        byte[] a = Frames.ipv6("2001:db8::1", "2001:db8::2", next, rest);
        a[4] = 0;
        a[5] = 0;
        return a;
    }

    /** A hop-by-hop header of Pad1 options only: no Jumbo Payload option to find. */
    @Test
    void aHopByHopHeaderOfPad1OptionsHoldsNoJumboLength() {
        byte[] pads = new byte[8];
        pads[0] = (byte) TCP;
        byte[] bigTcp = payloadLengthZero(0, Frames.concat(pads, Frames.tcp(40000, 443, ACK, 0)));
        int wire = 40 + 8 + 20 + 0x10000;
        assertThat(decode(LinkTypes.RAW, bigTcp, bigTcp.length, wire))
                .isEqualTo(Collected.expect(T, TCP, "2001:db8::1", 40000, "2001:db8::2", 443, ACK, wire));
    }

    /**
     * A packet of payload length 0 that is longer than 40 + 65,535 bytes (a jumbogram, or captured before
     * segmentation offload) is bounded by its jumbo length or its length on the wire, not by what the snaplen kept:
     * an extension or transport header the snaplen cut is TRUNCATED, as in any other packet, not MALFORMED_IP.
     */
    @Test
    void aSnaplenCuttingAnUnsizedPacketTruncatesIt() {
        byte[] bigTcp = payloadLengthZero(TCP, Frames.tcp(40000, 443, ACK, 0));
        int wire = 40 + 20 + 0x10000;
        assertThat(decode(LinkTypes.RAW, bigTcp, 40 + 14, wire))
                .isEqualTo(Collected.expect(T, TCP, "2001:db8::1", 40000, "2001:db8::2", 443, ACK, wire));
        assertThat(decode(LinkTypes.RAW, bigTcp, 40 + 13, wire)).isEqualTo("TRUNCATED");
        byte[] bigChain = payloadLengthZero(60, Frames.concat(Frames.optionsHeader(TCP, 2),
                Frames.tcp(40000, 443, ACK, 0)));
        assertThat(decode(LinkTypes.RAW, bigChain, 41, wire + 16)).isEqualTo("TRUNCATED");
        assertThat(decode(LinkTypes.RAW, bigChain, 40 + 16 + 10, wire + 16)).isEqualTo("TRUNCATED");
        byte[] jumbo = payloadLengthZero(0, Frames.concat(jumboHopByHop(TCP, 100_000), Frames.tcp(40000, 443, ACK, 0)));
        String line = Collected.expect(T, TCP, "2001:db8::1", 40000, "2001:db8::2", 443, ACK, 40 + 100_000);
        assertThat(decode(LinkTypes.RAW, jumbo)).isEqualTo(line);
        assertThat(decode(LinkTypes.RAW, jumbo, 40 + 8 + 13)).isEqualTo("TRUNCATED");
    }

    /** A hop-by-hop header of 8 bytes holding only the Jumbo Payload option (RFC 2675). */
    private static byte[] jumboHopByHop(int next, int jumbo) {
        return ByteBuffer.allocate(8).put((byte) next).put((byte) 0).put((byte) 0xC2).put((byte) 4).putInt(jumbo)
                .array();
    }

    /**
     * Every cut of these frames decodes the same from a buffer that ends at the cut as from one holding the rest of
     * the frame: no length check lets a read past the captured bytes through.
     */
    @Test
    void noCutReadsPastTheCapturedBytes() {
        byte[] jumboWithPads = payloadLengthZero(0, Frames.concat(new byte[] {
            (byte) TCP, 1, 0, 1, 1, 0, (byte) 0xC2, 4, 0, 1, (byte) 0x86, (byte) 0xA0, 1, 2, 0, 0},
            Frames.tcp(40000, 443, ACK, 0)));
        byte[] padsOnly = payloadLengthZero(0, Frames.concat(new byte[] {
            (byte) UDP, 1, 1, 2, 0, 0, 0, 1, 0, 1, 4, 0, 0, 0, 0, 0}, Frames.udp(1, 2, 0)));
        // short on the wire, the same packet's payload is empty: its hop-by-hop header is malformed
        assertThat(decode(LinkTypes.RAW, padsOnly, padsOnly.length, 40 + 16 + 8)).isEqualTo("MALFORMED_IP");
        byte[] v4 = Frames.ipv4("10.0.0.1", "10.0.0.2", TCP, Frames.tcp(1, 2, ACK, 0), 0, 1);
        byte[] v6 = Frames.ipv6("2001:db8::1", "2001:db8::2", 0, Frames.concat(Frames.optionsHeader(44, 1),
                Frames.fragmentHeader(51, 0, true), new byte[] {60, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
                Frames.optionsHeader(UDP, 1), Frames.udp(5, 6, 0)));
        Object[][] frames = {
            {LinkTypes.RAW, jumboWithPads, 40 + 16 + 20 + 100_000},
            {LinkTypes.RAW, padsOnly, 40 + 16 + 8 + 0x10000},
            {LinkTypes.ETHERNET, Frames.ethernet(0x0800, v4, 0x8100, 0x8100), 0},
            {LinkTypes.LINUX_SLL, Frames.sll(0x86DD, v6), 0},
            {LinkTypes.LINUX_SLL2, Frames.sll2(0x8847, Frames.mpls(v4, 1, 2)), 0},
            {LinkTypes.ETHERNET, ethernet(0x8864, Frames.pppoeSession(0x0057, v6)), 0},
            {LinkTypes.PPP, Frames.concat(new byte[] {(byte) 0xFF, 3, 0x21}, v4), 0},
            {LinkTypes.PPP_HDLC, Frames.concat(new byte[] {(byte) 0xFF, 3, 0, 0x57}, v6), 0},
            {LinkTypes.C_HDLC, Frames.withEtherType(LinkTypes.C_HDLC, 0x0800, v4), 0},
            {LinkTypes.NULL, Frames.loopback(30, ByteOrder.LITTLE_ENDIAN, v6), 0},
            {LinkTypes.LOOP, Frames.loopback(2, ByteOrder.BIG_ENDIAN, Frames.zeroTotalLength(v4)), 0},
        };
        for (Object[] f : frames) {
            byte[] frame = (byte[]) f[1];
            int wire = (int) f[2] == 0 ? frame.length : (int) f[2];
            for (int cut = 0; cut <= frame.length; cut++) {
                decode((int) f[0], frame, cut, wire); // asserts both buffers agree
            }
            assertThat(decode((int) f[0], frame, frame.length, wire)).as("link type %d whole", f[0])
                    .startsWith(T + " ");
        }
    }
}
