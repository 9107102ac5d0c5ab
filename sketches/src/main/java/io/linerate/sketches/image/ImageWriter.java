package io.linerate.sketches.image;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Objects;
import java.util.zip.CRC32C;

/**
 * Writes a versioned byte image: an 8-byte preamble, the family's fields, and a CRC32C trailer.
 *
 * <pre>
 * offset 0  int   magic 'LRSK' (0x4B53524C little-endian)
 *        4  byte  family id ({@link Family})
 *        5  byte  format version of that family
 *        6  short reserved, 0
 *        8  ...   family fields (little-endian)
 *   len-4   int   CRC32C of bytes [0, len-4)
 * </pre>
 *
 * Like DataSketches' preambles: the reader can tell what it holds, which version wrote it, and whether
 * it arrived whole, before it allocates anything the image asks for.
 *
 * <p>Two modes with the same bytes: into one array of the image's size ({@link #finish()} returns it), or streamed
 * to a {@link Sink} through a small buffer (the checksum is computed as the chunks go out, the trailer written
 * last), so a serializer writes a structure of any size without allocating its whole image.
 */
public final class ImageWriter {

    public static final int MAGIC = 0x4B53524C;
    static final int PREAMBLE_BYTES = 8;
    static final int TRAILER_BYTES = 4;

    /**
     * Where a streamed image goes. Its I/O exceptions reach the caller of the structure's {@code writeImage} as
     * {@link UncheckedIOException}s (the image API has no checked exceptions).
     */
    public interface Sink {
        /** Called once, before any byte, with the image's total length: preamble, fields and trailer. */
        void begin(int imageLength) throws IOException;

        /** The next {@code length} bytes of the image. */
        void write(byte[] bytes, int offset, int length) throws IOException;

        /** Bytes buffered between writes (at least 16): 64 KiB unless overridden. */
        default int chunkBytes() {
            return 1 << 16;
        }
    }

    private final ByteBuffer buffer;
    private final Sink sink; // null: the image is built in one array
    private final CRC32C crc;
    private final int total;
    private long flushed; // bytes already handed to the sink

    /** The most bytes an image may have: one Java array (the unit Flink state and checkpoints hold). */
    public static final int MAX_IMAGE_BYTES = Integer.MAX_VALUE - 8;

    /** The length of an image whose family fields take {@code fieldBytes}: preamble, fields and trailer. */
    public static long imageBytes(long fieldBytes) {
        return PREAMBLE_BYTES + fieldBytes + TRAILER_BYTES;
    }

