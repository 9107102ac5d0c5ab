package io.linerate.jobs.feed;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import io.linerate.jobs.format.PacketRecord;

/**
 * Writes small capture files byte for byte for the replay tests (classic pcap, little-endian, microseconds,
 * Ethernet; pcapng with several Ethernet interfaces), and remembers each IP packet as the {@link PacketRecord} a
 * replay must produce — computed here from the fields written, independently of the reader.
 */
final class Captures {

    static final int TCP = 6;
    static final int UDP = 17;

    /** One packet to write: addresses as 4 or 16 bytes, timestamp in microseconds. */
    record Packet(long micros, byte[] src, byte[] dst, int protocol, int srcPort, int dstPort, int tcpFlags,
                  int payload) {

        boolean ipv6() {
            return src.length == 16;
        }

        int ipLength() {
            return (ipv6() ? 40 : 20) + (protocol == TCP ? 20 : 8) + payload;
        }

        /** The packet as a replay must write it (epoch ms, floored; observation point {@code op}). */
        PacketRecord expected(int op, long shiftMs) {
            long ms = Math.floorDiv(micros, 1000) + shiftMs;
            if (ipv6()) {
                ByteBuffer s = ByteBuffer.wrap(src);
                ByteBuffer d = ByteBuffer.wrap(dst);
                return new PacketRecord().setIpv6(ms, s.getLong(), s.getLong(), d.getLong(), d.getLong(), srcPort,
                        dstPort, protocol, protocol == TCP ? tcpFlags : 0, ipLength(), op);
            }
            return new PacketRecord().setIpv4(ms, ByteBuffer.wrap(src).getInt(), ByteBuffer.wrap(dst).getInt(),
                    srcPort, dstPort, protocol, protocol == TCP ? tcpFlags : 0, ipLength(), op);
        }

        /** The Ethernet frame carrying it. */
        byte[] frame() {
            int l4 = protocol == TCP ? 20 : 8;
            ByteBuffer b = ByteBuffer.allocate(14 + ipLength());
            b.put(new byte[] {2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2}).putShort((short) (ipv6() ? 0x86DD : 0x0800));
            if (ipv6()) {
                b.putInt(0x60000000).putShort((short) (l4 + payload)).put((byte) protocol).put((byte) 64);
                b.put(src).put(dst);
            } else {
                b.put((byte) 0x45).put((byte) 0).putShort((short) ipLength()).putShort((short) 1).putShort((short) 0);
                b.put((byte) 64).put((byte) protocol).putShort((short) 0).put(src).put(dst);
            }
            b.putShort((short) srcPort).putShort((short) dstPort);
            if (protocol == TCP) {
                b.putInt(1).putInt(0).put((byte) 0x50).put((byte) tcpFlags).putShort((short) 1024).putInt(0);
            } else {
                b.putShort((short) (8 + payload)).putShort((short) 0);
            }
            return b.array(); // payload: zeros
        }
    }

    /** An ARP request frame (not IP: the replay skips it as NOT_IP). */
    static byte[] arpFrame() {
        ByteBuffer b = ByteBuffer.allocate(42);
        b.put(new byte[] {-1, -1, -1, -1, -1, -1, 2, 0, 0, 0, 0, 1}).putShort((short) 0x0806);
        b.putShort((short) 1).putShort((short) 0x0800).put((byte) 6).put((byte) 4).putShort((short) 1);
        return b.array();
    }

