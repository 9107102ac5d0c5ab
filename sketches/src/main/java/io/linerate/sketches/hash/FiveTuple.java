package io.linerate.sketches.hash;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.regex.Pattern;

/**
 * An IP flow key: source and destination address (IPv4 or IPv6), ports and protocol.
 *
 * <p>Addresses are held as two longs each (network byte order; an IPv4 address occupies the low 32
 * bits of {@code low}), so the hot path ({@link ItemHasher#hashIpv4}/{@link ItemHasher#hashIpv6}) can
 * hash packets without creating this object at all. Equality and hashing are by value.
 */
public final class FiveTuple implements java.io.Serializable {

    private static final long serialVersionUID = 1L;

    private static final Pattern DOTTED_QUAD = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");
    private static final Pattern DECIMAL = Pattern.compile("-?[0-9]{1,10}");
    private static final Pattern HEX_RUN_OF_FIVE = Pattern.compile("[0-9a-fA-F]{5}");

    private final boolean ipv6;
    private final long srcHigh;
    private final long srcLow;
    private final long dstHigh;
    private final long dstLow;
    private final int srcPort;
    private final int dstPort;
    private final int protocol;

    private FiveTuple(boolean ipv6, long srcHigh, long srcLow, long dstHigh, long dstLow,
                      int srcPort, int dstPort, int protocol) {
        checkRange("srcPort", srcPort, 0xFFFF);
        checkRange("dstPort", dstPort, 0xFFFF);
        checkRange("protocol", protocol, 0xFF);
        this.ipv6 = ipv6;
        this.srcHigh = srcHigh;
        this.srcLow = srcLow;
        this.dstHigh = dstHigh;
        this.dstLow = dstLow;
        this.srcPort = srcPort;
        this.dstPort = dstPort;
        this.protocol = protocol;
    }

    /** An IPv4 5-tuple; addresses as 32-bit values in network order (10.0.0.1 = 0x0A000001). */
    public static FiveTuple ipv4(int srcAddress, int dstAddress, int srcPort, int dstPort, int protocol) {
        return new FiveTuple(false, 0, srcAddress & 0xFFFF_FFFFL, 0, dstAddress & 0xFFFF_FFFFL,
                srcPort, dstPort, protocol);
    }

    /** An IPv6 5-tuple; each address as its high and low 64 bits in network order. */
    public static FiveTuple ipv6(long srcHigh, long srcLow, long dstHigh, long dstLow,
                                 int srcPort, int dstPort, int protocol) {
        return new FiveTuple(true, srcHigh, srcLow, dstHigh, dstLow, srcPort, dstPort, protocol);
    }

    /** A 5-tuple from addresses of the same family (4 or 16 bytes each). */
    public static FiveTuple of(InetAddress src, InetAddress dst, int srcPort, int dstPort, int protocol) {
        return ofBytes(src.getAddress(), dst.getAddress(), srcPort, dstPort, protocol);
    }

    private static FiveTuple ofBytes(byte[] s, byte[] d, int srcPort, int dstPort, int protocol) {
        if (s.length != d.length) {
            throw new IllegalArgumentException("src and dst must be the same IP version: src has "
                    + s.length + " bytes, dst has " + d.length);
        }
        if (s.length == 4) {
            return ipv4((int) bigEndian(s, 0, 4), (int) bigEndian(d, 0, 4), srcPort, dstPort, protocol);
        }
        return ipv6(bigEndian(s, 0, 8), bigEndian(s, 8, 8), bigEndian(d, 0, 8), bigEndian(d, 8, 8),
                srcPort, dstPort, protocol);
    }

    /**
     * Parses {@code "src dst srcPort dstPort protocol"} with literal IP addresses (no DNS lookups): both dotted
     * quads (an IPv4 flow) or both IPv6 text, where {@code ::ffff:a.b.c.d} stays an IPv6 (IPv4-mapped) address.
     */
    public static FiveTuple parse(String text) {
        String[] parts = text.trim().split("\\s+");
        if (parts.length != 5) {
            throw new IllegalArgumentException("5-tuple needs 5 fields 'src dst srcPort dstPort protocol', got "
                    + parts.length + ": '" + text + "'");
        }
        return ofBytes(literal("src", parts[0]), literal("dst", parts[1]),
                integer("srcPort", parts[2]), integer("dstPort", parts[3]), integer("protocol", parts[4]));
    }

    /**
     * Ports, protocol and IP version packed into one long, as hashed: source port in bits 32–47,
     * destination port in bits 16–31, protocol in bits 8–15, and 4 or 6 in bits 0–7 (never 0, so a
     * zeroed key word can mark an empty slot). Bits 48–63 are 0.
     */
    public static long meta(boolean ipv6, int srcPort, int dstPort, int protocol) {
        return ((long) (srcPort & 0xFFFF) << 32) | ((long) (dstPort & 0xFFFF) << 16)
                | ((protocol & 0xFF) << 8) | (ipv6 ? 6 : 4);
    }

