package io.linerate.jobs.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.SplittableRandom;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

class PacketSerializersTest {

    private static <T> T roundTrip(TypeSerializer<T> s, T value) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        s.serialize(value, out);
        DataInputDeserializer in = new DataInputDeserializer(out.getCopyOfBuffer());
        T back = s.deserialize(in);
        assertThat(in.available()).isZero();
        // copy(DataInputView, DataOutputView) passes the same bytes through
        DataOutputSerializer copied = new DataOutputSerializer(64);
        s.copy(new DataInputDeserializer(out.getCopyOfBuffer()), copied);
        assertThat(copied.getCopyOfBuffer()).isEqualTo(out.getCopyOfBuffer());
        return back;
    }

    /** Ports share one int and the protocol is a byte: an out-of-range value must not come back as another packet. */
    @Test
    void aRecordOutOfRangeIsRefusedNotSerializedAsAnotherPacket() {
        PacketRecord port = new PacketRecord().setIpv4(1000, 0x0A000001, 0x0A000002, 40000, 65536 + 443, 6, 0, 60, 7);
        PacketRecord protocol = new PacketRecord().setIpv4(1000, 0x0A000001, 0x0A000002, 40000, 443, 256 + 17, 0, 60, 7);
        DataOutputSerializer out = new DataOutputSerializer(64);
        assertThatThrownBy(() -> PacketRecordSerializer.INSTANCE.serialize(port, out))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("cannot serialize packet record: dstPort must be in [0, 65535], got 65979");
        assertThatThrownBy(() -> PacketRecordSerializer.INSTANCE.serialize(protocol, out))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("cannot serialize packet record: protocol must be in [0, 255], got 273");
        assertThat(out.length()).isZero();
    }

    @Test
    void flinkFindsTheTypeInformationThroughTheAnnotations() {
        assertThat(TypeInformation.of(PacketBatch.class)).isEqualTo(PacketBatchTypeInfo.INSTANCE);
        assertThat(TypeInformation.of(PacketRecord.class)).isEqualTo(PacketRecordTypeInfo.INSTANCE);
        assertThat(PacketBatchTypeInfo.INSTANCE.createSerializer(new SerializerConfigImpl()))
                .isInstanceOf(PacketBatchSerializer.class);
    }

    @Test
    void batchesAndRecordsRoundTripCompactly() throws IOException {
        SplittableRandom rnd = new SplittableRandom(17);
        PacketBatchSerializer s = new PacketBatchSerializer();
        for (int i = 0; i < 30; i++) {
            PacketBatch b = PacketBatchCodecTest.randomBatch(rnd, rnd.nextInt(), rnd.nextInt(1, 300), i % 3 / 2.0);
            assertThat(roundTrip(s, b)).isEqualTo(b);
            assertThat(s.copy(b)).isEqualTo(b).isNotSameAs(b);
            assertThat(s.copy(b, new PacketBatch(5))).isEqualTo(b);
            b.forEach(p -> {
                try {
                    assertThat(roundTrip(PacketRecordSerializer.INSTANCE, p)).isEqualTo(p);
                } catch (IOException e) {
                    throw new AssertionError(e);
                }
            });
        }
        PacketBatch empty = new PacketBatch(42);
        assertThat(roundTrip(s, empty)).isEqualTo(empty);
        // 1000 IPv4 packets with ms-close timestamps: the wire size, ~18 bytes a packet
        PacketBatch dense = new PacketBatch(1);
        for (int i = 0; i < 1000; i++) {
            dense.addIpv4(1_700_000_000_000L + i / 10, i, ~i, 1000 + i, 443, 6, 0x10, 1400);
        }
        DataOutputSerializer out = new DataOutputSerializer(64);
        s.serialize(dense, out);
        assertThat(out.length()).isLessThanOrEqualTo(4 + 20 + 1000 * 18);
    }

    @Test
    void corruptLengthsFailBeforeAllocating() {
        DataOutputSerializer out = new DataOutputSerializer(8);
        assertThatThrownBy(() -> {
            out.writeInt(Integer.MAX_VALUE);
            new PacketBatchSerializer().deserialize(new DataInputDeserializer(out.getCopyOfBuffer()));
        }).isInstanceOf(IOException.class).hasMessageContaining("encoded length 2147483647 outside [0, 3080212]");
        DataOutputSerializer bad = new DataOutputSerializer(8);
        assertThatThrownBy(() -> {
            bad.writeByte(5);
            bad.writeLong(1);
            PacketRecordSerializer.INSTANCE.deserialize(new DataInputDeserializer(bad.getCopyOfBuffer()));
        }).isInstanceOf(IOException.class).hasMessageContaining("IP version 5");
    }

    @Test
    void snapshotsRestoreCompatibleAsIs() throws IOException {
        for (TypeSerializer<?> s : new TypeSerializer<?>[] {new PacketBatchSerializer(), PacketRecordSerializer.INSTANCE}) {
            restores(s);
        }
        assertThat(new PacketBatchSerializer().duplicate()).isEqualTo(new PacketBatchSerializer());
    }

    private static <T> void restores(TypeSerializer<T> s) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        TypeSerializerSnapshot.writeVersionedSnapshot(out, s.snapshotConfiguration());
        TypeSerializerSnapshot<T> restored = TypeSerializerSnapshot.readVersionedSnapshot(
                new DataInputDeserializer(out.getCopyOfBuffer()), PacketSerializersTest.class.getClassLoader());
        assertThat(restored.restoreSerializer()).isEqualTo(s);
        TypeSerializerSchemaCompatibility<T> compatibility =
                s.snapshotConfiguration().resolveSchemaCompatibility(restored);
        assertThat(compatibility.isCompatibleAsIs()).isTrue();
    }
}
