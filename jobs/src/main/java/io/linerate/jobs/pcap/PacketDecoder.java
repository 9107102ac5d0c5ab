package io.linerate.jobs.pcap;

import static io.linerate.jobs.pcap.InputBuffer.be16;
import static io.linerate.jobs.pcap.InputBuffer.be32;
import static io.linerate.jobs.pcap.InputBuffer.be64;

/**
 * Decodes one captured frame (link layer, IPv4/IPv6, transport ports and TCP flags) straight from the read buffer
 * and hands the result to the visitor, or counts the frame as skipped with its reason. Never throws on packet
 * contents: every read is bounds-checked against the captured length first.
 */
final class PacketDecoder {

    static final int ICMP = 1;
    static final int TCP = 6;
    static final int UDP = 17;
    static final int ICMPV6 = 58;
    static final int SCTP = 132;
    static final int UDP_LITE = 136;
    /** IPv6 hop-by-hop option type of the Jumbo Payload option (RFC 2675). */
    private static final int JUMBO_PAYLOAD = 0xC2;

    private static final int ETHERTYPE_IPV4 = 0x0800;
    private static final int ETHERTYPE_IPV6 = 0x86DD;
    private static final int ETHERTYPE_MPLS = 0x8847;
    private static final int ETHERTYPE_MPLS_MULTICAST = 0x8848;
    private static final int ETHERTYPE_PPPOE_SESSION = 0x8864;
    private static final int PPP_IPV4 = 0x0021;
    private static final int PPP_IPV6 = 0x0057;

    private final long[] skipped = new long[SkipReason.values().length];
    private long delivered;
    private PacketVisitor visitor;

    void visitor(PacketVisitor v) {
        this.visitor = v;
    }

    long delivered() {
        return delivered;
    }

    long skipped(SkipReason reason) {
        return skipped[reason.ordinal()];
    }

    void skip(SkipReason reason) {
        skipped[reason.ordinal()]++;
    }

    /**
     * Decodes {@code caplen} bytes of {@code b} from {@code off}, a frame of link type {@code linkType} that was
     * {@code originalLength} bytes long on the wire (the record's field, unsigned; used only for an IPv4 header that
     * declares no length).
     */
    void decode(int linkType, byte[] b, int off, int caplen, int originalLength, long ts) {
        int end = off + caplen;
        long wireEnd = off + Math.max(caplen, originalLength & 0xFFFFFFFFL);
        int etherType;
        int p;
        switch (linkType) {
            case LinkTypes.ETHERNET:
                if (caplen < 14) {
                    skip(SkipReason.TRUNCATED);
                    return;
                }
                etherType = be16(b, off + 12);
                p = off + 14;
                break;
            case LinkTypes.LINUX_SLL:
                if (caplen < 16) {
                    skip(SkipReason.TRUNCATED);
                    return;
                }
                etherType = be16(b, off + 14);
                p = off + 16;
                break;
            case LinkTypes.LINUX_SLL2:
                if (caplen < 20) {
                    skip(SkipReason.TRUNCATED);
                    return;
                }
                etherType = be16(b, off);
                p = off + 20;
                break;
            case LinkTypes.PPP_HDLC:
            case LinkTypes.C_HDLC:
                // a PPP_HDLC frame is PPP in HDLC-like framing (address FF) or Cisco HDLC (address 0F or 8F) with
                // an EtherType at bytes 2-3, as C_HDLC (whose address byte is not checked, as tcpdump does not)
                if (linkType == LinkTypes.PPP_HDLC && caplen > 0 && (b[off] & 0x7F) != 0x0F) {
                    if (b[off] == (byte) 0xFF) {
                        ppp(b, off, end, wireEnd, ts);
                    } else {
                        skip(SkipReason.NOT_IP);
                    }
                    return;
                }
                if (caplen < 4) {
                    skip(SkipReason.TRUNCATED);
                    return;
                }
                etherType = be16(b, off + 2);
                p = off + 4;
                break;
            case LinkTypes.PPP:
                ppp(b, off, end, wireEnd, ts);
                return;
            case LinkTypes.RAW:
                if (caplen < 1) {
                    skip(SkipReason.TRUNCATED);
                    return;
                }
                ip(b, off, end, wireEnd, ts, (b[off] >> 4) & 0xF);
                return;
            case LinkTypes.IPV4:
                ip(b, off, end, wireEnd, ts, 4);
                return;
            case LinkTypes.IPV6:
                ip(b, off, end, wireEnd, ts, 6);
                return;
            case LinkTypes.NULL:
            case LinkTypes.LOOP:
                if (caplen < 4) {
                    skip(SkipReason.TRUNCATED);
                    return;
                }
                int family = be32(b, off);
                if (linkType == LinkTypes.NULL && (family & 0xFFFF0000) != 0) {
                    family = Integer.reverseBytes(family); // written in little-endian host order
                }
                if (family == 2) {
                    ip(b, off + 4, end, wireEnd, ts, 4);
                } else if (family == 24 || family == 28 || family == 30) { // AF_INET6 on NetBSD/OpenBSD, FreeBSD, macOS
                    ip(b, off + 4, end, wireEnd, ts, 6);
                } else {
                    skip(SkipReason.NOT_IP);
                }
                return;
            default:
                skip(SkipReason.UNSUPPORTED_LINK_TYPE);
                return;
        }
        while (etherType == 0x8100 || etherType == 0x88A8 || etherType == 0x9100) {
            if (p + 4 > end) {
                skip(SkipReason.TRUNCATED);
                return;
            }
            etherType = be16(b, p + 2);
            p += 4;
        }
        switch (etherType) {
            case ETHERTYPE_IPV4:
                ip(b, p, end, wireEnd, ts, 4);
                return;
            case ETHERTYPE_IPV6:
                ip(b, p, end, wireEnd, ts, 6);
                return;
            case ETHERTYPE_MPLS:
            case ETHERTYPE_MPLS_MULTICAST:
                // label stack entries of 4 bytes, up to the one with the bottom-of-stack bit (bit 8); each step
                // advances, and the captured end stops a stack without a bottom
                do {
                    if (p + 4 > end) {
                        skip(SkipReason.TRUNCATED);
                        return;
                    }
                    p += 4;
                } while ((b[p - 2] & 0x01) == 0);
                if (p >= end) {
                    skip(SkipReason.TRUNCATED);
                    return;
                }
                // no field names the payload: the first nibble does, as in tcpdump (a pseudowire control word
                // starts with 0; an Ethernet pseudowire with a MAC address)
                int version = (b[p] >> 4) & 0xF;
                if (version == 4 || version == 6) {
                    ip(b, p, end, wireEnd, ts, version);
                } else {
                    skip(SkipReason.NOT_IP);
                }
                return;
            case ETHERTYPE_PPPOE_SESSION:
                if (p + 6 > end) {
                    skip(SkipReason.TRUNCATED);
                    return;
                }
                if (b[p] != 0x11 || b[p + 1] != 0) { // version 1, type 1; code 0: session data
                    skip(SkipReason.NOT_IP);
                    return;
                }
                ppp(b, p + 6, end, wireEnd, ts);
                return;
            default:
                skip(SkipReason.NOT_IP);
        }
    }

