package io.linerate.sketches.hash;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * FiveTuple's text, table-driven: IPv6 literals of RFC 4291 §2.2 parse to the expected address and print back in
 * the RFC 5952 form; text that is not an RFC 4291 literal is rejected; values at the sign boundaries (addresses
 * from 128.0.0.0 / 8000::, ports from 32768, protocol 128..255) print and parse back unchanged.
 */
class FiveTupleParseTest {

    private static FiveTuple v6(String srcFull, String dstFull, int sp, int dp, int proto) {
        BigInteger s = new BigInteger(srcFull.replace(":", ""), 16);
        BigInteger d = new BigInteger(dstFull.replace(":", ""), 16);
        return FiveTuple.ipv6(s.shiftRight(64).longValue(), s.longValue(), d.shiftRight(64).longValue(),
                d.longValue(), sp, dp, proto);
    }

    /** Valid RFC 4291 text (as src, dst ::1) -> the address in full -> the RFC 5952 text toString writes. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "2001:db8::1                               | 2001:0db8:0000:0000:0000:0000:0000:0001 | 2001:db8::1",
        "2001:DB8::1                               | 2001:0db8:0000:0000:0000:0000:0000:0001 | 2001:db8::1",
        "2001:0db8:0000:0000:0000:0000:0002:0001   | 2001:0db8:0000:0000:0000:0000:0002:0001 | 2001:db8::2:1",
        "2001:db8:0:0:1:0:0:1                      | 2001:0db8:0000:0000:0001:0000:0000:0001 | 2001:db8::1:0:0:1",
        "2001:db8::1:0:0:1                         | 2001:0db8:0000:0000:0001:0000:0000:0001 | 2001:db8::1:0:0:1",
        "2001:db8:0::1:0:0:1                       | 2001:0db8:0000:0000:0001:0000:0000:0001 | 2001:db8::1:0:0:1",
        "2001:db8::0:1:0:0:1                       | 2001:0db8:0000:0000:0001:0000:0000:0001 | 2001:db8::1:0:0:1",
        "2001:db8::                                | 2001:0db8:0000:0000:0000:0000:0000:0000 | 2001:db8::",
        "1:2:3:4:5:6:7::                           | 0001:0002:0003:0004:0005:0006:0007:0000 | 1:2:3:4:5:6:7:0",
        "::2:3:4:5:6:7:8                           | 0000:0002:0003:0004:0005:0006:0007:0008 | 0:2:3:4:5:6:7:8",
        "::                                        | 0000:0000:0000:0000:0000:0000:0000:0000 | ::",
        "::ffff:192.0.2.1                          | 0000:0000:0000:0000:0000:ffff:c000:0201 | ::ffff:192.0.2.1",
        "::FFFF:192.0.2.1                          | 0000:0000:0000:0000:0000:ffff:c000:0201 | ::ffff:192.0.2.1",
        "::ffff:c000:201                           | 0000:0000:0000:0000:0000:ffff:c000:0201 | ::ffff:192.0.2.1",
        "0:0:0:0:0:ffff:255.255.255.255            | 0000:0000:0000:0000:0000:ffff:ffff:ffff | ::ffff:255.255.255.255",
        "::13.1.68.3                               | 0000:0000:0000:0000:0000:0000:0d01:4403 | ::d01:4403",
        "1:2:3:4:5:6:1.2.3.4                       | 0001:0002:0003:0004:0005:0006:0102:0304 | 1:2:3:4:5:6:102:304",
        "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff   | ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff | ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
        "8000::8000                                | 8000:0000:0000:0000:0000:0000:0000:8000 | 8000::8000",
        "::ffff:010.000.000.001                    | 0000:0000:0000:0000:0000:ffff:0a00:0001 | ::ffff:10.0.0.1",
    })
    void validIpv6TextParsesAndPrintsCanonically(String text, String full, String canonical) {
        FiveTuple t = FiveTuple.parse(text + " ::1 1 2 6");
        assertThat(t).isEqualTo(v6(full, "0000:0000:0000:0000:0000:0000:0000:0001", 1, 2, 6));
        assertThat(t.toString()).isEqualTo(canonical + " ::1 1 2 6");
        assertThat(FiveTuple.parse(t.toString())).isEqualTo(t).hasSameHashCodeAs(t);
    }

    /**
     * Not IPv6 literals (RFC 4291 §2.2: each group is one to four hex digits, "::" at most once and standing for
     * at least one group, an embedded IPv4 only as the last 32 bits, no zone id in a plain address).
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {
        "1::2::3",
        "1:2:3:4:5:6:7:8::",
        "::1:2:3:4:5:6:7:8",
        "1:2:3:4:5:6:7:8:9",
        "1:2:3:4:5:6:7",
        ":1:2:3:4:5:6:7:8",
        "1:2:3:4:5:6:7:8:",
        "1:::2",
        "12345::1",
        "01234::1",     // five hex digits, though of a value that fits 16 bits
        "::00001",
        "2001:0db80::1",
        "::ffff:0001.2.3.4",  // a 4-digit octet: rejected as a dotted quad on its own (0001.2.3.4) too
        "1::1.2.3.0004",
        "fe80::1%eth0",
        "::ffff:1.2.3",
        "::ffff:256.1.1.1",
        "1:2:3:4:5:6:7:1.2.3.4",
        "::1.2.3.4:1",
        "[::1]",
    })
    void invalidIpv6TextIsRejected(String text) {
        assertThatThrownBy(() -> FiveTuple.parse(text + " ::1 1 2 6"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("src ");
    }

    /** Sign boundaries of addresses, ports and protocol survive toString and parse, both versions. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "128.0.0.0 255.255.255.255 32768 65535 128",
        "127.255.255.255 128.0.0.1 32767 32768 255",
        "0.0.0.0 0.0.0.0 0 0 0",
        "8000:: ffff::ffff 32768 65535 255",
        "::ffff:128.0.0.0 ::ffff:255.255.255.255 65535 32768 128",
    })
    void signBoundariesRoundTrip(String text) {
        FiveTuple t = FiveTuple.parse(text);
        assertThat(t.toString()).isEqualTo(text);
        assertThat(FiveTuple.parse(t.toString())).isEqualTo(t).hasSameHashCodeAs(t);
        assertThat(t.srcPort()).isBetween(0, 65535);
        assertThat(t.dstPort()).isBetween(0, 65535);
        assertThat(t.protocol()).isBetween(0, 255);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "10.0.0.1 10.0.0.2 65536 1 6 | srcPort",
        "10.0.0.1 10.0.0.2 -1 1 6    | srcPort",
        "10.0.0.1 10.0.0.2 1 65536 6 | dstPort",
        "10.0.0.1 10.0.0.2 1 -32768 6 | dstPort",
        "10.0.0.1 10.0.0.2 1 2 256   | protocol",
        "10.0.0.1 10.0.0.2 1 2 -1    | protocol",
        "::1 ::2 4294967296 1 6      | srcPort",
        "10.0.0.1 10.0.0.2 +80 1 6   | srcPort",
        "10.0.0.1 10.0.0.2 1 ٤٤٣ 6 | dstPort",
        "10.0.0.1 10.0.0.2 1 2 +6    | protocol",
    })
    void outOfRangeFieldsAreRejected(String text, String field) {
        assertThatThrownBy(() -> FiveTuple.parse(text))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(field + " ");
    }

    /** The IPv4 flow and the IPv6 flow between the IPv4-mapped addresses differ in text, equality and hash. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"192.0.2.1 198.51.100.7 53 53 17", "128.0.0.1 255.255.255.254 65535 32768 6"})
    void ipv4AndMappedIpv6Differ(String v4Text) {
        FiveTuple v4 = FiveTuple.parse(v4Text);
        String[] f = v4Text.split(" ");
        FiveTuple mapped = FiveTuple.parse("::ffff:" + f[0] + " ::ffff:" + f[1] + " " + f[2] + " " + f[3] + " " + f[4]);
        assertThat(mapped.toString()).isEqualTo("::ffff:" + v4Text.replaceFirst(" ", " ::ffff:"));
        assertThat(mapped).isNotEqualTo(v4);
        assertThat(ItemHasher.defaultHasher().hash(mapped)).isNotEqualTo(ItemHasher.defaultHasher().hash(v4));
        assertThat(ItemHasher.defaultHasher().hash(v4)).isEqualTo(ItemHasher.defaultHasher().hashIpv4(
                (int) v4.srcLow(), (int) v4.dstLow(), v4.srcPort(), v4.dstPort(), v4.protocol()));
        assertThat(ItemHasher.defaultHasher().hash(mapped)).isEqualTo(ItemHasher.defaultHasher().hashIpv6(
                0, mapped.srcLow(), 0, mapped.dstLow(), mapped.srcPort(), mapped.dstPort(), mapped.protocol()));
    }
}
