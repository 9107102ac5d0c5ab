package io.linerate.jobs.pcap;

import static io.linerate.jobs.pcap.Frames.ACK;
import static io.linerate.jobs.pcap.Frames.FIN;
import static io.linerate.jobs.pcap.Frames.ICMP;
import static io.linerate.jobs.pcap.Frames.PSH;
import static io.linerate.jobs.pcap.Frames.SYN;
import static io.linerate.jobs.pcap.Frames.TCP;
import static io.linerate.jobs.pcap.Frames.UDP;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

/**
 * Link-layer tags, MPLS, PPPoE and PPP framing, IP options and extension headers, fragments, snaplen truncation,
 * IPv4 total length 0 (TSO) and malformed headers.
 */
class PacketDecodingTest {

    private static final long T = 1_000_000_000L;

    private static Collected ethernet(int snaplen, byte[]... frames) throws Exception {
        return capture(LinkTypes.ETHERNET, snaplen, frames);
    }

    private static Collected capture(int linkType, int snaplen, byte[]... frames) throws Exception {
        CaptureWriter.Pcap file = new CaptureWriter.Pcap(ByteOrder.BIG_ENDIAN, true, snaplen, linkType);
        for (byte[] f : frames) {
            file.packet(T, f);
        }
        return Collected.read(file.bytes());
    }

    @Test
    void stackedVlanTagsAreSkipped() throws Exception {
        byte[] ip = Frames.ipv4("192.0.2.1", "192.0.2.2", UDP, Frames.udp(1000, 53, 20));
        byte[] v6 = Frames.ipv6("2001:db8::a", "2001:db8::b", TCP, Frames.tcp(1, 2, FIN | ACK, 0));
        Collected c = ethernet(65535,
                Frames.ethernet(0x0800, ip, 0x8100),
                Frames.ethernet(0x0800, ip, 0x88A8, 0x8100),
                Frames.ethernet(0x86DD, v6, 0x9100, 0x88A8, 0x8100),
                Frames.ethernet(0x0806, new byte[28], 0x8100),   // ARP inside a VLAN
                Frames.ethernet(0x0800, new byte[0], 0x8100, 0x8100).clone());
        String udp = Collected.expect(T, UDP, "192.0.2.1", 1000, "192.0.2.2", 53, 0, 48);
        assertThat(c.lines).containsExactly(udp, udp,
                Collected.expect(T, TCP, "2001:db8::a", 1, "2001:db8::b", 2, FIN | ACK, 60));
        assertThat(c.reader.skipped(SkipReason.NOT_IP)).isEqualTo(1);
        assertThat(c.reader.skipped(SkipReason.TRUNCATED)).isEqualTo(1); // IPv4 ethertype, no IP header
    }

    @Test
    void vlanTagCutByTheSnaplenIsTruncated() throws Exception {
        byte[] ip = Frames.ipv4("192.0.2.1", "192.0.2.2", UDP, Frames.udp(1000, 53, 20));
        Collected c = ethernet(16, Frames.ethernet(0x0800, ip, 0x8100));
        assertThat(c.lines).isEmpty();
        assertThat(c.reader.skipped(SkipReason.TRUNCATED)).isEqualTo(1);
    }

    @Test
    void ipv4OptionsAndFragments() throws Exception {
        byte[] udp = Frames.udp(4000, 4001, 2000);
        byte[] first = Frames.ipv4("10.1.0.1", "10.1.0.2", UDP, java.util.Arrays.copyOf(udp, 1480), 0x2000, 0);
        byte[] second = Frames.ipv4("10.1.0.1", "10.1.0.2", UDP, new byte[528], 185, 0); // offset 1480 bytes
        byte[] withOptions = Frames.ipv4("10.1.0.3", "10.1.0.4", TCP, Frames.tcp(22, 60000, ACK, 0), 0x4000, 2);
        Collected c = ethernet(65535, Frames.ethernet(0x0800, first), Frames.ethernet(0x0800, second),
                Frames.ethernet(0x0800, withOptions));
        assertThat(c.lines).containsExactly(
                Collected.expect(T, UDP, "10.1.0.1", 4000, "10.1.0.2", 4001, 0, 1500),
                Collected.expect(T, UDP, "10.1.0.1", 0, "10.1.0.2", 0, 0, 548),   // later fragment: no ports
                Collected.expect(T, TCP, "10.1.0.3", 22, "10.1.0.4", 60000, ACK, 48));
    }

