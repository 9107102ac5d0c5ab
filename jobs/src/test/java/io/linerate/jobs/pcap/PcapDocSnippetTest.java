package io.linerate.jobs.pcap;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** docs/pcap.md's opening snippet, on a pcapng of one IPv4 TCP, one IPv6 UDP and one ARP frame. */
class PcapDocSnippetTest {

    @TempDir
    Path dir;

    @Test
    void pcapMdSnippet() throws Exception {
        CaptureWriter.PcapNg file = new CaptureWriter.PcapNg(ByteOrder.LITTLE_ENDIAN).iface(1, 0, -1, 0)
                .epb(0, 1_000_000, Frames.ethernet(0x0800, Frames.ipv4("10.0.0.1", "10.0.0.2", Frames.TCP,
                        Frames.tcp(1234, 443, Frames.SYN, 0))))
                .epb(0, 2_000_000, Frames.ethernet(0x86DD, Frames.ipv6("2001:db8::1", "2001:db8::2", Frames.UDP,
                        Frames.udp(53, 5353, 10))))
                .epb(0, 3_000_000, Frames.ethernet(0x0806, Frames.arp()));
        Path trace = dir.resolve("trace.pcapng");
        Files.write(trace, file.bytes());
        List<String> seen = new ArrayList<>();
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        PrintStream stdout = System.out;
        System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
        try {
            try (CaptureReader reader = CaptureReader.open(trace)) {
                reader.readAll(new PacketVisitor() {
                    public void ipv4(long tsNanos, int src, int dst, int srcPort, int dstPort, int protocol,
                                     int tcpFlags, int ipLength) { seen.add("4 " + srcPort + " " + dstPort + " " + tcpFlags); }
                    public void ipv6(long tsNanos, long srcHigh, long srcLow, long dstHigh, long dstLow, int srcPort,
                                     int dstPort, int protocol, int tcpFlags, int ipLength) { seen.add("6 " + srcPort + " " + dstPort); }
                });
                System.out.println(reader.recordsRead() + " records, " + reader.packetsDelivered() + " IP packets, "
                        + reader.skipped(SkipReason.NOT_IP) + " not IP");
            }
        } finally {
            System.setOut(stdout);
        }
        assertThat(seen).containsExactly("4 1234 443 2", "6 53 5353");
        assertThat(printed.toString(StandardCharsets.UTF_8)).isEqualTo("3 records, 2 IP packets, 1 not IP\n");
    }
}
