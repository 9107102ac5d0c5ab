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
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
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
}
