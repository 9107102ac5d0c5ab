package io.linerate.jobs.format;

import io.linerate.sketches.hash.AddressText;

/**
 * Addresses as text: the strings of {@link AddressText} (IPv4 dotted, IPv6 RFC 5952, IPv4-mapped as
 * {@code ::ffff:a.b.c.d}), and the dotted quad written into a byte buffer without allocating, for the JSON writers.
 */
public final class Addresses {

    private Addresses() {
    }

    /** {@code a.b.c.d} of a 32-bit network-order address. */
    public static String ipv4(int address) {
        return AddressText.ipv4(address);
    }

    /** The longest dotted quad, {@code 255.255.255.255}: 15 characters. */
    public static final int IPV4_MAX_TEXT = 15;

    /**
     * Writes {@code a.b.c.d} of a 32-bit network-order address as ASCII into {@code out} from index {@code at}, which
     * must leave room for {@link #IPV4_MAX_TEXT} bytes, and returns the index after it: the text of {@link #ipv4(int)}
     * without allocating.
     */
    public static int ipv4(byte[] out, int at, int address) {
        int n = octet(out, at, address >>> 24);
        out[n++] = '.';
        n = octet(out, n, (address >>> 16) & 0xFF);
        out[n++] = '.';
        n = octet(out, n, (address >>> 8) & 0xFF);
        out[n++] = '.';
        return octet(out, n, address & 0xFF);
    }

    private static int octet(byte[] out, int at, int v) {
        if (v >= 100) {
            out[at++] = (byte) ('0' + v / 100);
            v %= 100;
            out[at++] = (byte) ('0' + v / 10);
        } else if (v >= 10) {
            out[at++] = (byte) ('0' + v / 10);
        }
        out[at++] = (byte) ('0' + v % 10);
        return at;
    }

    /** RFC 5952 text of the IPv6 address whose high and low 64 bits (network order) are given. */
    public static String ipv6(long high, long low) {
        return AddressText.ipv6(high, low);
    }
}
