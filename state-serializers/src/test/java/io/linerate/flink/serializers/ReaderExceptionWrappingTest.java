package io.linerate.flink.serializers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import io.linerate.sketches.frequency.CountMinSketch;
import io.linerate.sketches.frequency.RowIndexing;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.List;
import java.util.function.Supplier;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

/**
 * Whatever runtime exception a structure's reader lets escape on hostile state, the Flink and Kryo serializers
 * report it as a bad image ("cannot read … image"), an IOException or KryoException with the cause kept; an
 * Error is not a bad image and propagates as it is.
 */
class ReaderExceptionWrappingTest {

    /** A Count-Min serializer whose reader throws what {@code failure} supplies. */
    private static final class FailingReader extends ImageSerializer<CountMinSketch> {
        private static final long serialVersionUID = 1L;
        private final transient Supplier<Throwable> failure;

        FailingReader(Supplier<Throwable> failure) {
            super(null);
            this.failure = failure;
        }

        @Override
        public Class<CountMinSketch> typeClass() {
            return CountMinSketch.class;
        }

        @Override
        protected byte[] toImage(CountMinSketch value) {
            return value.toByteArray();
        }

        @Override
        protected void writeImage(CountMinSketch value, io.linerate.sketches.image.ImageWriter.Sink sink) {
            value.writeImage(sink);
        }

        @Override
        protected CountMinSketch copyOf(CountMinSketch value) {
            return value.copy();
        }

        @Override
        protected CountMinSketch fromImage(byte[] image) {
            Throwable t = failure.get();
            if (t instanceof RuntimeException) {
                throw (RuntimeException) t;
            }
            throw (Error) t;
        }

        @Override
        protected ImageSerializerSnapshot<CountMinSketch> newSnapshot(Shape shape) {
            return new CountMinSketchSerializer.Snapshot(shape);
        }
    }

    private static final List<Supplier<Throwable>> RUNTIME = List.of(
            () -> new IllegalArgumentException("image corrupt: test"),
            () -> new ArrayIndexOutOfBoundsException("Index 9 out of bounds for length 4"),
            () -> new NegativeArraySizeException("-512"),
            () -> new ArithmeticException("integer overflow"),
            () -> new NullPointerException(),
            () -> new IllegalStateException("broken"),
            () -> new ClassCastException("x"));

    private static byte[] image() {
        return CountMinSketch.withShape(16, 2, 1, RowIndexing.FULL_WIDTH, false).toByteArray();
    }

    private static DataInputDeserializer flinkBytes() throws IOException {
        byte[] image = image();
        DataOutputSerializer out = new DataOutputSerializer(image.length + 4);
        out.writeInt(image.length);
        out.write(image);
        return new DataInputDeserializer(out.getCopyOfBuffer());
    }

    private static Input kryoBytes() {
        byte[] image = image();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (Output out = new Output(bytes)) {
            out.writeInt(image.length);
            out.writeBytes(image);
        }
        return new Input(bytes.toByteArray());
    }

    private static ImageKryoSerializer<CountMinSketch> kryo(FailingReader reader) {
        return new ImageKryoSerializer<>(reader) {
            private static final long serialVersionUID = 1L;
        };
    }

    @Test
    void everyRuntimeExceptionOfAReaderIsReportedAsABadImage() throws IOException {
        for (Supplier<Throwable> failure : RUNTIME) {
            Throwable example = failure.get();
            FailingReader reader = new FailingReader(failure);
            String expected = "cannot read CountMinSketch image: " + (example instanceof IllegalArgumentException
                    ? example.getMessage() : example.toString());
            DataInputDeserializer in = flinkBytes();
            assertThatThrownBy(() -> reader.deserialize(in)).as(example.toString())
                    .isExactlyInstanceOf(IOException.class).hasMessage(expected)
                    .hasCauseExactlyInstanceOf(example.getClass());
            assertThatThrownBy(() -> kryo(reader).read(new Kryo(), kryoBytes(), CountMinSketch.class))
                    .as(example.toString())
                    .isExactlyInstanceOf(KryoException.class).hasMessage(expected)
                    .hasCauseExactlyInstanceOf(example.getClass());
        }
    }

    @Test
    void anErrorIsNotWrapped() throws IOException {
        FailingReader reader = new FailingReader(() -> new StackOverflowError("deep"));
        DataInputDeserializer in = flinkBytes();
        assertThatThrownBy(() -> reader.deserialize(in)).isExactlyInstanceOf(StackOverflowError.class);
        assertThatThrownBy(() -> kryo(reader).read(new Kryo(), kryoBytes(), CountMinSketch.class))
                .isExactlyInstanceOf(StackOverflowError.class);
        // the same bytes read by the real reader
        assertThat(CountMinSketchSerializer.INSTANCE.deserialize(flinkBytes()).width()).isEqualTo(16);
    }
}
