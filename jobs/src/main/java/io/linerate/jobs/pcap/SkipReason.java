package io.linerate.jobs.pcap;

/** Why a packet record of a well-formed capture was not delivered to the {@link PacketVisitor}. */
public enum SkipReason {
    /**
     * The frame carries no IPv4 or IPv6 packet (ARP, LLDP, 802.3 LLC frames, other address families, PPPoE
     * discovery, PPP control protocols, MPLS payloads that do not start with an IP version 4 or 6).
     */
    NOT_IP,
    /** The capture kept too few bytes (snaplen) to read the link, IP or transport header fields needed. */
    TRUNCATED,
    /** The interface's link type is not one the reader decodes (see {@link LinkTypes}). */
    UNSUPPORTED_LINK_TYPE,
    /** The IP or transport header contradicts itself (IP version, header length, total length too small). */
    MALFORMED_IP,
    /** A pcapng Packet Block (type 2, obsolete since 2011): counted, not decoded. */
    OBSOLETE_PACKET_BLOCK,
    /**
     * A pcapng timestamp (units × the interface's resolution + its if_tsoffset) beyond what 64-bit nanoseconds since
     * 1970 hold (past the year 2262).
     */
    TIMESTAMP_OVERFLOW
}
