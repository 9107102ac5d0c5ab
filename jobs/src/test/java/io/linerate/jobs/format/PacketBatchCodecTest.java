package io.linerate.jobs.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class PacketBatchCodecTest {

    static final long BASE = 1_763_720_000_000L; // 2025-11-21, epoch ms

    /** A random batch of {@code n} packets (fixed seed), IPv6 with probability {@code v6Share}. */
    static PacketBatch randomBatch(SplittableRandom rnd, int op, int n, double v6Share) {
        PacketBatch b = new PacketBatch(op);
        long base = BASE + rnd.nextInt(1_000_000);
        int[] protocols = {6, 17, 1, 58, 132};
        for (int i = 0; i < n; i++) {
            int protocol = protocols[rnd.nextInt(protocols.length)];
            int flags = protocol == 6 ? rnd.nextInt(256) : 0;
            long ts = base + switch (rnd.nextInt(4)) {
                case 0 -> 0;
                case 1 -> rnd.nextInt(128);
                case 2 -> rnd.nextInt(100_000);
                default -> rnd.nextLong(PacketBatch.MAX_SPAN_MS / 2);
            };
            int srcPort = rnd.nextInt(65_536);
            int dstPort = rnd.nextBoolean() ? 65_535 : rnd.nextInt(65_536);
            if (rnd.nextDouble() < v6Share) {
                int length = rnd.nextBoolean() ? 40 + rnd.nextInt(1500) : rnd.nextInt(40, PacketRecord.MAX_IPV6_LENGTH + 1);
                b.addIpv6(ts, rnd.nextLong(), rnd.nextLong(), rnd.nextLong(), rnd.nextLong(), srcPort, dstPort, protocol,
                        flags, length);
            } else {
                int length = rnd.nextBoolean() ? 20 + rnd.nextInt(1500)
                        : rnd.nextInt(20, rnd.nextBoolean() ? 65_536 : PacketRecord.MAX_IPV4_LENGTH + 1);
                b.addIpv4(ts, rnd.nextInt(), rnd.nextInt(), srcPort, dstPort, protocol, flags, length);
            }
        }
        return b;
    }

    @Test
    void roundTripsRandomBatchesOfIpv4Ipv6AndBoth() throws Exception {
        SplittableRandom rnd = new SplittableRandom(7);
        PacketBatch reuse = new PacketBatch(0);
        for (double v6Share : new double[] {0, 1, 0.5}) {
            for (int round = 0; round < 40; round++) {
                int n = round == 0 ? 1 : rnd.nextInt(1, 600);
                PacketBatch batch = randomBatch(rnd, rnd.nextInt(), n, v6Share);
                byte[] bytes = PacketBatchCodec.encode(batch);
                assertThat(bytes).hasSize(PacketBatchCodec.encodedSize(batch));
                PacketBatch decoded = PacketBatchCodec.decode(bytes);
                assertThat(decoded).isEqualTo(batch);
                assertThat(decoded.minTimestamp()).isEqualTo(batch.minTimestamp());
                // the decoded packets one by one, through the flyweight
                List<PacketRecord> packets = new ArrayList<>();
                decoded.forEach(p -> packets.add(p.copy()));
                for (int i = 0; i < n; i++) {
                    assertThat(packets.get(i)).isEqualTo(batch.get(i));
                }
                // decoding into a reused batch, from an offset inside a larger array
                byte[] padded = new byte[bytes.length + 10];
                System.arraycopy(bytes, 0, padded, 5, bytes.length);
                assertThat(PacketBatchCodec.decode(padded, 5, bytes.length, reuse)).isSameAs(reuse).isEqualTo(batch);
            }
        }
    }

    @Test
    void layoutIsTheDocumentedOne() throws Exception {
        PacketBatch b = new PacketBatch(0x01020304);
        b.addIpv4(BASE + 300, 0x0A000001, 0xC0A80002, 443, 51_000, 6, 0x12, 1500);
        b.addIpv4(BASE, 0x0A000003, 0x0A000004, 53, 53, 17, 0, 20);
        byte[] expected = Wire.header(1, 0, 0x01020304, 2, BASE)
                .ipv4(6, 0x12, 443, 51_000, 300, 1500, 0x0A000001, 0xC0A80002)
                .ipv4(17, 0, 53, 53, 0, 20, 0x0A000003, 0x0A000004).bytes();
        assertThat(PacketBatchCodec.encode(b)).isEqualTo(expected);
        // 20-byte header; 19 bytes (2-byte delta, 2-byte length) and 17 bytes per IPv4 packet
        assertThat(expected).hasSize(20 + 19 + 17);
        assertThat(PacketBatchCodec.decode(expected)).isEqualTo(b);
    }

    @Test
    void encoderRejectsEmptyBatches() {
        assertThatThrownBy(() -> PacketBatchCodec.encode(new PacketBatch(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("count must be >= 1");
    }

    private static final int SRC = 0x0A000001;
    private static final int DST = 0x0A000002;

    /** One valid IPv4 packet after a header, the count given. */
    private static Wire onePacket(int count) {
        return Wire.header(1, 0, 9, count, BASE).ipv4(17, 0, 1, 2, 0, 100, SRC, DST);
    }

    /**
     * Asserts the reason and offset of a malformed value, decoded alone and from inside a larger array (offsets
     * count from the value's start, whatever precedes it).
     */
    private static void assertMalformed(byte[] bytes, String reasonPart, long offset) {
        try {
            PacketBatch b = PacketBatchCodec.decode(bytes);
            fail("decoded " + b + " from " + Arrays.toString(bytes));
        } catch (MalformedRecordException e) {
            assertThat(e.reason()).contains(reasonPart);
            assertThat(e.offset()).as(e.reason()).isEqualTo(offset);
            assertThat(e.getMessage()).contains(reasonPart).contains("at byte " + offset);
        }
        try {
            PacketBatch b = PacketBatchCodec.decode(framed(bytes), FRAME, bytes.length, null);
            fail("decoded " + b + " from " + Arrays.toString(bytes) + " inside a larger array");
        } catch (MalformedRecordException e) {
            assertThat(e.reason()).as("inside a larger array").contains(reasonPart);
            assertThat(e.offset()).as("inside a larger array: " + e.reason()).isEqualTo(offset);
        }
    }

    /** Bytes before a value that {@link #framed} puts inside a larger array. */
    private static final int FRAME = 7;

    /** {@code value} at {@link #FRAME} in an array with bytes of a valid-looking packet before and after it. */
    private static byte[] framed(byte[] value) {
        byte[] out = new byte[FRAME + value.length + 40];
        Arrays.fill(out, (byte) 4);
        System.arraycopy(value, 0, out, FRAME, value.length);
        return out;
    }

    /** A range of a larger array decodes as the value alone; a range outside the array is an argument error. */
    @Test
    void aValueInsideALargerArrayDecodesAsItselfAndEncodesAtAnOffset() throws Exception {
        PacketBatch batch = randomBatch(new SplittableRandom(5), 3, 40, 0.5);
        byte[] value = PacketBatchCodec.encode(batch);
        assertThat(PacketBatchCodec.decode(framed(value), FRAME, value.length, null)).isEqualTo(batch);

        byte[] out = new byte[5 + value.length];
        assertThat(PacketBatchCodec.encode(batch, out, 5)).isEqualTo(value.length);
        assertThat(Arrays.copyOfRange(out, 5, out.length)).isEqualTo(value);

        for (int[] range : new int[][] {{1, value.length}, {-1, 4}, {0, -1}, {value.length, 1}}) {
            assertThatThrownBy(() -> PacketBatchCodec.decode(value, range[0], range[1], null))
                    .as(Arrays.toString(range)).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void everyMalformedHeaderGivesItsReasonAndOffset() {
        assertMalformed(new byte[0], "truncated: magic needs 2 bytes, 0 left", 0);
        assertMalformed(new byte[] {0x4C}, "truncated: magic", 0);
        byte[] badMagic = onePacket(1).bytes();
        badMagic[1] = 'X';
        assertMalformed(badMagic, "bad magic 0x4c58", 0);
        assertMalformed(new byte[] {0x4C, 0x52}, "truncated: version", 2);
        assertMalformed(Wire.header(2, 0, 9, 1, BASE).ipv4(17, 0, 1, 2, 0, 100, SRC, DST).bytes(),
                "unknown version 2", 2);
        assertMalformed(Wire.header(0, 0, 9, 1, BASE).bytes(), "unknown version 0", 2);
        assertMalformed(Wire.header(1, 0x80, 9, 1, BASE).bytes(), "unknown flags 0x80", 3);
        assertMalformed(Arrays.copyOf(onePacket(1).bytes(), 6), "truncated: observation point", 4);
        assertMalformed(Arrays.copyOf(onePacket(1).bytes(), 11), "truncated: count", 8);
        assertMalformed(Wire.header(1, 0, 9, 0, BASE).bytes(), "count 0 outside [1, 65536]", 8);
        assertMalformed(Wire.header(1, 0, 9, 65_537, BASE).bytes(), "count 65537 outside", 8);
        assertMalformed(Wire.header(1, 0, 9, -1, BASE).bytes(), "count 4294967295 outside", 8);
        assertMalformed(Arrays.copyOf(onePacket(1).bytes(), 19), "truncated: base timestamp", 12);
        assertMalformed(Wire.header(1, 0, 9, 1, -5).ipv4(17, 0, 1, 2, 0, 100, SRC, DST).bytes(),
                "base timestamp -5 outside", 12);
        assertMalformed(Wire.header(1, 0, 9, 1, Long.MAX_VALUE).ipv4(17, 0, 1, 2, 0, 100, SRC, DST).bytes(),
                "base timestamp " + Long.MAX_VALUE + " outside", 12);
        // count at the limit with 17 bytes: rejected before any array is sized from it
        assertMalformed(onePacket(65_536).bytes(), "count 65536 needs at least 1114112 bytes of packets, only 17", 8);
        assertMalformed(onePacket(2).bytes(), "count 2 needs at least 34 bytes", 8);
    }

    @Test
    void everyMalformedPacketGivesItsReasonAndOffset() {
        // packet 0 starts at 20; with a second packet of 17 bytes the count check passes
        assertMalformed(Wire.header(1, 0, 9, 2, BASE).u8(5).raw(new int[33]).bytes(),
                "packet 0: IP version 5, expected 4 or 6", 20);
        assertMalformed(Wire.header(1, 0, 9, 2, BASE).ipv4(17, 0x02, 1, 2, 0, 100, SRC, DST).raw(new int[17]).bytes(),
                "packet 0: TCP flags 0x2 on a packet of protocol 17 (not TCP)", 22);
        assertMalformed(Wire.header(1, 0, 9, 2, BASE).ipv4(6, 0x02, 1, 2, 0, 100, SRC, DST)
                .u8(4).u8(17).u8(0).u16(1).u16(2).raw(0x80, 0x00).varint(100).i32(SRC).i32(DST).bytes(),
                "packet 1: overlong timestamp delta varint (2 bytes for 0)", 20 + 17 + 7);
        assertMalformed(Wire.header(1, 0, 9, 2, BASE).u8(4).u8(17).u8(0).u16(1).u16(2)
                        .raw(0x80, 0x80, 0x80, 0x80, 0x08).varint(100).i32(SRC).i32(DST).raw(new int[17]).bytes(),
                "packet 0: timestamp delta 2147483648 over 2147483647", 27);
        assertMalformed(Wire.header(1, 0, 9, 2, BASE).u8(4).u8(17).u8(0).u16(1).u16(2)
                        .raw(0x80, 0x80, 0x80, 0x80, 0x80, 0x01).raw(new int[30]).bytes(),
                "packet 0: timestamp delta varint longer than 5 bytes", 27);
        // a timestamp beyond the largest base: after a keyBy the batch is encoded again with it as its base
        assertMalformed(Wire.header(1, 0, 9, 1, PacketBatchCodec.MAX_BASE_TIMESTAMP)
                        .ipv4(17, 0, 1, 2, 1, 100, SRC, DST).bytes(),
                "packet 0: timestamp 9223372034707292161 (base + delta) above 9223372034707292160", 27);
        assertMalformed(Wire.header(1, 0, 9, 2, BASE).ipv4(17, 0, 1, 2, 0, 19, SRC, DST).raw(new int[17]).bytes(),
                "packet 0: impossible length 19 of an IPv4 packet, expected [20, 2097151]", 28);
        assertMalformed(Wire.header(1, 0, 9, 2, BASE).u8(6).u8(17).u8(0).u16(1).u16(2).varint(0).varint(39)
                        .raw(new int[40]).bytes(),
                "packet 0: impossible length 39 of an IPv6 packet, expected [40, 2097151]", 28);
        // no length is too large: the largest a 3-byte varint holds is the limit (2,097,151, packets captured before
        // segmentation offload), and a longer varint is rejected as such
        assertMalformed(Wire.header(1, 0, 9, 2, BASE).u8(4).u8(17).u8(0).u16(1).u16(2).varint(0)
                        .raw(0x80, 0x80, 0x80, 0x01).raw(new int[30]).bytes(),
                "packet 0: length varint longer than 3 bytes", 28);
        // an IPv6 packet whose addresses are cut: 2 IPv4-sized packets of bytes follow, not 32 address bytes
        assertMalformed(Wire.header(1, 0, 9, 2, BASE).u8(6).u8(17).u8(0).u16(1).u16(2).varint(0).varint(60)
                        .raw(new int[25]).bytes(),
                "packet 0: truncated: IPv6 addresses needs 32 bytes, 25 left", 29);
        // packet 0: IPv6, 41 bytes; packet 1: IPv4 cut after its source address
        assertMalformed(Wire.header(1, 0, 9, 2, BASE).u8(6).u8(17).u8(0).u16(1).u16(2).varint(0).varint(60)
                        .raw(new int[32]).u8(4).u8(17).u8(0).u16(1).u16(2).varint(0).varint(100).i32(SRC).bytes(),
                "packet 1: truncated: IPv4 addresses needs 8 bytes, 4 left", 20 + 41 + 9);
        assertMalformed(Wire.header(1, 0, 9, 1, BASE).ipv4(17, 0, 1, 2, 0, 100, SRC, DST).raw(0xEE, 0xFF).bytes(),
                "2 trailing bytes after the last of 1 packets", 37);
    }

    @Test
    void acceptsTheLimitsExactly() throws Exception {
        PacketBatch b = new PacketBatch(-1);
        b.addIpv4(0, 0, -1, 0, 65_535, 255, 0, 20);
        b.addIpv4(PacketBatch.MAX_SPAN_MS, -1, 0, 65_535, 0, 6, 255, 65_535);
        b.addIpv4(2, -1, 0, 65_535, 0, 6, 255, PacketRecord.MAX_IPV4_LENGTH); // captured before offload (BIG TCP)
        b.addIpv6(1, -1, -1, 0, 0, 0, 0, 0, 0, PacketRecord.MAX_IPV6_LENGTH);
        assertThat(PacketBatchCodec.decode(PacketBatchCodec.encode(b))).isEqualTo(b);
        PacketBatch full = new PacketBatch(3);
        for (int i = 0; i < PacketBatch.MAX_PACKETS; i++) {
            full.addIpv4(BASE + i, i, ~i, i & 0xFFFF, 80, 17, 0, 60);
        }
        assertThat(PacketBatchCodec.decode(PacketBatchCodec.encode(full))).isEqualTo(full);
        assertThatThrownBy(() -> full.addIpv4(BASE, 1, 2, 3, 4, 17, 0, 60))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at most 65536 packets");
        // the largest timestamp, as the base and after one (the base then smaller): both decode and re-encode
        PacketBatch late = new PacketBatch(4);
        late.addIpv4(PacketRecord.MAX_TIMESTAMP, 1, 2, 3, 4, 17, 0, 60);
        assertThat(PacketBatchCodec.decode(PacketBatchCodec.encode(late))).isEqualTo(late);
        late.addIpv4(PacketRecord.MAX_TIMESTAMP - 5, 1, 2, 3, 4, 17, 0, 60);
        PacketBatch back = PacketBatchCodec.decode(PacketBatchCodec.encode(late));
        assertThat(back).isEqualTo(late);
        assertThat(PacketBatchCodec.decode(PacketBatchCodec.encode(back))).isEqualTo(late);
        assertThatThrownBy(() -> late.addIpv4(PacketRecord.MAX_TIMESTAMP + 1, 1, 2, 3, 4, 17, 0, 60))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("timestamp must be in [0, 9223372034707292160] (epoch ms), got 9223372034707292161");
    }

    /** Bytes the current thread allocated so far (HotSpot's per-thread counter). */
    static long allocated() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getCurrentThreadAllocatedBytes();
    }

    /**
     * Every truncation and every single-byte mutation of valid encodings: the decoder either decodes (to a batch
     * that re-encodes to the same bytes) or throws MalformedRecordException with an offset inside the input —
     * nothing else — and allocates at most a constant per input byte (51 bytes of columns per ≥ 17 input bytes of
     * packet, so ≤ 3 per input byte, plus the reason text).
     */
    @Test
    void mutationAndTruncationSweepNeverThrowsAnythingElseNorOverAllocates() {
        SplittableRandom rnd = new SplittableRandom(11);
        int decodedOk = 0;
        int malformed = 0;
        for (int round = 0; round < 24; round++) {
            PacketBatch batch = randomBatch(rnd, rnd.nextInt(), rnd.nextInt(1, 12), round % 3 / 2.0);
            byte[] valid = PacketBatchCodec.encode(batch);
            List<byte[]> variants = new ArrayList<>();
            for (int len = 0; len < valid.length; len++) {
                variants.add(Arrays.copyOf(valid, len));
            }
            for (int pos = 0; pos < valid.length; pos++) {
                for (int v : new int[] {0x00, 0xFF, 0x80, 0x7F, valid[pos] ^ 0x01, valid[pos] ^ 0x40,
                        rnd.nextInt(256)}) {
                    byte[] m = valid.clone();
                    m[pos] = (byte) v;
                    variants.add(m);
                }
            }
            byte[] longer = Arrays.copyOf(valid, valid.length + 1);
            variants.add(longer);
            if (round == 0) {
                warmUp(variants); // class loading and first-call costs are not the decoder's per-input allocation
            }
            for (byte[] input : variants) {
                PacketBatch d = null;
                MalformedRecordException error = null;
                long before = allocated();
                try {
                    d = PacketBatchCodec.decode(input);
                } catch (MalformedRecordException e) {
                    error = e;
                } catch (Throwable t) {
                    fail("decoder threw " + t + " for " + Arrays.toString(input), t);
                }
                long used = allocated() - before;
                assertThat(used).as("bytes allocated decoding %d bytes", input.length)
                        .isLessThanOrEqualTo(4L * input.length + 8_192);
                if (error != null) {
                    malformed++;
                    assertThat(error.offset()).isBetween(0L, (long) input.length);
                    assertThat(error.reason()).isNotBlank();
                } else {
                    decodedOk++;
                    try {
                        assertThat(PacketBatchCodec.decode(PacketBatchCodec.encode(d))).isEqualTo(d);
                    } catch (MalformedRecordException e) {
                        fail("re-encoding of a decoded batch is malformed", e);
                    }
                }
            }
        }
        assertThat(malformed).isGreaterThan(1000);
        assertThat(decodedOk).isGreaterThan(24); // the originals' mutations that stay valid (ports, addresses)
    }

    private static void warmUp(List<byte[]> inputs) {
        allocated();
        for (int i = 0; i < 3; i++) {
            for (byte[] input : inputs) {
                try {
                    PacketBatchCodec.decode(input);
                } catch (MalformedRecordException expected) {
                    // warming up
                }
            }
        }
    }

    @Test
    void aHugeCountInATinyValueAllocatesNothingBig() {
        byte[] input = Wire.header(1, 0, 9, 65_536, BASE).raw(new int[100]).bytes();
        warmUp(List.of(input, PacketBatchCodec.encode(randomBatch(new SplittableRandom(1), 1, 3, 0.5))));
        long before = allocated();
        assertThatThrownBy(() -> PacketBatchCodec.decode(input)).isInstanceOf(MalformedRecordException.class);
        // the exception with its message and stack trace: under 16 KB on JDK 17, about 30 KB on JDK 25; 65536
        // packets of columns would be ~3.3 MB
        assertThat(allocated() - before).isLessThan(65_536);
    }
}