    @Test
    void ipv6ExtensionHeadersAreWalked() throws Exception {
        byte[] tcp = Frames.tcp(8080, 9090, SYN | ACK, 0);
        byte[] chain = Frames.ipv6("2001:db8::1", "2001:db8::2", 0, Frames.concat(
                Frames.optionsHeader(43, 1), Frames.routingHeader(60, 3), Frames.optionsHeader(TCP, 2), tcp));
        byte[] firstFragment = Frames.ipv6("2001:db8::1", "2001:db8::2", 44, Frames.concat(
                Frames.fragmentHeader(UDP, 0, true), Frames.udp(5000, 53, 100)));
        byte[] laterFragment = Frames.ipv6("2001:db8::1", "2001:db8::2", 60, Frames.concat(
                Frames.optionsHeader(44, 1), Frames.fragmentHeader(UDP, 14, false), new byte[40]));
        byte[] authenticated = Frames.ipv6("2001:db8::3", "2001:db8::4", 51, Frames.concat(
                authenticationHeader(UDP), Frames.udp(500, 500, 8)));
        byte[] unknown = Frames.ipv6("2001:db8::5", "2001:db8::6", 135, new byte[24]); // mobility: stop there
        byte[] noNext = Frames.ipv6("2001:db8::5", "2001:db8::6", 0, Frames.optionsHeader(59, 1));
        Collected c = ethernet(65535, Frames.ethernet(0x86DD, chain), Frames.ethernet(0x86DD, firstFragment),
                Frames.ethernet(0x86DD, laterFragment), Frames.ethernet(0x86DD, authenticated),
                Frames.ethernet(0x86DD, unknown), Frames.ethernet(0x86DD, noNext));
        assertThat(c.lines).containsExactly(
                Collected.expect(T, TCP, "2001:db8::1", 8080, "2001:db8::2", 9090, SYN | ACK, 40 + 8 + 24 + 16 + 20),
                Collected.expect(T, UDP, "2001:db8::1", 5000, "2001:db8::2", 53, 0, 40 + 8 + 108),
                Collected.expect(T, UDP, "2001:db8::1", 0, "2001:db8::2", 0, 0, 40 + 8 + 8 + 40),
                Collected.expect(T, UDP, "2001:db8::3", 500, "2001:db8::4", 500, 0, 40 + 16 + 16),
                Collected.expect(T, 135, "2001:db8::5", 0, "2001:db8::6", 0, 0, 64),
                Collected.expect(T, 59, "2001:db8::5", 0, "2001:db8::6", 0, 0, 48));
    }

    /** An AH header of 16 bytes (payload length field 2 = (16 / 4) - 2). */
    private static byte[] authenticationHeader(int next) {
        byte[] h = new byte[16];
        h[0] = (byte) next;
        h[1] = 2;
        return h;
    }

    @Test
    void snaplenTruncationKeepsWhatCanBeRead() throws Exception {
        byte[] tcp = Frames.ethernet(0x0800,
                Frames.ipv4("10.0.0.1", "10.0.0.2", TCP, Frames.tcp(1234, 80, ACK, 1000)));
        byte[] v6 = Frames.ethernet(0x86DD, Frames.ipv6("2001:db8::1", "2001:db8::2", 0,
                Frames.concat(Frames.optionsHeader(UDP, 4), Frames.udp(1, 2, 10))));
        // 48 bytes: Ethernet 14 + IPv4 20 + the 14 TCP bytes up to the flags -> decoded, length from the header
        Collected enough = ethernet(48, tcp);
        assertThat(enough.lines).containsExactly(
                Collected.expect(T, TCP, "10.0.0.1", 1234, "10.0.0.2", 80, ACK, 1040));
        // 47 bytes: the flags byte is missing -> truncated; 30 bytes: not even the IPv4 header
        Collected cut = ethernet(47, tcp, tcp.clone());
        assertThat(cut.lines).isEmpty();
        assertThat(cut.reader.skipped(SkipReason.TRUNCATED)).isEqualTo(2);
        assertThat(ethernet(30, tcp).reader.skipped(SkipReason.TRUNCATED)).isEqualTo(1);
        // the UDP ports behind a 32-byte hop-by-hop header need 4 bytes, 3 were kept
        Collected six = ethernet(14 + 40 + 32 + 3, v6, tcp);
        assertThat(six.lines).hasSize(1);
        assertThat(six.reader.skipped(SkipReason.TRUNCATED)).isEqualTo(1);
    }

    @Test
    void ethernetPaddingDoesNotChangeTheIpLength() throws Exception {
        byte[] small = Frames.ipv4("10.0.0.1", "10.0.0.2", UDP, Frames.udp(7, 9, 0)); // 28 bytes
        byte[] padded = java.util.Arrays.copyOf(Frames.ethernet(0x0800, small), 60);
        assertThat(ethernet(65535, padded).lines).containsExactly(
                Collected.expect(T, UDP, "10.0.0.1", 7, "10.0.0.2", 9, 0, 28));
    }

