package io.linerate.flink.serializers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import io.linerate.sketches.bloom.BalancedBloomFilter;
import io.linerate.sketches.bloom.BlockedBloomFilter;
import io.linerate.sketches.bloom.CountingBloomFilter;
import io.linerate.sketches.bloom.PartitionedBloomFilter;
import io.linerate.sketches.bloom.SplitBlockBloomFilter;
import io.linerate.sketches.bloom.StandardBloomFilter;
import io.linerate.sketches.flowtable.FlowTable;
import io.linerate.sketches.frequency.BlockedCountMinSketch;
import io.linerate.sketches.frequency.CountMinHeap;
import io.linerate.sketches.frequency.CountMinSketch;
import io.linerate.sketches.frequency.KeyKind;
import io.linerate.sketches.frequency.RowIndexing;
import io.linerate.sketches.frequency.SpaceSaving;
import io.linerate.sketches.hash.FiveTuple;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Hostile length fields and corrupt images for every one of the eleven serializers (Flink and Kryo): negative
 * lengths and lengths above {@link ImageSerializer#MAX_IMAGE_BYTES} are rejected naming the structure and the
 * field; a length claiming 1 GiB on a short stream fails fast with an EOF after allocating less than 4 MiB; a
 * flipped byte in a valid image is an {@link IOException} naming the structure.
 */
class HostileLengthTest {

    private static final long ALLOCATION_LIMIT = 4L << 20;

    /** One serializer with a small valid structure of its type. */
    record Case(ImageSerializer<Object> serializer, ImageKryoSerializer<Object> kryo, Supplier<Object> sample) {
        String name() {
            return serializer.typeClass().getSimpleName();
        }

        @Override
        public String toString() {
            return name();
        }
    }

    @SuppressWarnings("unchecked")
    private static Arguments of(ImageSerializer<?> s, ImageKryoSerializer<?> k, Supplier<?> sample) {
        return Arguments.of(new Case((ImageSerializer<Object>) s, (ImageKryoSerializer<Object>) k,
                (Supplier<Object>) sample));
    }

    static Stream<Arguments> serializers() {
        return Stream.of(
                of(StandardBloomFilterSerializer.INSTANCE, new KryoSerializers.StandardBloomFilterKryo(),
                        () -> filled(StandardBloomFilter.withBits(4096, 5, 42))),
                of(PartitionedBloomFilterSerializer.INSTANCE, new KryoSerializers.PartitionedBloomFilterKryo(),
                        () -> filled(PartitionedBloomFilter.withBits(4096, 5, 42))),
                of(BlockedBloomFilterSerializer.INSTANCE, new KryoSerializers.BlockedBloomFilterKryo(),
                        () -> filled(BlockedBloomFilter.withBits(8192, 6, 42, 512))),
                of(SplitBlockBloomFilterSerializer.INSTANCE, new KryoSerializers.SplitBlockBloomFilterKryo(),
                        () -> filled(SplitBlockBloomFilter.withBits(8192, 42))),
                of(BalancedBloomFilterSerializer.INSTANCE, new KryoSerializers.BalancedBloomFilterKryo(),
                        () -> filled(BalancedBloomFilter.create(2000, 0.01, 42))),
                of(CountingBloomFilterSerializer.INSTANCE, new KryoSerializers.CountingBloomFilterKryo(),
                        () -> filled(CountingBloomFilter.withCounters(4096, 4, 4, 42))),
                of(CountMinSketchSerializer.INSTANCE, new KryoSerializers.CountMinSketchKryo(), () -> {
                    CountMinSketch s = CountMinSketch.withShape(512, 4, 42, RowIndexing.FULL_WIDTH, false);
                    for (long j = 0; j < 200; j++) {
                        s.update(j * 31, 1);
                    }
                    return s;
                }),
                of(BlockedCountMinSketchSerializer.INSTANCE, new KryoSerializers.BlockedCountMinSketchKryo(), () -> {
                    BlockedCountMinSketch s = BlockedCountMinSketch.withBlocks(128, 42);
                    for (long j = 0; j < 200; j++) {
                        s.update(j * 31, 1);
                    }
                    return s;
                }),
                of(SpaceSavingSerializer.INSTANCE, new KryoSerializers.SpaceSavingKryo(), () -> {
                    SpaceSaving s = SpaceSaving.withCapacity(KeyKind.longs(), 64, 42);
                    for (long j = 0; j < 200; j++) {
                        s.update(j % 80, 1);
                    }
                    return s;
                }),
                of(CountMinHeapSerializer.INSTANCE, new KryoSerializers.CountMinHeapKryo(), () -> {
                    CountMinHeap h = CountMinHeap.create(KeyKind.longs(), 32, 256, 4, true, 42);
                    for (long j = 0; j < 200; j++) {
                        h.update(j % 50, 1);
                    }
                    return h;
                }),
                of(FlowTableSerializer.INSTANCE, new KryoSerializers.FlowTableKryo(), () -> {
                    FlowTable t = FlowTable.builder().capacity(1000).seed(42).build();
                    for (int j = 0; j < 100; j++) {
                        t.update(FiveTuple.ipv4(0x0A000000 + j, 0x0A000001, 1000 + j % 7, 80, 6), 0, 100 + j,
                                1000L + j);
                    }
                    return t;
                }));
    }

    private static <F extends io.linerate.sketches.bloom.BloomFilter> F filled(F f) {
        for (long j = 0; j < 200; j++) {
            f.put(j * 31);
        }
        return f;
    }

    private static DataInputDeserializer lengthThenBytes(int length, int present) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(16 + present);
        out.writeInt(length);
        out.write(new byte[present]);
        return new DataInputDeserializer(out.getCopyOfBuffer());
    }

    private static byte[] kryoLengthThenBytes(int length, int present) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (Output out = new Output(bytes)) {
            out.writeInt(length);
            out.writeBytes(new byte[present]);
        }
        return bytes.toByteArray();
    }

    private static long allocatedBytes() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean())
                .getThreadAllocatedBytes(Thread.currentThread().getId());
    }

    private static Kryo kryo() {
        Kryo kryo = new Kryo();
        kryo.setRegistrationRequired(false);
        return kryo;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("serializers")
    void negativeLengthIsRejectedNamingTheStructure(Case c) throws IOException {
        for (int bad : new int[] {-1, -4096, Integer.MIN_VALUE}) {
            DataInputDeserializer in = lengthThenBytes(bad, 64);
            assertThatThrownBy(() -> c.serializer().deserialize(in)).isInstanceOf(IOException.class)
                    .hasMessageContaining(c.name() + " image length field is " + bad);
            DataInputDeserializer again = lengthThenBytes(bad, 64);
            assertThatThrownBy(() -> c.serializer().copy(again, new DataOutputSerializer(64)))
                    .isInstanceOf(IOException.class).hasMessageContaining(c.name() + " image length field is " + bad);
            assertThatThrownBy(() -> c.kryo().read(kryo(), new Input(kryoLengthThenBytes(bad, 64)), null))
                    .isInstanceOf(KryoException.class).hasMessageContaining(c.name() + " image length field is " + bad);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("serializers")
    void lengthAboveTheMaximumIsRejected(Case c) throws IOException {
        for (int bad : new int[] {ImageSerializer.MAX_IMAGE_BYTES + 1, Integer.MAX_VALUE}) {
            DataInputDeserializer in = lengthThenBytes(bad, 64);
            assertThatThrownBy(() -> c.serializer().deserialize(in)).isInstanceOf(IOException.class)
                    .hasMessageContaining(c.name() + " image length field is " + bad)
                    .hasMessageContaining("outside [0, " + ImageSerializer.MAX_IMAGE_BYTES + "]");
            assertThatThrownBy(() -> c.kryo().read(kryo(), new Input(kryoLengthThenBytes(bad, 64)), null))
                    .isInstanceOf(KryoException.class).hasMessageContaining(c.name() + " image length field is " + bad);
        }
    }

    /** The range is [0, MAX_IMAGE_BYTES] inclusive: its ends are read (and fail as a bad or a cut image). */
    @ParameterizedTest(name = "{0}")
    @MethodSource("serializers")
    void lengthsAtTheEndsOfTheRangeAreReadNotRejected(Case c) throws IOException {
        assertThatThrownBy(() -> c.serializer().deserialize(lengthThenBytes(0, 64))).isInstanceOf(IOException.class)
                .hasMessageStartingWith("cannot read " + c.name() + " image");
        assertThatThrownBy(() -> c.kryo().read(kryo(), new Input(kryoLengthThenBytes(0, 64)), null))
                .isInstanceOf(KryoException.class).hasMessageStartingWith("cannot read " + c.name() + " image");
        int max = ImageSerializer.MAX_IMAGE_BYTES;
        assertThatThrownBy(() -> c.serializer().deserialize(lengthThenBytes(max, 64))).isInstanceOf(EOFException.class);
        assertThatThrownBy(() -> c.serializer().copy(lengthThenBytes(max, 64), new DataOutputSerializer(64)))
                .isInstanceOf(EOFException.class);
        assertThatThrownBy(() -> c.kryo().read(kryo(), new Input(kryoLengthThenBytes(max, 64)), null))
                .isInstanceOf(KryoException.class).hasMessageNotContaining("length field");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("serializers")
    void lengthClaimingOneGibOnAShortStreamFailsFastWithoutLargeAllocation(Case c) throws IOException {
        int claimed = 1 << 30;
        DataInputDeserializer in = lengthThenBytes(claimed, 1000);
        long before = allocatedBytes();
        assertThatThrownBy(() -> c.serializer().deserialize(in)).isInstanceOf(EOFException.class);
        assertThat(allocatedBytes() - before).as("%s deserialize: bytes allocated for a 1 GiB claim", c)
                .isLessThan(ALLOCATION_LIMIT);

        DataInputDeserializer again = lengthThenBytes(claimed, 1000);
        before = allocatedBytes();
        assertThatThrownBy(() -> c.serializer().copy(again, new DataOutputSerializer(64)))
                .isInstanceOf(EOFException.class);
        assertThat(allocatedBytes() - before).as("%s copy: bytes allocated for a 1 GiB claim", c)
                .isLessThan(ALLOCATION_LIMIT);

        Input kryoIn = new Input(kryoLengthThenBytes(claimed, 1000));
        Kryo kryo = kryo();
        before = allocatedBytes();
        assertThatThrownBy(() -> c.kryo().read(kryo, kryoIn, null)).isInstanceOf(KryoException.class);
        assertThat(allocatedBytes() - before).as("%s Kryo read: bytes allocated for a 1 GiB claim", c)
                .isLessThan(ALLOCATION_LIMIT);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("serializers")
    void corruptImageIsAnIOExceptionNamingTheStructure(Case c) throws IOException {
        Object value = c.sample().get();
        DataOutputSerializer out = new DataOutputSerializer(1024);
        c.serializer().serialize(value, out);
        byte[] good = out.getCopyOfBuffer();
        // the valid bytes read back
        assertThat(c.serializer().deserialize(new DataInputDeserializer(good))).isNotNull();

        // 4 is the first byte of the image (after the length): magic; then the family byte, a middle byte of
        // the fields, and the checksum's last byte
        // the Kryo form: same image, but Kryo 5 writes the length little-endian
        ByteArrayOutputStream kryoBytes = new ByteArrayOutputStream();
        try (Output kout = new Output(kryoBytes)) {
            c.kryo().write(kryo(), kout, value);
        }
        byte[] goodKryo = kryoBytes.toByteArray();
        assertThat(goodKryo).hasSize(good.length);
        assertThat(c.kryo().read(kryo(), new Input(goodKryo), null)).isNotNull();
        for (int at : new int[] {4, 8, 4 + (good.length - 4) / 2, good.length - 1}) {
            byte[] bad = good.clone();
            bad[at] ^= 0x10;
            assertThatThrownBy(() -> c.serializer().deserialize(new DataInputDeserializer(bad)))
                    .as("%s, byte %d flipped", c, at).isInstanceOf(IOException.class)
                    .hasMessageContaining("cannot read " + c.name() + " image");
            byte[] badKryo = goodKryo.clone();
            badKryo[at] ^= 0x10;
            assertThatThrownBy(() -> c.kryo().read(kryo(), new Input(badKryo), null))
                    .as("%s Kryo, byte %d flipped", c, at).isInstanceOf(KryoException.class)
                    .hasMessageContaining("cannot read " + c.name() + " image");
        }
    }
}
