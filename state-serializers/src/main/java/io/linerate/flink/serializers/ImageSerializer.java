package io.linerate.flink.serializers;

import io.linerate.sketches.image.ImageReader;
import io.linerate.sketches.image.ImageWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Base of every linerate serializer. Wire format: a 4-byte big-endian length (Flink's {@code writeInt}) followed
 * by exactly that many bytes of the structure's own versioned, checksummed byte image ({@code toByteArray()},
 * streamed by {@code writeImage} without building the array).
 * The image is the format; there is no second one.
 *
 * <p>Reading validates the length against {@link #MAX_IMAGE_BYTES}. From a view that holds all the declared bytes
 * (a {@link org.apache.flink.core.memory.DataInputDeserializer}, as the RocksDB backend and the network stack use,
 * or a stream whose {@code available()} covers them), the image is streamed through a 64 KiB buffer into the
 * structure's arrays, as writing streams it out (the bytes are present, so what the structure allocates is bounded
 * by them). From any other view it never allocates more than {@link #INITIAL_CHUNK} bytes ahead of the bytes
 * actually read: the buffer grows (doubling, capped at the declared length) as data arrives, so a length field
 * claiming gigabytes on a short stream fails with an {@link java.io.EOFException} after allocating at most about
 * twice the bytes present.
 *
 * <p>The serializer holds only its immutable expected {@link Shape} (or {@code null}: unspecified), so it is
 * stateless and {@link #duplicate()} returns {@code this}.
 */
public abstract class ImageSerializer<T> extends TypeSerializer<T> {

    private static final long serialVersionUID = 1L;

    /** Largest image length accepted in the length field: the largest Java byte array most VMs allocate. */
    public static final int MAX_IMAGE_BYTES = Integer.MAX_VALUE - 8;

    /** The read buffer starts at this size (or the declared length, if smaller) and doubles as bytes arrive. */
    public static final int INITIAL_CHUNK = 1 << 16;

    /**
     * Structures written by any linerate Flink serializer in this JVM; lets a test show that Flink used these
     * serializers for state (a {@link LongAdder} increment is negligible next to writing an image).
     */
    static final LongAdder WRITES = new LongAdder();

    private final Shape expected;

    protected ImageSerializer(Shape expected) {
        this.expected = expected;
    }

    /** The configuration this serializer expects, or {@code null} if unspecified. */
    public final Shape expectedShape() {
        return expected;
    }

    /** Class of the structures handled. */
    public abstract Class<T> typeClass();

    /** The structure's image. */
    protected abstract byte[] toImage(T value);

    /**
     * Streams the structure's image ({@link #toImage}'s bytes) to {@code sink}: the structure's {@code writeImage}
     * in every serializer of this library; the default, for subclasses outside it, writes {@link #toImage}.
     */
    protected void writeImage(T value, ImageWriter.Sink sink) {
        ImageWriter.writeWhole(toImage(value), sink);
    }

    /**
     * The structure read back from its image; throws {@link IllegalArgumentException} on a bad image.
     * {@link #deserialize(DataInputView)} reports any {@link RuntimeException} from here as an {@link IOException}.
     */
    protected abstract T fromImage(byte[] image);

    /**
     * The structure read from the next {@code length} bytes of {@code source}, as {@link #fromImage} reads them from
     * an array: the structure's {@code readImage} in every serializer of this library (a small buffer, no array of
     * the image's size); the default, for subclasses outside it, reads the bytes into an array first. Throws
     * {@link IllegalArgumentException} on a bad image, {@link UncheckedIOException} if the source fails.
     */
    protected T readImage(ImageReader.Source source, int length) {
        byte[] image = new byte[length];
        try {
            source.read(image, 0, length);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return fromImage(image);
    }

    /**
     * An independent deep copy: the structure's {@code copy()} in every serializer of this library (array copies,
     * no validation, as the value is a live structure, not bytes from outside); the default, for subclasses
     * outside it, is a round trip through the image.
     */
    protected T copyOf(T value) {
        return fromImage(toImage(value));
    }

    /** A snapshot of this serializer's configuration. */
    protected abstract ImageSerializerSnapshot<T> newSnapshot(Shape shape);

    @Override
    public final boolean isImmutableType() {
        return false;
    }

    @Override
    public final TypeSerializer<T> duplicate() {
        return this;
    }

    /**
     * Returns {@code null}: a structure cannot be created without its shape, and the serializer's expected
     * shape may be unspecified. Flink only needs instances for reuse, which these serializers do not use.
     */
    @Override
    public T createInstance() {
        return null;
    }

    /**
     * The structure's own deep copy, not a round trip through its image: the heap state backend calls this for
     * every key whose state is accessed while an asynchronous snapshot is being written (copy on write), so it
     * is on the task thread during every checkpoint. Reading an image validates it (a 1M-flow table's read hashes
     * every key); a copy of a live structure needs no validation.
     */
    @Override
    public final T copy(T from) {
        return copyOf(from);
    }

    /** Structures are not reused: same as {@link #copy(Object)}. */
    @Override
    public final T copy(T from, T reuse) {
        return copy(from);
    }

    @Override
    public final int getLength() {
        return -1;
    }

    /**
     * The length, then the image streamed into {@code target} in chunks of at most 64 KiB (the checksum computed
     * as they go), so serializing a structure allocates a small buffer, not an array of its image's size. Should
     * the target fail midway, part of the image is already in it; Flink fails the record's task or checkpoint on
     * the exception either way, so nothing reads that partial image.
     */
    @Override
    public final void serialize(T record, DataOutputView target) throws IOException {
        WRITES.increment();
        try {
            writeImage(record, new ImageWriter.Sink() {
                @Override
                public void begin(int imageLength) throws IOException {
                    target.writeInt(imageLength);
                }

                @Override
                public void write(byte[] bytes, int offset, int length) throws IOException {
                    target.write(bytes, offset, length);
                }
            });
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }

    /**
     * From a view that already holds the whole image (a {@link DataInputDeserializer}, or a stream whose
     * {@code available()} says so: the bytes are present, so what the read allocates is bounded by them), the image
     * is read through a 64 KiB buffer straight into the structure's arrays; otherwise the bytes are read first,
     * growing the buffer only as they arrive, so a length field claiming gigabytes on a short stream fails after
     * allocating at most about twice the bytes present.
     */
    @Override
    public final T deserialize(DataInputView source) throws IOException {
        int length = readLength(source);
        try {
            if (holds(source, length)) {
                return readImage(source::readFully, length);
            }
            return fromImage(readBytes(source::readFully, length));
        } catch (UncheckedIOException e) {
            throw e.getCause();
        } catch (RuntimeException e) {
            // any runtime exception a reader lets escape on hostile state (its contract is an
            // IllegalArgumentException) is a bad image too; Errors propagate
            throw new IOException(cannotRead(typeClass(), e), e);
        }
    }

    /**
     * "cannot read T image: " and the reader's message, or for anything but an IllegalArgumentException (whose
     * message is the reader's explanation) the exception's class and message.
     */
    static String cannotRead(Class<?> type, RuntimeException e) {
        return "cannot read " + type.getSimpleName() + " image: "
                + (e instanceof IllegalArgumentException ? e.getMessage() : e.toString());
    }

    @Override
    public final T deserialize(T reuse, DataInputView source) throws IOException {
        return deserialize(source);
    }

    @Override
    public final void copy(DataInputView source, DataOutputView target) throws IOException {
        int length = readLength(source);
        target.writeInt(length);
        byte[] buffer = new byte[Math.min(length, INITIAL_CHUNK)];
        int left = length;
        while (left > 0) {
            int n = Math.min(left, buffer.length);
            source.readFully(buffer, 0, n);
            target.write(buffer, 0, n);
            left -= n;
        }
    }

    private int readLength(DataInputView source) throws IOException {
        int length = source.readInt();
        if (length < 0 || length > MAX_IMAGE_BYTES) {
            throw new IOException(typeClass().getSimpleName() + " image length field is " + length
                    + ", outside [0, " + MAX_IMAGE_BYTES + "]");
        }
        return length;
    }

    /**
     * Whether {@code source} says it holds at least {@code length} more bytes: a {@link DataInputDeserializer}'s
     * {@code available()}, or that of a view that is an {@link InputStream}; any other view says nothing (false).
     */
    static boolean holds(DataInputView source, int length) {
        if (source instanceof DataInputDeserializer) {
            return ((DataInputDeserializer) source).available() >= length;
        }
        if (source instanceof InputStream) {
            try {
                return ((InputStream) source).available() >= length;
            } catch (IOException e) {
                return false; // a stream that cannot say: read as the bytes arrive, as before available() was asked
            }
        }
        return false;
    }

    /**
     * Reads {@code length} bytes, growing the buffer only as bytes arrive (the Flink and the Kryo serializers'
     * read from an input that does not say it holds them all).
     */
    static byte[] readBytes(ImageReader.Source source, int length) throws IOException {
        byte[] buf = new byte[Math.min(length, INITIAL_CHUNK)];
        int have = 0;
        while (have < length) {
            if (have == buf.length) {
                buf = Arrays.copyOf(buf, (int) Math.min(length, 2L * buf.length));
            }
            int n = buf.length - have;
            source.read(buf, have, n);
            have += n;
        }
        return buf;
    }

    @Override
    public final TypeSerializerSnapshot<T> snapshotConfiguration() {
        return newSnapshot(expected);
    }

    @Override
    public boolean equals(Object o) {
        return o != null && o.getClass() == getClass() && Objects.equals(expected, ((ImageSerializer<?>) o).expected);
    }

    @Override
    public int hashCode() {
        return getClass().hashCode() * 31 + Objects.hashCode(expected);
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + (expected == null ? "[unspecified]" : expected.toString());
    }
}
