package io.linerate.flink.serializers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import io.linerate.sketches.frequency.CountMinSketch;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.util.Arrays;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataInputViewStreamWrapper;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The two ways a serializer reads: streamed into the structure (the input holds the whole image: a
 * {@link DataInputDeserializer}, a Kryo {@link Input} over an array) and bytes first (a stream that does not say
 * how much it holds). Both must give the same structure, reject a corrupt image with the same message, and leave
 * the input just after the image.
 */
class StreamedDeserializeTest {

    private static final int SENTINEL = 0x5E471E1;

    /** A stream that never says how many bytes it has, so the serializers read the bytes first. */
    private static DataInputView unannounced(byte[] bytes) {
        return new DataInputViewStreamWrapper(new InputStream() {
            private final ByteArrayInputStream in = new ByteArrayInputStream(bytes);

            @Override
            public int read() {
                return in.read();
            }

            @Override
            public int read(byte[] b, int off, int len) {
                return in.read(b, off, len);
            }

            @Override
            public int available() {
                return 0;
            }
        });
    }

    /** A stream whose {@code available()} fails, as some streams' do: the read must not fail with it. */
    private static DataInputView failingAvailable(byte[] bytes) {
        return new DataInputViewStreamWrapper(new ByteArrayInputStream(bytes) {
            @Override
            public synchronized int available() {
                throw new UnsupportedOperationException("not asked before");
            }
        }) {
            @Override
            public int available() throws IOException {
                throw new IOException("available() not supported by this stream");
            }
        };
    }

