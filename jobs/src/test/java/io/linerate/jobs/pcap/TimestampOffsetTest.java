package io.linerate.jobs.pcap;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteOrder;

import org.junit.jupiter.api.Test;

/**
 * A pcapng timestamp is units × the interface's resolution + its if_tsoffset, and is skipped as TIMESTAMP_OVERFLOW
 * only when that SUM is beyond 64-bit nanoseconds (docs/pcap.md, {@link SkipReason#TIMESTAMP_OVERFLOW}). A negative
 * if_tsoffset can bring a product that alone is beyond 2^63 ns back into range.
 */
class TimestampOffsetTest {

    private static final long OFFSET_SECONDS = -1_000_000_000L; // −10^9 s

    @Test
    void aNegativeOffsetBringsALargeProductBackIntoRange() throws Exception {
        byte[] frame = Frames.frame(LinkTypes.ETHERNET, Traffic.mix().get(0).ip());
        byte[] file = new CaptureWriter.PcapNg(ByteOrder.LITTLE_ENDIAN)
                .iface(LinkTypes.ETHERNET, 0, -1, OFFSET_SECONDS)        // 0: microseconds
                .iface(LinkTypes.ETHERNET, 0, 9, OFFSET_SECONDS)         // 1: nanoseconds
                .iface(LinkTypes.ETHERNET, 0, 0x80 | 1, OFFSET_SECONDS)  // 2: 2^-1 s
                .epb(0, 9_300_000_000_000_000L, frame)   // 9.3e18 ns − 1e18 ns
                .epb(1, 1L << 63, frame)                  // 2^63 ns (above a signed long) − 1e18 ns
                .epb(2, 19_000_000_001L, frame)          // 9.5000000005e9 s − 1e9 s
                .epb(0, 9_300_000_000_000_000L + 1_000_000_000_000_000L, frame) // beyond even with the offset
                .bytes();
        Collected c = Collected.read(file);
        assertThat(c.reader.skipped(SkipReason.TIMESTAMP_OVERFLOW)).as("skipped as overflow").isEqualTo(1);
        assertThat(c.lines).hasSize(3);
        assertThat(c.lines.get(0)).startsWith("8300000000000000000 ");
        assertThat(c.lines.get(1)).startsWith(Long.toUnsignedString((1L << 63) - 1_000_000_000_000_000_000L) + " ");
        assertThat(c.lines.get(2)).startsWith("8500000000500000000 ");
    }
}
