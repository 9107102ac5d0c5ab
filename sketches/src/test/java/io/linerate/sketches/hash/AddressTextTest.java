package io.linerate.sketches.hash;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** AddressText against the canonical forms of RFC 5952 (§4 and §5), written out as exact strings. */
class AddressTextTest {

    /** Full 8-group input (upper case allowed in the table), expected RFC 5952 text. */
    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
        "2001:0db8:0000:0000:0000:0000:0002:0001 | 2001:db8::2:1",     // §4.2.1 shortest
        "2001:0db8:0000:0001:0001:0001:0001:0001 | 2001:db8:0:1:1:1:1:1", // §4.2.2 one 0 group kept
        "2001:0000:0000:0001:0000:0000:0000:0001 | 2001:0:0:1::1",     // §4.2.3 longest run
        "2001:0db8:0000:0000:0001:0000:0000:0001 | 2001:db8::1:0:0:1", // §4.2.3 first on a tie
        "2001:0DB8:0000:0000:0000:0000:0000:0001 | 2001:db8::1",       // §4.3 lower case
        "0000:0000:0000:0000:0000:0000:0000:0000 | ::",
        "0000:0000:0000:0000:0000:0000:0000:0001 | ::1",
        "0001:0000:0000:0000:0000:0000:0000:0000 | 1::",
        "0001:0000:0000:0000:0000:0000:0000:0001 | 1::1",
        "0000:0000:0001:0000:0000:0000:0000:0000 | 0:0:1::",          // later, longer run wins
        "0000:0000:0000:0001:0000:0000:0000:0000 | 0:0:0:1::",        // 3 then 4: the longer (later) run
        "0000:0000:0000:0000:0001:0000:0000:0000 | ::1:0:0:0",        // 4 vs 3: first
        "0001:0000:0001:0000:0001:0000:0001:0000 | 1:0:1:0:1:0:1:0",  // no run of 2
        "0000:0001:0002:0003:0004:0005:0006:0007 | 0:1:2:3:4:5:6:7",  // leading single 0 kept
        "0001:0002:0003:0004:0005:0006:0007:0000 | 1:2:3:4:5:6:7:0",  // trailing single 0 kept
        "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff | ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
        "8000:0000:0000:0000:0000:0000:0000:8000 | 8000::8000",
        "fe80:0000:0000:0000:0204:61ff:fe9d:f156 | fe80::204:61ff:fe9d:f156",
        "0000:0000:0000:0000:0000:ffff:c000:0201 | ::ffff:192.0.2.1",  // §5 IPv4-mapped
        "0000:0000:0000:0000:0000:ffff:0000:0000 | ::ffff:0.0.0.0",
        "0000:0000:0000:0000:0000:ffff:ffff:ffff | ::ffff:255.255.255.255",
        "0000:0000:0000:0000:0000:ffff:8000:0000 | ::ffff:128.0.0.0",
        "0000:0000:0000:0000:0001:ffff:c000:0201 | ::1:ffff:c000:201", // not mapped
        "0001:0000:0000:0000:0000:ffff:c000:0201 | 1::ffff:c000:201",  // not mapped
        "0000:0000:0000:0000:0000:fffe:c000:0201 | ::fffe:c000:201",
        "0000:0000:0000:0000:0000:0000:ffff:0001 | ::ffff:1",          // not mapped (ffff in group 7)
    })
    void ipv6IsRfc5952(String full, String expected) {
        BigInteger v = new BigInteger(full.replace(":", ""), 16);
        long high = v.shiftRight(64).longValue();
        long low = v.longValue();
        assertThat(AddressText.ipv6(high, low)).isEqualTo(expected);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
        "00000000 | 0.0.0.0",
        "0a000001 | 10.0.0.1",
        "7fffffff | 127.255.255.255",
        "80000000 | 128.0.0.0",
        "c0000201 | 192.0.2.1",
        "ffffffff | 255.255.255.255",
        "fe01ff80 | 254.1.255.128",
    })
    void ipv4IsDottedDecimal(String hex, String expected) {
        assertThat(AddressText.ipv4((int) Long.parseLong(hex, 16))).isEqualTo(expected);
    }
}