    @Test
    void malformedInnerHeadersAreSkippedNotFatal() throws Exception {
        byte[] good = Frames.ipv4("10.0.0.1", "10.0.0.2", UDP, Frames.udp(7, 9, 0));
        byte[] shortIhl = good.clone();
        shortIhl[0] = 0x44;                                       // header length 16 < 20
        byte[] shortTotal = good.clone();
        shortTotal[2] = 0;
        shortTotal[3] = 10;                                       // total length 10 < header length
        byte[] udpCut = good.clone();
        udpCut[3] = 22;                                           // total length leaves 2 bytes for UDP's ports
        byte[] v6InV4 = Frames.ipv6("2001:db8::1", "2001:db8::2", UDP, Frames.udp(1, 2, 0));
        byte[] extBeyond = Frames.ipv6("2001:db8::1", "2001:db8::2", 0, Frames.concat(
                Frames.optionsHeader(UDP, 1), Frames.udp(1, 2, 0)));
        extBeyond[4] = 0;
        extBeyond[5] = 8;                                         // payload length: the options header only
        byte[] extLonger = Frames.ipv6("2001:db8::1", "2001:db8::2", 0, Frames.concat(
                Frames.optionsHeader(59, 1), new byte[8]));
        extLonger[41] = 3;                                        // hop-by-hop of 32 bytes in a 16-byte payload
        byte[] extNextBeyond = Frames.ipv6("2001:db8::1", "2001:db8::2", 0, Frames.concat(
                Frames.optionsHeader(60, 1), Frames.optionsHeader(UDP, 1), Frames.udp(1, 2, 0)));
        extNextBeyond[4] = 0;
        extNextBeyond[5] = 8;                                     // the destination options header starts at its end
        byte[] tcpShort4 = Frames.ipv4("10.0.0.1", "10.0.0.2", TCP, Frames.tcp(1, 2, SYN, 0));
        tcpShort4[20 + 12] = 0x40;                                // TCP data offset 4 words < 5
        byte[] tcpShort6 = Frames.ipv6("2001:db8::1", "2001:db8::2", TCP, Frames.tcp(1, 2, SYN, 0));
        tcpShort6[40 + 12] = 0x00;                                // TCP data offset 0
        Collected c = ethernet(65535,
                Frames.ethernet(0x0800, shortIhl), Frames.ethernet(0x0800, shortTotal),
                Frames.ethernet(0x0800, udpCut), Frames.ethernet(0x0800, v6InV4),
                Frames.ethernet(0x86DD, good), Frames.ethernet(0x86DD, extBeyond),
                Frames.ethernet(0x86DD, extLonger), Frames.ethernet(0x86DD, extNextBeyond),
                Frames.ethernet(0x0800, tcpShort4), Frames.ethernet(0x86DD, tcpShort6),
                Frames.ethernet(0x0800, good));
        assertThat(c.lines).containsExactly(Collected.expect(T, UDP, "10.0.0.1", 7, "10.0.0.2", 9, 0, 28));
        // all captured whole: a header that the payload length does not hold is malformed, none truncated
        assertThat(c.reader.skipped(SkipReason.MALFORMED_IP)).isEqualTo(10);
        assertThat(c.reader.skipped(SkipReason.TRUNCATED)).isZero();
        assertThat(c.reader.recordsRead()).isEqualTo(11);
    }

    @Test
    void shortLinkHeadersAreTruncated() throws Exception {
        for (int linkType : new int[] {LinkTypes.ETHERNET, LinkTypes.LINUX_SLL, LinkTypes.LINUX_SLL2,
                LinkTypes.NULL, LinkTypes.RAW}) {
            byte[] file = new CaptureWriter.Pcap(ByteOrder.BIG_ENDIAN, true, 65535, linkType)
                    .packet(T, new byte[0]).packet(T, new byte[] {0x45, 0, 0}).bytes();
            Collected c = Collected.read(file);
            assertThat(c.reader.skipped(SkipReason.TRUNCATED)).as("link type %d", linkType).isEqualTo(2);
        }
    }

    // --- MPLS, PPPoE, PPP and Cisco HDLC ---

    private static final byte[] V4 = Frames.ipv4("192.0.2.1", "198.51.100.2", TCP, Frames.tcp(40000, 443, SYN, 6));
    private static final String V4_LINE = Collected.expect(T, TCP, "192.0.2.1", 40000, "198.51.100.2", 443, SYN, 46);
    private static final byte[] V6 = Frames.ipv6("2001:db8::1", "2001:db8::2", UDP, Frames.udp(5353, 53, 10));
    private static final String V6_LINE = Collected.expect(T, UDP, "2001:db8::1", 5353, "2001:db8::2", 53, 0, 58);
    private static final byte[] PING = Frames.ipv4("192.0.2.3", "192.0.2.4", ICMP, Frames.icmp(8, 0));
    private static final String PING_LINE = Collected.expect(T, ICMP, "192.0.2.3", 0, "192.0.2.4", 8 << 8, 0, 36);

    /**
     * Writes {@code frame} cut to every length from 0 to {@code needed} bytes (each record keeping the frame's length
     * as its original length) and asserts that every cut short of {@code needed} is {@code TRUNCATED} and the frame
     * cut to {@code needed} bytes decodes to {@code expected}.
     */
    private static void truncatedBelow(int linkType, byte[] frame, int needed, String expected) throws Exception {
        CaptureWriter.Pcap file = new CaptureWriter.Pcap(ByteOrder.BIG_ENDIAN, true, 65535, linkType);
        for (int cut = 0; cut <= needed; cut++) {
            file.record(T / 1_000_000_000L, 0, cut, frame.length, frame);
        }
        Collected c = Collected.read(file.bytes());
        assertThat(c.reader.skipped(SkipReason.TRUNCATED)).as("link type %d: cuts of 0 to %d bytes truncated",
                linkType, needed - 1).isEqualTo(needed);
        assertThat(c.reader.skippedTotal()).isEqualTo(needed);
        assertThat(c.lines).as("link type %d cut to %d bytes", linkType, needed).containsExactly(expected);
    }