    /** {@code n} packets from {@code startMicros}, {@code gapMicros} apart: a mix of IPv4/IPv6, TCP/UDP. */
    static List<Packet> packets(int n, long startMicros, long gapMicros) {
        List<Packet> list = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            long t = startMicros + i * gapMicros;
            if (i % 5 == 4) {
                byte[] s = new byte[16];
                byte[] d = new byte[16];
                s[0] = 0x20; s[1] = 0x01; s[2] = 0x0d; s[3] = (byte) 0xb8; s[15] = (byte) (i % 7 + 1);
                d[0] = 0x20; d[1] = 0x01; d[2] = 0x0d; d[3] = (byte) 0xb8; d[14] = 1; d[15] = 1;
                list.add(new Packet(t, s, d, UDP, 5000 + i, 53, 0, i % 100));
            } else {
                byte[] s = {10, 1, (byte) (i % 3), (byte) (i % 11 + 1)};
                byte[] d = {(byte) 192, (byte) 168, 7, (byte) (i % 4 + 1)};
                boolean tcp = i % 3 != 0;
                list.add(new Packet(t, s, d, tcp ? TCP : UDP, 40000 + i % 13, tcp ? 443 : 123, tcp ? 0x18 : 0,
                        (i * 37) % 1400));
            }
        }
        return list;
    }

    /**
     * A classic pcap file of {@code packets}, with an ARP frame written after every {@code arpEvery}-th packet
     * (0: none). Returns the number of ARP frames written.
     */
    static int writePcap(Path file, List<Packet> packets, int arpEvery) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteBuffer h = le(24);
        h.putInt(0xA1B2C3D4).putShort((short) 2).putShort((short) 4).putInt(0).putInt(0).putInt(65535).putInt(1);
        out.writeBytes(h.array());
        int arps = 0;
        for (int i = 0; i < packets.size(); i++) {
            Packet p = packets.get(i);
            record(out, p.micros(), p.frame());
            if (arpEvery > 0 && i % arpEvery == arpEvery - 1) {
                record(out, p.micros(), arpFrame());
                arps++;
            }
        }
        Files.write(file, out.toByteArray());
        return arps;
    }

    private static void record(ByteArrayOutputStream out, long micros, byte[] frame) {
        ByteBuffer r = le(16 + frame.length);
        r.putInt((int) (micros / 1_000_000)).putInt((int) (micros % 1_000_000)).putInt(frame.length)
                .putInt(frame.length).put(frame);
        out.writeBytes(r.array());
    }

    /** A pcapng file with {@code interfaces} Ethernet interfaces (microseconds); packet i goes to interface i % n. */
    static void writePcapNg(Path file, List<Packet> packets, int interfaces) throws IOException {
        writePcapNg(file, packets, interfaces, 0);
    }

    /** The same, each interface with if_tsoffset {@code offsetSeconds} (an option only when it is not 0). */
    static void writePcapNg(Path file, List<Packet> packets, int interfaces, long offsetSeconds) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteBuffer shb = le(28);
        shb.putInt(0x0A0D0D0A).putInt(28).putInt(0x1A2B3C4D).putShort((short) 1).putShort((short) 0).putLong(-1L)
                .putInt(28);
        out.writeBytes(shb.array());
        for (int i = 0; i < interfaces; i++) {
            int length = offsetSeconds == 0 ? 20 : 20 + 12 + 4;
            ByteBuffer idb = le(length);
            idb.putInt(1).putInt(length).putShort((short) 1).putShort((short) 0).putInt(0);
            if (offsetSeconds != 0) {
                idb.putShort((short) 14).putShort((short) 8).putLong(offsetSeconds); // if_tsoffset
                idb.putInt(0); // opt_endofopt
            }
            idb.putInt(length);
            out.writeBytes(idb.array());
        }
        for (int i = 0; i < packets.size(); i++) {
            Packet p = packets.get(i);
            byte[] frame = p.frame();
            int padded = (frame.length + 3) & ~3;
            int length = 32 + padded;
            ByteBuffer epb = le(length);
            epb.putInt(6).putInt(length).putInt(i % interfaces).putInt((int) (p.micros() >>> 32))
                    .putInt((int) p.micros()).putInt(frame.length).putInt(frame.length).put(frame);
            epb.position(length - 4);
            epb.putInt(length);
            out.writeBytes(epb.array());
        }
        Files.write(file, out.toByteArray());
    }

    /** UDP/IPv4 packets 10.0.0.1:1000+i → 10.0.0.2:53 with no payload, packet i at {@code micros[i]}. */
    static List<Packet> udpAt(long... micros) {
        List<Packet> out = new java.util.ArrayList<>();
        for (int i = 0; i < micros.length; i++) {
            out.add(new Packet(micros[i], new byte[] {10, 0, 0, 1}, new byte[] {10, 0, 0, 2}, UDP, 1000 + i, 53, 0, 0));
        }
        return out;
    }

    private static ByteBuffer le(int size) {
        return ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
    }

    private Captures() {
    }
}