    /** Hands a finished image to {@code sink} in one piece (for writers that only have the array). */
    public static void writeWhole(byte[] image, Sink sink) {
        try {
            sink.begin(image.length);
            sink.write(image, 0, image.length);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** An image built in one array; {@link #finish()} returns it. */
    public ImageWriter(Family family, int version, long fieldBytes) {
        this(family, version, fieldBytes, null);
    }

    /**
     * @param fieldBytes exact size of the family fields that will be written
     * @param sink       where the image is streamed, or {@code null} to build it in one array
     */
    public ImageWriter(Family family, int version, long fieldBytes, Sink sink) {
        long total = imageBytes(fieldBytes);
        if (total > MAX_IMAGE_BYTES) {
            throw new IllegalArgumentException("image would have " + total + " bytes; a byte[] holds at most "
                    + MAX_IMAGE_BYTES + ": serialize this structure in parts or shrink it");
        }
        this.total = (int) total;
        this.sink = sink;
        if (sink == null) {
            buffer = ByteBuffer.allocate(this.total).order(ByteOrder.LITTLE_ENDIAN);
            crc = null;
        } else {
            int chunk = sink.chunkBytes();
            if (chunk < 16) {
                throw new IllegalArgumentException("chunkBytes must be at least 16, got " + chunk);
            }
            buffer = ByteBuffer.allocate(Math.min(this.total, chunk)).order(ByteOrder.LITTLE_ENDIAN);
            crc = new CRC32C();
            try {
                sink.begin(this.total);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        buffer.putInt(MAGIC).put((byte) family.id()).put((byte) version).putShort((short) 0);
    }

    /**
     * Makes room for {@code n} more bytes (n ≤ 8 or a bulk run that fits the buffer) in stream mode; in both modes
     * fails if they pass the declared field size (the array mode used to write them over the trailer's place and
     * then report "-4 bytes left unwritten", or throw a BufferOverflowException).
     */
    private void room(int n) {
        declared(n);
        if (sink != null && buffer.remaining() < n) {
            flush();
        }
    }

    /** Fails if {@code n} more field bytes pass the declared field size. */
    private void declared(long n) {
        if (flushed + buffer.position() + n > total - TRAILER_BYTES) {
            throw new IllegalStateException("image fields sized wrongly: more than the "
                    + (total - PREAMBLE_BYTES - TRAILER_BYTES) + " bytes declared");
        }
    }

    /** Checksums the buffered bytes and hands them to the sink. */
    private void flush() {
        int n = buffer.position();
        crc.update(buffer.array(), 0, n);
        try {
            sink.write(buffer.array(), 0, n);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        flushed += n;
        buffer.clear();
    }

    public ImageWriter putByte(int v) {
        room(1);
        buffer.put((byte) v);
        return this;
    }

    public ImageWriter putInt(int v) {
        room(4);
        buffer.putInt(v);
        return this;
    }

    public ImageWriter putLong(long v) {
        room(8);
        buffer.putLong(v);
        return this;
    }

    public ImageWriter putDouble(double v) {
        room(8);
        buffer.putDouble(v);
        return this;
    }

    public ImageWriter putBytes(byte[] values, int from, int count) {
        Objects.checkFromIndexSize(from, count, values.length);
        if (sink == null) {
            declared(count);
            buffer.put(values, from, count);
            return this;
        }
        while (count > 0) {
            room(1);
            int n = Math.min(count, buffer.remaining());
            room(n);
            buffer.put(values, from, n);
            from += n;
            count -= n;
        }
        return this;
    }

    public ImageWriter putInts(int[] values, int from, int count) {
        Objects.checkFromIndexSize(from, count, values.length);
        if (sink == null) {
            declared((long) count * Integer.BYTES);
            buffer.asIntBuffer().put(values, from, count);
            buffer.position(buffer.position() + count * Integer.BYTES);
            return this;
        }
        while (count > 0) {
            room(Integer.BYTES);
            int n = Math.min(count, buffer.remaining() / Integer.BYTES);
            room(n * Integer.BYTES);
            buffer.asIntBuffer().put(values, from, n);
            buffer.position(buffer.position() + n * Integer.BYTES);
            from += n;
            count -= n;
        }
        return this;
    }

    public ImageWriter putLongs(long[] values, int from, int count) {
        Objects.checkFromIndexSize(from, count, values.length);
        if (count <= 8 && count * Long.BYTES <= buffer.capacity()) { // short runs: no view buffer, one room check
            room(count * Long.BYTES);
            for (int i = 0; i < count; i++) {
                buffer.putLong(values[from + i]);
            }
            return this;
        }
        if (sink == null) {
            declared((long) count * Long.BYTES);
            buffer.asLongBuffer().put(values, from, count);
            buffer.position(buffer.position() + count * Long.BYTES);
            return this;
        }
        while (count > 0) {
            room(Long.BYTES);
            int n = Math.min(count, buffer.remaining() / Long.BYTES);
            room(n * Long.BYTES);
            buffer.asLongBuffer().put(values, from, n);
            buffer.position(buffer.position() + n * Long.BYTES);
            from += n;
            count -= n;
        }
        return this;
    }

    /**
     * Appends the checksum; fails if the declared field size was not filled exactly. Returns the image, or
     * {@code null} when it was streamed to a sink (which then has all of it).
     */
    public byte[] finish() {
        if (sink == null) {
            if (buffer.remaining() != TRAILER_BYTES) {
                throw new IllegalStateException("image fields sized wrongly: " + (buffer.remaining() - TRAILER_BYTES)
                        + " bytes left unwritten");
            }
            CRC32C sum = new CRC32C();
            sum.update(buffer.array(), 0, buffer.position());
            buffer.putInt((int) sum.getValue());
            return buffer.array();
        }
        long left = total - TRAILER_BYTES - flushed - buffer.position();
        if (left != 0) {
            throw new IllegalStateException("image fields sized wrongly: " + left + " bytes left unwritten");
        }
        if (buffer.remaining() < TRAILER_BYTES) {
            flush();
        }
        crc.update(buffer.array(), 0, buffer.position());
        buffer.putInt((int) crc.getValue());
        try {
            sink.write(buffer.array(), 0, buffer.position());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        buffer.clear();
        return null;
    }
}
