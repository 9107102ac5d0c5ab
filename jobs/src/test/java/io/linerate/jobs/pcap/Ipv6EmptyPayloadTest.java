package io.linerate.jobs.pcap;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteOrder;

import org.junit.jupiter.api.Test;

/**
 * An IPv6 payload length of 0 without a Jumbo Payload option, on a packet no longer on the wire than a payload length
 * can say, is an empty payload (docs/pcap.md: ipLength 40): the bytes after the 40-byte header are not the packet's
 * (Ethernet padding, trailing bytes) and must not be read as its transport header, as an IPv4 total length of 20 is
 * not (MALFORMED_IP, "transport header beyond the declared length"). tcpdump prints such packets as {@code [|udp]}.
 */
class Ipv6EmptyPayloadTest {

    private static final long T = 1_700_000_000_000_000_000L;

    private static byte[] emptyPayload(int nextHeader, byte[] after) {
        byte[] ip = Frames.ipv6("2001:db8::1", "2001:db8::2", nextHeader, new byte[0]);
        ip[4] = 0;
        ip[5] = 0;
        return Frames.concat(Frames.ethernet(0x86DD, ip), after);
    }

    @Test
    void bytesAfterAnEmptyIpv6PayloadAreNotReadAsTheTransportHeader() throws Exception {
        byte[] udpLooking = {0x12, 0x34, 0x56, 0x78, 0, 8, 0, 0};   // trailing bytes that look like a UDP header
        byte[] file = new CaptureWriter.Pcap(ByteOrder.LITTLE_ENDIAN, true, 65535, LinkTypes.ETHERNET)
                .packet(T, emptyPayload(Frames.UDP, udpLooking))
                .packet(T, emptyPayload(Frames.UDP, new byte[6]))     // a 54-byte frame padded to Ethernet's 60
                .packet(T, emptyPayload(59, new byte[6]))             // no next header: a valid empty packet
                .bytes();
        Collected c = Collected.read(file);
        assertThat(c.lines).containsExactly(Collected.expect(T, 59, "2001:db8::1", 0, "2001:db8::2", 0, 0, 40));
        assertThat(c.reader.skipped(SkipReason.MALFORMED_IP)).isEqualTo(2);
    }
}
