package io.linerate.flink.dedup;

import io.linerate.flink.serializers.BlockedBloomFilterSerializer;
import io.linerate.sketches.bloom.BlockedBloomFilter;

import io.linerate.flink.state.ShapeCheckedSnapshot;
import java.io.IOException;
import java.util.Objects;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Flink serializer of a {@link GenerationRing}, composing {@link BlockedBloomFilterSerializer} for the filters.
 *
 * <p>Wire format: seed, epoch, clock, timerAt (longs), generation count g (int), then per slot in slot order
 * the distinct-insert count (long), a presence flag (boolean) and, if present, the filter as
 * {@link BlockedBloomFilterSerializer} writes it (int length + the filter's checksummed image).
 *
 * <p>Reading checks g against [{@value #MIN_GENERATIONS}, {@value #MAX_GENERATIONS}], every filter's seed against
 * the ring's, and, if the serializer expects a {@link RingShape}, the count, the seed and every filter's block size
 * against it; a mismatch is an {@link IOException} naming the field. A filter's size and hash count are its own
 * (validated by {@link BlockedBloomFilterSerializer}): a ring restored after the expected rate or fpp changed holds
 * generations of the old size until they rotate out.
 */
public final class GenerationRingSerializer extends TypeSerializer<GenerationRing> {

    private static final long serialVersionUID = 1L;

    static final int MIN_GENERATIONS = 2;
    static final int MAX_GENERATIONS = 64;

    private static final BlockedBloomFilterSerializer FILTERS = BlockedBloomFilterSerializer.INSTANCE;

    private final RingShape expected;

    /** @param expected the shape rings must have, or {@code null} to accept any */
    GenerationRingSerializer(RingShape expected) {
        this.expected = expected;
    }

    @Override
    public boolean isImmutableType() {
        return false;
    }

    @Override
    public TypeSerializer<GenerationRing> duplicate() {
        return this; // stateless: the expected shape is immutable, the filter serializer too
    }

    /** {@code null}: a ring cannot be made without its shape, and Flink does not need one for reuse. */
    @Override
    public GenerationRing createInstance() {
        return null;
    }

    @Override
    public GenerationRing copy(GenerationRing from) {
        int g = from.generationCount();
        BlockedBloomFilter[] filters = new BlockedBloomFilter[g];
        long[] inserted = new long[g];
        for (int s = 0; s < g; s++) {
            BlockedBloomFilter f = from.slotFilter(s);
            filters[s] = f == null ? null : FILTERS.copy(f);
            inserted[s] = from.slotInserted(s);
        }
        return new GenerationRing(from.seed(), filters, inserted, from.epoch(), from.clock(), from.timerAt());
    }

    @Override
    public GenerationRing copy(GenerationRing from, GenerationRing reuse) {
        return copy(from);
    }

    @Override
    public int getLength() {
        return -1;
    }

    @Override
    public void serialize(GenerationRing ring, DataOutputView out) throws IOException {
        out.writeLong(ring.seed());
        out.writeLong(ring.epoch());
        out.writeLong(ring.clock());
        out.writeLong(ring.timerAt());
        int g = ring.generationCount();
        out.writeInt(g);
        for (int s = 0; s < g; s++) {
            out.writeLong(ring.slotInserted(s));
            BlockedBloomFilter f = ring.slotFilter(s);
            out.writeBoolean(f != null);
            if (f != null) {
                FILTERS.serialize(f, out);
            }
        }
    }

    @Override
    public GenerationRing deserialize(DataInputView in) throws IOException {
        long seed = in.readLong();
        long epoch = in.readLong();
        long clock = in.readLong();
        long timerAt = in.readLong();
        int g = in.readInt();
        if (g < MIN_GENERATIONS || g > MAX_GENERATIONS) {
            throw new IOException("GenerationRing corrupt: generations " + g + " outside [" + MIN_GENERATIONS + ", "
                    + MAX_GENERATIONS + "]");
        }
        if (expected != null) {
            check("generations", expected.generations(), g);
            check("seed", expected.seed(), seed);
        }
        BlockedBloomFilter[] filters = new BlockedBloomFilter[g];
        long[] inserted = new long[g];
        for (int s = 0; s < g; s++) {
            inserted[s] = in.readLong();
            if (inserted[s] < 0) {
                throw new IOException("GenerationRing corrupt: slot " + s + " inserted count " + inserted[s] + " < 0");
            }
            if (in.readBoolean()) {
                BlockedBloomFilter f = FILTERS.deserialize(in);
                check("filter seed", seed, f.hasher().seed());
                if (expected != null) {
                    check("blockBits", expected.blockBits(), f.blockBits());
                }
                filters[s] = f;
            }
        }
        return new GenerationRing(seed, filters, inserted, epoch, clock, timerAt);
    }

    private static void check(String field, long expected, long actual) throws IOException {
        if (expected != actual) {
            throw new IOException("GenerationRing " + field + " is " + actual + ", expected " + expected);
        }
    }

    @Override
    public GenerationRing deserialize(GenerationRing reuse, DataInputView in) throws IOException {
        return deserialize(in);
    }

    @Override
    public void copy(DataInputView in, DataOutputView out) throws IOException {
        serialize(deserialize(in), out);
    }

    @Override
    public TypeSerializerSnapshot<GenerationRing> snapshotConfiguration() {
        return new Snapshot(expected);
    }

    /**
     * Equal if they read and write alike: the expected shapes equal but for the time, which only the snapshot's
     * compatibility check reads (so the serializer restored from a version-1 snapshot, which did not record the
     * time, equals the one configured now).
     */
    @Override
    public boolean equals(Object o) {
        return o instanceof GenerationRingSerializer other && Objects.equals(formatOf(expected),
                formatOf(other.expected));
    }

    @Override
    public int hashCode() {
        return Objects.hashCode(formatOf(expected));
    }

    private static RingShape formatOf(RingShape shape) {
        return shape == null ? null : shape.withoutTime();
    }

    @Override
    public String toString() {
        return "GenerationRingSerializer" + (expected == null ? "[any shape]" : expected.toString());
    }

    /**
     * Snapshot of a {@link GenerationRingSerializer}: its expected {@link RingShape}. Format: a boolean "shape
     * present", then the shape's fields; version 2 adds the time (event or processing) after the seed, version 1
     * (until 2026-11-27) did not record it, and is read with the time unknown. A restore whose configured
     * shape differs from the snapshot's in a field the rings depend on is incompatible (the differences are logged,
     * e.g. {@code "spanMillis: 1000 -> 2000"}, {@code "time: EVENT -> PROCESSING"}); see {@link RingShape}.
     */
    public static final class Snapshot extends ShapeCheckedSnapshot<GenerationRing, RingShape> {

        private static final int VERSION = 2;

        /** For Flink's reflective instantiation on restore. */
        public Snapshot() {
            super(null);
        }

        Snapshot(RingShape shape) {
            super(shape);
        }

        @Override
        protected String stateName() {
            return "deduplication";
        }

        @Override
        public int getCurrentVersion() {
            return VERSION;
        }

        @Override
        public void readSnapshot(int readVersion, DataInputView in, ClassLoader classLoader) throws IOException {
            if (readVersion < 1 || readVersion > VERSION) {
                throw new IOException("GenerationRingSerializer snapshot version " + readVersion
                        + " is not supported, this library reads versions 1 to " + VERSION);
            }
            shape(hasShape(in) ? RingShape.read(in, readVersion) : null);
        }

        @Override
        public TypeSerializer<GenerationRing> restoreSerializer() {
            return new GenerationRingSerializer(shape());
        }
    }
}
