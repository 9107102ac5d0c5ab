package io.linerate.jobs.pcap;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * ICMP (protocol 1) in an IPv6 packet and ICMPv6 (58) in an IPv4 packet get the ICMP convention too (srcPort 0,
 * dstPort type << 8 | code), from the 2 bytes the capture must hold. Found by {@link FramesFuzzTest#frames}: the
 * decoder checked for the 2 bytes of type and code but then read them as 4 bytes of ports, past the captured length:
 * the ports took the next record's bytes, and a record ending at the end of the read buffer (one over 1 MiB) threw
 * {@link IndexOutOfBoundsException} out of the reader.
 */
class IcmpOfTheOtherIpVersionTest {

    /** Each packet as a line: version, time, addresses in hex with ports, protocol, flags, IP length. */
    private static PacketVisitor recorder(List<String> lines) {
        return new PacketVisitor() {
            @Override
            public void ipv4(long ts, int src, int dst, int srcPort, int dstPort, int protocol, int tcpFlags,
                             int ipLength) {
                lines.add(String.format(Locale.ROOT,
                        "v4 %d %08x:%d > %08x:%d p%d f%d len%d", ts, src, srcPort, dst, dstPort,
                        protocol, tcpFlags, ipLength));
            }

            @Override
            public void ipv6(long ts, long srcHigh, long srcLow, long dstHigh, long dstLow, int srcPort, int dstPort,
                             int protocol, int tcpFlags, int ipLength) {
                lines.add(String.format(Locale.ROOT,
                        "v6 %d %016x%016x:%d > %016x%016x:%d p%d f%d len%d", ts, srcHigh, srcLow,
                        srcPort, dstHigh, dstLow, dstPort, protocol, tcpFlags, ipLength));
            }
        };
    }

    /** The fuzzer's input: raw IPv6, next header 1 (ICMP), payload length 13,312, 3 bytes of it captured. */
    private static final byte[] FUZZED_FRAME = java.util.HexFormat.of().parseHex("69000000340001000064000000000000008b"
            + "000000000000000000000000000000000000000000ff09f7ff");

    @Test
    void theFuzzersFrameGivesTypeAndCodeWhateverFollowsIt() throws IOException {
        for (int after : new int[] {0x00, 0xFF}) {
            byte[] record = java.util.Arrays.copyOf(FUZZED_FRAME, FUZZED_FRAME.length + 1);
            record[FUZZED_FRAME.length] = (byte) after;
            CaptureWriter.Pcap pcap = new CaptureWriter.Pcap(ByteOrder.BIG_ENDIAN, false, 0, LinkTypes.IPV6);
            pcap.record(1, 0, FUZZED_FRAME.length, 40 + 13_312, FUZZED_FRAME);
            pcap.record(2, 0, 1, 1, new byte[] {(byte) after}); // the next record's bytes follow the frame
            List<String> lines = new ArrayList<>();
            try (CaptureReader reader = CaptureReader.open(new ByteArrayInputStream(pcap.bytes()))) {
                reader.readAll(recorder(lines));
            }
            assertThat(lines).containsExactly("v6 1000000000 0064000000000000008b000000000000:0 > "
                    + "000000000000000000000000000000ff:2551 p1 f0 len13352");
        }
    }

    @Test
    void icmpv6InIpv4CutAfterTypeAndCode() throws IOException {
        byte[] ip = ByteBuffer.allocate(23).put((byte) 0x45).put((byte) 0).putShort((short) 24).putInt(0)
                .put((byte) 64).put((byte) 58).putShort((short) 0).putInt(0x0A000001).putInt(0x0A000002)
                .put((byte) 128).put((byte) 0).put((byte) 0x77).array(); // echo request, cut in its checksum
        CaptureWriter.Pcap pcap = new CaptureWriter.Pcap(ByteOrder.LITTLE_ENDIAN, false, 0, LinkTypes.RAW);
        pcap.record(1, 0, ip.length, 24, ip);
        List<String> lines = new ArrayList<>();
        try (CaptureReader reader = CaptureReader.open(new ByteArrayInputStream(pcap.bytes()))) {
            reader.readAll(recorder(lines));
        }
        assertThat(lines).containsExactly("v4 1000000000 0a000001:0 > 0a000002:32768 p58 f0 len24");
    }

    /**
     * A record of over 1 MiB (an Ethernet frame with 262,144 VLAN tags) whose IPv4 packet carries ICMPv6 cut after
     * type and code: the read buffer grows to exactly the record, so reading past the captured length left the array.
     */
    @Test
    void aRecordEndingAtTheEndOfTheReadBufferIsRead() throws IOException {
        int tags = 262_144;
        ByteBuffer frame = ByteBuffer.allocate(12 + 4 * tags + 2 + 23);
        frame.put(new byte[12]);
        for (int i = 0; i < tags; i++) {
            frame.putShort((short) 0x8100).putShort((short) 7);
        }
        frame.putShort((short) 0x0800);
        frame.put((byte) 0x45).put((byte) 0).putShort((short) 24).putInt(0).put((byte) 64).put((byte) 58)
                .putShort((short) 0).putInt(0x0A000001).putInt(0x0A000002).put((byte) 128).put((byte) 0)
                .put((byte) 0x77);
        byte[] bytes = frame.array();
        CaptureWriter.Pcap pcap = new CaptureWriter.Pcap(ByteOrder.BIG_ENDIAN, false, 0, LinkTypes.ETHERNET);
        pcap.record(1, 0, bytes.length, bytes.length + 1, bytes);
        List<String> lines = new ArrayList<>();
        try (CaptureReader reader = CaptureReader.open(new ByteArrayInputStream(pcap.bytes()))) {
            reader.readAll(recorder(lines));
        }
        assertThat(lines).containsExactly("v4 1000000000 0a000001:0 > 0a000002:32768 p58 f0 len24");
    }
}
