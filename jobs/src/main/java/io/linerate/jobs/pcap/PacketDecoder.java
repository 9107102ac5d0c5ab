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

    private static final int ETHERTYPE_IPV4 = 0x0800;
    private static final int ETHERTYPE_IPV6 = 0x86DD;

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

    /** Decodes {@code caplen} bytes of {@code b} from {@code off}, a frame of link type {@code linkType}. */
    void decode(int linkType, byte[] b, int off, int caplen, long ts) {
        int end = off + caplen;
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
            case LinkTypes.RAW:
                if (caplen < 1) {
                    skip(SkipReason.TRUNCATED);
                    return;
                }
                ip(b, off, end, ts, (b[off] >> 4) & 0xF);
                return;
            case LinkTypes.IPV4:
                ip(b, off, end, ts, 4);
                return;
            case LinkTypes.IPV6:
                ip(b, off, end, ts, 6);
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
                    ip(b, off + 4, end, ts, 4);
                } else if (family == 24 || family == 28 || family == 30) { // AF_INET6 on NetBSD/OpenBSD, FreeBSD, macOS
                    ip(b, off + 4, end, ts, 6);
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
        if (etherType == ETHERTYPE_IPV4) {
            ip(b, p, end, ts, 4);
        } else if (etherType == ETHERTYPE_IPV6) {
            ip(b, p, end, ts, 6);
        } else {
            skip(SkipReason.NOT_IP);
        }
    }

    private void ip(byte[] b, int p, int end, long ts, int expectedVersion) {
        if (expectedVersion == 4) {
            ipv4(b, p, end, ts);
        } else if (expectedVersion == 6) {
            ipv6(b, p, end, ts);
        } else {
            skip(SkipReason.MALFORMED_IP);
        }
    }

    private void ipv4(byte[] b, int p, int end, long ts) {
        if (end - p < 20) {
            skip(end - p >= 1 && (b[p] >> 4 & 0xF) != 4 ? SkipReason.MALFORMED_IP : SkipReason.TRUNCATED);
            return;
        }
        int vihl = b[p] & 0xFF;
        int ihl = (vihl & 0xF) * 4;
        int totalLength = be16(b, p + 2);
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
                if (totalLength - ihl < need) {
                    skip(SkipReason.MALFORMED_IP);
                    return;
                }
                if (end - l4 < need) {
                    skip(SkipReason.TRUNCATED);
                    return;
                }
                if (protocol == ICMP) {
                    dstPort = be16(b, l4);
                } else {
                    srcPort = be16(b, l4);
                    dstPort = be16(b, l4 + 2);
                    if (protocol == TCP) {
                        flags = b[l4 + 13] & 0xFF;
                    }
                }
            }
        }
        delivered++;
        visitor.ipv4(ts, src, dst, srcPort, dstPort, protocol, flags, totalLength);
    }

    private void ipv6(byte[] b, int p, int end, long ts) {
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
        // payload length 0 is a jumbogram (or nothing): then only the captured bytes bound the headers
        int declaredEnd = payloadLength == 0 ? Math.max(end, p + 40) : p + 40 + payloadLength;
        int q = p + 40;
        boolean laterFragment = false;
        chain:
        while (true) {
            int headerLength;
            switch (next) {
                case 0:   // hop-by-hop options
                case 43:  // routing
                case 60:  // destination options
                case 51:  // authentication header (length in 4-byte units, minus 2)
                    if (q + 2 > declaredEnd) {
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
                if (q + need > declaredEnd) {
                    skip(SkipReason.MALFORMED_IP);
                    return;
                }
                if (q + need > end) {
                    skip(SkipReason.TRUNCATED);
                    return;
                }
                if (next == ICMPV6) {
                    dstPort = be16(b, q);
                } else {
                    srcPort = be16(b, q);
                    dstPort = be16(b, q + 2);
                    if (next == TCP) {
                        flags = b[q + 13] & 0xFF;
                    }
                }
            }
        }
        delivered++;
        visitor.ipv6(ts, be64(b, p + 8), be64(b, p + 16), be64(b, p + 24), be64(b, p + 32),
                srcPort, dstPort, next, flags, 40 + payloadLength);
    }

    /** Bytes of the transport header needed for ports (and TCP flags, ICMP type/code); 0 = none read. */
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
