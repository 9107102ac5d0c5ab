package io.linerate.jobs.pcap;

import static io.linerate.jobs.pcap.Frames.ACK;
import static io.linerate.jobs.pcap.Frames.RST;
import static io.linerate.jobs.pcap.Frames.TCP;
import static io.linerate.jobs.pcap.Frames.UDP;
import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.jobs.pcap.Traffic.Sample;
import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Compares the reader with an independent one, tcpdump ({@code -nn -tt --nano}), on the captures the tests write:
 * the number of records, and per IP packet the timestamp, addresses and (TCP/UDP) ports. Runs only when tcpdump
 * is on the PATH (Debian: {@code apt-get install tcpdump}); otherwise it says it skipped the cross-check.
 */
class TcpdumpCrossCheckTest {

    private static final long T = 1_700_000_000_123_456_789L;
    private static Path tcpdump;

    @TempDir
    Path dir;

    /** The tcpdump on the PATH, or the one named by system property {@code tcpdump} ("none": skip). */
    @BeforeAll
    static void findTcpdump() {
        String named = System.getProperty("tcpdump", "");
        tcpdump = named.equals("none") ? null : !named.isEmpty() ? Path.of(named)
                : Arrays.stream(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
                .filter(s -> !s.isEmpty())
                .map(d -> Path.of(d, "tcpdump")).filter(Files::isExecutable).findFirst().orElse(null);
        if (tcpdump == null) {
            System.out.println("TcpdumpCrossCheckTest: tcpdump is not on the PATH (or -Dtcpdump=none), skipped the"
                    + " cross-check with an independent reader");
        }
    }

    @BeforeEach
    void requireTcpdump() {
        Assumptions.assumeTrue(tcpdump != null, "tcpdump not on the PATH: cross-check skipped");
    }

    /** IP packets tcpdump decodes plainly, framed on each link type, plus a few it prints as non-IP. */
    private static List<byte[]> ipPackets() {
        List<byte[]> packets = new ArrayList<>();
        for (Sample s : Traffic.mix()) {
            packets.add(s.ip());
        }
        byte[] udp = Frames.udp(40001, 40002, 2000);
        packets.add(Frames.ipv4("10.1.0.1", "10.1.0.2", UDP, Arrays.copyOf(udp, 1480), 0x2000, 0));
        packets.add(Frames.ipv4("10.1.0.1", "10.1.0.2", UDP, new byte[528], 185, 0));
        packets.add(Frames.ipv4("10.1.0.3", "10.1.0.4", TCP, Frames.tcp(40022, 40023, RST | ACK, 0), 0x4000, 2));
        packets.add(Frames.ipv6("2001:db8::1", "2001:db8::2", 0, Frames.concat(Frames.optionsHeader(43, 1),
                Frames.routingHeader(60, 3), Frames.optionsHeader(TCP, 2), Frames.tcp(40080, 40090, ACK, 10))));
        packets.add(Frames.ipv6("2001:db8::1", "2001:db8::2", 44, Frames.concat(
                Frames.fragmentHeader(UDP, 0, true), Frames.udp(40000, 40053, 100))));
        packets.add(Frames.ipv6("2001:db8::1", "2001:db8::2", 60, Frames.concat(
                Frames.optionsHeader(44, 1), Frames.fragmentHeader(UDP, 14, false), new byte[40])));
        return packets;
    }

    @Test
    void classicFilesAgreeWithTcpdump() throws Exception {
        int[] linkTypes = {LinkTypes.ETHERNET, LinkTypes.LINUX_SLL, LinkTypes.LINUX_SLL2, LinkTypes.RAW,
                LinkTypes.NULL, LinkTypes.LOOP, LinkTypes.PPP, LinkTypes.PPP_HDLC, LinkTypes.C_HDLC};
        int n = 0;
        for (int linkType : linkTypes) {
            for (ByteOrder order : List.of(ByteOrder.BIG_ENDIAN, ByteOrder.LITTLE_ENDIAN)) {
                for (boolean nanos : new boolean[] {false, true}) {
                    CaptureWriter.Pcap file = new CaptureWriter.Pcap(order, nanos, 1000, linkType);
                    long ts = T;
                    for (byte[] ip : ipPackets()) {
                        file.packet(ts += 1_000_003, Frames.frame(linkType, ip));
                    }
                    if (linkType == LinkTypes.ETHERNET) {
                        file.packet(ts += 5, Frames.arp());
                        file.packet(ts += 5, Frames.ethernet(0x0800, ipPackets().get(0), 0x88A8, 0x8100));
                        file.packet(ts += 5, Frames.ethernet(0x86DD, ipPackets().get(3), 0x8100));
                        // a record longer than the file's snaplen of 1000 (libpcap 1.5.0-1.5.1 wrote such files):
                        // libpcap reads its first 1000 bytes, so must we
                        byte[] over = Frames.frame(linkType, ipPackets().get(Traffic.mix().size())); // 1,508 bytes
                        ts += 5;
                        long fraction = ts % 1_000_000_000L;
                        file.record(ts / 1_000_000_000L, nanos ? fraction : fraction / 1000, over.length,
                                over.length, over);
                    }
                    compare(file.bytes(), "classic-" + (n++) + ".pcap");
                }
            }
        }
    }

    /** libpcap reads a pcapng file only if all its interfaces share one link type and snaplen: a file per type. */
    @Test
    void pcapngFilesAgreeWithTcpdump() throws Exception {
        List<byte[]> ips = ipPackets();
        int n = 0;
        // (raw IP is left to the classic files: libpcap 1.10.3 rejects a second raw-IP interface, "type 101
        // different from the type of the first interface", as it maps the first one to DLT_RAW)
        for (int linkType : new int[] {LinkTypes.ETHERNET, LinkTypes.LINUX_SLL2, LinkTypes.LINUX_SLL}) {
            for (ByteOrder order : List.of(ByteOrder.BIG_ENDIAN, ByteOrder.LITTLE_ENDIAN)) {
                CaptureWriter.PcapNg file = new CaptureWriter.PcapNg(order)
                        .iface(linkType, 1000, -1, 0)
                        .iface(linkType, 1000, 9, 0)
                        .iface(linkType, 1000, 3, 0)
                        .block(4, new byte[4], false);
                long ms = T / 1_000_000;
                for (byte[] ip : ips) {
                    ms += 1001;
                    byte[] frame = Frames.frame(linkType, ip);
                    file.epb(0, ms * 1000 + 7, frame).epb(1, ms * 1_000_000 + 123_457, frame).epb(2, ms, frame);
                }
                if (linkType == LinkTypes.ETHERNET) {
                    file.epb(0, ms * 1000, Frames.arp());
                }
                file.spb(Frames.frame(linkType, ips.get(1)));
                compare(file.bytes(), "ng-" + (n++) + ".pcapng");
            }
        }
    }

    /**
     * MPLS (in Ethernet, after VLAN tags, in Linux cooked v1/v2 and Cisco HDLC), PPPoE sessions and discovery, PPP
     * and Cisco HDLC link types, and IPv4 headers of total length 0 (TSO, one of them longer than the snaplen).
     */
    @Test
    void encapsulationsAgreeWithTcpdump() throws Exception {
        byte[] v4 = Traffic.mix().get(0).ip();
        byte[] v6 = Traffic.mix().get(4).ip();
        byte[] tso = Frames.zeroTotalLength(Frames.ipv4("10.2.0.1", "10.2.0.2", TCP,
                Frames.tcp(40100, 40200, ACK, 2896)));
        byte[] lcp = {1, 1, 0, 4};
        byte[] ciscoV4 = {0x0F, 0, 0x08, 0x00};
        byte[] ciscoMpls = {0x0F, 0, (byte) 0x88, 0x47};
        int n = 0;
        for (int linkType : new int[] {LinkTypes.ETHERNET, LinkTypes.LINUX_SLL, LinkTypes.LINUX_SLL2,
                LinkTypes.C_HDLC}) {
            List<byte[]> frames = new ArrayList<>();
            frames.add(Frames.withEtherType(linkType, 0x8847, Frames.mpls(v4, 16)));
            frames.add(Frames.withEtherType(linkType, 0x8848, Frames.mpls(v6, 1000, 2000, 3000)));
            frames.add(Frames.withEtherType(linkType, 0x8847, Frames.mpls(tso, 16)));
            // a pseudowire control word, then an Ethernet frame: tcpdump hex-dumps it, the reader says NOT_IP
            frames.add(Frames.withEtherType(linkType, 0x8847,
                    Frames.mpls(Frames.concat(new byte[4], Frames.ethernet(0x0800, v4)), 16)));
            if (linkType != LinkTypes.C_HDLC) { // tcpdump reads no PPPoE in Cisco HDLC
                frames.add(Frames.withEtherType(linkType, 0x8864, Frames.pppoeSession(0x0021, v4)));
                frames.add(Frames.withEtherType(linkType, 0x8864, Frames.pppoeSession(0x0057, v6)));
                frames.add(Frames.withEtherType(linkType, 0x8864, Frames.pppoeSession(0xC021, lcp)));
                frames.add(Frames.withEtherType(linkType, 0x8864, Frames.pppoeSession(0x0021, tso)));
                frames.add(Frames.withEtherType(linkType, 0x8864,
                        Frames.pppoe(0x11, 0, Frames.concat(new byte[] {0x57}, v6))));
            }
            if (linkType == LinkTypes.ETHERNET) {
                frames.add(Frames.ethernet(0x8847, Frames.mpls(v6, 16, 17), 0x88A8, 0x8100));
                frames.add(Frames.ethernet(0x8864, Frames.pppoeSession(0x0021, v4), 0x8100));
                frames.add(Frames.ethernet(0x8863, Frames.pppoe(0x11, 0x09, new byte[] {1, 1, 0, 0})));
                frames.add(Frames.ethernet(0x0800, tso));
            }
            compare(classic(linkType, frames), "encapsulated-" + (n++) + ".pcap");
        }
        compare(classic(LinkTypes.PPP, List.of(Frames.frame(LinkTypes.PPP, v4), Frames.frame(LinkTypes.PPP, v6),
                Frames.concat(new byte[] {0, 0x21}, v4), Frames.concat(new byte[] {0x57}, v6),
                Frames.concat(new byte[] {(byte) 0xFF, 0x03, (byte) 0xC0, 0x21}, lcp),
                Frames.frame(LinkTypes.PPP, tso))), "ppp.pcap");
        compare(classic(LinkTypes.PPP_HDLC, List.of(Frames.frame(LinkTypes.PPP_HDLC, v4),
                Frames.frame(LinkTypes.PPP_HDLC, v6), Frames.concat(ciscoV4, v4),
                Frames.concat(new byte[] {(byte) 0x8F, 0, (byte) 0x86, (byte) 0xDD}, v6),
                Frames.concat(ciscoMpls, Frames.mpls(v4, 16)),
                Frames.concat(new byte[] {(byte) 0xFF, 0x03, (byte) 0xC0, 0x21}, lcp),
                Frames.concat(ciscoV4, tso))), "ppp-hdlc.pcap");
    }

    /**
     * TCP data offsets 0 to 15 in segments that hold the header exactly, with data, or one word short of it
     * (segments of at least 20 bytes):
     * tcpdump's "bad hdr length N - too short" / "- too long" are exactly the reader's MALFORMED_IP, the others
     * agree packet by packet (also behind an IPv6 extension header, whose length the segment does not include).
     */
    @Test
    void tcpHeaderLengthsAgreeWithTcpdump() throws Exception {
        List<byte[]> frames = new ArrayList<>();
        for (int words = 0; words <= 15; words++) {
            // (a segment shorter than 20 bytes is malformed whatever its offset; tcpdump prints it as cut, "[|tcp]")
            int[] segments = words > 5 ? new int[] {words * 4, words * 4 + 7, words * 4 - 4} : new int[] {20, 27};
            for (int segment : segments) {
                byte[] tcp = Frames.tcp(40000 + words, 443, ACK, segment - 20);
                tcp[12] = (byte) (words << 4);
                frames.add(Frames.ethernet(0x0800, Frames.ipv4("10.3.0.1", "10.3.0.2", TCP, tcp)));
                frames.add(Frames.ethernet(0x86DD, Frames.ipv6("2001:db8::1", "2001:db8::2", 60,
                        Frames.concat(Frames.optionsHeader(TCP, 1), tcp))));
            }
        }
        compare(classic(LinkTypes.ETHERNET, frames), "tcp-header-lengths.pcap");
    }

    /** A classic pcap (snaplen 1000) of the frames, timestamps 1 ms apart. */
    private static byte[] classic(int linkType, List<byte[]> frames) {
        CaptureWriter.Pcap file = new CaptureWriter.Pcap(ByteOrder.LITTLE_ENDIAN, true, 1000, linkType);
        long ts = T;
        for (byte[] frame : frames) {
            file.packet(ts += 1_000_000, frame);
        }
        return file.bytes();
    }

    private void compare(byte[] bytes, String name) throws Exception {
        Path file = dir.resolve(name);
        Files.write(file, bytes);
        Collected ours = Collected.read(bytes);
        List<String> oursNormalized = new ArrayList<>();
        for (String line : ours.lines) {
            oursNormalized.add(normalizeOurs(line));
        }

        Process p = new ProcessBuilder(tcpdump.toString(), "-nn", "-tt", "--nano", "-r", file.toString())
                .redirectError(dir.resolve(name + ".err").toFile()).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as("tcpdump exit code on %s: %s", name,
                Files.readString(dir.resolve(name + ".err"))).isZero();
        // one line per record; a payload tcpdump cannot name (an MPLS pseudowire) is hex-dumped on indented lines
        List<String> lines = out.lines().filter(l -> !l.isEmpty() && !Character.isWhitespace(l.charAt(0))).toList();
        List<String> theirs = new ArrayList<>();
        List<String> undecodedTso = new ArrayList<>();
        int badTcpHeaders = 0;
        for (String line : lines) {
            if (line.endsWith(" IP bad-len 0")) {
                undecodedTso.add(line.substring(0, line.indexOf(' ')));
            } else if (line.contains(" [bad hdr length ")) {
                badTcpHeaders++; // a TCP data offset below 5 words or beyond the segment
            } else {
                parseTcpdump(line).ifPresent(theirs::add);
            }
        }
        assertThat(lines).as("tcpdump records of %s:\n%s", name, out).hasSize((int) ours.reader.recordsRead());
        // tcpdump before 4.99.5 (unless built with GUESS_TSO) stops at an IPv4 total length of 0: "IP bad-len 0".
        // The reader delivers such packets (with the length on the wire, asserted in PacketDecodingTest): here only
        // that it did, at that timestamp
        for (String seconds : undecodedTso) {
            assertThat(oursNormalized.removeIf(l -> l.startsWith(nanos(seconds) + " ")))
                    .as("%s: the reader delivered the packet tcpdump printed as bad-len 0 at %s", name, seconds)
                    .isTrue();
        }
        assertThat(oursNormalized).as("IP packets of %s; tcpdump said:\n%s", name, out)
                .containsExactlyElementsOf(theirs);
        assertThat(ours.reader.skipped(SkipReason.MALFORMED_IP)).as("%s: MALFORMED_IP, tcpdump's bad TCP header"
                + " lengths", name).isEqualTo(badTcpHeaders);
    }

    /** Our line "ts pP src:port > dst:port ..." as "ts src sport dst dport", ports only for TCP and UDP. */
    private static String normalizeOurs(String line) {
        String[] f = line.split(" ");
        boolean ports = f[1].equals("p6") || f[1].equals("p17");
        String[] src = splitLast(f[2], ':');
        String[] dst = splitLast(f[4], ':');
        return f[0] + " " + src[0] + " " + (ports ? src[1] : "0") + " " + dst[0] + " " + (ports ? dst[1] : "0");
    }

    /**
     * After the timestamp: an SLL2 interface and direction, then MPLS labels, a PPPoE session or the PPP protocol
     * name (PPP_HDLC: "IP: IP ..."), then the IP line.
     */
    private static final Pattern IP = Pattern.compile("^(?:\\S+\\s+(?:In|Out|B|M|P)\\s+)?"
            + "(?:MPLS(?: \\([^)]*\\))+ |PPPoE  \\[ses 0x\\p{XDigit}+\\] |IP6?: )?(IP6? .*)$");
    private static final Pattern PAIR = Pattern.compile("(\\S+) > (\\S+): ");

    /** A tcpdump line "sec.nanos IP[6] a[.port] > b[.port]: ..." as "ts src sport dst dport". */
    private static Optional<String> parseTcpdump(String line) throws IOException {
        int space = line.indexOf(' ');
        // SLL2 lines carry the interface name and direction first: "ifb1  In  IP ..."
        Matcher ip = IP.matcher(line.substring(space + 1));
        if (!ip.find()) {
            return Optional.empty();
        }
        String rest = ip.group(1);
        Matcher m = PAIR.matcher(rest);
        if (!m.find()) {
            throw new IOException("no address pair in tcpdump line " + line);
        }
        boolean v6 = rest.startsWith("IP6 ");
        String[] s = address(m.group(1), v6);
        String[] d = address(m.group(2), v6);
        // behind IPv6 extension headers tcpdump prints the ports alone: "HBH ... DSTOPT 40080 > 40090: Flags"
        while (m.find()) {
            if (m.group(1).matches("\\d+") && m.group(2).matches("\\d+")) {
                s[1] = m.group(1);
                d[1] = m.group(2);
            }
        }
        return Optional.of(nanos(line.substring(0, space)) + " " + s[0] + " " + s[1] + " " + d[0] + " " + d[1]);
    }

    /** tcpdump's "seconds.nanoseconds" ({@code -tt --nano}) as nanoseconds. */
    private static long nanos(String timestamp) {
        String[] ts = timestamp.split("\\.");
        return Long.parseLong(ts[0]) * 1_000_000_000L + Long.parseLong(ts[1]);
    }

    private static String[] address(String token, boolean v6) throws IOException {
        String host = token;
        String port = "0";
        if (v6 ? token.contains(".") : token.split("\\.").length == 5) {
            host = token.substring(0, token.lastIndexOf('.'));
            port = token.substring(token.lastIndexOf('.') + 1);
        }
        String text = InetAddress.getByName(host).getHostAddress();
        return new String[] {v6 ? "[" + text + "]" : text, port};
    }

    private static String[] splitLast(String s, char c) {
        int i = s.lastIndexOf(c);
        return new String[] {s.substring(0, i), s.substring(i + 1)};
    }
}
