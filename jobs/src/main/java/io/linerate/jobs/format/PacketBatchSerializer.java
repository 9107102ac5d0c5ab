package io.linerate.jobs.format;

import java.io.IOException;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Flink serializer of a {@link PacketBatch}: an int n, then n bytes of the Kafka wire encoding
 * ({@link PacketBatchCodec}, ~18 bytes per IPv4 packet); n = 0 stands for an empty batch and is followed by its int
 * observation point. Deserialization checks n against {@link PacketBatchCodec#MAX_ENCODED_BYTES} before reading
 * (so a corrupt length never sizes an array) and decodes with the validating decoder.
 *
 * <p>Holds a scratch buffer, so {@link #duplicate()} gives each thread its own instance.
 */
public final class PacketBatchSerializer extends TypeSerializer<PacketBatch> {

    private static final long serialVersionUID = 1L;

    private transient byte[] buffer;

    @Override
    public boolean isImmutableType() {
        return false;
    }

    @Override
    public TypeSerializer<PacketBatch> duplicate() {
        return new PacketBatchSerializer();
    }

    @Override
    public PacketBatch createInstance() {
        return new PacketBatch(0);
    }

    @Override
    public PacketBatch copy(PacketBatch from) {
        return from.copy();
    }

    @Override
    public PacketBatch copy(PacketBatch from, PacketBatch reuse) {
        return reuse == null ? from.copy() : from.copyInto(reuse);
    }

    @Override
    public int getLength() {
        return -1;
    }

    private byte[] buffer(int n) {
        byte[] b = buffer;
        if (b == null || b.length < n) {
            b = buffer = new byte[Math.max(n, 4096)];
        }
        return b;
    }

    @Override
    public void serialize(PacketBatch batch, DataOutputView out) throws IOException {
        if (batch.isEmpty()) {
            out.writeInt(0);
            out.writeInt(batch.observationPoint());
            return;
        }
        int n = PacketBatchCodec.encodedSize(batch);
        byte[] b = buffer(n);
        PacketBatchCodec.encode(batch, b, 0);
        out.writeInt(n);
        out.write(b, 0, n);
    }

    @Override
    public PacketBatch deserialize(DataInputView in) throws IOException {
        return deserialize(null, in);
    }

    @Override
    public PacketBatch deserialize(PacketBatch reuse, DataInputView in) throws IOException {
        int n = readLength(in);
        if (n == 0) {
            int op = in.readInt();
            PacketBatch empty = reuse == null ? new PacketBatch(op, 0) : reuse;
            empty.clear(op);
            return empty;
        }
        byte[] b = buffer(n);
        in.readFully(b, 0, n);
        try {
            return PacketBatchCodec.decode(b, 0, n, reuse);
        } catch (MalformedRecordException e) {
            throw new IOException("PacketBatch: " + e.getMessage(), e);
        }
    }

    private static int readLength(DataInputView in) throws IOException {
        int n = in.readInt();
        if (n < 0 || n > PacketBatchCodec.MAX_ENCODED_BYTES) {
            throw new IOException("PacketBatch: encoded length " + n + " outside [0, "
                    + PacketBatchCodec.MAX_ENCODED_BYTES + "]");
        }
        return n;
    }

    @Override
    public void copy(DataInputView in, DataOutputView out) throws IOException {
        int n = readLength(in);
        out.writeInt(n);
        if (n == 0) {
            out.writeInt(in.readInt());
            return;
        }
        byte[] b = buffer(n);
        in.readFully(b, 0, n);
        out.write(b, 0, n);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PacketBatchSerializer;
    }

    @Override
    public int hashCode() {
        return PacketBatchSerializer.class.hashCode();
    }

    @Override
    public TypeSerializerSnapshot<PacketBatch> snapshotConfiguration() {
        return new Snapshot();
    }

    /** The serializer has no configuration: its snapshot only names it. */
    public static final class Snapshot extends SimpleTypeSerializerSnapshot<PacketBatch> {
        public Snapshot() {
            super(PacketBatchSerializer::new);
        }
    }
}
