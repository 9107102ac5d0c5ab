package io.linerate.flink.serializers;

import static org.assertj.core.api.Assertions.assertThat;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import io.linerate.sketches.frequency.CountMinHeap;
import io.linerate.sketches.frequency.HeavyHitters;
import io.linerate.sketches.frequency.KeyKind;
import io.linerate.sketches.frequency.SpaceSaving;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

/**
 * A checkpointed tracker whose image declares {@link SpaceSaving#MAX_CAPACITY} = 2²⁶ counters while holding a
 * few: the Flink and Kryo serializers read it with a small allocation (creating such a tracker takes over 2.5 GB),
 * and the tracker read writes the same image back and keeps counting.
 */
class TrackerCapacityClaimTest {

    private static final long ALLOCATION_LIMIT = 4L << 20;

    private static long allocatedBytes() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean())
                .getThreadAllocatedBytes(Thread.currentThread().getId());
    }

    /** {@code image} with the i32 at {@code at} set to 2²⁶ and the CRC32C trailer recomputed. */
    private static byte[] claimingMaxCapacity(byte[] image, int at) {
        byte[] out = image.clone();
        ByteBuffer b = ByteBuffer.wrap(out).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(at, SpaceSaving.MAX_CAPACITY);
        CRC32C crc = new CRC32C();
        crc.update(out, 0, out.length - 4);
        b.putInt(out.length - 4, (int) crc.getValue());
        return out;
    }

    @Test
    void flinkAndKryoSerializersReadAHugeDeclaredCapacityWithASmallAllocation() throws IOException {
        SpaceSaving ss = SpaceSaving.withCapacity(KeyKind.longs(), 8, 42);
        CountMinHeap cmh = CountMinHeap.create(KeyKind.longs(), 8, 64, 2, true, 42);
        for (long j = 0; j < 5; j++) {
            ss.update(j, 1 + j);
            cmh.update(j, 1 + j);
        }
        // capacity is at offset 24 in a Space-Saving image, 16 in a CM-heap image (docs/STATE-FORMAT.md)
        byte[][] images = {claimingMaxCapacity(ss.toByteArray(), 24), claimingMaxCapacity(cmh.toByteArray(), 16)};
        for (byte[] image : images) {
            boolean spaceSaving = image == images[0];
            ImageSerializer<?> serializer = spaceSaving ? SpaceSavingSerializer.INSTANCE
                    : CountMinHeapSerializer.INSTANCE;
            ImageKryoSerializer<?> kryoSerializer = spaceSaving ? new KryoSerializers.SpaceSavingKryo()
                    : new KryoSerializers.CountMinHeapKryo();
            DataOutputSerializer flink = new DataOutputSerializer(image.length + 4);
            flink.writeInt(image.length);
            flink.write(image);
            ByteArrayOutputStream kryoBytes = new ByteArrayOutputStream();
            try (Output out = new Output(kryoBytes)) {
                out.writeInt(image.length);
                out.writeBytes(image);
            }
            Kryo kryo = new Kryo();
            kryo.setRegistrationRequired(false);
            for (int reader = 0; reader < 2; reader++) {
                String what = serializer.typeClass().getSimpleName() + (reader == 0 ? " Flink" : " Kryo")
                        + " image of " + image.length + " bytes";
                // once unmeasured, so that class loading does not count
                read(reader, serializer, kryoSerializer, kryo, flink, kryoBytes);
                long before = allocatedBytes();
                HeavyHitters t = read(reader, serializer, kryoSerializer, kryo, flink, kryoBytes);
                assertThat(allocatedBytes() - before).as(what + ": bytes allocated").isLessThan(ALLOCATION_LIMIT);
                assertThat(t.toByteArray()).as(what).isEqualTo(image);
                assertThat(t instanceof SpaceSaving s ? s.capacity() : ((CountMinHeap) t).capacity())
                        .isEqualTo(SpaceSaving.MAX_CAPACITY);
                for (long j = 100; j < 300; j++) {
                    t.update(j, 1);
                }
                assertThat(t.topK(1_000)).as(what + ": nothing evicted below the capacity").hasSize(205);
            }
        }
    }

    private static HeavyHitters read(int reader, ImageSerializer<?> serializer, ImageKryoSerializer<?> kryoSerializer,
                                     Kryo kryo, DataOutputSerializer flink, ByteArrayOutputStream kryoBytes)
            throws IOException {
        return (HeavyHitters) (reader == 0 ? serializer.deserialize(new DataInputDeserializer(flink.getCopyOfBuffer()))
                : kryoSerializer.read(kryo, new Input(kryoBytes.toByteArray()), null));
    }
}
