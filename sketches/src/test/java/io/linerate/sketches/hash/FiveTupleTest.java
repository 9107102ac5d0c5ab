package io.linerate.sketches.hash;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class FiveTupleTest {

    @Test
    void ipv4FieldsRoundTrip() throws Exception {
        FiveTuple t = FiveTuple.ipv4(0x0A000001, 0xC0A80102, 443, 51234, 6);
        assertThat(t.isIpv6()).isFalse();
        assertThat(t.srcLow()).isEqualTo(0x0A000001L);
        assertThat(t.dstLow()).isEqualTo(0xC0A80102L);
        assertThat(t.srcHigh()).isZero();
        assertThat(t.srcPort()).isEqualTo(443);
        assertThat(t.dstPort()).isEqualTo(51234);
        assertThat(t.protocol()).isEqualTo(6);
        assertThat(t.toString()).isEqualTo("10.0.0.1 192.168.1.2 443 51234 6");
        assertThat(FiveTuple.parse(t.toString())).isEqualTo(t).hasSameHashCodeAs(t);
        assertThat(FiveTuple.of(InetAddress.getByName("10.0.0.1"), InetAddress.getByName("192.168.1.2"), 443, 51234, 6))
                .isEqualTo(t);
    }

    @Test
    void ipv6FieldsRoundTrip() throws Exception {
        FiveTuple t = FiveTuple.parse("  2001:db8::1   fe80::abcd:1  0 65535 17 ");
        assertThat(t.isIpv6()).isTrue();
        assertThat(t.srcHigh()).isEqualTo(0x20010DB800000000L);
        assertThat(t.srcLow()).isEqualTo(1L);
        assertThat(t.dstHigh()).isEqualTo(0xFE80000000000000L);
        assertThat(t.dstLow()).isEqualTo(0xABCD0001L);
        assertThat(t.srcPort()).isZero();
        assertThat(t.dstPort()).isEqualTo(65535);
        assertThat(t.protocol()).isEqualTo(17);
        assertThat(FiveTuple.parse(t.toString())).isEqualTo(t);
        assertThat(t).isEqualTo(FiveTuple.ipv6(0x20010DB800000000L, 1, 0xFE80000000000000L, 0xABCD0001L, 0, 65535, 17));
        assertThat(t).isNotEqualTo(FiveTuple.ipv6(0x20010DB800000000L, 1, 0xFE80000000000000L, 0xABCD0001L, 0, 65535, 6));
    }

    /**
     * The text is RFC 5952 (what reports show) and keeps the IP version: an IPv6 flow between IPv4-mapped addresses
     * is written {@code ::ffff:a.b.c.d} and parses back to itself, not to the IPv4 flow between the same addresses
     * (InetAddress alone would turn both into that IPv4 flow).
     */
    @Test
    void textIsRfc5952AndKeepsTheIpVersion() {
        FiveTuple v6 = FiveTuple.ipv6(0x20010DB800000000L, 1, 0x20010DB800000000L, 0x0001000000000001L, 1024, 443, 6);
        assertThat(v6.toString()).isEqualTo("2001:db8::1 2001:db8::1:0:0:1 1024 443 6");
        FiveTuple mapped = FiveTuple.ipv6(0, 0x0000FFFF0A000001L, 0, 0x0000FFFFC0A80001L, 1025, 443, 6);
        FiveTuple v4 = FiveTuple.ipv4(0x0A000001, 0xC0A80001, 1025, 443, 6);
        assertThat(mapped.toString()).isEqualTo("::ffff:10.0.0.1 ::ffff:192.168.0.1 1025 443 6");
        assertThat(v4.toString()).isEqualTo("10.0.0.1 192.168.0.1 1025 443 6");
        assertThat(FiveTuple.parse(mapped.toString())).isEqualTo(mapped).isNotEqualTo(v4);
        assertThat(FiveTuple.parse(v4.toString())).isEqualTo(v4);
        FiveTuple widest = FiveTuple.ipv6(-1, -1, -1, -1, 65535, 65535, 255);
        assertThat(widest.toString()).hasSize(95);
        assertThat(FiveTuple.parse(widest.toString())).isEqualTo(widest);
        assertThatThrownBy(() -> FiveTuple.parse("10.0.0.1 ::ffff:192.168.0.1 1 2 6"))
                .hasMessageContaining("same IP version");
    }

    @Test
    void extremeValidValuesAreAccepted() {
        FiveTuple t = FiveTuple.ipv4(-1, 0, 65535, 0, 255);
        assertThat(t.toString()).isEqualTo("255.255.255.255 0.0.0.0 65535 0 255");
        assertThat(FiveTuple.parse("255.255.255.255 0.0.0.0 65535 0 255")).isEqualTo(t);
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource({"srcPort, -1", "srcPort, 65536", "dstPort, -1", "dstPort, 70000", "protocol, -1", "protocol, 256"})
    void outOfRangeFieldsAreRejectedByName(String field, int value) {
        int sp = field.equals("srcPort") ? value : 1;
        int dp = field.equals("dstPort") ? value : 2;
        int pr = field.equals("protocol") ? value : 6;
        String limit = field.equals("protocol") ? "255" : "65535";
        assertThatThrownBy(() -> FiveTuple.ipv4(1, 2, sp, dp, pr))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(field).hasMessageContaining(limit).hasMessageContaining(Integer.toString(value));
        assertThatThrownBy(() -> FiveTuple.ipv6(1, 2, 3, 4, sp, dp, pr))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(field);
        assertThatThrownBy(() -> FiveTuple.parse("10.0.0.1 10.0.0.2 " + sp + " " + dp + " " + pr))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(field);
    }

    @Test
    void mixedIpVersionsAreRejected() throws Exception {
        assertThatThrownBy(() -> FiveTuple.of(InetAddress.getByName("10.0.0.1"), InetAddress.getByName("::1"), 1, 2, 6))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("same IP version").hasMessageContaining("src has 4 bytes, dst has 16");
        assertThatThrownBy(() -> FiveTuple.parse("2001:db8::1 10.0.0.1 1 2 6"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("same IP version");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "10.0.0.1", "10.0.0.1 10.0.0.2 1 2", "10.0.0.1 10.0.0.2 1 2 6 7"})
    void wrongFieldCountIsRejected(String text) {
        assertThatThrownBy(() -> FiveTuple.parse(text))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("5 fields");
    }

    /** Each malformed field is named in the message; none of these may trigger a DNS lookup. */
    @ParameterizedTest(name = "{1} in ''{0}''")
    @CsvSource(delimiter = '|', value = {
        "example.com 10.0.0.2 1 2 6 | src",
        "10.0.0.1 localhost 1 2 6 | dst",
        "10.0.0.256 10.0.0.2 1 2 6 | src",
        "10.0.0.1 300.1.1.1 1 2 6 | dst",
        "10.0.0 10.0.0.2 1 2 6 | src",
        "1::2::3 ::1 1 2 6 | src",
        "::1 gg::1 1 2 6 | dst",
        "::1 ::12345 1 2 6 | dst",
        "10.0.0.1 10.0.0.2 http 2 6 | srcPort",
        "10.0.0.1 10.0.0.2 1 0x50 6 | dstPort",
        "10.0.0.1 10.0.0.2 1 2 tcp | protocol",
        "10.0.0.1 10.0.0.2 1 2 99999999999 | protocol",
    })
    void parseErrorsNameTheField(String text, String field) {
        assertThatThrownBy(() -> FiveTuple.parse(text))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(field + " ");
    }

    /**
     * Text that is not a valid literal is rejected by the parser itself. Before, 10.0.0.256 and gg::1 were handed
     * to InetAddress.getByName, which sends them to the name service (a DNS query, failing only afterwards with
     * "Name or service not known" as the cause).
     */
    @Test
    void invalidLiteralsAreRejectedWithoutANameLookup() {
        assertThatThrownBy(() -> FiveTuple.parse("10.0.0.256 10.0.0.2 1 2 6"))
                .isInstanceOf(IllegalArgumentException.class).hasNoCause()
                .hasMessageContaining("src").hasMessageContaining("octet 256 > 255");
        assertThatThrownBy(() -> FiveTuple.parse("::1 gg::1 1 2 6"))
                .isInstanceOf(IllegalArgumentException.class).hasNoCause()
                .hasMessageContaining("dst must be a literal");
        assertThatThrownBy(() -> FiveTuple.parse("10.0.0.1 x:1 1 2 6"))
                .isInstanceOf(IllegalArgumentException.class).hasNoCause();
        // a zone id would be dropped, or looked up among this machine's interfaces; a non-ASCII digit would be
        // sent to the name service
        // (and text of the literal's characters that starts with '.', which InetAddress would look up too)
        for (String bad : new String[] {"fe80::1%1", "fe80::1%eth0", "\u0661::1", ".::1", ".:", "..:1"}) {
            assertThatThrownBy(() -> FiveTuple.parse(bad + " ::1 1 2 6")).as(bad)
                    .isInstanceOf(IllegalArgumentException.class).hasNoCause()
                    .hasMessageContaining("src must be a literal");
        }
        // valid forms still parse: leading zeros in a dotted quad, compressed and full IPv6
        assertThat(FiveTuple.parse("010.000.000.001 10.0.0.2 1 2 6"))
                .isEqualTo(FiveTuple.ipv4(0x0A000001, 0x0A000002, 1, 2, 6));
        assertThat(FiveTuple.parse("2001:0db8:0000:0000:0000:0000:0000:0001 ::1 1 2 6"))
                .isEqualTo(FiveTuple.ipv6(0x20010DB800000000L, 1, 0, 1, 1, 2, 6));
    }
}
