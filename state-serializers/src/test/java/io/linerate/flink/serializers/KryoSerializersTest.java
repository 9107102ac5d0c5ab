package io.linerate.flink.serializers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import io.linerate.sketches.bloom.BloomFilter;
import io.linerate.sketches.bloom.StandardBloomFilter;
import io.linerate.sketches.frequency.BlockedCountMinSketch;
import io.linerate.sketches.frequency.CountMinSketch;
import io.linerate.sketches.frequency.KeyKind;
import io.linerate.sketches.frequency.RowIndexing;
import io.linerate.sketches.frequency.SpaceSaving;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.java.typeutils.runtime.kryo.KryoSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

/** Structures inside a user's generic type, serialized by Flink's KryoSerializer after registerKryo. */
class KryoSerializersTest {

    /** A user type Flink would treat as generic (Kryo): fields of interface and Object type. */
    public static final class Holder {
        Object sketch;
        BloomFilter filter;
        List<Object> more = new ArrayList<>();
    }

    @Test
    void structuresInsideAGenericTypeRoundTripThroughFlinksKryoSerializer() throws IOException {
        SerializerConfigImpl config = new SerializerConfigImpl();
        LinerateTypes.registerKryo(config);
        assertThat(config.getDefaultKryoSerializerClasses()).containsAllEntriesOf(LinerateTypes.kryoSerializerClasses());

        CountMinSketch cms = CountMinSketch.withShape(256, 4, 3, RowIndexing.FULL_WIDTH, true);
        StandardBloomFilter bloom = StandardBloomFilter.withBits(1000, 4, 5);
        SpaceSaving ss = SpaceSaving.withCapacity(KeyKind.longs(), 16, 7);
        BlockedCountMinSketch blocked = BlockedCountMinSketch.withBlocks(64, 9);
        for (long i = 0; i < 500; i++) {
            cms.update(i % 37, 1);
            bloom.put(i);
            ss.update(i % 11, 1);
            blocked.update(i % 41, 1);
        }
        Holder h = new Holder();
        h.sketch = cms;
        h.filter = bloom;
        h.more.add(ss);
        h.more.add(blocked);

        KryoSerializer<Holder> serializer = new KryoSerializer<>(Holder.class, config);
        DataOutputSerializer out = new DataOutputSerializer(1024);
        serializer.serialize(h, out);
        Holder back = serializer.deserialize(new DataInputDeserializer(out.getCopyOfBuffer()));

        assertThat(((CountMinSketch) back.sketch).toByteArray()).isEqualTo(cms.toByteArray());
        assertThat(back.filter.toByteArray()).isEqualTo(bloom.toByteArray());
        assertThat(((SpaceSaving) back.more.get(0)).toByteArray()).isEqualTo(ss.toByteArray());
        assertThat(((BlockedCountMinSketch) back.more.get(1)).toByteArray()).isEqualTo(blocked.toByteArray());
        assertThat(serializer.getKryo().getSerializer(CountMinSketch.class))
                .isInstanceOf(KryoSerializers.CountMinSketchKryo.class);
        assertThat(serializer.getKryo().getSerializer(BlockedCountMinSketch.class))
                .isInstanceOf(KryoSerializers.BlockedCountMinSketchKryo.class);

        Holder copy = serializer.copy(h);
        assertThat(copy.sketch).isNotSameAs(cms);
        assertThat(((CountMinSketch) copy.sketch).toByteArray()).isEqualTo(cms.toByteArray());
    }

