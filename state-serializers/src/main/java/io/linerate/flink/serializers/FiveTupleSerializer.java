package io.linerate.flink.serializers;

import io.linerate.sketches.hash.FiveTuple;
import java.io.IOException;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.base.TypeSerializerSingleton;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Flink serializer of {@link FiveTuple}, the key of flow records and of 5-tuple items: 38 bytes, big-endian — the IP
 * version (4 or 6), the source address's high and low 64 bits, the destination's, both ports (u16) and the protocol
 * (u8); an IPv4 address is the low 32 bits of its low word. Reading checks the version and that an IPv4 tuple's
 * addresses fit 32 bits, so corrupt bytes are an {@link IOException}, never another tuple.
 */
public final class FiveTupleSerializer extends TypeSerializerSingleton<FiveTuple> {

    private static final long serialVersionUID = 1L;

    /** Bytes per tuple. */
    public static final int LENGTH = 1 + 4 * Long.BYTES + 2 + 2 + 1;

    public static final FiveTupleSerializer INSTANCE = new FiveTupleSerializer();

    @Override
    public boolean isImmutableType() {
        return true;
    }

    @Override
    public FiveTuple createInstance() {
        return FiveTuple.ipv4(0, 0, 0, 0, 0);
    }

    @Override
    public FiveTuple copy(FiveTuple from) {
        return from;
    }

    @Override
    public FiveTuple copy(FiveTuple from, FiveTuple reuse) {
        return from;
    }

    @Override
    public int getLength() {
        return LENGTH;
    }

    @Override
    public void serialize(FiveTuple t, DataOutputView out) throws IOException {
        out.writeByte(t.isIpv6() ? 6 : 4);
        out.writeLong(t.srcHigh());
        out.writeLong(t.srcLow());
        out.writeLong(t.dstHigh());
        out.writeLong(t.dstLow());
        out.writeShort(t.srcPort());
        out.writeShort(t.dstPort());
        out.writeByte(t.protocol());
    }

    @Override
    public FiveTuple deserialize(DataInputView in) throws IOException {
        int version = in.readUnsignedByte();
        long srcHigh = in.readLong();
        long srcLow = in.readLong();
        long dstHigh = in.readLong();
        long dstLow = in.readLong();
        int srcPort = in.readUnsignedShort();
        int dstPort = in.readUnsignedShort();
        int protocol = in.readUnsignedByte();
        if (version == 6) {
            return FiveTuple.ipv6(srcHigh, srcLow, dstHigh, dstLow, srcPort, dstPort, protocol);
        }
        if (version != 4) {
            throw new IOException("cannot read FiveTuple: IP version " + version + ", expected 4 or 6");
        }
        if (srcHigh != 0 || dstHigh != 0 || (srcLow >>> 32) != 0 || (dstLow >>> 32) != 0) {
            throw new IOException("cannot read FiveTuple: an IPv4 tuple's addresses must fit 32 bits");
        }
        return FiveTuple.ipv4((int) srcLow, (int) dstLow, srcPort, dstPort, protocol);
    }

    @Override
    public FiveTuple deserialize(FiveTuple reuse, DataInputView in) throws IOException {
        return deserialize(in);
    }

    @Override
    public void copy(DataInputView in, DataOutputView out) throws IOException {
        // field by field, not out.write(in, LENGTH): Flink's DataOutputSerializer does not grow for that call
        out.writeByte(in.readByte());
        for (int i = 0; i < 4; i++) {
            out.writeLong(in.readLong());
        }
        out.writeInt(in.readInt()); // both ports
        out.writeByte(in.readByte());
    }

    @Override
    public TypeSerializerSnapshot<FiveTuple> snapshotConfiguration() {
        return new Snapshot();
    }

    /** The serializer has no configuration: its snapshot only names it. */
    public static final class Snapshot extends SimpleTypeSerializerSnapshot<FiveTuple> {
        public Snapshot() {
            super(() -> INSTANCE);
        }
    }
}
