package io.linerate.flink.heavyhitters;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.linerate.sketches.frequency.CountMinHeap;
import io.linerate.sketches.frequency.HeavyHitters;
import io.linerate.sketches.frequency.KeyKind;
import io.linerate.sketches.frequency.SpaceSaving;
import java.io.IOException;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

/**
 * The per-key ring's serializer: round trip, deep copy, snapshot compatibility, corrupt input, and no ring written
 * that the reader would reject.
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
        assertThat(back.trackers[0].toByteArray()).isEqualTo(ring.trackers[0].toByteArray());
        assertThat(back.trackers[1].toByteArray()).isEqualTo(ring.trackers[1].toByteArray());
        assertThat(back.alerted[0]).isEqualTo(ring.alerted[0]);
        assertThat(back.alerted[0].contains(0)).isTrue();
        assertThat(back.alerted[1]).isNull();
        assertThat(bytes(back)).isEqualTo(bytes(ring));
    }

    /** The heap backend copies state on write during a snapshot: the copy must share nothing. */
    @Test
    void copyIsDeep() throws IOException {
        WindowRing ring = sample();
        byte[] before = bytes(ring);
        WindowRing copy = WindowRingSerializer.INSTANCE.copy(ring);
        copy.trackers[0].update(99L, 1000);
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
}
