package io.linerate.flink.heavyhitters;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.linerate.flink.items.ItemSelector;
import io.linerate.sketches.frequency.CountMinHeap;
import io.linerate.sketches.frequency.HeavyHitters;
import io.linerate.sketches.frequency.KeyKind;
import io.linerate.sketches.frequency.SpaceSaving;
import java.io.IOException;
import java.time.Duration;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

/**
 * The per-key ring's serializer: round trip, deep copy, snapshot compatibility (shape changes named, the legacy
 * shapeless snapshot still read), corrupt input, and no ring written that the reader would reject.
 */
class WindowRingSerializerTest {

    private static WindowRing sample() {
        WindowRing ring = new WindowRing(3);
        HeavyHitters ss = SpaceSaving.withCapacity(KeyKind.longs(), 16, 5);
        HeavyHitters cmh = CountMinHeap.create(KeyKind.longs(), 8, 61, 3, true, 5);
        for (long i = 0; i < 200; i++) {
            ss.update(i % 23, 1 + i % 3);
            cmh.update(i % 11, 2);
        }
        int a = ring.open(7, ss);
        ring.markAlerted(a, 42, 16);
        ring.markAlerted(a, 0, 16);
        ring.open(9, cmh);
        return ring;
    }

    private static byte[] bytes(WindowRing ring) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(256);
        WindowRingSerializer.INSTANCE.serialize(ring, out);
        return out.getCopyOfBuffer();
    }

    @Test
    void roundTripKeepsSlotsTrackersAndAlerts() throws IOException {
        WindowRing ring = sample();
        WindowRing back = WindowRingSerializer.INSTANCE.deserialize(new DataInputDeserializer(bytes(ring)));
        assertThat(back.slots()).isEqualTo(3);
        assertThat(back.subWindows).containsExactly(7, 9, WindowRing.FREE);
        assertThat(back.tracker(0).toByteArray()).isEqualTo(ring.tracker(0).toByteArray());
        assertThat(back.tracker(1).toByteArray()).isEqualTo(ring.tracker(1).toByteArray());
        assertThat(back.window(0).alerted).isEqualTo(ring.window(0).alerted);
        assertThat(back.window(0).alerted.contains(0)).isTrue();
        assertThat(back.window(1).alerted).isNull();
        assertThat(bytes(back)).isEqualTo(bytes(ring));
    }

    /** The heap backend copies state on write during a snapshot: the copy must share nothing. */
    @Test
    void copyIsDeep() throws IOException {
        WindowRing ring = sample();
        byte[] before = bytes(ring);
        WindowRing copy = WindowRingSerializer.INSTANCE.copy(ring);
        copy.tracker(0).update(99L, 1000);
        copy.markAlerted(0, 77, 16);
        copy.free(1);
        assertThat(bytes(ring)).isEqualTo(before);
        assertThat(bytes(WindowRingSerializer.INSTANCE.copy(ring))).isEqualTo(before);
    }

    @Test
    void snapshotRestoresACompatibleSerializer() {
        var snapshot = WindowRingSerializer.INSTANCE.snapshotConfiguration();
        TypeSerializer<WindowRing> restored = snapshot.restoreSerializer();
        assertThat(restored).isEqualTo(WindowRingSerializer.INSTANCE);
        TypeSerializerSchemaCompatibility<WindowRing> compat = WindowRingSerializer.INSTANCE.snapshotConfiguration()
                .resolveSchemaCompatibility(snapshot);
        assertThat(compat.isCompatibleAsIs()).isTrue();
    }

    @Test
    void corruptInputFailsWithANamedIoException() throws IOException {
        byte[] good = bytes(sample());
        byte[] badVersion = good.clone();
        badVersion[0] = 9;
        assertThatThrownBy(() -> WindowRingSerializer.INSTANCE.deserialize(new DataInputDeserializer(badVersion)))
                .isInstanceOf(IOException.class).hasMessageContaining("format version 9");
        byte[] badSlots = good.clone();
        badSlots[1] = 0x7F; // slot count 2^31-ish
        assertThatThrownBy(() -> WindowRingSerializer.INSTANCE.deserialize(new DataInputDeserializer(badSlots)))
                .isInstanceOf(IOException.class).hasMessageContaining("slot count");
        byte[] truncated = java.util.Arrays.copyOf(good, good.length - 5);
        assertThatThrownBy(() -> WindowRingSerializer.INSTANCE.deserialize(new DataInputDeserializer(truncated)))
                .isInstanceOf(IOException.class);
    }

    /** A corrupt ring with one sub-window in two slots would count that sub-window's weight twice in its reports. */
    @Test
    void twoSlotsOfOneSubWindowAreRejected() throws IOException {
        WindowRing ring = sample();
        ring.subWindows[1] = ring.subWindows[0];
        byte[] corrupt = bytes(ring);
        assertThatThrownBy(() -> WindowRingSerializer.INSTANCE.deserialize(new DataInputDeserializer(corrupt)))
                .isInstanceOf(IOException.class).hasMessageContaining("two slots hold sub-window 7");
    }

    /** The reader refuses over MAX_SLOTS slots or more alerted items than a tracker's capacity; so does the writer. */
    @Test
    void serializeRefusesARingTheReaderWouldReject() throws IOException {
        WindowRing largest = new WindowRing(WindowRingSerializer.MAX_SLOTS);
        largest.open(5, SpaceSaving.withCapacity(KeyKind.longs(), 4, 1));
        assertThat(WindowRingSerializer.INSTANCE.deserialize(new DataInputDeserializer(bytes(largest))).slots())
                .isEqualTo(WindowRingSerializer.MAX_SLOTS);
        WindowRing tooMany = new WindowRing(WindowRingSerializer.MAX_SLOTS + 1);
        tooMany.open(5, SpaceSaving.withCapacity(KeyKind.longs(), 4, 1));
        assertThatThrownBy(() -> bytes(tooMany)).isInstanceOf(IOException.class)
                .hasMessageContaining("slot count 65537 outside [1, 65536]");

        WindowRing overAlerted = new WindowRing(1);
        int slot = overAlerted.open(5, SpaceSaving.withCapacity(KeyKind.longs(), 2, 1));
        for (long h = 1; h <= 3; h++) {
            assertThat(overAlerted.markAlerted(slot, h, 10)).isEqualTo(WindowRing.Mark.ADDED);
        }
        assertThatThrownBy(() -> bytes(overAlerted)).isInstanceOf(IOException.class)
                .hasMessageContaining("3 alerted items, more than its tracker's capacity 2");
    }

    /**
     * A hostile ring: one slot whose tracker image is tiny but declares the largest capacity (2^26), then an alerted
     * count of 2^26 with no hashes behind it. The reader must fail on the missing bytes without first allocating
     * the 512 MiB the count claims (the slot count is bounded for the same reason).
     */
    @Test
    void anAlertedCountClaimingMillionsOnAShortInputFailsWithoutALargeAllocation() throws IOException {
        byte[] image = SpaceSaving.withCapacity(KeyKind.longs(), 4, 1).toByteArray();
        java.nio.ByteBuffer.wrap(image).order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt(24, 1 << 26); // capacity
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(image, 0, image.length - 4);
        java.nio.ByteBuffer.wrap(image).order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt(image.length - 4,
                (int) crc.getValue());
        DataOutputSerializer out = new DataOutputSerializer(256);
        out.writeByte(1); // format version
        out.writeInt(1); // slots
        out.writeLong(7); // sub-window
        out.writeByte(0); // Space-Saving
        out.writeInt(image.length);
        out.write(image);
        out.writeInt(1 << 26); // alerted count: as many as the capacity, none present
        out.writeLong(42);
        byte[] hostile = out.getCopyOfBuffer();

        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long before = threads.getThreadAllocatedBytes(Thread.currentThread().getId());
        assertThatThrownBy(() -> WindowRingSerializer.INSTANCE.deserialize(new DataInputDeserializer(hostile)))
                .isInstanceOf(java.io.EOFException.class);
        long allocated = threads.getThreadAllocatedBytes(Thread.currentThread().getId()) - before;
        assertThat(allocated).as("bytes allocated for a 2^26 alerted count on %d bytes", hostile.length)
                .isLessThan(4L << 20);
    }

    private static WindowShape shape(HeavyHitterDetector.Builder<?, ?> builder) {
        return builder.build().shape();
    }

    private static HeavyHitterDetector.Builder<?, ?> base() {
        return Fixtures.builder().sliding(Duration.ofSeconds(3), Duration.ofSeconds(1)).phi(0.05).capacity(60);
    }

    /** Flink's round trip of a snapshot: class name, version, the snapshot's bytes; read back reflectively. */
    private static TypeSerializerSnapshot<WindowRing> roundTrip(TypeSerializerSnapshot<WindowRing> snapshot)
            throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(128);
        TypeSerializerSnapshot.writeVersionedSnapshot(out, snapshot);
        return TypeSerializerSnapshot.readVersionedSnapshot(new DataInputDeserializer(out.getCopyOfBuffer()),
                WindowRingSerializerTest.class.getClassLoader());
    }

    private static WindowRingSerializer.Snapshot configured(WindowShape shape) {
        return (WindowRingSerializer.Snapshot) new WindowRingSerializer(shape).snapshotConfiguration();
    }

    /**
     * A restore into a configuration of another slide, window size, tracker kind, capacity or seed is incompatible,
     * naming each changed field; the same configuration (or other φ, k, alerts: not part of the state) is compatible.
     */
    @Test
    void snapshotsDetectAChangedShapeNamingTheField() throws IOException {
        TypeSerializerSnapshot<WindowRing> old = roundTrip(configured(shape(base())));
        assertThat(((WindowRingSerializer.Snapshot) old).shape()).isEqualTo(shape(base()));
        assertThat(configured(shape(base().topK(3).phi(0.1).alertAtWeight(9))).resolveSchemaCompatibility(old)
                .isCompatibleAsIs()).isTrue();
        assertThat(old.restoreSerializer()).isEqualTo(new WindowRingSerializer(shape(base())));

        assertIncompatible(old, Fixtures.builder().tumbling(Duration.ofSeconds(3)).phi(0.05).capacity(60),
                "slideMillis: 1000 -> 3000",
                "subWindows: 3 -> 1");
        assertIncompatible(old, base().sliding(Duration.ofSeconds(6), Duration.ofSeconds(1)), "subWindows: 3 -> 6");
        assertIncompatible(old, base().countMinHeap(128, 3), "tracker: SPACE_SAVING -> COUNT_MIN_HEAP",
                "cmWidth: 0 -> 128", "cmDepth: 0 -> 3");
        assertIncompatible(old, base().capacity(80), "capacity: 60 -> 80");
        assertIncompatible(old, base().seed(7), "seed: " + shape(base()).seed() + " -> 7");
        ItemSelector<Tuple3<String, Long, Integer>> strings = ItemSelector.strings(r -> "x");
        assertIncompatible(old, HeavyHitterDetector.builder(Fixtures.LINK, strings)
                        .sliding(Duration.ofSeconds(3), Duration.ofSeconds(1)).phi(0.05).capacity(60),
                "keyKind: LONG -> BYTES(64)");
    }

    private static void assertIncompatible(TypeSerializerSnapshot<WindowRing> old,
                                           HeavyHitterDetector.Builder<?, ?> now, String... differences) {
        WindowRingSerializer.Snapshot snapshot = configured(shape(now));
        assertThat(snapshot.resolveSchemaCompatibility(old).isIncompatible()).as(String.join(", ", differences))
                .isTrue();
        assertThat(snapshot.incompatibilityFrom(old)).containsExactly(differences);
    }

    /**
     * Savepoints written before shapes were recorded hold {@code WindowRingSerializer$Snapshot} at version 3 with
     * no bytes (Flink's SimpleTypeSerializerSnapshot; the v1 savepoint fixture has exactly that): they restore
     * compatible as is into any configuration, with a serializer that reads rings of any shape.
     */
    @Test
    void aLegacySnapshotWithoutShapeStillRestores() throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(128);
        out.writeUTF(WindowRingSerializer.Snapshot.class.getName());
        out.writeInt(3);
        TypeSerializerSnapshot<WindowRing> legacy = TypeSerializerSnapshot.readVersionedSnapshot(
                new DataInputDeserializer(out.getCopyOfBuffer()), WindowRingSerializerTest.class.getClassLoader());
        assertThat(((WindowRingSerializer.Snapshot) legacy).shape()).isNull();
        assertThat(configured(shape(base())).resolveSchemaCompatibility(legacy).isCompatibleAsIs()).isTrue();
        assertThat(legacy.restoreSerializer()).isEqualTo(WindowRingSerializer.INSTANCE);
        WindowRing ring = sample();
        assertThat(bytes(legacy.restoreSerializer().deserialize(new DataInputDeserializer(bytes(ring)))))
                .isEqualTo(bytes(ring));
        assertThat(configured(shape(base())).resolveSchemaCompatibility(roundTrip(WindowRingSerializer.INSTANCE
                .snapshotConfiguration())).isCompatibleAsIs()).as("an unspecified shape").isTrue();

        out.clear();
        out.writeUTF(WindowRingSerializer.Snapshot.class.getName());
        out.writeInt(2);
        assertThatThrownBy(() -> TypeSerializerSnapshot.readVersionedSnapshot(
                new DataInputDeserializer(out.getCopyOfBuffer()), WindowRingSerializerTest.class.getClassLoader()))
                .isInstanceOf(IOException.class).hasMessageContaining("snapshot version 2 is not supported");
    }

    /** A serializer that expects a shape names the field when a ring's tracker does not have it. */
    @Test
    void aRingOfAnotherShapeIsRejectedNamingTheField() throws IOException {
        WindowShape expected = new WindowShape(1000, 1, "SPACE_SAVING", 16, 0, 0, "LONG", 5);
        WindowRing ring = new WindowRing(1);
        ring.open(3, SpaceSaving.withCapacity(KeyKind.longs(), 16, 5));
        WindowRingSerializer serializer = new WindowRingSerializer(expected);
        assertThat(bytes(serializer.deserialize(new DataInputDeserializer(bytes(ring))))).isEqualTo(bytes(ring));
        WindowRingSerializer larger = new WindowRingSerializer(new WindowShape(1000, 1, "SPACE_SAVING", 32, 0, 0,
                "LONG", 5));
        assertThatThrownBy(() -> larger.deserialize(new DataInputDeserializer(bytes(ring))))
                .isInstanceOf(IOException.class)
                .hasMessage("WindowRing slot 0: capacity is 16, expected 32 (state written by an operator configured"
                        + " otherwise, restored from a savepoint that recorded no shape: restore it with the"
                        + " configuration it was taken with)");
        WindowRingSerializer cm = new WindowRingSerializer(new WindowShape(1000, 1, "COUNT_MIN_HEAP", 16, 61, 3,
                "LONG", 5));
        assertThatThrownBy(() -> cm.deserialize(new DataInputDeserializer(bytes(ring))))
                .isInstanceOf(IOException.class)
                .hasMessage("WindowRing slot 0: tracker is SPACE_SAVING, expected COUNT_MIN_HEAP"
                        + SubWindowSerializer.OTHER_CONFIGURATION);
    }
}