    @Test
    void mplsLabelStacksAreSkippedToTheBottomOfStack() throws Exception {
        for (int linkType : new int[] {LinkTypes.ETHERNET, LinkTypes.LINUX_SLL, LinkTypes.LINUX_SLL2,
                LinkTypes.C_HDLC}) {
            Collected c = capture(linkType, 65535,
                    Frames.withEtherType(linkType, 0x8847, Frames.mpls(V4, 16)),
                    Frames.withEtherType(linkType, 0x8848, Frames.mpls(V6, 1000, 2000)),       // multicast
                    Frames.withEtherType(linkType, 0x8847, Frames.mpls(PING, 3, 0xFFFFF, 524287, 0)),
                    Frames.withEtherType(linkType, 0x8847, Frames.mpls(V6, 0)));  // label: IPv4 explicit null
            assertThat(c.lines).as("link type %d", linkType).containsExactly(V4_LINE, V6_LINE, PING_LINE, V6_LINE);
        }
    }

    @Test
    void vlanTagsThenMplsThenIp() throws Exception {
        byte[] vlanInSll = Frames.concat(new byte[] {0, 100, (byte) 0x88, 0x47}, Frames.mpls(V4, 7, 8));
        assertThat(ethernet(65535,
                Frames.ethernet(0x8847, Frames.mpls(V6, 100, 200, 300), 0x88A8, 0x8100),
                Frames.ethernet(0x8848, Frames.mpls(V4, 100), 0x8100)).lines).containsExactly(V6_LINE, V4_LINE);
        assertThat(capture(LinkTypes.LINUX_SLL, 65535, Frames.sll(0x8100, vlanInSll)).lines)
                .containsExactly(V4_LINE);
    }

    /**
     * Only the bottom-of-stack bit (bit 8 of an entry) ends the label stack: the entries before it read as an IPv4
     * and an IPv6 header, and every entry has the traffic class and TTL bits around that bit set.
     */
    @Test
    void onlyTheBottomOfStackBitEndsTheLabelStack() throws Exception {
        assertThat(ethernet(65535, Frames.ethernet(0x8847, Frames.mpls(V4, 0x45000, 0x60000, 0x45000))).lines)
                .containsExactly(V4_LINE);
        // no bottom of stack at all: the walk ends at the captured end
        ByteBuffer endless = ByteBuffer.allocate(4 * 500);
        while (endless.hasRemaining()) {
            endless.putInt(0x45000EFF); // bottom-of-stack bit clear, every other bit of byte 2 and 3 set
        }
        Collected c = ethernet(65535, Frames.ethernet(0x8847, endless.array()));
        assertThat(c.lines).isEmpty();
        assertThat(c.reader.skipped(SkipReason.TRUNCATED)).isEqualTo(1);
    }

    @Test
    void mplsPayloadsOtherThanIpAreNotIp() throws Exception {
        byte[] ethernetPseudowire = Frames.ethernet(0x0800, V4);
        Collected c = ethernet(65535,
                Frames.ethernet(0x8847, Frames.mpls(Frames.concat(new byte[4], ethernetPseudowire), 16)), // control word
                Frames.ethernet(0x8847, Frames.mpls(ethernetPseudowire, 16)),  // no control word: a MAC address
                Frames.ethernet(0x8847, Frames.mpls(new byte[] {(byte) 0x83, 27, 1, 0}, 16)));   // IS-IS
        assertThat(c.lines).isEmpty();
        assertThat(c.reader.skipped(SkipReason.NOT_IP)).isEqualTo(3);
    }

    @Test
    void mplsCutByTheSnaplenIsTruncated() throws Exception {
        // link header + label stack + IP header + the transport bytes needed (TCP 14, UDP 4)
        truncatedBelow(LinkTypes.ETHERNET, Frames.ethernet(0x8847, Frames.mpls(V4, 16, 17)), 14 + 8 + 20 + 14, V4_LINE);
        truncatedBelow(LinkTypes.ETHERNET, Frames.ethernet(0x8847, Frames.mpls(V6, 16), 0x8100), 14 + 4 + 4 + 40 + 4,
                V6_LINE);
        truncatedBelow(LinkTypes.LINUX_SLL2, Frames.sll2(0x8848, Frames.mpls(V6, 16)), 20 + 4 + 40 + 4, V6_LINE);
        truncatedBelow(LinkTypes.C_HDLC, Frames.withEtherType(LinkTypes.C_HDLC, 0x8847, Frames.mpls(V4, 1, 2, 3)),
                4 + 12 + 20 + 14, V4_LINE);
    }