    public boolean isIpv6() { return ipv6; }
    public long srcHigh() { return srcHigh; }
    public long srcLow() { return srcLow; }
    public long dstHigh() { return dstHigh; }
    public long dstLow() { return dstLow; }
    public int srcPort() { return srcPort; }
    public int dstPort() { return dstPort; }
    public int protocol() { return protocol; }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof FiveTuple)) {
            return false;
        }
        FiveTuple t = (FiveTuple) o;
        return ipv6 == t.ipv6 && srcHigh == t.srcHigh && srcLow == t.srcLow && dstHigh == t.dstHigh
                && dstLow == t.dstLow && srcPort == t.srcPort && dstPort == t.dstPort && protocol == t.protocol;
    }

    @Override
    public int hashCode() {
        long h = srcHigh * 31 + srcLow;
        h = h * 31 + dstHigh;
        h = h * 31 + dstLow;
        h = h * 31 + meta(ipv6, srcPort, dstPort, protocol);
        return Long.hashCode(h);
    }

    /**
     * {@code "src dst srcPort dstPort protocol"}, addresses as {@link AddressText} writes them: IPv4 dotted, IPv6 in
     * RFC 5952 form with an IPv4-mapped address as {@code ::ffff:a.b.c.d}, so an IPv6 flow never reads as an IPv4
     * one. {@link #parse} reads it back into an equal tuple.
     */
    @Override
    public String toString() {
        return address(srcHigh, srcLow) + " " + address(dstHigh, dstLow) + " " + srcPort + " " + dstPort
                + " " + protocol;
    }

    /** IPv4 dotted, IPv6 RFC 5952: an IPv6 flow's IPv4-mapped address stays {@code ::ffff:a.b.c.d}. */
    private String address(long high, long low) {
        return ipv6 ? AddressText.ipv6(high, low) : AddressText.ipv4((int) low);
    }

    private static long bigEndian(byte[] b, int from, int length) {
        long v = 0;
        for (int i = from; i < from + length; i++) {
            v = (v << 8) | (b[i] & 0xFF);
        }
        return v;
    }

    private static byte[] literal(String field, String text) {
        boolean dottedQuad = DOTTED_QUAD.matcher(text).matches();
        // InetAddress.getByName parses a string as a literal (and never resolves it) only if it starts with a
        // hex digit or ':'; anything else it sends to the name service, and so does an invalid dotted quad
        // such as 10.0.0.256. Dotted quads are therefore parsed here, and IPv6 text must start as a literal.
        // only ASCII hex digits, ':' and '.' (an embedded IPv4): no zone id ("%eth0", which would depend on this
        // machine's interfaces), and no non-ASCII digit, which InetAddress would send to the name service
        boolean ipv6 = text.indexOf(':') >= 0 && text.chars().allMatch(c -> c == ':' || c == '.'
                || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))
                && text.charAt(0) != '.'; // ".::1" is made of those characters but would go to the name service
        if (!dottedQuad && !ipv6) {
            throw new IllegalArgumentException(field + " must be a literal IPv4 or IPv6 address, got '" + text + "'");
        }
        try {
            if (dottedQuad) {
                String[] octets = text.split("\\.");
                byte[] address = new byte[4];
                for (int i = 0; i < 4; i++) {
                    int v = Integer.parseInt(octets[i]);
                    if (v > 255) {
                        throw new IllegalArgumentException(field + " is not a valid IP address: '" + text
                                + "' (octet " + v + " > 255)");
                    }
                    address[i] = (byte) v;
                }
                return address;
            }
            // RFC 4291 §2.2: a group is one to four hex digits, an embedded IPv4 address a dotted quad as above.
            // InetAddress checks only the values: it would read 01234::1 as 1234::1, 2001:0db80::1 as
            // 2001:db80::1 and ::ffff:0001.2.3.4 as ::ffff:1.2.3.4 (while 0001.2.3.4 alone is rejected here)
            String tail = text.substring(text.lastIndexOf(':') + 1);
            if (HEX_RUN_OF_FIVE.matcher(text).find()
                    || (tail.indexOf('.') >= 0 && !DOTTED_QUAD.matcher(tail).matches())) {
                throw new IllegalArgumentException(field + " is not a valid IP address: '" + text
                        + "' (IPv6 groups have 1 to 4 hex digits, an embedded IPv4 address 4 octets of 1 to 3 digits)");
            }
            InetAddress a = InetAddress.getByName(text); // starts with a hex digit or ':': a literal, no lookup
            if (a.getAddress().length == 4) {
                // InetAddress turns an IPv4-mapped IPv6 literal (::ffff:a.b.c.d) into the IPv4 address; the text
                // was IPv6, and so is the address (toString writes an IPv6 flow's mapped addresses that way)
                byte[] mapped = new byte[16];
                mapped[10] = (byte) 0xFF;
                mapped[11] = (byte) 0xFF;
                System.arraycopy(a.getAddress(), 0, mapped, 12, 4);
                return mapped; // not through InetAddress.getByAddress, which would make it IPv4 again
            }
            return a.getAddress();
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(field + " is not a valid IP address: '" + text + "'", e);
        }
    }

    private static int integer(String field, String text) {
        // ASCII digits only, as in the addresses: Integer.parseInt would also take "+80" and other scripts' digits
        if (!DECIMAL.matcher(text).matches()) {
            throw new IllegalArgumentException(field + " must be an integer, got '" + text + "'");
        }
        try {
            return Integer.parseInt(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(field + " must be an integer, got '" + text + "'", e);
        }
    }

    private static void checkRange(String field, int value, int max) {
        if (value < 0 || value > max) {
            throw new IllegalArgumentException(field + " must be in [0, " + max + "], got " + value);
        }
    }
}
