package io.linerate.benchmarks.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

class PacketBatchTest {

    private static final Workload SMALL = new Workload(10_000, 1_000, 1.1, 42, 1_000_000, 1);

    @Test
    void theSerializerRoundTripsInHeaderPlusTwentyBytesPerPacket() throws Exception {
        PacketGenerator generator = new PacketGenerator(SMALL);
        List<PacketBatch> batches = new ArrayList<>();
        Packet[] one = {generator.packet(0)};
        batches.add(new PacketBatch(0, one, 1));
        Packet[] many = new Packet[64];
        for (int i = 0; i < many.length; i++) {
            many[i] = generator.packet(i * 150); // 0 … 9 ms, not all distinct in time
        }
        batches.add(new PacketBatch(0, many, 64));
        batches.add(new PacketBatch(0, many, 10)); // a partial batch of a larger array
        // the extremes of every field, timestamps spanning the most a batch may
        Packet[] extreme = {
                new Packet(-1, Integer.MIN_VALUE, 65535, 0, 255, 255, 1500, 65535, Long.MAX_VALUE),
                new Packet(0, Integer.MAX_VALUE, 0, 65535, 0, 0, 0, 65535, Long.MAX_VALUE - Integer.MAX_VALUE)};
        batches.add(new PacketBatch(65535, extreme, 2));
        DataOutputSerializer out = new DataOutputSerializer(64);
        for (PacketBatch b : batches) {
            out.clear();
            PacketBatchSerializer.INSTANCE.serialize(b, out);
            assertThat(out.length()).isEqualTo(PacketBatchSerializer.HEADER + PacketBatchSerializer.PACKET * b.size());
            byte[] bytes = out.getCopyOfBuffer();
            PacketBatch back = PacketBatchSerializer.INSTANCE.deserialize(new DataInputDeserializer(bytes));
            assertThat(back).isEqualTo(b);
            assertThat(back.timestamp()).isEqualTo(b.timestamp());
            for (int i = 0; i < b.size(); i++) {
                assertThat(back.get(i)).isEqualTo(b.get(i)); // the link and timestamp of every packet restored
            }
            // the byte-level copy Flink uses when it forwards serialized records
            DataOutputSerializer copied = new DataOutputSerializer(bytes.length); // write(view, n) does not grow
            PacketBatchSerializer.INSTANCE.copy(new DataInputDeserializer(bytes), copied);
            assertThat(copied.getCopyOfBuffer()).isEqualTo(bytes);
        }
        assertThat(TypeInformation.of(PacketBatch.class)).isEqualTo(PacketBatchTypeInfo.INSTANCE);
    }

    @Test
    void aCorruptSizeFailsBeforeAllocating() throws Exception {
        for (int size : new int[] {0, -1, PacketBatch.MAX_SIZE + 1, Integer.MAX_VALUE}) {
            DataOutputSerializer out = new DataOutputSerializer(16);
            out.writeShort(3);
            out.writeInt(size);
            out.writeLong(0);
            byte[] bytes = out.getCopyOfBuffer();
            assertThatThrownBy(() -> PacketBatchSerializer.INSTANCE.deserialize(new DataInputDeserializer(bytes)))
                    .isInstanceOf(IOException.class).hasMessageContaining("size " + size + " not in [1, 65536]");
            assertThatThrownBy(() -> PacketBatchSerializer.INSTANCE.copy(new DataInputDeserializer(bytes),
                    new DataOutputSerializer(16)))
                    .isInstanceOf(IOException.class).hasMessageContaining("size " + size);
        }
        // a negative timestamp offset cannot come from the serializer
        DataOutputSerializer out = new DataOutputSerializer(64);
        out.writeShort(0);
        out.writeInt(1);
        out.writeLong(0);
        out.write(new byte[16]);
        out.writeInt(-5);
        assertThatThrownBy(() -> PacketBatchSerializer.INSTANCE.deserialize(
                new DataInputDeserializer(out.getCopyOfBuffer())))
                .isInstanceOf(IOException.class).hasMessageContaining("timestamp offset -5");
    }

    @Test
    void aBatchHoldsOneToMaxPacketsOfItsLinkWithinAnIntOfMilliseconds() {
        Packet a = new Packet(1, 2, 3, 4, 6, 0, 40, 1, 100);
        Packet otherLink = new Packet(1, 2, 3, 4, 6, 0, 40, 2, 100);
        Packet muchLater = new Packet(1, 2, 3, 4, 6, 0, 40, 1, 100 + Integer.MAX_VALUE + 1L);
        assertThatThrownBy(() -> new PacketBatch(1, new Packet[] {a}, 0)).hasMessageContaining("got 0");
        assertThatThrownBy(() -> new PacketBatch(1, new Packet[] {a}, 2)).hasMessageContaining("got 2");
        assertThatThrownBy(() -> new PacketBatch(1, new Packet[] {a, otherLink}, 2))
                .hasMessageContaining("packet 1 is on link 2, the batch on 1");
        assertThatThrownBy(() -> new PacketBatch(1, new Packet[] {a, muchLater}, 2))
                .hasMessageContaining("spans at most");
        PacketBatch b = new PacketBatch(1, new Packet[] {a, otherLink}, 1); // the rest of the array is not its
        assertThat(b.size()).isEqualTo(1);
        assertThatThrownBy(() -> b.get(1)).isInstanceOf(IndexOutOfBoundsException.class);
        List<Packet> seen = new ArrayList<>();
        b.forEach(seen::add);
        assertThat(seen).containsExactly(a);
        List<Packet> viaElements = new ArrayList<>();
        PacketBatch.PACKETS.forEach(b, viaElements::add);
        assertThat(viaElements).containsExactly(a);
    }
}