    @Test
    void pppoeSessionsCarryIpv4AndIpv6() throws Exception {
        for (int linkType : new int[] {LinkTypes.ETHERNET, LinkTypes.LINUX_SLL, LinkTypes.LINUX_SLL2}) {
            Collected c = capture(linkType, 65535,
                    Frames.withEtherType(linkType, 0x8864, Frames.pppoeSession(0x0021, V4)),
                    Frames.withEtherType(linkType, 0x8864, Frames.pppoeSession(0x0057, V6)),
                    // protocol field compressed to its low byte (RFC 1661), and address/control present
                    Frames.withEtherType(linkType, 0x8864, Frames.pppoe(0x11, 0, Frames.concat(new byte[] {0x21}, PING))),
                    Frames.withEtherType(linkType, 0x8864, Frames.pppoe(0x11, 0,
                            Frames.concat(new byte[] {(byte) 0xFF, 0x03, 0, 0x57}, V6))));
            assertThat(c.lines).as("link type %d", linkType).containsExactly(V4_LINE, V6_LINE, PING_LINE, V6_LINE);
        }
        assertThat(ethernet(65535,
                Frames.ethernet(0x8864, Frames.pppoeSession(0x0021, V4), 0x8100),
                Frames.ethernet(0x8864, Frames.pppoeSession(0x0057, V6), 0x88A8, 0x8100)).lines)
                .containsExactly(V4_LINE, V6_LINE);
    }

    @Test
    void pppoeDiscoveryAndPppControlAreNotIp() throws Exception {
        byte[] lcp = {1, 1, 0, 4};
        Collected c = ethernet(65535,
                Frames.ethernet(0x8864, Frames.pppoeSession(0xC021, lcp)),                 // LCP
                Frames.ethernet(0x8864, Frames.pppoeSession(0x8021, lcp)),                 // IPCP
                Frames.ethernet(0x8864, Frames.pppoeSession(0x8057, lcp)),                 // IPv6CP
                Frames.ethernet(0x8864, Frames.pppoeSession(0x0281, Frames.mpls(V4, 16))), // MPLS in PPP
                Frames.ethernet(0x8863, Frames.pppoe(0x11, 0x09, new byte[] {1, 1, 0, 0})), // PADI
                Frames.ethernet(0x8863, Frames.pppoe(0x11, 0, Frames.concat(new byte[] {0, 0x21}, V4))), // discovery
                Frames.ethernet(0x8864, Frames.pppoe(0x12, 0, Frames.concat(new byte[] {0, 0x21}, V4))), // type 2
                Frames.ethernet(0x8864, Frames.pppoe(0x11, 0x65, Frames.concat(new byte[] {0, 0x21}, V4)))); // PADS
        assertThat(c.lines).isEmpty();
        assertThat(c.reader.skipped(SkipReason.NOT_IP)).isEqualTo(8);
    }

    @Test
    void pppoeCutByTheSnaplenIsTruncated() throws Exception {
        // link header + PPPoE 6 + PPP protocol 2 (or 1, compressed) + IP header + transport bytes needed
        truncatedBelow(LinkTypes.ETHERNET, Frames.ethernet(0x8864, Frames.pppoeSession(0x0021, V4)),
                14 + 6 + 2 + 20 + 14, V4_LINE);
        truncatedBelow(LinkTypes.ETHERNET, Frames.ethernet(0x8864, Frames.pppoeSession(0x0057, V6), 0x8100),
                14 + 4 + 6 + 2 + 40 + 4, V6_LINE);
        truncatedBelow(LinkTypes.LINUX_SLL, Frames.sll(0x8864, Frames.pppoe(0x11, 0,
                Frames.concat(new byte[] {0x57}, V6))), 16 + 6 + 1 + 40 + 4, V6_LINE);
    }

    @Test
    void pppAndCiscoHdlcLinkTypes() throws Exception {
        byte[] lcp = {(byte) 0xFF, 0x03, (byte) 0xC0, 0x21, 1, 1, 0, 4};
        Collected ppp = capture(LinkTypes.PPP, 65535,
                Frames.concat(new byte[] {(byte) 0xFF, 0x03, 0, 0x21}, V4),
                Frames.concat(new byte[] {0, 0x57}, V6),                         // address and control left out
                Frames.concat(new byte[] {(byte) 0xFF, 0x03, 0x21}, PING),       // protocol field compressed
                Frames.concat(new byte[] {0x57}, V6),                            // both
                lcp);
        assertThat(ppp.lines).containsExactly(V4_LINE, V6_LINE, PING_LINE, V6_LINE);
        assertThat(ppp.reader.skipped(SkipReason.NOT_IP)).isEqualTo(1);

        Collected hdlc = capture(LinkTypes.PPP_HDLC, 65535,
                Frames.concat(new byte[] {(byte) 0xFF, 0x03, 0, 0x21}, V4),
                Frames.concat(new byte[] {(byte) 0xFF, 0x03, 0, 0x57}, V6),
                Frames.concat(new byte[] {0x0F, 0, 0x08, 0x00}, PING),                   // Cisco HDLC, unicast
                Frames.concat(new byte[] {(byte) 0x8F, 0, (byte) 0x86, (byte) 0xDD}, V6), // broadcast
                Frames.concat(new byte[] {0x0F, 0, (byte) 0x88, 0x47}, Frames.mpls(V4, 16)),
                lcp,
                Frames.concat(new byte[] {0x0F, 0, (byte) 0x80, 0x35}, new byte[20]),     // SLARP
                V4);                                                     // no HDLC address: 0x45 is none
        assertThat(hdlc.lines).containsExactly(V4_LINE, V6_LINE, PING_LINE, V6_LINE, V4_LINE);
        assertThat(hdlc.reader.skipped(SkipReason.NOT_IP)).isEqualTo(3);

        Collected cisco = capture(LinkTypes.C_HDLC, 65535,
                Frames.concat(new byte[] {0x0F, 0, 0x08, 0x00}, V4),
                Frames.concat(new byte[] {(byte) 0x8F, 0, (byte) 0x86, (byte) 0xDD}, V6),
                Frames.concat(new byte[] {0x0F, 0, (byte) 0x80, 0x35}, new byte[20]));   // SLARP
        assertThat(cisco.lines).containsExactly(V4_LINE, V6_LINE);
        assertThat(cisco.reader.skipped(SkipReason.NOT_IP)).isEqualTo(1);
    }

