package io.linerate.jobs.pcap;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedOutputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.zip.Deflater;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Measures the read speed on generated 1M-packet files (classic pcap and pcapng, Ethernet, 80% IPv4 / 20% IPv6,
 * TCP and UDP, 54–174-byte frames), and the classic one gzip-compressed. Prints packets/s; asserts the counts and that reading allocates nothing per
 * packet (no speed assertion).
 */
class CaptureReadSpeedTest {

    private static final int PACKETS = 1_000_000;

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    @TempDir
    Path dir;

    /** Sums every field so that nothing is optimized away. */
    private static final class Sum implements PacketVisitor {
        long sum;

        @Override
        public void ipv4(long ts, int src, int dst, int srcPort, int dstPort, int protocol, int flags, int length) {
            sum += ts + src + dst + srcPort + dstPort + protocol + flags + length;
        }

        @Override
        public void ipv6(long ts, long srcHigh, long srcLow, long dstHigh, long dstLow, int srcPort, int dstPort,
                         int protocol, int flags, int length) {
            sum += ts + srcHigh + srcLow + dstHigh + dstLow + srcPort + dstPort + protocol + flags + length;
        }
    }

    private static byte[][] frames() {
        SplittableRandom random = new SplittableRandom(7);
        byte[][] frames = new byte[4096][];
        for (int i = 0; i < frames.length; i++) {
            int payload = random.nextInt(100);
            boolean tcp = random.nextInt(3) > 0;
            byte[] l4 = tcp ? Frames.tcp(1024 + i, 443, Frames.ACK, payload) : Frames.udp(1024 + i, 53, payload);
            int protocol = tcp ? Frames.TCP : Frames.UDP;
            byte[] ip = random.nextInt(5) > 0
                    ? Frames.ipv4("10.0." + (i >> 8) + "." + (i & 0xFF), "192.0.2.1", protocol, l4)
                    : Frames.ipv6("2001:db8::" + Integer.toHexString(i + 1), "2001:db8::ffff", protocol, l4);
            frames[i] = Frames.frame(LinkTypes.ETHERNET, ip);
        }
        return frames;
    }

    @Test
    void readSpeedOnAMillionPackets() throws Exception {
        byte[][] frames = frames();
        Path classic = dir.resolve("speed.pcap");
        Path ng = dir.resolve("speed.pcapng");
        try (OutputStream a = new BufferedOutputStream(Files.newOutputStream(classic), 1 << 20);
             OutputStream b = new BufferedOutputStream(Files.newOutputStream(ng), 1 << 20)) {
            CaptureWriter.Pcap pcap = new CaptureWriter.Pcap(ByteOrder.LITTLE_ENDIAN, true, 65535,
                    LinkTypes.ETHERNET, a);
            CaptureWriter.PcapNg pcapng = new CaptureWriter.PcapNg(ByteOrder.LITTLE_ENDIAN, b)
                    .iface(LinkTypes.ETHERNET, 65535, 9, 0);
            long ts = 1_700_000_000_000_000_000L;
            for (int i = 0; i < PACKETS; i++) {
                byte[] frame = frames[i & (frames.length - 1)];
                pcap.packet(ts, frame);
                pcapng.epb(0, ts, frame);
                ts += 1_000;
            }
        }
        // the classic file gzip-compressed at level 1 (fast to write; inflating costs about the same at any level)
        Path gz = dir.resolve("speed.pcap.gz");
        try (OutputStream out = new GZIPOutputStream(new BufferedOutputStream(Files.newOutputStream(gz), 1 << 20),
                1 << 16) {
                {
                    def.setLevel(Deflater.BEST_SPEED);
                }
            }) {
            Files.copy(classic, out);
        }
        for (Path file : new Path[] {classic, ng, gz}) {
            double best = 0;
            StringBuilder rounds = new StringBuilder();
            for (int round = 0; round < (file == gz ? 3 : 6); round++) {
                Sum sum = new Sum();
                long allocatedBefore = THREADS.getThreadAllocatedBytes(Thread.currentThread().getId());
                long start = System.nanoTime();
                try (CaptureReader reader = CaptureReader.open(file)) {
                    reader.readAll(sum);
                    long nanos = System.nanoTime() - start;
                    long allocated = THREADS.getThreadAllocatedBytes(Thread.currentThread().getId())
                            - allocatedBefore;
                    assertThat(reader.recordsRead()).isEqualTo(PACKETS);
                    assertThat(reader.packetsDelivered()).isEqualTo(PACKETS);
                    // the 1 MiB buffer and the stream (and the inflater's 64 KiB), nothing per packet (16 bytes per
                    // packet would be 16 MB)
                    assertThat(allocated).as("bytes allocated reading %d packets", PACKETS).isLessThan(4L << 20);
                    best = Math.max(best, PACKETS * 1e9 / nanos);
                    rounds.append(String.format(Locale.ROOT, " %.1f", PACKETS * 1e3 / nanos));
                }
            }
            long bytes = Files.size(file);
            System.out.printf(Locale.ROOT, "CaptureReadSpeedTest: %s, %d packets, %.1f MB: best round %.2f M packets/s"
                    + " (%.0f MB/s of the file); rounds (M packets/s):%s%n", file.getFileName(), PACKETS, bytes / 1e6,
                    best / 1e6, best * bytes / PACKETS / 1e6, rounds);
        }
    }
}
