package io.linerate.flink.heavyhitters;

import java.io.IOException;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Flink serializer of a scope key's open sub-window indexes (state layout 2): the index that lets a key's state be
 * read one sub-window at a time, with no scan of its map state. Format v1: byte version, int count in
 * [0, {@value #MAX_OPEN}], then the indexes (longs, ascending, distinct, none {@code Long.MIN_VALUE}); reading checks
 * all of it before trusting the list. The snapshot records the heavy-hitters {@link WindowShape}: this state is
 * registered first, so a restore into an operator of another shape fails here, naming every field that changed.
 */
public final class OpenSubWindowsSerializer extends WindowShapeSerializer<long[]> {

    private static final long serialVersionUID = 1L;
    private static final byte VERSION = 1;
    /** The most sub-windows a key may hold open ({@code maxOpenSubWindows} is at most this). */
    static final int MAX_OPEN = 1 << 16;


    /** @param expected the shape of the operator, or {@code null} for any */
    OpenSubWindowsSerializer(WindowShape expected) {
        super(expected);
    }

    @Override
    public long[] createInstance() {
        return new long[0];
    }

    @Override
    public long[] copy(long[] from) {
        return from.clone();
    }

    @Override
    public void serialize(long[] open, DataOutputView out) throws IOException {
        check(open);
        out.writeByte(VERSION);
        out.writeInt(open.length);
        for (long sub : open) {
            out.writeLong(sub);
        }
    }

    @Override
    public long[] deserialize(DataInputView in) throws IOException {
        int version = in.readByte();
        if (version != VERSION) {
            throw new IOException("open sub-windows: unknown format version " + version + ", expected " + VERSION);
        }
        int count = in.readInt();
        if (count < 0 || count > MAX_OPEN) {
            throw new IOException("open sub-windows: count " + count + " outside [0, " + MAX_OPEN + "]");
        }
        long[] open = new long[count]; // at most 512 KiB, bounded above
        for (int i = 0; i < count; i++) {
            open[i] = in.readLong();
        }
        check(open);
        return open;
    }

    /** Ascending, distinct, no free marker, at most {@value #MAX_OPEN}: else an IOException naming the fault. */
    static void check(long[] open) throws IOException {
        if (open.length > MAX_OPEN) {
            throw new IOException("open sub-windows: count " + open.length + " over " + MAX_OPEN);
        }
        for (int i = 0; i < open.length; i++) {
            if (open[i] == WindowRing.FREE) {
                throw new IOException("open sub-windows: index " + i + " holds the free marker " + WindowRing.FREE);
            }
            if (i > 0 && open[i] <= open[i - 1]) {
                throw new IOException("open sub-windows: not ascending and distinct at index " + i + ": "
                        + open[i - 1] + ", " + open[i]);
            }
        }
    }

    @Override
    public TypeSerializerSnapshot<long[]> snapshotConfiguration() {
        return new Snapshot(expected);
    }

    /**
     * Snapshot of an {@link OpenSubWindowsSerializer}: the expected {@link WindowShape}, version
     * {@value WindowShapeSnapshot#FIRST_VERSION}.
     */
    public static final class Snapshot extends WindowShapeSnapshot<long[]> {

        /** For Flink's reflective instantiation on restore. */
        public Snapshot() {
            super(null);
        }

        Snapshot(WindowShape shape) {
            super(shape);
        }

        @Override
        public TypeSerializer<long[]> restoreSerializer() {
            return new OpenSubWindowsSerializer(shape());
        }
    }
}