    @Test
    void pppAndCiscoHdlcCutByTheSnaplenAreTruncated() throws Exception {
        truncatedBelow(LinkTypes.PPP, Frames.concat(new byte[] {(byte) 0xFF, 0x03, 0, 0x21}, V4), 4 + 20 + 14,
                V4_LINE);
        truncatedBelow(LinkTypes.PPP, Frames.concat(new byte[] {0x57}, V6), 1 + 40 + 4, V6_LINE);
        truncatedBelow(LinkTypes.PPP_HDLC, Frames.concat(new byte[] {(byte) 0xFF, 0x03, 0x21}, V4), 3 + 20 + 14,
                V4_LINE);
        truncatedBelow(LinkTypes.PPP_HDLC, Frames.concat(new byte[] {(byte) 0x8F, 0, (byte) 0x86, (byte) 0xDD}, V6),
                4 + 40 + 4, V6_LINE);
        truncatedBelow(LinkTypes.C_HDLC, Frames.concat(new byte[] {0x0F, 0, 0x08, 0x00}, V4), 4 + 20 + 14, V4_LINE);
    }

    // --- IPv4 total length 0 (TSO) ---

    private static final byte[] TSO = Frames.zeroTotalLength(
            Frames.ipv4("10.0.0.1", "10.0.0.2", TCP, Frames.tcp(40000, 5201, ACK | PSH, 2896)));
    private static final String TSO_LINE = Collected.expect(T, TCP, "10.0.0.1", 40000, "10.0.0.2", 5201, ACK | PSH,
            20 + 20 + 2896);

    @Test
    void ipv4TotalLengthZeroTakesTheLengthOnTheWire() throws Exception {
        byte[] udp = Frames.zeroTotalLength(Frames.ipv4("10.0.0.1", "10.0.0.2", UDP, Frames.udp(4789, 4789, 8000)));
        for (ByteOrder order : new ByteOrder[] {ByteOrder.BIG_ENDIAN, ByteOrder.LITTLE_ENDIAN}) {
            byte[] frame = Frames.ethernet(0x0800, TSO);
            byte[] file = new CaptureWriter.Pcap(order, false, 65535, LinkTypes.ETHERNET)
                    .packet(T, frame)
                    .record(1, 0, 200, frame.length, frame)                 // the snaplen kept 200 bytes
                    .packet(T, Frames.ethernet(0x8847, Frames.mpls(TSO, 16)))
                    .packet(T, Frames.ethernet(0x8864, Frames.pppoeSession(0x0021, TSO), 0x8100))
                    .packet(T, Frames.ethernet(0x0800, udp))
                    .record(1, 0, frame.length, 60, frame)                  // original length below the captured
                    .record(1, 0, 200, -1, frame)                           // original length 2^32 - 1
                    .bytes();
            Collected c = Collected.read(file);
            assertThat(c.lines).as(order.toString()).containsExactly(TSO_LINE, TSO_LINE, TSO_LINE, TSO_LINE,
                    Collected.expect(T, UDP, "10.0.0.1", 4789, "10.0.0.2", 4789, 0, 20 + 8 + 8000), TSO_LINE,
                    TSO_LINE.replace("len" + TSO.length, "len" + Integer.MAX_VALUE));
        }
        byte[] frame = Frames.ethernet(0x0800, TSO);
        for (ByteOrder order : new ByteOrder[] {ByteOrder.BIG_ENDIAN, ByteOrder.LITTLE_ENDIAN}) {
            byte[] ng = new CaptureWriter.PcapNg(order).iface(LinkTypes.ETHERNET, 200, 9, 0)
                    .epb(0, T, frame).spb(frame).bytes();
            assertThat(Collected.read(ng).lines).as("pcapng " + order).containsExactly(TSO_LINE,
                    TSO_LINE.replaceFirst("^" + T + " ", "0 "));
        }
    }

    // --- IPv6 payload length 0: jumbograms (RFC 2675) and packets captured before segmentation offload ---

