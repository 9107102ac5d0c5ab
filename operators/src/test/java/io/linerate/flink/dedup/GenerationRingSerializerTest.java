package io.linerate.flink.dedup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.linerate.sketches.hash.ItemHasher;

import java.io.IOException;
import java.time.Duration;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

/** The ring's serializer: exact round trip, size as documented, snapshot and compatibility, corrupt input. */
class GenerationRingSerializerTest {

    private static DedupSizing sizing(Duration horizon, long seed) {
        return DedupSizing.derive(horizon, 4, 50, 0.01, seed, 0);
    }

    private static GenerationRing fullRing(DedupSizing s) {
        GenerationRing ring = new GenerationRing(s.generations(), s.seed(), 0, 0);
        ItemHasher hasher = ItemHasher.seeded(s.seed());
        for (long e = 0; e < s.generations(); e++) {
            ring.advanceTo(e, s.itemsPerGeneration());
            for (long i = 0; i < 30; i++) {
                long h1 = hasher.hash(e * 1000 + i);
                ring.testAndPut(h1, ItemHasher.h2(h1), s);
            }
        }
        ring.clock(3500);
        ring.timerAt(4000);
        return ring;
    }

    private static byte[] bytes(TypeSerializer<GenerationRing> ser, GenerationRing ring) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(1024);
        ser.serialize(ring, out);
        return out.getCopyOfBuffer();
    }

    @Test
    void roundTripIsByteExactAndTheSizeIsStateBytesPerKey() throws IOException {
        DedupSizing s = sizing(Duration.ofSeconds(3), 9);
        GenerationRingSerializer ser = new GenerationRingSerializer(s.shape(true));
        GenerationRing ring = fullRing(s);
        byte[] image = bytes(ser, ring);
        assertThat((long) image.length).isEqualTo(s.stateBytesPerKey());
        GenerationRing back = ser.deserialize(new DataInputDeserializer(image));
        assertThat(bytes(ser, back)).isEqualTo(image);
        assertThat(back.epoch()).isEqualTo(3);
        assertThat(back.clock()).isEqualTo(3500);
        assertThat(back.timerAt()).isEqualTo(4000);
        assertThat(back.seed()).isEqualTo(9);
        assertThat(back.inserted(0)).isEqualTo(30);
        GenerationRing copy = ser.copy(ring);
        assertThat(bytes(ser, copy)).isEqualTo(image);
        long h1 = 12345;
        copy.testAndPut(h1, ItemHasher.h2(h1), s);
        assertThat(bytes(ser, ring)).as("a copy shares no filter").isEqualTo(image);
        DataOutputSerializer out = new DataOutputSerializer(64);
        ser.copy(new DataInputDeserializer(image), out);
        assertThat(out.getCopyOfBuffer()).isEqualTo(image);
    }

    @Test
    void snapshotsDetectAChangedShapeNamingTheField() throws IOException {
        DedupSizing before = sizing(Duration.ofSeconds(3), 9);
        DedupSizing after = sizing(Duration.ofSeconds(6), 10);
        TypeSerializerSnapshot<GenerationRing> old = roundTrip(new GenerationRingSerializer(before.shape(true))
                .snapshotConfiguration());
        var same = (GenerationRingSerializer.Snapshot) new GenerationRingSerializer(before.shape(true))
                .snapshotConfiguration();
        var changed = (GenerationRingSerializer.Snapshot) new GenerationRingSerializer(after.shape(true))
                .snapshotConfiguration();
        assertThat(same.resolveSchemaCompatibility(old).isCompatibleAsIs()).isTrue();
        assertThat(changed.resolveSchemaCompatibility(old).isIncompatible()).isTrue();
        assertThat(changed.incompatibilityFrom(old)).contains("spanMillis: 1000 -> 2000", "seed: 9 -> 10");
        var unspecified = (GenerationRingSerializer.Snapshot) new GenerationRingSerializer(null).snapshotConfiguration();
        assertThat(unspecified.resolveSchemaCompatibility(old).isCompatibleAsIs()).isTrue();
        assertThat(old.restoreSerializer()).isEqualTo(new GenerationRingSerializer(before.shape(true)));
        var processing = (GenerationRingSerializer.Snapshot) new GenerationRingSerializer(before.shape(false))
                .snapshotConfiguration();
        assertThat(processing.resolveSchemaCompatibility(old).isIncompatible()).isTrue();
        assertThat(processing.incompatibilityFrom(old)).containsExactly("time: EVENT -> PROCESSING");
    }

    /** Version 1 did not record the time: read with it unknown, compatible with either, the same serializer. */
    @Test
    void aVersionOneSnapshotIsReadWithTheTimeUnknown() throws IOException {
        DedupSizing s = sizing(Duration.ofSeconds(3), 9);
        RingShape shape = s.shape(true);
        DataOutputSerializer out = new DataOutputSerializer(64);
        out.writeBoolean(true);
        out.writeInt(shape.generations());
        out.writeLong(shape.spanMillis());
        out.writeLong(shape.bits());
        out.writeInt(shape.hashCount());
        out.writeInt(shape.blockBits());
        out.writeLong(shape.seed());
        var v1 = new GenerationRingSerializer.Snapshot();
        v1.readSnapshot(1, new DataInputDeserializer(out.getCopyOfBuffer()), getClass().getClassLoader());
        assertThat(v1.shape()).isEqualTo(shape.withoutTime());
        for (boolean eventTime : new boolean[] {true, false}) {
            var now = (GenerationRingSerializer.Snapshot) new GenerationRingSerializer(s.shape(eventTime))
                    .snapshotConfiguration();
            assertThat(now.resolveSchemaCompatibility(v1).isCompatibleAsIs()).isTrue();
            assertThat(v1.restoreSerializer()).isEqualTo(new GenerationRingSerializer(s.shape(eventTime)));
        }
        assertThatThrownBy(() -> v1.readSnapshot(3, new DataInputDeserializer(out.getCopyOfBuffer()),
                getClass().getClassLoader())).isInstanceOf(IOException.class).hasMessageContaining("versions 1 to 2");
    }

    private static TypeSerializerSnapshot<GenerationRing> roundTrip(TypeSerializerSnapshot<GenerationRing> snap)
            throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        snap.writeSnapshot(out);
        var read = new GenerationRingSerializer.Snapshot();
        read.readSnapshot(snap.getCurrentVersion(), new DataInputDeserializer(out.getCopyOfBuffer()),
                GenerationRingSerializerTest.class.getClassLoader());
        return read;
    }

    @Test
    void corruptOrForeignRingsAreRejectedNamingTheField() throws IOException {
        DedupSizing s = sizing(Duration.ofSeconds(3), 9);
        byte[] image = bytes(new GenerationRingSerializer(s.shape(true)), fullRing(s));
        byte[] badCount = image.clone();
        badCount[35] = 99; // generation count, the int after four longs
        assertThatThrownBy(() -> new GenerationRingSerializer(null).deserialize(new DataInputDeserializer(badCount)))
                .isInstanceOf(IOException.class).hasMessageContaining("generations 99 outside [2, 64]");
        DedupSizing other = sizing(Duration.ofSeconds(3), 10);
        assertThatThrownBy(() -> new GenerationRingSerializer(other.shape(true))
                .deserialize(new DataInputDeserializer(image)))
                .isInstanceOf(IOException.class).hasMessage("GenerationRing seed is 9, expected 10");
        byte[] flipped = image.clone();
        flipped[image.length - 20] ^= 1; // inside the last filter's bits: its checksum fails
        assertThatThrownBy(() -> new GenerationRingSerializer(null).deserialize(new DataInputDeserializer(flipped)))
                .isInstanceOf(IOException.class).hasMessageContaining("BlockedBloomFilter");
    }

    /**
     * Expected rate and fpp size the generations a ring creates, not the ring: after a change the restored
     * generations keep their size until they rotate out, so the restore is compatible as is (the change logged),
     * and a ring holding generations of both sizes reads back exactly.
     */
    @Test
    void aChangedRateOrFppIsReadAsIsAndRingsMayMixFilterSizes() throws IOException {
        DedupSizing before = sizing(Duration.ofSeconds(3), 9);
        DedupSizing after = DedupSizing.derive(Duration.ofSeconds(3), 4, 400, 0.001, 9, 0);
        assertThat(after.bitsPerGeneration()).isGreaterThan(before.bitsPerGeneration());
        TypeSerializerSnapshot<GenerationRing> old = roundTrip(new GenerationRingSerializer(before.shape(true))
                .snapshotConfiguration());
        var changed = (GenerationRingSerializer.Snapshot) new GenerationRingSerializer(after.shape(true))
                .snapshotConfiguration();
        assertThat(changed.resolveSchemaCompatibility(old).isCompatibleAsIs()).isTrue();
        assertThat(changed.incompatibilityFrom(old)).isEmpty();
        assertThat(changed.readableChangesFrom(old)).containsExactly(
                "bits: " + before.bitsPerGeneration() + " -> " + after.bitsPerGeneration(),
                "hashCount: " + before.hashCount() + " -> " + after.hashCount());

        GenerationRing ring = fullRing(before); // epochs 0..3 at the old size
        // the current generation (epoch 3) was sized for the old rate: its overfill is judged by its own capacity
        assertThat(ring.currentCapacity(after.itemsPerGeneration(), after.bitsPerGeneration())).isEqualTo(
                (long) Math.ceil((double) after.itemsPerGeneration() * before.bitsPerGeneration()
                        / after.bitsPerGeneration())).isLessThan(after.itemsPerGeneration());
        assertThat(ring.currentCapacity(before.itemsPerGeneration(), before.bitsPerGeneration()))
                .isEqualTo(before.itemsPerGeneration());
        ItemHasher hasher = ItemHasher.seeded(9);
        ring.advanceTo(4, after.itemsPerGeneration()); // epoch 4 replaces epoch 0's slot, at the new size
        for (long i = 0; i < 30; i++) {
            long h1 = hasher.hash(4000 + i);
            ring.testAndPut(h1, ItemHasher.h2(h1), after);
        }
        assertThat(ring.slotFilter(0).bitSize()).isEqualTo(after.bitsPerGeneration());
        assertThat(ring.slotFilter(1).bitSize()).isEqualTo(before.bitsPerGeneration());
        GenerationRingSerializer ser = new GenerationRingSerializer(after.shape(true));
        byte[] image = bytes(ser, ring);
        GenerationRing back = ser.deserialize(new DataInputDeserializer(image));
        assertThat(bytes(ser, back)).isEqualTo(image);
        long old1 = hasher.hash(1000); // inserted in epoch 1, a generation of the old size
        long new1 = hasher.hash(4001);
        assertThat(back.slotFilter(1).mightContain(old1, ItemHasher.h2(old1))).isTrue();
        assertThat(back.slotFilter(0).mightContain(new1, ItemHasher.h2(new1))).isTrue();
    }
}
