package io.linerate.sketches.hash;

/**
 * Addresses as text without {@link java.net.InetAddress} (whose IPv6 text is not compressed, and which turns an
 * IPv4-mapped IPv6 address into the IPv4 address): IPv4 as a dotted quad, IPv6 in the canonical form of RFC 5952
 * (lowercase hex, no leading zeros, the longest run of two or more zero groups — the first one on a tie — replaced
 * by {@code ::}, IPv4-mapped addresses as {@code ::ffff:a.b.c.d}, §5).
 */
public final class AddressText {

    private AddressText() {
    }

    /** {@code a.b.c.d} of a 32-bit network-order address. */
    public static String ipv4(int address) {
        return (address >>> 24) + "." + ((address >>> 16) & 0xFF) + "." + ((address >>> 8) & 0xFF) + "."
                + (address & 0xFF);
    }

    /** RFC 5952 text of the IPv6 address whose high and low 64 bits (network order) are given. */
    public static String ipv6(long high, long low) {
        if (high == 0 && (low >>> 32) == 0xFFFFL) {
            return "::ffff:" + ipv4((int) low);
        }
        int[] groups = new int[8];
        for (int i = 0; i < 4; i++) {
            groups[i] = (int) (high >>> (48 - 16 * i)) & 0xFFFF;
            groups[4 + i] = (int) (low >>> (48 - 16 * i)) & 0xFFFF;
        }
        int bestStart = -1;
        int bestLength = 1; // a single zero group is not compressed (RFC 5952 §4.2.2)
        for (int i = 0; i < 8; ) {
            if (groups[i] != 0) {
                i++;
                continue;
            }
            int j = i;
            while (j < 8 && groups[j] == 0) {
                j++;
            }
            if (j - i > bestLength) {
                bestStart = i;
                bestLength = j - i;
            }
            i = j;
        }
        StringBuilder sb = new StringBuilder(39);
        for (int i = 0; i < 8; i++) {
            if (i == bestStart) {
                sb.append("::");
                i += bestLength - 1;
                continue;
            }
            if (sb.length() > 0 && sb.charAt(sb.length() - 1) != ':') {
                sb.append(':');
            }
            sb.append(Integer.toHexString(groups[i]));
        }
        return sb.toString();
    }
}
