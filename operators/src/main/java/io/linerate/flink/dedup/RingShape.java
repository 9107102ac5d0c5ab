package io.linerate.flink.dedup;

import io.linerate.flink.state.StateShape;
import java.io.IOException;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * What a restored {@link GenerationRing} must agree on with the job that reads it: generation count, span,
 * filter size, hash count, block size and seed. A change of any of them (horizon, generations, expected rate,
 * fpp or seed in the builder) makes the old rings unreadable as the new configuration, so the serializer
 * snapshot reports the restore incompatible, naming each field that changed.
 */
record RingShape(int generations, long spanMillis, long bits, int hashCount, int blockBits, long seed)
        implements Serializable, StateShape<RingShape> {

    @Override
    public void write(DataOutputView out) throws IOException {
        out.writeInt(generations);
        out.writeLong(spanMillis);
        out.writeLong(bits);
        out.writeInt(hashCount);
        out.writeInt(blockBits);
        out.writeLong(seed);
    }

    static RingShape read(DataInputView in) throws IOException {
        return new RingShape(in.readInt(), in.readLong(), in.readLong(), in.readInt(), in.readInt(), in.readLong());
    }

    /** Fields that differ, as {@code "generations: 4 -> 5"}; empty if none. */
    @Override
    public List<String> differencesFrom(RingShape old) {
        List<String> out = new ArrayList<>();
        StateShape.diff(out, "generations", old.generations, generations);
        StateShape.diff(out, "spanMillis", old.spanMillis, spanMillis);
        StateShape.diff(out, "bits", old.bits, bits);
        StateShape.diff(out, "hashCount", old.hashCount, hashCount);
        StateShape.diff(out, "blockBits", old.blockBits, blockBits);
        StateShape.diff(out, "seed", old.seed, seed);
        return out;
    }

}
