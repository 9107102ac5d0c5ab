package io.linerate.benchmarks.pipeline;

import java.io.IOException;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.base.TypeSerializerSingleton;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * {@link PacketBatch} in {@value #HEADER} + {@value #PACKET} · size bytes: the link (unsigned short), the size
 * (int) and the batch's timestamp (long, the smallest), then per packet its fields as {@link PacketSerializer}
 * writes them, without the link (the batch's) and with the timestamp as an int offset from the batch's. A
 * 64-packet batch is 1,294 bytes, 20.2 per packet, against 26 for a packet record.
 *
 * <p>The size is validated (1 … {@value PacketBatch#MAX_SIZE}) before anything is allocated, so corrupt input
 * fails with an {@link IOException} instead of allocating a huge array. {@link #copy} is free: the batch is
 * immutable.
 */
public final class PacketBatchSerializer extends TypeSerializerSingleton<PacketBatch> {

    private static final long serialVersionUID = 1L;

    /** Bytes before the packets: link, size, timestamp. */
    public static final int HEADER = 2 + 4 + 8;
    /** Bytes per packet. */
    public static final int PACKET = 4 + 4 + 2 + 2 + 1 + 1 + 2 + 4;

    public static final PacketBatchSerializer INSTANCE = new PacketBatchSerializer();

    @Override
    public boolean isImmutableType() {
        return true;
    }

    @Override
    public PacketBatch createInstance() {
        return new PacketBatch(0, new Packet[] {new Packet(0, 0, 0, 0, 0, 0, 0, 0, 0)}, 1);
    }

    @Override
    public PacketBatch copy(PacketBatch from) {
        return from;
    }

    @Override
    public PacketBatch copy(PacketBatch from, PacketBatch reuse) {
        return from;
    }

    @Override
    public int getLength() {
        return -1;
    }

    @Override
    public void serialize(PacketBatch b, DataOutputView out) throws IOException {
        long base = b.timestamp();
        out.writeShort(b.link());
        out.writeInt(b.size());
        out.writeLong(base);
        for (int i = 0; i < b.size(); i++) {
            Packet p = b.get(i);
            out.writeInt(p.srcAddress());
            out.writeInt(p.dstAddress());
            out.writeShort(p.srcPort());
            out.writeShort(p.dstPort());
            out.writeByte(p.protocol());
            out.writeByte(p.tcpFlags());
            out.writeShort(p.bytes());
            out.writeInt((int) (p.timestamp() - base)); // 0 … Integer.MAX_VALUE, checked by PacketBatch
        }
    }

    @Override
    public PacketBatch deserialize(DataInputView in) throws IOException {
        int link = in.readUnsignedShort();
        int size = readSize(in);
        long base = in.readLong();
        Packet[] packets = new Packet[size];
        for (int i = 0; i < size; i++) {
            int src = in.readInt();
            int dst = in.readInt();
            int srcPort = in.readUnsignedShort();
            int dstPort = in.readUnsignedShort();
            int protocol = in.readUnsignedByte();
            int flags = in.readUnsignedByte();
            int bytes = in.readUnsignedShort();
            int offset = in.readInt();
            if (offset < 0) {
                throw new IOException("corrupt packet batch: packet " + i + " has timestamp offset " + offset);
            }
            packets[i] = new Packet(src, dst, srcPort, dstPort, protocol, flags, bytes, link, base + offset);
        }
        return new PacketBatch(link, packets, size);
    }

    @Override
    public PacketBatch deserialize(PacketBatch reuse, DataInputView in) throws IOException {
        return deserialize(in);
    }

    @Override
    public void copy(DataInputView source, DataOutputView target) throws IOException {
        int link = source.readUnsignedShort();
        int size = readSize(source);
        target.writeShort(link);
        target.writeInt(size);
        target.write(source, 8 + size * PACKET);
    }

    private static int readSize(DataInputView in) throws IOException {
        int size = in.readInt();
        if (size < 1 || size > PacketBatch.MAX_SIZE) {
            throw new IOException("corrupt packet batch: size " + size + " not in [1, " + PacketBatch.MAX_SIZE
                    + "]");
        }
        return size;
    }

    @Override
    public TypeSerializerSnapshot<PacketBatch> snapshotConfiguration() {
        return new Snapshot();
    }

    /** The snapshot of a stateless serializer: its class is its whole configuration. */
    public static final class Snapshot extends SimpleTypeSerializerSnapshot<PacketBatch> {
        public Snapshot() {
            super(() -> INSTANCE);
        }
    }
}
