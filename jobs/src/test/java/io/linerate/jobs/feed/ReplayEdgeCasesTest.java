package io.linerate.jobs.feed;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import io.linerate.jobs.format.PacketRecord;
import io.linerate.jobs.kafka.KafkaBrokerExtension;

/** Replay corner cases, on captures the test writes byte for byte (pcapng, little-endian, Ethernet). */
class ReplayEdgeCasesTest {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();

    private static final AtomicInteger TOPICS = new AtomicInteger();

    @TempDir
    Path dir;

    private static String topic() {
        String name = "replay-edge-" + TOPICS.incrementAndGet();
        KAFKA.broker().createTopic(name, 1);
        return name;
    }

    private static ByteBuffer le(int size) {
        return ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
    }

    /**
     * A pcapng file: {@code interfaces} Ethernet interfaces in microseconds with if_tsoffset {@code offsetSeconds};
     * packet i (a UDP/IPv4 packet 10.0.0.1:1000+i → 10.0.0.2:53) at {@code micros[i]} on interface i % interfaces.
     */
    private static byte[] pcapng(int interfaces, long offsetSeconds, long... micros) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteBuffer shb = le(28);
        shb.putInt(0x0A0D0D0A).putInt(28).putInt(0x1A2B3C4D).putShort((short) 1).putShort((short) 0).putLong(-1L)
                .putInt(28);
        out.writeBytes(shb.array());
        for (int i = 0; i < interfaces; i++) {
            ByteBuffer idb = le(20 + 12 + 4);
            idb.putInt(1).putInt(36).putShort((short) 1).putShort((short) 0).putInt(0);
            idb.putShort((short) 14).putShort((short) 8).putLong(offsetSeconds); // if_tsoffset
            idb.putInt(0).putInt(36); // opt_endofopt, trailing length
            out.writeBytes(idb.array());
        }
        for (int i = 0; i < micros.length; i++) {
            byte[] frame = frame(1000 + i);
            int length = 32 + ((frame.length + 3) & ~3);
            ByteBuffer epb = le(length);
            epb.putInt(6).putInt(length).putInt(i % interfaces).putInt((int) (micros[i] >>> 32)).putInt((int) micros[i])
                    .putInt(frame.length).putInt(frame.length).put(frame);
            epb.position(length - 4);
            epb.putInt(length);
            out.writeBytes(epb.array());
        }
        return out.toByteArray();
    }

    private static byte[] frame(int srcPort) {
        ByteBuffer b = ByteBuffer.allocate(14 + 28);
        b.put(new byte[] {2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2}).putShort((short) 0x0800);
        b.put((byte) 0x45).put((byte) 0).putShort((short) 28).putInt(0).put((byte) 64).put((byte) 17).putShort((short) 0);
        b.putInt(0x0A000001).putInt(0x0A000002);
        b.putShort((short) srcPort).putShort((short) 53).putShort((short) 8).putShort((short) 0);
        return b.array();
    }

    /**
     * A packet stamped before 1970 is skipped as NEGATIVE_TIMESTAMP in every pass, not only the first: the later
     * passes are the same capture shifted past the first, so they hold the same packets, and no packet of a later
     * pass lies within the first pass's event time (docs/feeding.md, "Looping").
     */
    @Test
    void aPacketBeforeNineteenSeventyIsSkippedInEveryPass() throws Exception {
        // if_tsoffset −1 s: the packets are at −0.5 s, 0 s and +2 s of epoch time
        Path file = dir.resolve("before-1970.pcapng");
        Files.write(file, pcapng(1, -1, 500_000, 1_000_000, 3_000_000));
        String t = topic();
        FeedSummary s = PcapReplay.builder(List.of(file)).loops(2).build()
                .run(KAFKA.bootstrapServers(), t, () -> false, n -> { });
        List<PacketRecord> sent = RawTopic.packets(RawTopic.read(KAFKA.bootstrapServers(), t));
        List<Long> times = new ArrayList<>();
        for (PacketRecord p : sent) {
            times.add(p.timestamp());
        }
        long shift = 2000 + 1; // span of the first pass (0 .. 2000 ms) + 1
        assertThat(times).as("event times of both passes").containsExactly(0L, 2000L, shift, 2000 + shift);
        assertThat(s.units()).isEqualTo(4);
        assertThat(s.skipped()).containsExactly(Map.entry(PcapReplay.NEGATIVE_TIMESTAMP, 2L));
    }

    /**
     * {@code --observation-point} + the interface id past {@link Integer#MAX_VALUE} wrapped to a negative observation
     * point, which the option itself refuses (it must be ≥ 0): such a packet cannot be given its observation point.
     */
    @Test
    void anObservationPointBeyondTheIntRangeIsNotWrappedToANegativeOne() throws Exception {
        Path file = dir.resolve("two-interfaces.pcapng");
        Files.write(file, pcapng(2, 0, 1_000_000, 1_000_001));
        String t = topic();
        FeedSummary s = PcapReplay.builder(List.of(file)).observationPoint(Integer.MAX_VALUE).perInterface(true)
                .build().run(KAFKA.bootstrapServers(), t, () -> false, n -> { });
        List<RawTopic.Raw> records = RawTopic.read(KAFKA.bootstrapServers(), t);
        assertThat(records).allSatisfy(r -> assertThat(Long.parseLong(r.keyText())).isNotNegative());
        assertThat(RawTopic.packets(records)).allSatisfy(p -> assertThat(p.observationPoint()).isNotNegative());
        assertThat(s.units()).isEqualTo(1);
        assertThat(s.skipped()).containsExactly(Map.entry(PcapReplay.OUT_OF_RANGE, 1L));
    }

    /** A rate below 1 packet/s was described as "at 0 packets/s". */
    @Test
    void aSlowRateIsDescribedAsItIs() throws Exception {
        Path file = dir.resolve("one.pcapng");
        Files.write(file, pcapng(1, 0, 1_000_000));
        assertThat(PcapReplay.builder(List.of(file)).rate(0.25).build().description())
                .contains("at 0.250 packets/s").doesNotContain("at 0 packets/s");
        assertThat(PcapReplay.builder(List.of(file)).rate(250_000).build().description())
                .contains("at 250000 packets/s");
    }
}
