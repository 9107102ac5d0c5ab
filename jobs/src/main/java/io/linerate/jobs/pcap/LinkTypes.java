package io.linerate.jobs.pcap;

/** The link-layer header types (tcpdump.org LINKTYPE_ values) the reader decodes. */
public final class LinkTypes {

    /** BSD loopback: a 4-byte address family in the writer's byte order (2 = IPv4; 24, 28, 30 = IPv6). */
    public static final int NULL = 0;
    /**
     * Ethernet II, with any number of 802.1Q (0x8100), 802.1ad (0x88A8) or 0x9100 VLAN tags, then IPv4, IPv6, an
     * MPLS label stack (0x8847, 0x8848) or a PPPoE session (0x8864).
     */
    public static final int ETHERNET = 1;
    /** PPP: optional address and control bytes FF 03, then the PPP protocol (0x0021 IPv4, 0x0057 IPv6). */
    public static final int PPP = 9;
    /** PPP in HDLC-like framing (first byte FF, as {@link #PPP}) or Cisco HDLC (first byte 0F or 8F). */
    public static final int PPP_HDLC = 50;
    /** Raw IP, the version nibble tells IPv4 from IPv6. */
    public static final int RAW = 101;
    /** Cisco HDLC: address, control, then an EtherType (decoded as after an Ethernet header). */
    public static final int C_HDLC = 104;
    /** OpenBSD loopback: like {@link #NULL} with the family in network byte order. */
    public static final int LOOP = 108;
    /** Linux "cooked" capture v1: 16-byte header, protocol type at bytes 14–15 (decoded as an EtherType). */
    public static final int LINUX_SLL = 113;
    /** Raw IPv4 only. */
    public static final int IPV4 = 228;
    /** Raw IPv6 only. */
    public static final int IPV6 = 229;
    /** Linux "cooked" capture v2: 20-byte header, protocol type at bytes 0–1 (decoded as an EtherType). */
    public static final int LINUX_SLL2 = 276;

    private LinkTypes() {
    }

    /** Whether the reader decodes this link type. */
    public static boolean isSupported(int linkType) {
        switch (linkType) {
            case NULL: case ETHERNET: case PPP: case PPP_HDLC: case RAW: case C_HDLC: case LOOP: case LINUX_SLL:
            case IPV4: case IPV6: case LINUX_SLL2:
                return true;
            default:
                return false;
        }
    }
}
