package io.linerate.jobs.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.linerate.flink.flowmeter.FiveTupleSink;
import io.linerate.sketches.hash.FiveTuple;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class PacketRecordTest {

    @Test
    void ipv6AddressesAreWrittenInRfc5952Form() {
        // RFC 5952 §4: shortest form, lowercase, longest zero run compressed (first on a tie), single 0 kept
        assertThat(Addresses.ipv6(0x20010db800000000L, 0x0000000000000001L)).isEqualTo("2001:db8::1");
        assertThat(Addresses.ipv6(0x20010db800000000L, 0x0001000000000001L)).isEqualTo("2001:db8::1:0:0:1");
        assertThat(Addresses.ipv6(0x20010db800000001L, 0x0000000000000001L)).isEqualTo("2001:db8:0:1::1");
        assertThat(Addresses.ipv6(0x20010db800000001L, 0x0001000100010001L)).isEqualTo("2001:db8:0:1:1:1:1:1");
        assertThat(Addresses.ipv6(0x20010db800000000L, 0x0001000000000000L)).isEqualTo("2001:db8:0:0:1::");
        assertThat(Addresses.ipv6(0x20010DB8AAAABBBBL, 0xCCCCDDDDEEEE0001L))
                .isEqualTo("2001:db8:aaaa:bbbb:cccc:dddd:eeee:1");
        assertThat(Addresses.ipv6(0, 0)).isEqualTo("::");
        assertThat(Addresses.ipv6(0, 1)).isEqualTo("::1");
        assertThat(Addresses.ipv6(0xfe80000000000000L, 0)).isEqualTo("fe80::");
        assertThat(Addresses.ipv6(0, 0x0000ffffc0000201L)).isEqualTo("::ffff:192.0.2.1");
        assertThat(Addresses.ipv4(0x0A000001)).isEqualTo("10.0.0.1");
        assertThat(Addresses.ipv4(0xFFFFFFFF)).isEqualTo("255.255.255.255");
    }

    @Test
    void rfc5952TextParsesBackToTheSameAddress() throws Exception {
        SplittableRandom rnd = new SplittableRandom(3);
        for (int i = 0; i < 2000; i++) {
            long high = sparse(rnd);
            long low = sparse(rnd);
            String text = Addresses.ipv6(high, low);
            byte[] b = java.net.InetAddress.getByName(text).getAddress();
            if (b.length == 4) { // ::ffff:a.b.c.d is given back as IPv4 by the JDK
                assertThat(high).isZero();
                assertThat(low >>> 32).isEqualTo(0xFFFFL);
                continue;
            }
            assertThat(java.nio.ByteBuffer.wrap(b).getLong()).isEqualTo(high);
            assertThat(java.nio.ByteBuffer.wrap(b).getLong(8)).isEqualTo(low);
            assertThat(text).doesNotContain(":::").matches("[0-9a-f:.]+");
        }
    }

    /** 64 bits where each 16-bit group is zero with probability 1/2. */
    private static long sparse(SplittableRandom rnd) {
        long v = 0;
        for (int g = 0; g < 4; g++) {
            v = v << 16 | (rnd.nextBoolean() ? 0 : rnd.nextInt(1, 65_536));
        }
        return v;
    }

    @Test
    void equalsHashCodeToStringAndCopy() {
        PacketRecord a = new PacketRecord().setIpv4(1000, 0x0A000001, 0x0A000002, 1234, 80, 6, 0x18, 60, 7);
        PacketRecord b = a.copy();
        assertThat(b).isEqualTo(a).hasSameHashCodeAs(a).isNotSameAs(a);
        assertThat(a.toString()).isEqualTo("Packet{@1000 op=7 10.0.0.1 10.0.0.2 1234 80 6 len=60 flags=0x18}");
        assertThat(b.setIpv4(1000, 0x0A000001, 0x0A000002, 1234, 80, 6, 0x18, 60, 8)).isNotEqualTo(a);
        PacketRecord v6 = new PacketRecord().setIpv6(5, 0x20010db800000000L, 1, 0x20010db800000000L, 2, 1, 2, 17, 0,
                48, 7);
        assertThat(v6.srcAddress()).isEqualTo("2001:db8::1");
        assertThat(v6.fiveTuple()).isEqualTo(FiveTuple.ipv6(0x20010db800000000L, 1, 0x20010db800000000L, 2, 1, 2, 17));
        assertThat(a.fiveTuple()).isEqualTo(FiveTuple.ipv4(0x0A000001, 0x0A000002, 1234, 80, 6));
        assertThat(v6).isNotEqualTo(a);
    }

    @Test
    void validationNamesTheFieldAndTheLimit() {
        PacketRecord p = new PacketRecord();
        assertThat(p.setIpv4(1, 1, 2, 65_536, 80, 6, 0, 60, 0).validate()).isEqualTo(
                "srcPort must be in [0, 65535], got 65536");
        assertThat(p.setIpv4(1, 1, 2, 1, 80, 256, 0, 60, 0).validate()).isEqualTo(
                "protocol must be in [0, 255], got 256");
        assertThat(p.setIpv4(1, 1, 2, 1, 80, 17, 1, 60, 0).validate()).isEqualTo(
                "tcpFlags must be 0 for protocol 17 (not TCP), got 1");
        assertThat(p.setIpv4(1, 1, 2, 1, 80, 17, 0, 19, 0).validate()).isEqualTo(
                "length of an IPv4 packet must be in [20, 2097151], got 19");
        assertThat(p.setIpv4(-1, 1, 2, 1, 80, 17, 0, 20, 0).validate()).isEqualTo(
                "timestamp must be in [0, 9223372034707292160] (epoch ms), got -1");
        assertThat(p.setIpv6(1, 0, 0, 0, 0, 1, 2, 17, 0, 65_575, 0).validate()).isNull();
        // captured before segmentation offload (BIG TCP) or a jumbogram: up to what a 3-byte varint holds
        assertThat(p.setIpv4(1, 1, 2, 1, 80, 17, 0, 185_000, 0).validate()).isNull();
        assertThat(p.setIpv6(1, 0, 0, 0, 0, 1, 2, 17, 0, 2_097_151, 0).validate()).isNull();
        assertThat(p.setIpv6(1, 0, 0, 0, 0, 1, 2, 17, 0, 2_097_152, 0).validate()).isEqualTo(
                "length of an IPv6 packet must be in [40, 2097151], got 2097152");
        PacketBatch batch = new PacketBatch(0);
        assertThatThrownBy(() -> batch.add(p.setIpv4(1, 1, 2, 1, 80, 17, 0, 20, 3)))
                .hasMessage("packet of observation point 3 added to a batch of observation point 0");
        batch.addIpv4(0, 1, 2, 3, 4, 17, 0, 20);
        assertThatThrownBy(() -> batch.addIpv4(PacketBatch.MAX_SPAN_MS + 1, 1, 2, 3, 4, 17, 0, 20))
                .hasMessageContaining("span at most 2147483647 ms");
        assertThat(batch.size()).isEqualTo(1);
    }

    @Test
    void selectorsHandThePrimitiveFiveTuple() {
        List<String> calls = new ArrayList<>();
        FiveTupleSink sink = new FiveTupleSink() {
            @Override
            public void ipv4(int src, int dst, int srcPort, int dstPort, int protocol) {
                calls.add("v4 " + Integer.toHexString(src) + " " + Integer.toHexString(dst) + " " + srcPort + " "
                        + dstPort + " " + protocol);
            }

            @Override
            public void ipv6(long sh, long sl, long dh, long dl, int srcPort, int dstPort, int protocol) {
                calls.add("v6 " + sh + " " + sl + " " + dh + " " + dl + " " + srcPort + " " + dstPort + " " + protocol);
            }
        };
        PacketRecord p = new PacketRecord().setIpv4(9, 0xC0A80001, 0x0A000001, 5, 6, 17, 0, 100, 1);
        PacketRecord.FIVE_TUPLE.select(p, sink);
        PacketRecord.FIVE_TUPLE.select(p.copy().setIpv6(9, 1, 2, 3, 4, 5, 6, 58, 0, 40, 1), sink);
        assertThat(calls).containsExactly("v4 c0a80001 a000001 5 6 17", "v6 1 2 3 4 5 6 58");
        assertThat(PacketRecord.TIMESTAMP.timestampOf(p)).isEqualTo(9);
        assertThat(PacketRecord.LENGTH.weightOf(p)).isEqualTo(100);
    }

    @Test
    void forEachReusesOneRecordAndAllocatesNothing() {
        PacketBatch batch = PacketBatchCodecTest.randomBatch(new SplittableRandom(5), 4, 5000, 0.5);
        List<PacketRecord> seen = new ArrayList<>();
        batch.forEach(seen::add);
        assertThat(seen).hasSize(5000);
        assertThat(seen.stream().distinct().count()).as("the same object every time").isEqualTo(1);
        long[] sum = new long[1];
        java.util.function.Consumer<PacketRecord> add = p -> sum[0] += p.length();
        batch.forEach(add); // warm-up
        long before = PacketBatchCodecTest.allocated();
        for (int i = 0; i < 10; i++) {
            PacketBatch.ELEMENTS.forEach(batch, add);
        }
        long used = PacketBatchCodecTest.allocated() - before;
        // an object per packet would be >= 16 bytes each (800 KB); the measurement itself costs ~1-2 KB
        assertThat(used).as("allocated by 50 000 packets of forEach").isLessThan(16_384);
        assertThat(sum[0]).isPositive();
    }
}