    private static long allocatedBytes() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean())
                .getThreadAllocatedBytes(Thread.currentThread().getId());
    }

    /** Kryo's copy (used by Flink's KryoSerializer.copy) is an independent structure with the same image. */
    @Test
    void kryoCopyIsAnIndependentStructureWithTheSameImage() {
        CountMinSketch cms = CountMinSketch.withShape(256, 4, 3, RowIndexing.FULL_WIDTH, false);
        cms.update(17, 5);
        KryoSerializers.CountMinSketchKryo serializer = new KryoSerializers.CountMinSketchKryo();
        CountMinSketch copy = serializer.copy(new Kryo(), cms);
        assertThat(copy).isNotNull().isNotSameAs(cms);
        assertThat(copy.toByteArray()).isEqualTo(cms.toByteArray());
        cms.update(17, 1);
        assertThat(copy.estimate(17)).isEqualTo(5);
    }

    @Test
    void kryoSerializerRejectsLyingLengthWithoutLargeAllocation() {
        Kryo kryo = new Kryo();
        kryo.setRegistrationRequired(false);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (Output out = new Output(bytes)) {
            out.writeInt(1 << 30);
            out.writeBytes(new byte[100]);
        }
        KryoSerializers.CountMinSketchKryo s = new KryoSerializers.CountMinSketchKryo();
        Input in = new Input(new ByteArrayInputStream(bytes.toByteArray()));
        long before = allocatedBytes();
        assertThatThrownBy(() -> s.read(kryo, in, CountMinSketch.class)).isInstanceOf(KryoException.class);
        // measured, not left to the heap limit: a 1 GiB claim on a 100-byte stream must not allocate its claim
        assertThat(allocatedBytes() - before).as("bytes allocated for a 1 GiB claim").isLessThan(4L << 20);

        ByteArrayOutputStream neg = new ByteArrayOutputStream();
        try (Output out = new Output(neg)) {
            out.writeInt(-5);
        }
        assertThatThrownBy(() -> s.read(kryo, new Input(neg.toByteArray()), CountMinSketch.class))
                .isInstanceOf(KryoException.class).hasMessageContaining("CountMinSketch image length field is -5");
    }

    /** A stream that cannot tell how many bytes it holds (InputStream.available() may throw). */
    private static InputStream withoutAvailable(byte[] bytes) {
        return new FilterInputStream(new ByteArrayInputStream(bytes)) {
            @Override
            public int available() throws IOException {
                throw new IOException("available() not supported");
            }
        };
    }

    /**
     * Every structure (the snapshot fixtures' values) through the Kryo serializer {@link LinerateTypes} registers for
     * it: the length and the image on write, the same image back both when the input holds it all (streamed) and
     * when it cannot say (read as the bytes arrive), and a copy that is a separate structure with the same image.
     */
    @Test
    @SuppressWarnings({"unchecked", "rawtypes"})
    void everyStructureRoundTripsThroughItsRegisteredKryoSerializer() throws Exception {
        Set<Class<?>> seen = new HashSet<>();
        for (SnapshotFixture<?> fixture : SerializerFixtures.all()) {
            if (!(fixture.serializer() instanceof ImageSerializer<?> images)) {
                continue; // the 5-tuple has no Kryo serializer: it is a key, with its own type information
            }
            Class<?> type = images.typeClass();
            seen.add(type);
            ImageKryoSerializer kryoSerializer = (ImageKryoSerializer) LinerateTypes.kryoSerializerClasses()
                    .get(type).getDeclaredConstructor().newInstance();
            Object value = fixture.value().get();
            byte[] image = ((ImageSerializer) images).toImage(value);

            long writes = ImageKryoSerializer.WRITES.sum();
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (Output out = new Output(bytes)) {
                kryoSerializer.write(new Kryo(), out, value);
            }
            assertThat(ImageKryoSerializer.WRITES.sum()).as(fixture.name() + ": writes counted").isEqualTo(writes + 1);
            byte[] written = bytes.toByteArray();
            assertThat(written).as(fixture.name()).hasSize(Integer.BYTES + image.length);
            assertThat(new Input(written).readInt()).as(fixture.name() + ": length field").isEqualTo(image.length);

            Object streamed = kryoSerializer.read(new Kryo(), new Input(written), type);
            Object arriving = kryoSerializer.read(new Kryo(), new Input(withoutAvailable(written)), type);
            Object copy = kryoSerializer.copy(new Kryo(), value);
            for (Object back : List.of(streamed, arriving, copy)) {
                assertThat(back).as(fixture.name()).isInstanceOf(type).isNotSameAs(value);
                assertThat(((ImageSerializer) images).toImage(back)).as(fixture.name()).isEqualTo(image);
            }
        }
        assertThat(seen).containsExactlyInAnyOrderElementsOf(LinerateTypes.kryoSerializerClasses().keySet());
    }

    /**
     * An input that cannot say how many bytes it holds is read as the bytes arrive: a truncated image whose header
     * and length field both claim 16 MiB of counters fails after the bytes present, without allocating the claim.
     * (More than the 64 KiB a streamed read loads before the header are present, so that a streamed read would
     * reach the allocation.)
     */
    @Test
    void anInputThatCannotSayWhatItHoldsIsNotTrustedWithTheLength() {
        CountMinSketch big = CountMinSketch.withShape(1 << 19, 4, 3, RowIndexing.FULL_WIDTH, false); // 16 MiB
        ByteArrayOutputStream full = new ByteArrayOutputStream();
        try (Output out = new Output(full)) {
            new KryoSerializers.CountMinSketchKryo().write(new Kryo(), out, big);
        }
        byte[] truncated = Arrays.copyOf(full.toByteArray(), 256 << 10);
        KryoSerializers.CountMinSketchKryo s = new KryoSerializers.CountMinSketchKryo();
        Input in = new Input(withoutAvailable(truncated));
        long before = allocatedBytes();
        assertThatThrownBy(() -> s.read(new Kryo(), in, CountMinSketch.class)).isInstanceOf(KryoException.class);
        assertThat(allocatedBytes() - before).as("bytes allocated for a 16 MiB claim on 256 KiB").isLessThan(4L << 20);
    }
}