    /**
     * A PPP frame from its address and control bytes {@code FF 03}, if present (left out when compressed), or from
     * its protocol field: two bytes, or the odd low byte alone when compressed (RFC 1661).
     */
    private void ppp(byte[] b, int p, int end, long wireEnd, long ts) {
        if (p < end && b[p] == (byte) 0xFF) { // no protocol field starts with FF: an address
            p += 2;
        }
        if (p >= end) {
            skip(SkipReason.TRUNCATED);
            return;
        }
        int protocol = b[p] & 0xFF;
        if ((protocol & 1) != 0) {
            p++;
        } else if (p + 2 > end) {
            skip(SkipReason.TRUNCATED);
            return;
        } else {
            protocol = be16(b, p);
            p += 2;
        }
        if (protocol == PPP_IPV4) {
            ip(b, p, end, wireEnd, ts, 4);
        } else if (protocol == PPP_IPV6) {
            ip(b, p, end, wireEnd, ts, 6);
        } else {
            skip(SkipReason.NOT_IP); // LCP, IPCP, authentication, MPLS, ...
        }
    }

    private void ip(byte[] b, int p, int end, long wireEnd, long ts, int expectedVersion) {
        if (expectedVersion == 4) {
            ipv4(b, p, end, wireEnd, ts);
        } else if (expectedVersion == 6) {
            ipv6(b, p, end, wireEnd, ts);
        } else {
            skip(SkipReason.MALFORMED_IP);
        }
    }

