package io.linerate.jobs.heavyhitters;

import io.linerate.jobs.format.Addresses;

/**
 * A 5-tuple item as the heavy-hitters operator reports it — {@code FiveTuple.toString()}, {@code "src dst srcPort
 * dstPort protocol"} with {@link java.net.InetAddress} text: IPv6 uncompressed ({@code 2001:db8:0:0:0:0:0:1}), an
 * IPv4-mapped address as a bare dotted quad — rewritten with {@link Addresses}: IPv6 in RFC 5952 form, and a dotted
 * address next to an IPv6 one as the IPv4-mapped {@code ::ffff:a.b.c.d} it was.
 *
 * <p>Limit: when both addresses of an IPv6 flow are IPv4-mapped, the operator's text is that of the IPv4 flow with
 * the same addresses, and it stays so (the family is not in the text; telling them apart needs the operator to
 * render items with {@link Addresses} itself). Text that is not such a 5-tuple is returned unchanged.
 */
final class FiveTupleText {

  private FiveTupleText() {
  }

  /** The reported 5-tuple with its addresses as {@link Addresses} writes them. */
  static String canonical(String reported) {
    String[] parts = reported.split(" ", -1);
    if (parts.length != 5) {
      return reported;
    }
    boolean ipv6 = parts[0].indexOf(':') >= 0 || parts[1].indexOf(':') >= 0;
    String src = address(parts[0], ipv6);
    String dst = address(parts[1], ipv6);
    if (src == null || dst == null) {
      return reported;
    }
    return src + " " + dst + " " + parts[2] + " " + parts[3] + " " + parts[4];
  }

  /** RFC 5952 or dotted text of one address; null if it is neither InetAddress form. */
  private static String address(String text, boolean ipv6Flow) {
    if (text.indexOf(':') >= 0) {
      long[] bits = ipv6(text);
      return bits == null ? null : Addresses.ipv6(bits[0], bits[1]);
    }
    long v4 = ipv4(text);
    if (v4 < 0) {
      return null;
    }
    return ipv6Flow ? Addresses.ipv6(0, 0xFFFF_0000_0000L | v4) : Addresses.ipv4((int) v4);
  }

  /** The 128 bits of eight colon-separated hex groups (InetAddress's IPv6 text); null otherwise. */
  private static long[] ipv6(String text) {
    String[] groups = text.split(":", -1);
    if (groups.length != 8) {
      return null;
    }
    long[] bits = new long[2];
    for (int i = 0; i < 8; i++) {
      String g = groups[i];
      if (g.isEmpty() || g.length() > 4 || !g.chars().allMatch(c -> Character.digit(c, 16) >= 0)) {
        return null;
      }
      bits[i / 4] = bits[i / 4] << 16 | Integer.parseInt(g, 16);
    }
    return bits;
  }

  /** The 32 bits of a dotted quad as a non-negative long; −1 otherwise. */
  private static long ipv4(String text) {
    String[] octets = text.split("\\.", -1);
    if (octets.length != 4) {
      return -1;
    }
    long v = 0;
    for (String o : octets) {
      if (o.isEmpty() || o.length() > 3 || !o.chars().allMatch(c -> c >= '0' && c <= '9')) {
        return -1;
      }
      int octet = Integer.parseInt(o);
      if (octet > 255) {
        return -1;
      }
      v = v << 8 | octet;
    }
    return v;
  }
}
