package io.linerate.flink.heavyhitters;

import io.linerate.flink.state.StateShape;
import java.io.IOException;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * What a restored {@link WindowRing} must agree on with the job that reads it: the slide (what a sub-window index
 * means), the sub-windows per window (which sub-windows a report merges and when a slot is freed), and the
 * trackers' kind, capacity, sketch width and depth (0 for Space-Saving), key kind and seed (trackers of one window
 * merge only if these are equal). A change of any of them makes the open windows unreadable as the new
 * configuration, so the serializer snapshot reports the restore incompatible, naming each field that changed.
 */
record WindowShape(long slideMillis, int subWindows, String tracker, int capacity, int cmWidth, int cmDepth,
                   String keyKind, long seed) implements Serializable, StateShape<WindowShape> {

    WindowShape {
        Objects.requireNonNull(tracker, "tracker");
        Objects.requireNonNull(keyKind, "keyKind");
    }

    @Override
    public void write(DataOutputView out) throws IOException {
        out.writeLong(slideMillis);
        out.writeInt(subWindows);
        out.writeUTF(tracker);
        out.writeInt(capacity);
        out.writeInt(cmWidth);
        out.writeInt(cmDepth);
        out.writeUTF(keyKind);
        out.writeLong(seed);
    }

    static WindowShape read(DataInputView in) throws IOException {
        return new WindowShape(in.readLong(), in.readInt(), in.readUTF(), in.readInt(), in.readInt(), in.readInt(),
                in.readUTF(), in.readLong());
    }

    /** Fields that differ, as {@code "slideMillis: 1000 -> 2000"}; empty if none. */
    @Override
    public List<String> differencesFrom(WindowShape old) {
        List<String> out = new ArrayList<>();
        StateShape.diff(out, "slideMillis", old.slideMillis, slideMillis);
        StateShape.diff(out, "subWindows", old.subWindows, subWindows);
        StateShape.diff(out, "tracker", old.tracker, tracker);
        StateShape.diff(out, "capacity", old.capacity, capacity);
        StateShape.diff(out, "cmWidth", old.cmWidth, cmWidth);
        StateShape.diff(out, "cmDepth", old.cmDepth, cmDepth);
        StateShape.diff(out, "keyKind", old.keyKind, keyKind);
        StateShape.diff(out, "seed", old.seed, seed);
        return out;
    }

}
