package io.linerate.jobs.heavyhitters;

import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.flink.flowmeter.MeteredFlow;
import io.linerate.jobs.format.OutputJson;
import io.linerate.sketches.flowtable.ExportReason;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Address items and flow records as text, against exact RFC 5952 / dotted-quad strings at the sign boundaries. */
class PacketItemTextTest {

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
        "0a000001                         | 10.0.0.1",
        "7fffffff                         | 127.255.255.255",
        "80000000                         | 128.0.0.0",
        "ffffffff                         | 255.255.255.255",
        "00000000000000000000ffffc0000201 | ::ffff:192.0.2.1",
        "00000000000000000000ffff80000000 | ::ffff:128.0.0.0",
        "20010db8000000000000000000000001 | 2001:db8::1",
        "20010db8000000000001000000000001 | 2001:db8::1:0:0:1",
        "ffffffffffffffffffffffffffffffff | ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
        "80000000000000000000000000008000 | 8000::8000",
        "00000000000000000000000000000000 | ::",
    })
    void addressItemsReadAsAddressText(String hex, String expected) {
        assertThat(PacketItem.SRC_ADDRESS.text(hex)).isEqualTo(expected);
        assertThat(PacketItem.DST_ADDRESS.text(hex)).isEqualTo(expected);
        assertThat(expected.length()).isLessThanOrEqualTo(PacketItem.SRC_ADDRESS.longestText().length());
    }

    @ParameterizedTest(name = "{1} {2}")
    @CsvSource(delimiter = '|', value = {
        "false | 0 | 2147483648 | 0 | 4294967295 | 65535 | 32768 | 255 | 128.0.0.0 | 255.255.255.255",
        "true | 0 | 281473902969345 | 0 | 281474976710655 | 32768 | 65535 | 128 | ::ffff:192.0.2.1 | ::ffff:255.255.255.255",
        "true | -9223372036854775808 | 32768 | 2306139568115548160 | 1 | 1 | 2 | 6 | 8000::8000 | 2001:db8::1",
    })
    void flowJsonWritesAddressesAndPortsUnsigned(boolean ipv6, long sh, long sl, long dh, long dl, int sp, int dp,
                                                 int proto, String src, String dst) {
        MeteredFlow<Integer> f = new MeteredFlow<>();
        f.scope = 7;
        f.ipv6 = ipv6;
        f.srcHigh = sh;
        f.srcLow = sl;
        f.dstHigh = dh;
        f.dstLow = dl;
        f.srcPort = sp;
        f.dstPort = dp;
        f.protocol = proto;
        f.packets = 1;
        f.bytes = 40;
        f.reason = ExportReason.FLUSHED;
        String json = new String(OutputJson.<Integer>flows().serialize(f), StandardCharsets.UTF_8);
        assertThat(json).isEqualTo("{\"type\":\"flow\",\"scope\":7,\"ip_version\":" + (ipv6 ? 6 : 4)
                + ",\"src_addr\":\"" + src + "\",\"dst_addr\":\"" + dst + "\",\"src_port\":" + sp + ",\"dst_port\":"
                + dp + ",\"protocol\":" + proto + ",\"packets\":1,\"bytes\":40,\"first_timestamp\":0,"
                + "\"last_timestamp\":0,\"tcp_flags\":0,\"export_reason\":\"flushed\"}");
        assertThat(f.fiveTuple().toString()).isEqualTo(src + " " + dst + " " + sp + " " + dp + " " + proto);
    }
}
