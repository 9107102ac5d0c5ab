package io.linerate.jobs.pcap;

import static io.linerate.jobs.pcap.Frames.ACK;
import static io.linerate.jobs.pcap.Frames.PSH;
import static io.linerate.jobs.pcap.Frames.SYN;

import java.util.List;

/** A small mix of IPv4 and IPv6 packets with their expected decoding, framed per link type by the tests. */
final class Traffic {

    /** An IP packet and the 5-tuple, flags and length the reader must report for it. */
    record Sample(byte[] ip, int protocol, String src, int srcPort, String dst, int dstPort, int flags) {

        String expect(long tsNanos) {
            return Collected.expect(tsNanos, protocol, src, srcPort, dst, dstPort, flags, ip.length);
        }

        boolean isIpv6() {
            return (ip[0] >> 4 & 0xF) == 6;
        }
    }

    private Traffic() {
    }

    static List<Sample> mix() {
        return List.of(
                new Sample(Frames.ipv4("10.0.0.1", "10.0.0.2", Frames.TCP, Frames.tcp(40000, 80, SYN, 0)),
                        6, "10.0.0.1", 40000, "10.0.0.2", 80, SYN),
                new Sample(Frames.ipv4("10.0.0.3", "224.0.0.251", Frames.UDP, Frames.udp(5353, 5353, 30)),
                        17, "10.0.0.3", 5353, "224.0.0.251", 5353, 0),
                new Sample(Frames.ipv4("10.0.0.2", "10.0.0.1", Frames.ICMP, Frames.icmp(8, 0)),
                        1, "10.0.0.2", 0, "10.0.0.1", 8 << 8, 0),
                new Sample(Frames.ipv6("2001:db8::1", "2001:db8::2", Frames.TCP, Frames.tcp(443, 51000, ACK | PSH, 100)),
                        6, "2001:db8::1", 443, "2001:db8::2", 51000, ACK | PSH),
                new Sample(Frames.ipv6("fe80::1", "ff02::1:2", Frames.UDP, Frames.udp(546, 547, 12)),
                        17, "fe80::1", 546, "ff02::1:2", 547, 0),
                new Sample(Frames.ipv6("2001:db8::2", "2001:db8::1", Frames.ICMPV6, Frames.icmp(128, 0)),
                        58, "2001:db8::2", 0, "2001:db8::1", 128 << 8, 0));
    }
}