    private static Kryo kryo() {
        Kryo kryo = new Kryo();
        kryo.setRegistrationRequired(false);
        return kryo;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.linerate.flink.serializers.HostileLengthTest#serializers")
    void bothReadsGiveTheSameStructureAndStopAfterTheImage(HostileLengthTest.Case c) throws IOException {
        Object value = c.sample().get();
        DataOutputSerializer out = new DataOutputSerializer(1024);
        c.serializer().serialize(value, out);
        out.writeInt(SENTINEL);
        byte[] bytes = out.getCopyOfBuffer();
        byte[] expected = image(c, value);

        DataInputDeserializer whole = new DataInputDeserializer(bytes);
        assertThat(image(c, c.serializer().deserialize(whole))).as("streamed read").isEqualTo(expected);
        assertThat(whole.readInt()).isEqualTo(SENTINEL);
        DataInputView stream = unannounced(bytes);
        assertThat(image(c, c.serializer().deserialize(stream))).as("bytes first").isEqualTo(expected);
        assertThat(stream.readInt()).isEqualTo(SENTINEL);
        DataInputView failing = failingAvailable(bytes);
        assertThat(image(c, c.serializer().deserialize(failing))).as("available() fails").isEqualTo(expected);
        assertThat(failing.readInt()).isEqualTo(SENTINEL);

        ByteArrayOutputStream kryoBytes = new ByteArrayOutputStream();
        try (Output kout = new Output(kryoBytes)) {
            c.kryo().write(kryo(), kout, value);
            kout.writeInt(SENTINEL);
        }
        Input kryoWhole = new Input(kryoBytes.toByteArray());
        assertThat(image(c, c.kryo().read(kryo(), kryoWhole, null))).as("Kryo, streamed").isEqualTo(expected);
        assertThat(kryoWhole.readInt()).isEqualTo(SENTINEL);
        Input kryoStream = new Input(new ByteArrayInputStream(kryoBytes.toByteArray()) {
            @Override
            public synchronized int available() {
                return 0;
            }
        }, 16);
        assertThat(image(c, c.kryo().read(kryo(), kryoStream, null))).as("Kryo, bytes first").isEqualTo(expected);
        assertThat(kryoStream.readInt()).isEqualTo(SENTINEL);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.linerate.flink.serializers.HostileLengthTest#serializers")
    void bothReadsRejectACorruptImageAlike(HostileLengthTest.Case c) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(1024);
        c.serializer().serialize(c.sample().get(), out);
        byte[] good = out.getCopyOfBuffer();
        for (int at = 4; at < good.length; at += Math.max(1, good.length / 40)) {
            byte[] bad = good.clone();
            bad[at] ^= 0x10;
            String streamed = message(() -> c.serializer().deserialize(new DataInputDeserializer(bad)));
            String bytesFirst = message(() -> c.serializer().deserialize(unannounced(bad)));
            assertThat(streamed).as("%s, byte %d flipped", c, at).startsWith("cannot read " + c.name() + " image")
                    .isEqualTo(bytesFirst);
        }
    }

    /** The point of streaming, measured through the serializer: a 4 MiB Count-Min costs its array, not twice it. */
    @Test
    void aStreamedDeserializeAllocatesTheStructureNotItsImage() throws IOException {
        CountMinSketch s = CountMinSketch.withMemory(4 << 20, 4, 7);
        for (long i = 0; i < 100_000; i++) {
            s.update(i * 0x9E3779B97F4A7C15L, 1);
        }
        DataOutputSerializer out = new DataOutputSerializer(5 << 20);
        CountMinSketchSerializer.INSTANCE.serialize(s, out);
        byte[] bytes = out.getCopyOfBuffer();
        CountMinSketchSerializer.INSTANCE.deserialize(new DataInputDeserializer(bytes)); // warm up
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long thread = Thread.currentThread().getId();
        long before = threads.getThreadAllocatedBytes(thread);
        CountMinSketch read = CountMinSketchSerializer.INSTANCE.deserialize(new DataInputDeserializer(bytes));
        long streamed = threads.getThreadAllocatedBytes(thread) - before;
        before = threads.getThreadAllocatedBytes(thread);
        CountMinSketchSerializer.INSTANCE.deserialize(unannounced(bytes));
        long bytesFirst = threads.getThreadAllocatedBytes(thread) - before;
        assertThat(read.toByteArray()).isEqualTo(s.toByteArray());
        int image = bytes.length - 4;
        assertThat(streamed).as("streamed deserialize of a %d-byte image", image)
                .isBetween((long) image - 64, image + (256L << 10));
        assertThat(bytesFirst).as("bytes-first deserialize of a %d-byte image", image).isGreaterThan(2L * image - 64);
    }

    /**
     * The streamed read is only for inputs that say they hold the whole image: a real image cut short (its length
     * field intact) fails with an EOF on a deserializer, a stream and a Kryo input alike, before the structure's
     * arrays (8 MiB here) are allocated from its header.
     */
    @Test
    void aCutImageFailsBeforeTheStructureIsAllocatedOnEveryInput() throws IOException {
        CountMinSketch s = CountMinSketch.withMemory(8 << 20, 4, 7);
        DataOutputSerializer out = new DataOutputSerializer(9 << 20);
        CountMinSketchSerializer.INSTANCE.serialize(s, out);
        byte[] cut = Arrays.copyOf(out.getCopyOfBuffer(), 100_000);
        ByteArrayOutputStream kryoBytes = new ByteArrayOutputStream();
        try (Output kout = new Output(kryoBytes)) {
            new KryoSerializers.CountMinSketchKryo().write(kryo(), kout, s);
        }
        byte[] kryoCut = Arrays.copyOf(kryoBytes.toByteArray(), 100_000);
        long limit = 4L << 20;

        long before = allocatedBytes();
        assertThatThrownBy(() -> CountMinSketchSerializer.INSTANCE.deserialize(new DataInputDeserializer(cut)))
                .isInstanceOf(EOFException.class);
        assertThat(allocatedBytes() - before).as("deserializer").isLessThan(limit);
        before = allocatedBytes();
        assertThatThrownBy(() -> CountMinSketchSerializer.INSTANCE.deserialize(
                new DataInputViewStreamWrapper(new ByteArrayInputStream(cut)))).isInstanceOf(EOFException.class);
        assertThat(allocatedBytes() - before).as("stream").isLessThan(limit);
        Kryo kryo = kryo();
        before = allocatedBytes();
        assertThatThrownBy(() -> new KryoSerializers.CountMinSketchKryo().read(kryo, new Input(kryoCut), null))
                .isInstanceOf(KryoException.class);
        assertThat(allocatedBytes() - before).as("Kryo input").isLessThan(limit);
    }

    /**
     * An input holding exactly the image (no byte after it) is streamed too: a stream whose {@code available()}
     * covers it and a Kryo input over an array cost the structure, not the structure and its image.
     */
    @Test
    void anInputHoldingExactlyTheImageIsStreamed() throws IOException {
        CountMinSketch s = CountMinSketch.withMemory(4 << 20, 4, 7);
        DataOutputSerializer out = new DataOutputSerializer(5 << 20);
        CountMinSketchSerializer.INSTANCE.serialize(s, out);
        byte[] bytes = out.getCopyOfBuffer();
        ByteArrayOutputStream kryoBytes = new ByteArrayOutputStream();
        KryoSerializers.CountMinSketchKryo kryoSerializer = new KryoSerializers.CountMinSketchKryo();
        try (Output kout = new Output(kryoBytes)) {
            kryoSerializer.write(kryo(), kout, s);
        }
        byte[] kryoImage = kryoBytes.toByteArray();
        Kryo kryo = kryo();
        // warm up both paths
        CountMinSketchSerializer.INSTANCE.deserialize(new DataInputViewStreamWrapper(new ByteArrayInputStream(bytes)));
        kryoSerializer.read(kryo, new Input(kryoImage), null);
        int image = bytes.length - 4;

        long before = allocatedBytes();
        CountMinSketch read = CountMinSketchSerializer.INSTANCE.deserialize(
                new DataInputViewStreamWrapper(new ByteArrayInputStream(bytes)));
        long stream = allocatedBytes() - before;
        before = allocatedBytes();
        CountMinSketch readKryo = kryoSerializer.read(kryo, new Input(kryoImage), null);
        long kryoInput = allocatedBytes() - before;

        assertThat(read.toByteArray()).isEqualTo(s.toByteArray());
        assertThat(readKryo.toByteArray()).isEqualTo(s.toByteArray());
        assertThat(stream).as("stream holding exactly a %d-byte image", image).isLessThan(image + (256L << 10));
        assertThat(kryoInput).as("Kryo input holding exactly a %d-byte image", image).isLessThan(image + (256L << 10));
    }

    private static long allocatedBytes() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean())
                .getThreadAllocatedBytes(Thread.currentThread().getId());
    }

    private interface Read {
        Object run() throws IOException;
    }

    private static String message(Read read) {
        try {
            read.run();
        } catch (IOException e) {
            return e.getMessage();
        }
        throw new AssertionError("read a corrupt image");
    }

    private static byte[] image(HostileLengthTest.Case c, Object value) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(1024);
        c.serializer().serialize(value, out);
        return out.getCopyOfBuffer();
    }
}