    private void ipv4(byte[] b, int p, int end, long wireEnd, long ts) {
        if (end - p < 20) {
            skip(end - p >= 1 && (b[p] >> 4 & 0xF) != 4 ? SkipReason.MALFORMED_IP : SkipReason.TRUNCATED);
            return;
        }
        int vihl = b[p] & 0xFF;
        int ihl = (vihl & 0xF) * 4;
        int totalLength = be16(b, p + 2);
        if (totalLength == 0) {
            // captured before segmentation offload (TSO, or IPv4 "BIG TCP" over 64 KiB), where the header holds no
            // length yet: the rest of the frame on the wire, as tcpdump (4.99.5+, or built with GUESS_TSO) and
            // Wireshark take it; the record's original length, not the snaplen, bounds it
            totalLength = (int) Math.min(wireEnd - p, Integer.MAX_VALUE);
        }
        if ((vihl >> 4) != 4 || ihl < 20 || totalLength < ihl) {
            skip(SkipReason.MALFORMED_IP);
            return;
        }
        if (end - p < ihl) {
            skip(SkipReason.TRUNCATED);
            return;
        }
        int fragmentOffset = be16(b, p + 6) & 0x1FFF;
        int protocol = b[p + 9] & 0xFF;
        int src = be32(b, p + 12);
        int dst = be32(b, p + 16);
        int l4 = p + ihl;
        int srcPort = 0;
        int dstPort = 0;
        int flags = 0;
        if (fragmentOffset == 0) {
            int need = transportBytesNeeded(protocol);
            if (need > 0) {
                if (totalLength - ihl < transportHeaderLength(protocol)) {
                    skip(SkipReason.MALFORMED_IP);
                    return;
                }
                if (end - l4 < need) {
                    skip(SkipReason.TRUNCATED);
                    return;
                }
                if (isIcmp(protocol)) {
                    dstPort = be16(b, l4);
                } else {
                    srcPort = be16(b, l4);
                    dstPort = be16(b, l4 + 2);
                    if (protocol == TCP) {
                        if (!tcpHeaderFits(b, l4, totalLength - ihl)) {
                            skip(SkipReason.MALFORMED_IP);
                            return;
                        }
                        flags = b[l4 + 13] & 0xFF;
                    }
                }
            }
        }
        delivered++;
        visitor.ipv4(ts, src, dst, srcPort, dstPort, protocol, flags, totalLength);
    }

    private void ipv6(byte[] b, int p, int end, long wireEnd, long ts) {
        if (end - p < 40) {
            skip(end - p >= 1 && (b[p] >> 4 & 0xF) != 6 ? SkipReason.MALFORMED_IP : SkipReason.TRUNCATED);
            return;
        }
        if ((b[p] >> 4 & 0xF) != 6) {
            skip(SkipReason.MALFORMED_IP);
            return;
        }
        int payloadLength = be16(b, p + 4);
        int next = b[p + 6] & 0xFF;
        int q = p + 40;
        boolean laterFragment = false;
        long jumbo = payloadLength == 0 && next == 0 ? jumboPayloadLength(b, q, end) : 0;
        // payload length 0 is a jumbogram, whose Jumbo Payload option holds the length (RFC 2675), or a packet
        // captured before segmentation offload, longer on the wire than any payload length can say, whose length on
        // the wire bounds it (as an IPv4 total length of 0); else it is an empty payload, and what follows the header
        // on the wire (Ethernet padding, trailing bytes) is not the packet's. Headers past the declared end are
        // malformed; within it but past the captured end, truncated (by the snaplen).
        long declaredEnd;
        if (jumbo > 0) {
            declaredEnd = p + 40 + jumbo;
        } else if (payloadLength == 0 && wireEnd - p > 40 + 0xFFFF) {
            declaredEnd = wireEnd;
        } else {
            declaredEnd = p + 40 + payloadLength;
        }
        chain:
        while (true) {
            int headerLength;
            switch (next) {
                case 0:   // hop-by-hop options
                case 43:  // routing
                case 60:  // destination options
                case 51:  // authentication header (length in 4-byte units, minus 2)
                    // every extension header is 8 bytes or more (a multiple of 8, RFC 8200 section 4): a payload
                    // too short for that is malformed, whether or not the length byte was captured
                    if (q + 8 > declaredEnd) {
                        skip(SkipReason.MALFORMED_IP);
                        return;
                    }
                    if (q + 2 > end) {
                        skip(SkipReason.TRUNCATED);
                        return;
                    }
                    headerLength = next == 51 ? ((b[q + 1] & 0xFF) + 2) * 4 : ((b[q + 1] & 0xFF) + 1) * 8;
                    next = b[q] & 0xFF;
                    q += headerLength;
                    if (q > declaredEnd) {
                        skip(SkipReason.MALFORMED_IP);
                        return;
                    }
                    break;
                case 44:  // fragment
                    if (q + 8 > declaredEnd) {
                        skip(SkipReason.MALFORMED_IP);
                        return;
                    }
                    if (q + 8 > end) {
                        skip(SkipReason.TRUNCATED);
                        return;
                    }
                    next = b[q] & 0xFF;
                    laterFragment = (be16(b, q + 2) >> 3) != 0;
                    q += 8;
                    if (laterFragment) {
                        break chain;
                    }
                    break;
                default:
                    break chain;
            }
        }
        int srcPort = 0;
        int dstPort = 0;
        int flags = 0;
        if (!laterFragment) {
            int need = transportBytesNeeded(next);
            if (need > 0) {
                if (q + transportHeaderLength(next) > declaredEnd) {
                    skip(SkipReason.MALFORMED_IP);
                    return;
                }
                if (q + need > end) {
                    skip(SkipReason.TRUNCATED);
                    return;
                }
                if (isIcmp(next)) {
                    dstPort = be16(b, q);
                } else {
                    srcPort = be16(b, q);
                    dstPort = be16(b, q + 2);
                    if (next == TCP) {
                        if (!tcpHeaderFits(b, q, declaredEnd - q)) {
                            skip(SkipReason.MALFORMED_IP);
                            return;
                        }
                        flags = b[q + 13] & 0xFF;
                    }
                }
            }
        }
        long ipLength = declaredEnd - p;
        delivered++;
        visitor.ipv6(ts, be64(b, p + 8), be64(b, p + 16), be64(b, p + 24), be64(b, p + 32),
                srcPort, dstPort, next, flags, (int) Math.min(ipLength, Integer.MAX_VALUE));
    }

