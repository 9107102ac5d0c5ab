package io.linerate.flink.dedup;

import io.linerate.flink.state.StateShape;
import java.io.IOException;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * The shape of the {@link GenerationRing}s a dedup operator keeps: generation count, span, the size and hash count
 * of the filters it creates, block size, seed and the time its epochs count ({@code null}: unknown, a shape read
 * from a snapshot of version 1, which did not record it).
 *
 * <p>A restore must agree on generation count, span, block size, seed and time: a change of any of them (horizon,
 * generations, seed, event or processing time in the builder) makes the old rings mean something else (an event-time
 * ring's epochs and timers counted in processing time would expire or keep its items at random), so the serializer
 * snapshot reports the restore incompatible, naming each field that changed. Size and hash count (expected rate and fpp, or the
 * sizing model) may change: every filter's image carries its own, the generations restored keep theirs until they
 * rotate out, and the new ones are created at the new size, so the ring answers as the union of both.
 */
record RingShape(int generations, long spanMillis, long bits, int hashCount, int blockBits, long seed, Time time)
        implements Serializable, StateShape<RingShape> {

    /** The clock a ring's epochs and rotation timers follow. */
    enum Time {
        EVENT, PROCESSING;

        static Time of(boolean eventTime) {
            return eventTime ? EVENT : PROCESSING;
        }
    }

    /** Snapshot version 2 (version 1 ends before the time byte). */
    @Override
    public void write(DataOutputView out) throws IOException {
        out.writeInt(generations);
        out.writeLong(spanMillis);
        out.writeLong(bits);
        out.writeInt(hashCount);
        out.writeInt(blockBits);
        out.writeLong(seed);
        out.writeByte(time == null ? 0 : time.ordinal() + 1);
    }

    /** Reads what {@link #write} wrote in snapshot version {@code version} (1 or 2). */
    static RingShape read(DataInputView in, int version) throws IOException {
        int generations = in.readInt();
        long spanMillis = in.readLong();
        long bits = in.readLong();
        int hashCount = in.readInt();
        int blockBits = in.readInt();
        long seed = in.readLong();
        Time time = null;
        if (version >= 2) {
            int code = in.readUnsignedByte();
            if (code > Time.values().length) {
                throw new IOException("RingShape corrupt: time code " + code + " above " + Time.values().length);
            }
            time = code == 0 ? null : Time.values()[code - 1];
        }
        return new RingShape(generations, spanMillis, bits, hashCount, blockBits, seed, time);
    }

    /** This shape with the time unknown: what the serializer's reading and writing depend on. */
    RingShape withoutTime() {
        return time == null ? this : new RingShape(generations, spanMillis, bits, hashCount, blockBits, seed, null);
    }

    /** Fields that differ and make old rings unreadable, as {@code "generations: 4 -> 5"}; empty if none. */
    @Override
    public List<String> differencesFrom(RingShape old) {
        List<String> out = new ArrayList<>();
        StateShape.diff(out, "generations", old.generations, generations);
        StateShape.diff(out, "spanMillis", old.spanMillis, spanMillis);
        StateShape.diff(out, "blockBits", old.blockBits, blockBits);
        StateShape.diff(out, "seed", old.seed, seed);
        if (old.time != null && time != null) {
            StateShape.diff(out, "time", old.time, time);
        }
        return out;
    }

    /** The size of new generations: restored ones keep theirs until they rotate out. */
    @Override
    public List<String> readableDifferencesFrom(RingShape old) {
        List<String> out = new ArrayList<>();
        StateShape.diff(out, "bits", old.bits, bits);
        StateShape.diff(out, "hashCount", old.hashCount, hashCount);
        return out;
    }

}
