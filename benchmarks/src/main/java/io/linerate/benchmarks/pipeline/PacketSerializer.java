package io.linerate.benchmarks.pipeline;

import java.io.IOException;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.base.TypeSerializerSingleton;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * {@link Packet} in {@value #LENGTH} bytes: addresses as ints, ports, length and link as unsigned shorts, protocol
 * and flags as bytes, the timestamp as a long. No null marker (a stream never carries a null packet) and no
 * reflection; {@link #copy} is free because the record is immutable.
 */
public final class PacketSerializer extends TypeSerializerSingleton<Packet> {

    private static final long serialVersionUID = 1L;

    /** Serialized length of a packet, in bytes. */
    public static final int LENGTH = 4 + 4 + 2 + 2 + 1 + 1 + 2 + 2 + 8;

    public static final PacketSerializer INSTANCE = new PacketSerializer();

    @Override
    public boolean isImmutableType() {
        return true;
    }

    @Override
    public Packet createInstance() {
        return new Packet(0, 0, 0, 0, 0, 0, 0, 0, 0);
    }

    @Override
    public Packet copy(Packet from) {
        return from;
    }

    @Override
    public Packet copy(Packet from, Packet reuse) {
        return from;
    }

    @Override
    public int getLength() {
        return LENGTH;
    }

    @Override
    public void serialize(Packet p, DataOutputView out) throws IOException {
        out.writeInt(p.srcAddress());
        out.writeInt(p.dstAddress());
        out.writeShort(p.srcPort());
        out.writeShort(p.dstPort());
        out.writeByte(p.protocol());
        out.writeByte(p.tcpFlags());
        out.writeShort(p.bytes());
        out.writeShort(p.link());
        out.writeLong(p.timestamp());
    }

    @Override
    public Packet deserialize(DataInputView in) throws IOException {
        int src = in.readInt();
        int dst = in.readInt();
        int srcPort = in.readUnsignedShort();
        int dstPort = in.readUnsignedShort();
        int protocol = in.readUnsignedByte();
        int flags = in.readUnsignedByte();
        int bytes = in.readUnsignedShort();
        int link = in.readUnsignedShort();
        long timestamp = in.readLong();
        return new Packet(src, dst, srcPort, dstPort, protocol, flags, bytes, link, timestamp);
    }

    @Override
    public Packet deserialize(Packet reuse, DataInputView in) throws IOException {
        return deserialize(in);
    }

    @Override
    public void copy(DataInputView source, DataOutputView target) throws IOException {
        target.write(source, LENGTH);
    }

    @Override
    public TypeSerializerSnapshot<Packet> snapshotConfiguration() {
        return new Snapshot();
    }

    /** The snapshot of a stateless serializer: its class is its whole configuration. */
    public static final class Snapshot extends SimpleTypeSerializerSnapshot<Packet> {
        public Snapshot() {
            super(() -> INSTANCE);
        }
    }
}
