package io.linerate.jobs.feed;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** Small pcapng captures written byte for byte (little-endian, Ethernet, microseconds), for replay corner cases. */
final class PcapngBytes {

    private PcapngBytes() {}

    private static ByteBuffer le(int size) {
        return ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
    }

    /**
     * A pcapng file: {@code interfaces} Ethernet interfaces in microseconds with if_tsoffset {@code offsetSeconds};
     * packet i (a UDP/IPv4 packet 10.0.0.1:1000+i → 10.0.0.2:53) at {@code micros[i]} on interface i % interfaces.
     */
    static byte[] pcapng(int interfaces, long offsetSeconds, long... micros) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteBuffer shb = le(28);
        shb.putInt(0x0A0D0D0A).putInt(28).putInt(0x1A2B3C4D).putShort((short) 1).putShort((short) 0).putLong(-1L)
                .putInt(28);
        out.writeBytes(shb.array());
        for (int i = 0; i < interfaces; i++) {
            ByteBuffer idb = le(20 + 12 + 4);
            idb.putInt(1).putInt(36).putShort((short) 1).putShort((short) 0).putInt(0);
            idb.putShort((short) 14).putShort((short) 8).putLong(offsetSeconds); // if_tsoffset
            idb.putInt(0).putInt(36); // opt_endofopt, trailing length
            out.writeBytes(idb.array());
        }
        for (int i = 0; i < micros.length; i++) {
            byte[] frame = frame(1000 + i);
            int length = 32 + ((frame.length + 3) & ~3);
            ByteBuffer epb = le(length);
            epb.putInt(6).putInt(length).putInt(i % interfaces).putInt((int) (micros[i] >>> 32)).putInt((int) micros[i])
                    .putInt(frame.length).putInt(frame.length).put(frame);
            epb.position(length - 4);
            epb.putInt(length);
            out.writeBytes(epb.array());
        }
        return out.toByteArray();
    }

    private static byte[] frame(int srcPort) {
        ByteBuffer b = ByteBuffer.allocate(14 + 28);
        b.put(new byte[] {2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2}).putShort((short) 0x0800);
        b.put((byte) 0x45).put((byte) 0).putShort((short) 28).putInt(0).put((byte) 64).put((byte) 17).putShort((short) 0);
        b.putInt(0x0A000001).putInt(0x0A000002);
        b.putShort((short) srcPort).putShort((short) 53).putShort((short) 8).putShort((short) 0);
        return b.array();
    }

}
