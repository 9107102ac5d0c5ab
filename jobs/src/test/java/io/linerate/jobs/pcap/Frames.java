package io.linerate.jobs.pcap;

import java.io.ByteArrayOutputStream;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** Builds packets and link-layer frames byte for byte (network order), for the capture writer of the tests. */
final class Frames {

    static final int TCP = 6;
    static final int UDP = 17;
    static final int ICMP = 1;
    static final int ICMPV6 = 58;
    static final int FIN = 0x01;
    static final int SYN = 0x02;
    static final int RST = 0x04;
    static final int PSH = 0x08;
    static final int ACK = 0x10;

    private Frames() {
    }

    static byte[] address(String literal) {
        try {
            return InetAddress.getByName(literal).getAddress();
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(literal, e);
        }
    }

    static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }

    /** A TCP header (20 bytes) and {@code payload} zero bytes. */
    static byte[] tcp(int srcPort, int dstPort, int flags, int payload) {
        ByteBuffer b = ByteBuffer.allocate(20 + payload);
        b.putShort((short) srcPort).putShort((short) dstPort).putInt(1000).putInt(0);
        b.put((byte) 0x50).put((byte) flags).putShort((short) 65535).putShort((short) 0).putShort((short) 0);
        return b.array();
    }

    /** A UDP header and {@code payload} bytes. */
    static byte[] udp(int srcPort, int dstPort, int payload) {
        ByteBuffer b = ByteBuffer.allocate(8 + payload);
        b.putShort((short) srcPort).putShort((short) dstPort).putShort((short) (8 + payload)).putShort((short) 0);
        return b.array();
    }

    /** An ICMP (or ICMPv6) message header: type, code, checksum, 4 bytes (echo id/sequence), 8 bytes of data. */
    static byte[] icmp(int type, int code) {
        ByteBuffer b = ByteBuffer.allocate(16);
        b.put((byte) type).put((byte) code).putShort((short) 0).putShort((short) 7).putShort((short) 1);
        return b.array();
    }

    /** An IPv4 packet without options, not fragmented. */
    static byte[] ipv4(String src, String dst, int protocol, byte[] payload) {
        return ipv4(src, dst, protocol, payload, 0, 0);
    }

    /**
     * An IPv4 packet; {@code fragmentField} is the flags/offset word (0x2000 = more fragments, low 13 bits = offset
     * in 8-byte units); {@code optionWords} 32-bit words of NOP options.
     */
    static byte[] ipv4(String src, String dst, int protocol, byte[] payload, int fragmentField, int optionWords) {
        int ihl = 20 + 4 * optionWords;
        ByteBuffer b = ByteBuffer.allocate(ihl + payload.length);
        b.put((byte) (0x40 | ihl / 4)).put((byte) 0).putShort((short) (ihl + payload.length));
        b.putShort((short) 0x1234).putShort((short) fragmentField).put((byte) 64).put((byte) protocol);
        b.putShort((short) 0).put(address(src)).put(address(dst));
        for (int i = 0; i < optionWords * 4; i++) {
            b.put((byte) 1); // NOP
        }
        byte[] a = b.array();
        int sum = 0;
        for (int i = 0; i < ihl; i += 2) {
            sum += ((a[i] & 0xFF) << 8) | (a[i + 1] & 0xFF);
        }
        while ((sum >> 16) != 0) {
            sum = (sum & 0xFFFF) + (sum >> 16);
        }
        int checksum = ~sum & 0xFFFF;
        a[10] = (byte) (checksum >> 8);
        a[11] = (byte) checksum;
        System.arraycopy(payload, 0, a, ihl, payload.length);
        return a;
    }

    /** A copy of an IPv4 packet as captured before segmentation offload (TSO): total length 0. */
    static byte[] zeroTotalLength(byte[] ipv4) {
        byte[] a = ipv4.clone();
        a[2] = 0;
        a[3] = 0;
        return a;
    }

    /** An IPv6 packet; {@code rest} holds the extension headers (if any) and the upper-layer message. */
    static byte[] ipv6(String src, String dst, int nextHeader, byte[] rest) {
        ByteBuffer b = ByteBuffer.allocate(40 + rest.length);
        b.putInt(0x60000000).putShort((short) rest.length).put((byte) nextHeader).put((byte) 64);
        b.put(address(src)).put(address(dst)).put(rest);
        return b.array();
    }

    /** A hop-by-hop, routing or destination options header of {@code 8 * units} bytes (PadN filled). */
    static byte[] optionsHeader(int nextHeader, int units) {
        byte[] h = new byte[8 * units];
        h[0] = (byte) nextHeader;
        h[1] = (byte) (units - 1);
        h[2] = 1; // PadN
        h[3] = (byte) (h.length - 4);
        return h;
    }

    /** A routing header (type 0 style, segments left 0) of {@code 8 * units} bytes. */
    static byte[] routingHeader(int nextHeader, int units) {
        byte[] h = new byte[8 * units];
        h[0] = (byte) nextHeader;
        h[1] = (byte) (units - 1);
        h[2] = 0;
        h[3] = 0; // segments left
        return h;
    }

    /** An IPv6 fragment header; {@code offset} in 8-byte units. */
    static byte[] fragmentHeader(int nextHeader, int offset, boolean more) {
        ByteBuffer b = ByteBuffer.allocate(8);
        b.put((byte) nextHeader).put((byte) 0).putShort((short) (offset << 3 | (more ? 1 : 0))).putInt(0xCAFE);
        return b.array();
    }

    /** An Ethernet II frame (14-byte header) with VLAN tags of the given TPIDs (outermost first). */
    static byte[] ethernet(int etherType, byte[] payload, int... vlanTpids) {
        ByteBuffer b = ByteBuffer.allocate(14 + 4 * vlanTpids.length + payload.length);
        b.put(new byte[] {2, 0, 0, 0, 0, 2}).put(new byte[] {2, 0, 0, 0, 0, 1});
        int vid = 100;
        for (int tpid : vlanTpids) {
            b.putShort((short) tpid).putShort((short) vid++);
        }
        b.putShort((short) etherType).put(payload);
        return b.array();
    }

    /** An ARP request in an Ethernet frame (not IP). */
    static byte[] arp() {
        ByteBuffer b = ByteBuffer.allocate(28);
        b.putShort((short) 1).putShort((short) 0x0800).put((byte) 6).put((byte) 4).putShort((short) 1);
        b.put(new byte[] {2, 0, 0, 0, 0, 1}).put(address("10.0.0.1"));
        b.put(new byte[6]).put(address("10.0.0.2"));
        return ethernet(0x0806, b.array());
    }

    /** A Linux cooked (SLL v1) frame. */
    static byte[] sll(int protocol, byte[] payload) {
        ByteBuffer b = ByteBuffer.allocate(16 + payload.length);
        b.putShort((short) 0).putShort((short) 1).putShort((short) 6).put(new byte[] {2, 0, 0, 0, 0, 1, 0, 0});
        b.putShort((short) protocol).put(payload);
        return b.array();
    }

    /** A Linux cooked v2 (SLL2) frame. */
    static byte[] sll2(int protocol, byte[] payload) {
        ByteBuffer b = ByteBuffer.allocate(20 + payload.length);
        b.putShort((short) protocol).putShort((short) 0).putInt(3).putShort((short) 1).put((byte) 0).put((byte) 6);
        b.put(new byte[] {2, 0, 0, 0, 0, 1, 0, 0}).put(payload);
        return b.array();
    }

    /**
     * An MPLS label stack of the given labels (outermost first), the bottom-of-stack bit on the last entry only,
     * then {@code payload}. Every entry has traffic class 7 and TTL 255, so that all bits around the bottom-of-stack
     * bit are set.
     */
    static byte[] mpls(byte[] payload, int... labels) {
        ByteBuffer b = ByteBuffer.allocate(4 * labels.length + payload.length);
        for (int i = 0; i < labels.length; i++) {
            b.putInt(labels[i] << 12 | 7 << 9 | (i == labels.length - 1 ? 1 << 8 : 0) | 255);
        }
        return b.put(payload).array();
    }

    /** A PPPoE header (version/type, code, session 0x1234, length) and {@code payload}. */
    static byte[] pppoe(int versionType, int code, byte[] payload) {
        ByteBuffer b = ByteBuffer.allocate(6 + payload.length);
        b.put((byte) versionType).put((byte) code).putShort((short) 0x1234).putShort((short) payload.length);
        return b.put(payload).array();
    }

    /** A PPPoE session packet (version 1, type 1, code 0) carrying a PPP frame of {@code pppProtocol}. */
    static byte[] pppoeSession(int pppProtocol, byte[] payload) {
        return pppoe(0x11, 0, concat(new byte[] {(byte) (pppProtocol >> 8), (byte) pppProtocol}, payload));
    }

    /** A BSD loopback frame: the address family in the given byte order. */
    static byte[] loopback(int family, ByteOrder order, byte[] payload) {
        ByteBuffer b = ByteBuffer.allocate(4 + payload.length).order(order);
        b.putInt(family).put(payload);
        return b.array();
    }

    /** A frame of {@code linkType} (Ethernet II, SLL, SLL2, Cisco HDLC) whose link header names {@code etherType}. */
    static byte[] withEtherType(int linkType, int etherType, byte[] payload) {
        switch (linkType) {
            case LinkTypes.ETHERNET:
                return ethernet(etherType, payload);
            case LinkTypes.LINUX_SLL:
                return sll(etherType, payload);
            case LinkTypes.LINUX_SLL2:
                return sll2(etherType, payload);
            case LinkTypes.C_HDLC:
                return concat(new byte[] {0x0F, 0, (byte) (etherType >> 8), (byte) etherType}, payload);
            default:
                throw new IllegalArgumentException("link type " + linkType);
        }
    }

    /** An IP packet framed for {@code linkType} (Ethernet II, SLL, SLL2, raw, loopback, PPP, Cisco HDLC). */
    static byte[] frame(int linkType, byte[] ipPacket) {
        int etherType = (ipPacket[0] >> 4 & 0xF) == 6 ? 0x86DD : 0x0800;
        switch (linkType) {
            case LinkTypes.ETHERNET:
            case LinkTypes.LINUX_SLL:
            case LinkTypes.LINUX_SLL2:
            case LinkTypes.C_HDLC:
                return withEtherType(linkType, etherType, ipPacket);
            case LinkTypes.PPP:
            case LinkTypes.PPP_HDLC:
                return concat(new byte[] {(byte) 0xFF, 0x03, 0, (byte) (etherType == 0x0800 ? 0x21 : 0x57)}, ipPacket);
            case LinkTypes.RAW:
            case LinkTypes.IPV4:
            case LinkTypes.IPV6:
                return ipPacket;
            case LinkTypes.NULL:
                return loopback(etherType == 0x0800 ? 2 : 30, ByteOrder.LITTLE_ENDIAN, ipPacket);
            case LinkTypes.LOOP:
                return loopback(etherType == 0x0800 ? 2 : 24, ByteOrder.BIG_ENDIAN, ipPacket);
            default:
                throw new IllegalArgumentException("link type " + linkType);
        }
    }
}
