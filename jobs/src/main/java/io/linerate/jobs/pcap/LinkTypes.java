package io.linerate.jobs.pcap;

/** The link-layer header types (tcpdump.org LINKTYPE_ values) the reader decodes. */
public final class LinkTypes {

    /** BSD loopback: a 4-byte address family in the writer's byte order (2 = IPv4; 24, 28, 30 = IPv6). */
    public static final int NULL = 0;
    /** Ethernet II, with any number of 802.1Q (0x8100), 802.1ad (0x88A8) or 0x9100 VLAN tags. */
    public static final int ETHERNET = 1;
    /** Raw IP, the version nibble tells IPv4 from IPv6. */
    public static final int RAW = 101;
    /** OpenBSD loopback: like {@link #NULL} with the family in network byte order. */
    public static final int LOOP = 108;
    /** Linux "cooked" capture v1: 16-byte header, protocol type at bytes 14–15. */
    public static final int LINUX_SLL = 113;
    /** Raw IPv4 only. */
    public static final int IPV4 = 228;
    /** Raw IPv6 only. */
    public static final int IPV6 = 229;
    /** Linux "cooked" capture v2: 20-byte header, protocol type at bytes 0–1. */
    public static final int LINUX_SLL2 = 276;

    private LinkTypes() {
    }

    /** Whether the reader decodes this link type. */
    public static boolean isSupported(int linkType) {
        switch (linkType) {
            case NULL: case ETHERNET: case RAW: case LOOP: case LINUX_SLL: case IPV4: case IPV6: case LINUX_SLL2:
                return true;
            default:
                return false;
        }
    }
}