    /** An IPv6 packet whose payload length field is 0. */
    private static byte[] zeroPayloadLength(byte[] ipv6) {
        byte[] a = ipv6.clone();
        a[4] = 0;
        a[5] = 0;
        return a;
    }

    /** A hop-by-hop header of 16 bytes: Pad1, a PadN of 1, the Jumbo Payload option holding {@code jumbo}, a PadN of 2. */
    private static byte[] jumboHeader(int nextHeader, long jumbo) {
        ByteBuffer h = ByteBuffer.allocate(16);
        h.put((byte) nextHeader).put((byte) 1).put((byte) 0).put((byte) 1).put((byte) 1).put((byte) 0);
        h.put((byte) 0xC2).put((byte) 4).putInt((int) jumbo).put((byte) 1).put((byte) 2).putShort((short) 0);
        return h.array();
    }

    @Test
    void ipv6PayloadLengthZeroTakesTheJumboOptionOrTheLengthOnTheWire() throws Exception {
        byte[] jumbogram = zeroPayloadLength(Frames.ipv6("2001:db8::1", "2001:db8::2", 0,
                Frames.concat(jumboHeader(TCP, 100_000), Frames.tcp(40000, 443, ACK, 64))));
        byte[] bigTcp = zeroPayloadLength(Frames.ipv6("2001:db8::1", "2001:db8::2", TCP,
                Frames.tcp(40000, 443, ACK | PSH, 64)));
        byte[] empty = zeroPayloadLength(Frames.ipv6("2001:db8::1", "2001:db8::2", 59, new byte[0]));
        byte[] smallJumbo = zeroPayloadLength(Frames.ipv6("2001:db8::1", "2001:db8::2", 0,
                Frames.concat(jumboHeader(TCP, 65_535), Frames.tcp(40000, 443, ACK, 0))));
        byte[] jumboFrame = Frames.ethernet(0x86DD, jumbogram);
        byte[] bigFrame = Frames.ethernet(0x86DD, bigTcp);
        byte[] emptyFrame = Frames.concat(Frames.ethernet(0x86DD, empty), new byte[6]); // padded to 60 bytes
        byte[] smallFrame = Frames.ethernet(0x86DD, smallJumbo);
        byte[] file = new CaptureWriter.Pcap(ByteOrder.BIG_ENDIAN, false, 200, LinkTypes.ETHERNET)
                .record(1, 0, jumboFrame.length, 14 + 40 + 100_000, jumboFrame)        // the option says 100,000 bytes follow
                .record(1, 0, bigFrame.length, 14 + 40 + 20 + 150_000, bigFrame)     // no option, 150,020 bytes on the wire
                .record(1, 0, bigFrame.length, 14 + 40 + 20 + 64, bigFrame)          // no option, short: an empty
                                                                                     // payload, no room for TCP
                .packet(T, emptyFrame)
                .record(1, 0, smallFrame.length, 14 + 40 + 16 + 20 + 70_000, smallFrame) // a jumbo length ≤ 65,535 is not one
                .bytes();
        Collected c = Collected.read(file);
        assertThat(c.reader.skipped(SkipReason.MALFORMED_IP)).isEqualTo(1);
        assertThat(c.lines).containsExactly(
                Collected.expect(T, TCP, "2001:db8::1", 40000, "2001:db8::2", 443, ACK, 40 + 100_000),
                Collected.expect(T, TCP, "2001:db8::1", 40000, "2001:db8::2", 443, ACK | PSH, 40 + 20 + 150_000),
                Collected.expect(T, 59, "2001:db8::1", 0, "2001:db8::2", 0, 0, 40),
                Collected.expect(T, TCP, "2001:db8::1", 40000, "2001:db8::2", 443, ACK, 40 + 16 + 20 + 70_000));
    }

    /** A hop-by-hop header (its length field set from {@code options}, whose length + 2 must be a multiple of 8). */
    private static byte[] hopByHop(int nextHeader, int... options) {
        byte[] h = new byte[2 + options.length];
        h[0] = (byte) nextHeader;
        h[1] = (byte) (h.length / 8 - 1);
        for (int i = 0; i < options.length; i++) {
            h[2 + i] = (byte) options[i];
        }
        return h;
    }

