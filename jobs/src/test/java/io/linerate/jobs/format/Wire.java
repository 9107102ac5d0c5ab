package io.linerate.jobs.format;

import java.io.ByteArrayOutputStream;

/** Builds wire bytes field by field, as docs/FORMATS.md lays them out, independently of the encoder. */
final class Wire {

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    static Wire header(int version, int flags, int observationPoint, int count, long base) {
        return new Wire().u8(0x4C).u8(0x52).u8(version).u8(flags).i32(observationPoint).i32(count).i64(base);
    }

    Wire u8(int v) {
        out.write(v);
        return this;
    }

    Wire u16(int v) {
        return u8(v >>> 8).u8(v & 0xFF);
    }

    Wire i32(int v) {
        return u16(v >>> 16).u16(v & 0xFFFF);
    }

    Wire i64(long v) {
        return i32((int) (v >>> 32)).i32((int) v);
    }

    Wire varint(long v) {
        while ((v & ~0x7FL) != 0) {
            u8((int) (v & 0x7F) | 0x80);
            v >>>= 7;
        }
        return u8((int) v);
    }

    Wire raw(int... bytes) {
        for (int b : bytes) {
            u8(b);
        }
        return this;
    }

    /** An IPv4 packet: version, protocol, flags, ports, delta, length, addresses. */
    Wire ipv4(int protocol, int flags, int srcPort, int dstPort, long delta, long length, int src, int dst) {
        return u8(4).u8(protocol).u8(flags).u16(srcPort).u16(dstPort).varint(delta).varint(length).i32(src).i32(dst);
    }

    int size() {
        return out.size();
    }

    byte[] bytes() {
        return out.toByteArray();
    }
}
