package io.linerate.jobs.pcap;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** A visitor that writes every packet as one line "ts proto src:port > dst:port flags len", for assertions. */
final class Collected implements PacketVisitor {

    final List<String> lines = new ArrayList<>();
    CaptureReader reader;
    boolean withInterface;

    /** Reads the whole capture; the reader stays available for its counts. */
    static Collected read(byte[] file, boolean withInterface) throws IOException {
        Collected c = new Collected();
        c.withInterface = withInterface;
        c.reader = CaptureReader.open(new ByteArrayInputStream(file));
        c.reader.readAll(c);
        c.reader.close();
        return c;
    }

    static Collected read(byte[] file) throws IOException {
        return read(file, false);
    }

    @Override
    public void ipv4(long ts, int src, int dst, int srcPort, int dstPort, int protocol, int tcpFlags, int ipLength) {
        lines.add(line(ts, protocol, text(ByteBuffer.allocate(4).putInt(src).array()), srcPort,
                text(ByteBuffer.allocate(4).putInt(dst).array()), dstPort, tcpFlags, ipLength));
    }

    @Override
    public void ipv6(long ts, long srcHigh, long srcLow, long dstHigh, long dstLow, int srcPort, int dstPort,
                     int protocol, int tcpFlags, int ipLength) {
        lines.add(line(ts, protocol, text(ByteBuffer.allocate(16).putLong(srcHigh).putLong(srcLow).array()), srcPort,
                text(ByteBuffer.allocate(16).putLong(dstHigh).putLong(dstLow).array()), dstPort, tcpFlags,
                ipLength));
    }

    private String line(long ts, int protocol, String src, int srcPort, String dst, int dstPort, int flags,
                        int length) {
        String s = expect(ts, protocol, src, srcPort, dst, dstPort, flags, length);
        return withInterface ? s + " if=" + reader.interfaceId() + " lt=" + reader.linkType() : s;
    }

    /** The expected line for a packet; addresses as literals (normalized here). */
    static String expect(long ts, int protocol, String src, int srcPort, String dst, int dstPort, int flags,
                         int length) {
        return String.format(Locale.ROOT, "%d p%d %s:%d > %s:%d f%02x len%d", ts, protocol, normalize(src), srcPort,
                normalize(dst), dstPort, flags, length);
    }

    static String normalize(String literal) {
        return text(Frames.address(literal));
    }

    private static String text(byte[] address) {
        try {
            String s = InetAddress.getByAddress(address).getHostAddress();
            return address.length == 16 ? "[" + s + "]" : s;
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(e);
        }
    }
}
