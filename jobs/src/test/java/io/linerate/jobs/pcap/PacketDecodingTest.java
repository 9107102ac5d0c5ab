package io.linerate.jobs.pcap;

import static io.linerate.jobs.pcap.Frames.ACK;
import static io.linerate.jobs.pcap.Frames.FIN;
import static io.linerate.jobs.pcap.Frames.SYN;
import static io.linerate.jobs.pcap.Frames.TCP;
import static io.linerate.jobs.pcap.Frames.UDP;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

/** Link-layer tags, IP options and extension headers, fragments, snaplen truncation and malformed headers. */
class PacketDecodingTest {

    private static final long T = 1_000_000_000L;

    private static Collected ethernet(int snaplen, byte[]... frames) throws Exception {
        CaptureWriter.Pcap file = new CaptureWriter.Pcap(ByteOrder.BIG_ENDIAN, true, snaplen, LinkTypes.ETHERNET);
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
        Collected c = ethernet(65535,
                Frames.ethernet(0x0800, shortIhl), Frames.ethernet(0x0800, shortTotal),
                Frames.ethernet(0x0800, udpCut), Frames.ethernet(0x0800, v6InV4),
                Frames.ethernet(0x86DD, good), Frames.ethernet(0x86DD, extBeyond),
                Frames.ethernet(0x86DD, extLonger), Frames.ethernet(0x0800, good));
        assertThat(c.lines).containsExactly(Collected.expect(T, UDP, "10.0.0.1", 7, "10.0.0.2", 9, 0, 28));
        assertThat(c.reader.skipped(SkipReason.MALFORMED_IP)).isEqualTo(7);
        assertThat(c.reader.recordsRead()).isEqualTo(8);
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
}
