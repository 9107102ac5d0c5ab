package io.linerate.flink.heavyhitters;

import java.io.IOException;
import java.util.Arrays;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Flink serializer of a whole {@link WindowRing} as one value: the heavy-hitters state of layout 1 (the value state
 * {@code heavy-hitter-windows}, one ring per scope key), read at a restore from a checkpoint or savepoint of that
 * layout and moved to layout 2 (one map entry per sub-window, {@link SubWindowSerializer}); the operator no longer
 * writes it. Format v1: byte version, int slot count, then per slot a long sub-window index ({@code Long.MIN_VALUE} =
 * free) and, for an open slot, the sub-window's body ({@link SubWindowSerializer#writeBody}: a tracker tag byte, 0
 * Space-Saving, 1 CM-heap, the tracker as its serializer writes it, int length + versioned image, and the alerted
 * item hashes, int count, longs).
 *
 * <p>Reading checks the slot count against [1, {@value #MAX_SLOTS}] and each slot's alerted count against its
 * tracker's capacity, and, if the serializer expects a {@link WindowShape}, each tracker's kind and capacity against
 * it; a mismatch is an {@link IOException} naming the field. Writing refuses a ring the reader would reject (more
 * than {@value #MAX_SLOTS} slots, more alerted items than a tracker's capacity), so a checkpoint never holds state
 * that cannot be restored; the operator never builds one ({@code maxOpenSubWindows} ≤ {@value #MAX_SLOTS}).
 */
public final class WindowRingSerializer extends WindowShapeSerializer<WindowRing> {

    private static final long serialVersionUID = 1L;
    private static final byte VERSION = 1;
    /** The most slots a ring may have: bounds a corrupt slot count before anything is allocated. */
    static final int MAX_SLOTS = 1 << 16;

    /** A serializer that accepts rings of any shape. */
    public static final WindowRingSerializer INSTANCE = new WindowRingSerializer(null);

    /** Rings written in this JVM: lets a job test see that checkpoints went through this serializer. */
    static final java.util.concurrent.atomic.LongAdder WRITES = new java.util.concurrent.atomic.LongAdder();


    /** @param expected the shape rings must have, or {@code null} to accept any */
    WindowRingSerializer(WindowShape expected) {
        super(expected);
    }

    @Override
    public WindowRing createInstance() {
        return new WindowRing(1);
    }

    /** A deep copy of every open slot's sub-window (array copies, no image round trip). */
    @Override
    public WindowRing copy(WindowRing from) {
        WindowRing to = new WindowRing(from.slots());
        for (int i = 0; i < from.slots(); i++) {
            if (from.subWindows[i] != WindowRing.FREE) {
                to.restoreSlot(i, from.subWindows[i], from.window(i).copy());
            }
        }
        return to;
    }

    @Override
    public void serialize(WindowRing ring, DataOutputView out) throws IOException {
        if (ring.slots() < 1 || ring.slots() > MAX_SLOTS) {
            throw new IOException("WindowRing: slot count " + ring.slots() + " outside [1, " + MAX_SLOTS
                    + "], a ring the reader would reject");
        }
        WRITES.increment();
        out.writeByte(VERSION);
        out.writeInt(ring.slots());
        for (int i = 0; i < ring.slots(); i++) {
            long sub = ring.subWindows[i];
            out.writeLong(sub);
            if (sub != WindowRing.FREE) {
                SubWindow window = ring.window(i);
                SubWindowSerializer.checkWritable(window, "WindowRing: slot " + i);
                SubWindowSerializer.writeBody(window, out);
            }
        }
    }

    @Override
    public WindowRing deserialize(DataInputView in) throws IOException {
        int version = in.readByte();
        if (version != VERSION) {
            throw new IOException("WindowRing: unknown format version " + version + ", expected " + VERSION);
        }
        int slots = in.readInt();
        if (slots < 1 || slots > MAX_SLOTS) {
            throw new IOException("WindowRing: slot count " + slots + " outside [1, " + MAX_SLOTS + "]");
        }
        WindowRing ring = new WindowRing(slots);
        for (int i = 0; i < slots; i++) {
            long sub = in.readLong();
            if (sub != WindowRing.FREE) {
                ring.restoreSlot(i, sub, SubWindowSerializer.readBody(in, expected, "WindowRing slot " + i));
            }
        }
        checkDistinctSubWindows(ring.subWindows);
        return ring;
    }

    /** Two slots of one sub-window would count its weight twice in every report that covers it. */
    private static void checkDistinctSubWindows(long[] subWindows) throws IOException {
        long[] sorted = subWindows.clone();
        Arrays.sort(sorted);
        for (int i = 1; i < sorted.length; i++) {
            if (sorted[i] == sorted[i - 1] && sorted[i] != WindowRing.FREE) {
                throw new IOException("WindowRing: two slots hold sub-window " + sorted[i]);
            }
        }
    }

    @Override
    public TypeSerializerSnapshot<WindowRing> snapshotConfiguration() {
        return new Snapshot(expected);
    }

    /**
     * Snapshot of a {@link WindowRingSerializer}: its expected {@link WindowShape}. Format version
     * {@value #VERSION}: a boolean "shape present", then the shape's fields. Version {@value #LEGACY_VERSION} is
     * what linerate wrote before shapes were recorded (Flink's {@code SimpleTypeSerializerSnapshot}, under this
     * class name, no bytes): it reads as "shape unknown". A restore whose configured shape differs from the
     * snapshot's in any field is incompatible (the differences are logged, e.g. {@code "slideMillis: 1000 ->
     * 2000"}); if either side's shape is unknown it is compatible as is, as every restore was before.
     */
    public static final class Snapshot extends WindowShapeSnapshot<WindowRing> {

        /** Written by {@code SimpleTypeSerializerSnapshot} before shapes were recorded (v1 savepoints): no bytes. */
        static final int LEGACY_VERSION = 3;
        static final int VERSION = 4;

        /** For Flink's reflective instantiation on restore. */
        public Snapshot() {
            super(null);
        }

        Snapshot(WindowShape shape) {
            super(shape);
        }

        @Override
        public int getCurrentVersion() {
            return VERSION;
        }

        @Override
        public void readSnapshot(int readVersion, DataInputView in, ClassLoader classLoader) throws IOException {
            if (readVersion == LEGACY_VERSION) {
                shape(null);
            } else if (readVersion == VERSION) {
                readCurrentVersion(readVersion, in, "WindowRingSerializer");
            } else {
                throw new IOException("WindowRingSerializer snapshot version " + readVersion + " is not supported,"
                        + " this library reads versions " + LEGACY_VERSION + " and " + VERSION);
            }
        }

        @Override
        public TypeSerializer<WindowRing> restoreSerializer() {
            return new WindowRingSerializer(shape());
        }
    }
}