    /**
     * ICMP or ICMPv6, in either IP version: type and code (the 2 bytes {@link #transportBytesNeeded} asks for) give
     * the destination port. (ICMP in IPv6 and ICMPv6 in IPv4 are unusual, but reading them as ports would read 2 bytes
     * past what was checked.)
     */
    private static boolean isIcmp(int protocol) {
        return protocol == ICMP || protocol == ICMPV6;
    }

    /**
     * The Jumbo Payload option (RFC 2675: type 0xC2, 4 bytes of length, more than 65,535) of the hop-by-hop header
     * at {@code q}, or 0 when the captured part of the header holds none. Pad1 and PadN are skipped, other options
     * too (by their length).
     */
    private static long jumboPayloadLength(byte[] b, int q, int end) {
        if (q + 2 > end) {
            return 0;
        }
        int headerEnd = Math.min(end, q + ((b[q + 1] & 0xFF) + 1) * 8);
        int o = q + 2;
        while (o < headerEnd) {
            int type = b[o] & 0xFF;
            if (type == 0) { // Pad1
                o++;
                continue;
            }
            if (o + 2 > headerEnd) {
                return 0;
            }
            int length = b[o + 1] & 0xFF;
            if (type == JUMBO_PAYLOAD && length == 4 && o + 6 <= headerEnd) {
                long value = be32(b, o + 2) & 0xFFFF_FFFFL;
                return value > 0xFFFF ? value : 0; // a jumbo length of 65,535 or less is invalid: not used
            }
            o += 2 + length;
        }
        return 0;
    }

    /**
     * Whether the TCP data offset (byte 12, within the 14 bytes read for the flags: the header's length in 32-bit
     * words, RFC 9293 section 3.1) gives a header of at least its fixed 20 bytes that ends within the segment, the
     * {@code segmentLength} bytes the IP header declares after the IP and extension headers. tcpdump prints the
     * two cases as "bad hdr length N - too short" and "- too long".
     */
    private static boolean tcpHeaderFits(byte[] b, int tcp, long segmentLength) {
        int headerLength = (b[tcp + 12] >> 4 & 0xF) * 4;
        return headerLength >= 20 && headerLength <= segmentLength;
    }

    /**
     * The shortest header the transport's RFC allows, which the IP packet's declared length must hold: TCP 20 (data
     * offset 5, RFC 9293), UDP and UDP-Lite 8 (RFC 768, RFC 3828), SCTP's common header 12 (RFC 9260), ICMP 8 (type,
     * code, checksum and the 4 bytes every message has, RFC 792), ICMPv6 4 (type, code, checksum, RFC 4443); 0 for
     * the protocols whose header is not read.
     */
    private static int transportHeaderLength(int protocol) {
        switch (protocol) {
            case TCP:
                return 20;
            case UDP:
            case UDP_LITE:
            case ICMP:
                return 8;
            case SCTP:
                return 12;
            case ICMPV6:
                return 4;
            default:
                return 0;
        }
    }

    /**
     * Bytes of the transport header needed for ports (and TCP flags, ICMP type/code), which the capture must hold;
     * 0 = none read.
     */
    private static int transportBytesNeeded(int protocol) {
        switch (protocol) {
            case TCP:
                return 14;
            case UDP:
            case SCTP:
            case UDP_LITE:
                return 4;
            case ICMP:
            case ICMPV6:
                return 2;
            default:
                return 0;
        }
    }
}
