package io.linerate.flink.heavyhitters;

import io.linerate.flink.serializers.CountMinHeapSerializer;
import io.linerate.flink.serializers.SpaceSavingSerializer;
import io.linerate.sketches.frequency.CountMinHeap;
import io.linerate.sketches.frequency.HeavyHitters;
import io.linerate.sketches.frequency.SpaceSaving;
import java.io.IOException;
import java.util.concurrent.atomic.LongAdder;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Flink serializer of a {@link SubWindow}, the value of the heavy-hitters map state (state layout 2), composed of the
 * state-serializers' tracker serializers (never Kryo). Format v1: byte version, then the sub-window's body as a
 * layout-1 ring slot holds it ({@link WindowRingSerializer}): a tracker tag byte (0 Space-Saving, 1 CM-heap), the
 * tracker as its serializer writes it (int length + versioned image), and the alerted item hashes (int count, longs).
 *
 * <p>Reading checks the alerted count against the tracker's capacity and, if the serializer expects a
 * {@link WindowShape}, the tracker's kind and capacity against it; a mismatch is an {@link IOException} naming the
 * field. Writing refuses a sub-window the reader would reject (more alerted items than its tracker's capacity).
 */
public final class SubWindowSerializer extends WindowShapeSerializer<SubWindow> {

    private static final long serialVersionUID = 1L;
    private static final byte VERSION = 1;
    private static final byte SPACE_SAVING = 0;
    private static final byte COUNT_MIN_HEAP = 1;

    /** A serializer that accepts sub-windows of any shape. */
    public static final SubWindowSerializer INSTANCE = new SubWindowSerializer(null);

    /** Sub-windows written in this JVM: lets a job test see that checkpoints went through this serializer. */
    static final LongAdder WRITES = new LongAdder();
    /** Sub-windows read in this JVM: lets a test see that a record reads its own sub-window only. */
    static final LongAdder READS = new LongAdder();


    /** @param expected the shape sub-windows must have, or {@code null} to accept any */
    SubWindowSerializer(WindowShape expected) {
        super(expected);
    }

    @Override
    public SubWindow createInstance() {
        return null; // a sub-window has no empty form: it holds a tracker of the configured shape
    }

    /** A deep copy (the heap backend copies state on write during a snapshot). */
    @Override
    public SubWindow copy(SubWindow from) {
        return from.copy();
    }

    @Override
    public void serialize(SubWindow window, DataOutputView out) throws IOException {
        checkWritable(window, "SubWindow");
        WRITES.increment();
        out.writeByte(VERSION);
        writeBody(window, out);
    }

    @Override
    public SubWindow deserialize(DataInputView in) throws IOException {
        int version = in.readByte();
        if (version != VERSION) {
            throw new IOException("SubWindow: unknown format version " + version + ", expected " + VERSION);
        }
        READS.increment();
        return readBody(in, expected, "SubWindow");
    }

    /** Throws if the reader would reject {@code window}: more alerted items than its tracker's capacity. */
    static void checkWritable(SubWindow window, String what) throws IOException {
        int alerted = window.alerted == null ? 0 : window.alerted.size();
        if (alerted > capacityOf(window.tracker)) {
            throw new IOException(what + " has " + alerted + " alerted items, more than its tracker's capacity "
                    + capacityOf(window.tracker) + ", a state the reader would reject");
        }
    }

    /** The body of format v1, also a layout-1 ring's open slot: tag, tracker, alerted hashes. */
    static void writeBody(SubWindow window, DataOutputView out) throws IOException {
        HeavyHitters t = window.tracker;
        if (t instanceof SpaceSaving ss) {
            out.writeByte(SPACE_SAVING);
            SpaceSavingSerializer.INSTANCE.serialize(ss, out);
        } else {
            out.writeByte(COUNT_MIN_HEAP);
            CountMinHeapSerializer.INSTANCE.serialize((CountMinHeap) t, out);
        }
        long[] alerted = window.alerted == null ? new long[0] : window.alerted.toArray();
        out.writeInt(alerted.length);
        for (long h : alerted) {
            out.writeLong(h);
        }
    }

    /**
     * Reads what {@link #writeBody} wrote, checking the tracker against {@code expected} (if not null) and the alerted
     * count against the tracker's capacity; {@code what} names the place in an exception ("WindowRing slot 2").
     */
    static SubWindow readBody(DataInputView in, WindowShape expected, String what) throws IOException {
        int tag = in.readByte();
        HeavyHitters tracker = switch (tag) {
            case SPACE_SAVING -> SpaceSavingSerializer.INSTANCE.deserialize(in);
            case COUNT_MIN_HEAP -> CountMinHeapSerializer.INSTANCE.deserialize(in);
            default -> throw new IOException(what + ": unknown tracker tag " + tag);
        };
        if (expected != null) {
            checkShape(tracker, expected, what);
        }
        int alerted = in.readInt();
        int limit = capacityOf(tracker);
        if (alerted < 0 || alerted > limit) {
            throw new IOException(what + ": alerted count " + alerted + " outside [0, " + limit + "]");
        }
        AlertedItems set = null;
        if (alerted > 0) {
            // the set grows as hashes arrive: a count claiming up to the capacity (2^26) on a short input fails with
            // an EOF before allocating for it
            set = new AlertedItems();
            for (int a = 0; a < alerted; a++) {
                set.add(in.readLong(), Integer.MAX_VALUE);
            }
        }
        return new SubWindow(tracker, set);
    }

    private static void checkShape(HeavyHitters tracker, WindowShape expected, String what) throws IOException {
        String kind = (tracker instanceof SpaceSaving ? TrackerKind.SPACE_SAVING : TrackerKind.COUNT_MIN_HEAP).name();
        if (!kind.equals(expected.tracker())) {
            throw new IOException(what + ": tracker is " + kind + ", expected " + expected.tracker()
                    + OTHER_CONFIGURATION);
        }
        if (capacityOf(tracker) != expected.capacity()) {
            throw new IOException(what + ": capacity is " + capacityOf(tracker) + ", expected "
                    + expected.capacity() + OTHER_CONFIGURATION);
        }
    }

    /**
     * Why a tracker of another shape reaches a reader expecting this one, and what to do: only state restored from
     * a snapshot that recorded no shape (compatible as is into any configuration) gets here, at the first read of
     * each key on RocksDB.
     */
    static final String OTHER_CONFIGURATION = " (state written by an operator configured otherwise, restored from a"
            + " savepoint that recorded no shape: restore it with the configuration it was taken with)";

    static int capacityOf(HeavyHitters tracker) {
        return tracker instanceof SpaceSaving ss ? ss.capacity() : ((CountMinHeap) tracker).capacity();
    }

    @Override
    public TypeSerializerSnapshot<SubWindow> snapshotConfiguration() {
        return new Snapshot(expected);
    }

    /**
     * Snapshot of a {@link SubWindowSerializer}: its expected {@link WindowShape} (a boolean "shape present", then the
     * shape's fields), version {@value WindowShapeSnapshot#FIRST_VERSION}. A restore whose configured shape differs
     * in any field is incompatible, the differences logged (e.g. {@code "slideMillis: 1000 -> 2000"}).
     */
    public static final class Snapshot extends WindowShapeSnapshot<SubWindow> {

        /** For Flink's reflective instantiation on restore. */
        public Snapshot() {
            super(null);
        }

        Snapshot(WindowShape shape) {
            super(shape);
        }

        @Override
        public TypeSerializer<SubWindow> restoreSerializer() {
            return new SubWindowSerializer(shape());
        }
    }
}