    /**
     * The Jumbo Payload option alone (RFC 2675) sizes a payload-length-0 packet, however short it was on the wire
     * (a capture of the first bytes with the original length not recorded): the length comes from the option,
     * parsed past Pad1, PadN and unknown options, and only from a hop-by-hop header, only with an option length of 4,
     * only when it fits the header, and only above 65,535.
     */
    @Test
    void theJumboPayloadOptionAloneGivesTheLengthOfAPacketShortOnTheWire() throws Exception {
        int[][] options = {
            {0, 1, 1, 0, 0xC2, 4, 0, 1, 0x86, 0xA0, 1, 2, 0, 0},    // Pad1, PadN(1), jumbo 100,000, PadN(2)
            {0xC2, 4, 0, 1, 0, 0},                                // jumbo 65,536 filling an 8-byte header
            {0x1E, 2, 9, 9, 0xC2, 4, 0, 2, 0, 0, 1, 2, 0, 0},       // an unknown option skipped, jumbo 131,072
            {0xC2, 4, 0xFF, 0xFF, 0xFF, 0xFF},                    // the largest jumbo length
            {0xC2, 4, 0, 0, 0xFF, 0xFF},                          // 65,535: not a jumbo length
            {0xC2, 2, 0, 2, 1, 0},                                // option length 2: not the jumbo option
            {1, 0, 1, 0, 0xC2, 4}                                 // the option's value past the header's end
        };
        CaptureWriter.Pcap pcap = new CaptureWriter.Pcap(ByteOrder.BIG_ENDIAN, true, 65535, LinkTypes.ETHERNET);
        for (int[] o : options) {
            pcap.packet(T, Frames.ethernet(0x86DD, zeroPayloadLength(Frames.ipv6("2001:db8::1", "2001:db8::2", 0,
                    Frames.concat(hopByHop(TCP, o), Frames.tcp(40000, 443, ACK, 0))))));
        }
        // the option in a destination options header is not a jumbo payload option
        byte[] destination = hopByHop(TCP, 0xC2, 4, 0, 1, 0x86, 0xA0);
        pcap.packet(T, Frames.ethernet(0x86DD, zeroPayloadLength(Frames.ipv6("2001:db8::1", "2001:db8::2", 60,
                Frames.concat(destination, Frames.tcp(40000, 443, ACK, 0))))));
        Collected c = Collected.read(pcap.bytes());
        assertThat(c.lines).containsExactly(
                Collected.expect(T, TCP, "2001:db8::1", 40000, "2001:db8::2", 443, ACK, 40 + 100_000),
                Collected.expect(T, TCP, "2001:db8::1", 40000, "2001:db8::2", 443, ACK, 40 + 65_536),
                Collected.expect(T, TCP, "2001:db8::1", 40000, "2001:db8::2", 443, ACK, 40 + 131_072),
                Collected.expect(T, TCP, "2001:db8::1", 40000, "2001:db8::2", 443, ACK, Integer.MAX_VALUE));
        // the others are empty payloads (40 bytes) whose extension header cannot be there
        assertThat(c.reader.skipped(SkipReason.MALFORMED_IP)).isEqualTo(4);
    }

    /** Without a jumbo option, only a packet longer on the wire than 40 + 65,535 bytes is taken as unsized. */
    @Test
    void payloadLengthZeroIsUnsizedOnlyBeyondTheLargestPayloadLength() throws Exception {
        byte[] frame = Frames.ethernet(0x86DD, zeroPayloadLength(Frames.ipv6("2001:db8::1", "2001:db8::2", TCP,
                Frames.tcp(40000, 443, ACK, 0))));
        byte[] file = new CaptureWriter.Pcap(ByteOrder.BIG_ENDIAN, false, 200, LinkTypes.ETHERNET)
                .record(1, 0, frame.length, 14 + 40 + 0xFFFF, frame)     // a payload length could say it: empty
                .record(1, 0, frame.length, 14 + 40 + 0x10000, frame)    // no payload length can say it
                .bytes();
        Collected c = Collected.read(file);
        assertThat(c.lines).containsExactly(
                Collected.expect(T, TCP, "2001:db8::1", 40000, "2001:db8::2", 443, ACK, 40 + 0x10000));
        assertThat(c.reader.skipped(SkipReason.MALFORMED_IP)).isEqualTo(1);
    }

    @Test
    void ipv4TotalLengthZeroStillChecksTheHeaders() throws Exception {
        byte[] withOption = Frames.zeroTotalLength(Frames.ipv4("10.0.0.1", "10.0.0.2", UDP, new byte[0], 0, 1));
        byte[] headerCut = java.util.Arrays.copyOf(withOption, 22);         // 24-byte header, 22 bytes on the wire
        byte[] shortTcp = Frames.zeroTotalLength(Frames.ipv4("10.0.0.1", "10.0.0.2", TCP,
                java.util.Arrays.copyOf(Frames.tcp(1, 2, SYN, 0), 10)));   // 10 TCP bytes on the wire
        byte[] v6 = Frames.ipv6("2001:db8::1", "2001:db8::2", UDP, Frames.udp(1, 2, 0));
        v6[0] = 0x40;                                                       // version 4, header length 0
        byte[] frame = Frames.ethernet(0x0800, withOption);
        byte[] file = new CaptureWriter.Pcap(ByteOrder.BIG_ENDIAN, true, 65535, LinkTypes.ETHERNET)
                .packet(T, Frames.ethernet(0x0800, headerCut))
                .packet(T, Frames.ethernet(0x0800, shortTcp))
                .packet(T, Frames.ethernet(0x0800, Frames.zeroTotalLength(v6)))
                .record(1, 0, 14 + 22, 100, frame)                  // the snaplen, not the wire, cut the header
                .bytes();
        Collected c = Collected.read(file);
        assertThat(c.lines).isEmpty();
        assertThat(c.reader.skipped(SkipReason.MALFORMED_IP)).isEqualTo(3);
        assertThat(c.reader.skipped(SkipReason.TRUNCATED)).isEqualTo(1);
    }
}
