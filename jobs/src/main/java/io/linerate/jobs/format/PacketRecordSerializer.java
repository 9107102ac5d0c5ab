package io.linerate.jobs.format;

import java.io.IOException;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Flink serializer of a {@link PacketRecord}: byte IP version (4|6), long timestamp, int observation point, int
 * ports (src &lt;&lt; 16 | dst), byte protocol, byte TCP flags, int length, then the addresses (2 ints or 4 longs):
 * 31 bytes for IPv4, 55 for IPv6. Deserialization checks the version byte and the ranges
 * ({@link PacketRecord#validate()}) and throws {@link IOException} otherwise.
 */
public final class PacketRecordSerializer extends TypeSerializer<PacketRecord> {

    private static final long serialVersionUID = 1L;

    public static final PacketRecordSerializer INSTANCE = new PacketRecordSerializer();

    @Override
    public boolean isImmutableType() {
        return false;
    }

    @Override
    public TypeSerializer<PacketRecord> duplicate() {
        return this; // stateless
    }

    @Override
    public PacketRecord createInstance() {
        return new PacketRecord();
    }

    @Override
    public PacketRecord copy(PacketRecord from) {
        return from.copy();
    }

    @Override
    public PacketRecord copy(PacketRecord from, PacketRecord reuse) {
        return (reuse == null ? new PacketRecord() : reuse).copyFrom(from);
    }

    @Override
    public int getLength() {
        return -1;
    }

    @Override
    public void serialize(PacketRecord p, DataOutputView out) throws IOException {
        // the fields are packed (both ports in one int, the protocol in a byte): an out-of-range value would come
        // back as another, valid-looking packet, so it is refused here as on every other path
        String problem = p.validate();
        if (problem != null) {
            throw new IllegalArgumentException("cannot serialize packet record: " + problem);
        }
        out.writeByte(p.ipv6 ? 6 : 4);
        out.writeLong(p.timestamp);
        out.writeInt(p.observationPoint);
        out.writeInt(p.srcPort << 16 | p.dstPort);
        out.writeByte(p.protocol);
        out.writeByte(p.tcpFlags);
        out.writeInt(p.length);
        if (p.ipv6) {
            out.writeLong(p.srcHigh);
            out.writeLong(p.srcLow);
            out.writeLong(p.dstHigh);
            out.writeLong(p.dstLow);
        } else {
            out.writeInt((int) p.srcLow);
            out.writeInt((int) p.dstLow);
        }
    }

    @Override
    public PacketRecord deserialize(DataInputView in) throws IOException {
        return deserialize(new PacketRecord(), in);
    }

    @Override
    public PacketRecord deserialize(PacketRecord reuse, DataInputView in) throws IOException {
        int version = in.readUnsignedByte();
        if (version != 4 && version != 6) {
            throw new IOException("PacketRecord: IP version " + version + ", expected 4 or 6");
        }
        boolean v6 = version == 6;
        long timestamp = in.readLong();
        int op = in.readInt();
        int ports = in.readInt();
        int protocol = in.readUnsignedByte();
        int flags = in.readUnsignedByte();
        int length = in.readInt();
        PacketRecord p = reuse == null ? new PacketRecord() : reuse;
        if (v6) {
            p.set(timestamp, true, in.readLong(), in.readLong(), in.readLong(), in.readLong(), ports >>> 16,
                    ports & 0xFFFF, protocol, flags, length, op);
        } else {
            p.set(timestamp, false, 0, in.readInt() & 0xFFFF_FFFFL, 0, in.readInt() & 0xFFFF_FFFFL, ports >>> 16,
                    ports & 0xFFFF, protocol, flags, length, op);
        }
        String invalid = p.validate();
        if (invalid != null) {
            throw new IOException("PacketRecord: " + invalid);
        }
        return p;
    }

    @Override
    public void copy(DataInputView in, DataOutputView out) throws IOException {
        serialize(deserialize(in), out);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PacketRecordSerializer;
    }

    @Override
    public int hashCode() {
        return PacketRecordSerializer.class.hashCode();
    }

    @Override
    public TypeSerializerSnapshot<PacketRecord> snapshotConfiguration() {
        return new Snapshot();
    }

    /** The serializer has no configuration: its snapshot only names it. */
    public static final class Snapshot extends SimpleTypeSerializerSnapshot<PacketRecord> {
        public Snapshot() {
            super(() -> INSTANCE);
        }
    }
}
