package io.linerate.sketches.image;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.ToIntFunction;
import java.util.zip.CRC32C;

/**
 * Reads and validates an image written by {@link ImageWriter}. Every failure is an
 * {@link IllegalArgumentException} that names what was wrong; sizes are checked against what the image
 * actually holds before anything is allocated.
 *
 * <p>Two modes that accept and reject the same images with the same messages, mirroring the writer's:
 * <ul>
 *   <li>{@link #open(byte[], Family, int)}: the whole image in one array, its checksum verified before any field is
 *       read;</li>
 *   <li>{@link #read(Source, int, Family, int, Function)}: the image pulled from a {@link Source} through a small
 *       buffer (64 KiB by default) straight into the structure's arrays, the checksum computed as the bytes arrive
 *       and verified at the end. No array of the image's size is allocated. Should the structure's reader reject a
 *       field before then, the rest of the image is read through the checksum first, and a checksum mismatch is
 *       reported in its place, as the array mode would have. Allocation is bounded by the declared image length,
 *       as in the array mode; a caller that cannot trust that length (a stream that may end early) should read
 *       the bytes first, as the Flink serializers do unless their input already holds them all.</li>
 * </ul>
 */
public final class ImageReader {

    /**
     * Where a streamed image comes from. Its I/O exceptions reach the caller as {@link UncheckedIOException}s (the
     * image API has no checked exceptions).
     */
    public interface Source {
        /** Reads exactly {@code length} bytes into {@code bytes} at {@code offset}. */
        void read(byte[] bytes, int offset, int length) throws IOException;

        /** Size of the buffer the image is read through (at least 16): 64 KiB unless overridden. */
        default int chunkBytes() {
            return 1 << 16;
        }
    }

    /** Up to this many longs, {@link #getLongs(String, long[], int, int)} reads them one by one. */
    private static final int SHORT_RUN_LONGS = 32;
    private static final int MINIMUM = ImageWriter.PREAMBLE_BYTES + ImageWriter.TRAILER_BYTES;
    /** Little-endian longs straight from the window's array, as {@link ImageWriter} wrote them. */
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    /** Array mode: the image, limited to its body. Stream mode: the window of loaded, unread bytes. */
    private final ByteBuffer buffer;
    private final Family family;
    private final int version;
    private final int imageLength;
    // stream mode only (source == null in array mode)
    private final Source source;
    private final CRC32C crc;
    private long bodyLeft; // body bytes not loaded yet
    private boolean verified; // trailer read and checksum verified
    private boolean sourceFailed; // the source threw: nothing more is read from it

    private ImageReader(ByteBuffer buffer, Family family, int version, int imageLength, Source source, CRC32C crc,
                        long bodyLeft) {
        this.buffer = buffer;
        this.family = family;
        this.version = version;
        this.imageLength = imageLength;
        this.source = source;
        this.crc = crc;
        this.bodyLeft = bodyLeft;
    }

    /**
     * Opens {@code image}, checking magic, family, version ≤ {@code maxVersion} and checksum.
     *
     * @param expected the family the caller can read, or {@code null} for any
     */
    public static ImageReader open(byte[] image, Family expected, int maxVersion) {
        return open(image, versions(expected, maxVersion));
    }

    /**
     * Opens {@code image}, checking magic, family, version and checksum.
     *
     * @param maxVersion the newest version of each family the caller reads; throws {@link IllegalArgumentException}
     *     (with its reason) for a family the caller does not read
     */
    public static ImageReader open(byte[] image, ToIntFunction<Family> maxVersion) {
        if (image == null) {
            throw new IllegalArgumentException("image is null");
        }
        if (image.length < ImageWriter.PREAMBLE_BYTES) {
            throw truncated(image.length);
        }
        // what the bytes are comes first: arbitrary bytes are "not a linerate image", whatever their length
        ByteBuffer b = ByteBuffer.wrap(image).order(ByteOrder.LITTLE_ENDIAN);
        Family family = family(b);
        int version = version(b, family, maxVersion);
        short reserved = b.getShort();
        if (image.length < MINIMUM) {
            throw truncated(image.length);
        }
        int bodyEnd = image.length - ImageWriter.TRAILER_BYTES;
        CRC32C crc = new CRC32C();
        crc.update(image, 0, bodyEnd);
        checkCrc(crc, ByteBuffer.wrap(image, bodyEnd, 4).order(ByteOrder.LITTLE_ENDIAN).getInt());
        checkReserved(reserved);
        b.limit(bodyEnd);
        return new ImageReader(b, family, version, image.length, null, null, 0);
    }

    /**
     * Reads an image of {@code length} bytes from {@code source} with {@code parse} (the structure's reader, which
     * calls {@link #finish()} once it has read every field), validating as {@link #open(byte[], Family, int)} does.
     * Exactly {@code length} bytes are taken from the source, whether the image is read or rejected.
     *
     * @throws IllegalArgumentException for a bad image, with the message the array mode gives
     * @throws UncheckedIOException     if the source fails
     */
    public static <T> T read(Source source, int length, Family expected, int maxVersion,
                             Function<ImageReader, T> parse) {
        return read(source, length, versions(expected, maxVersion), parse);
    }

    /** As {@link #read(Source, int, Family, int, Function)}, for a caller that reads several families. */
    public static <T> T read(Source source, int length, ToIntFunction<Family> maxVersion,
                             Function<ImageReader, T> parse) {
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(parse, "parse");
        if (length < 0) {
            throw new IllegalArgumentException("image length is " + length + ", must be ≥ 0");
        }
        int chunk = source.chunkBytes();
        if (chunk < 16) {
            throw new IllegalArgumentException("chunkBytes must be at least 16, got " + chunk);
        }
        byte[] bytes = new byte[Math.max(Math.min(length, chunk), 16)];
        if (length < ImageWriter.PREAMBLE_BYTES) {
            skip(source, bytes, length, null);
            throw truncated(length);
        }
        fill(source, bytes, 0, ImageWriter.PREAMBLE_BYTES);
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, ImageWriter.PREAMBLE_BYTES);
        ByteBuffer window = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).limit(ImageWriter.PREAMBLE_BYTES);
        long rest = (long) length - ImageWriter.PREAMBLE_BYTES;
        Family family;
        int version;
        try {
            family = family(window);
            version = version(window, family, maxVersion);
        } catch (IllegalArgumentException e) {
            skip(source, bytes, rest, e); // checked before the checksum, as in the array mode
            throw e;
        }
        short reserved = window.getShort();
        if (length < MINIMUM) {
            skip(source, bytes, rest, null);
            throw truncated(length);
        }
        ImageReader in = new ImageReader(window, family, version, length, source, crc, rest - ImageWriter.TRAILER_BYTES);
        T result;
        try {
            checkReserved(reserved);
            result = parse.apply(in);
            in.finish();
        } catch (RuntimeException e) {
            if (!in.sourceFailed && !in.verified) {
                // the array mode verifies the checksum first: a corrupt image is reported as such
                in.drainAndVerify(e);
            }
            throw e;
        }
        return result;
    }

    /** Family of an image, read from its preamble (after checking the magic) without validating the rest. */
    public static Family peekFamily(byte[] image) {
        if (image == null || image.length < ImageWriter.PREAMBLE_BYTES) {
            throw new IllegalArgumentException("image truncated: fewer than " + ImageWriter.PREAMBLE_BYTES
                    + " bytes of preamble");
        }
        return family(ByteBuffer.wrap(image).order(ByteOrder.LITTLE_ENDIAN));
    }

    private static ToIntFunction<Family> versions(Family expected, int maxVersion) {
        return family -> {
            if (expected != null && family != expected) {
                throw new IllegalArgumentException("image holds a " + family + ", expected a " + expected);
            }
            return maxVersion;
        };
    }

    private static IllegalArgumentException truncated(int length) {
        return new IllegalArgumentException("image truncated: " + length + " bytes, at least " + MINIMUM
                + " needed for preamble and checksum");
    }

    /** Magic and family id, from the start of {@code b}. */
    private static Family family(ByteBuffer b) {
        int magic = b.getInt();
        if (magic != ImageWriter.MAGIC) {
            throw new IllegalArgumentException(String.format(Locale.ROOT,
                    "not a linerate image: magic is 0x%08X, expected 0x%08X", magic, ImageWriter.MAGIC));
        }
        int familyId = b.get() & 0xFF;
        Family family = Family.ofId(familyId);
        if (family == null) {
            throw new IllegalArgumentException("unknown image family id " + familyId);
        }
        return family;
    }

    private static int version(ByteBuffer b, Family family, ToIntFunction<Family> maxVersion) {
        int max = maxVersion.applyAsInt(family);
        int version = b.get() & 0xFF;
        if (version < 1 || version > max) {
            throw new IllegalArgumentException("image format version " + version + " of " + family
                    + " is not supported: this library reads versions 1.." + max);
        }
        return version;
    }

    private static void checkCrc(CRC32C crc, int stored) {
        if (stored != (int) crc.getValue()) {
            throw new IllegalArgumentException(String.format(Locale.ROOT,
                    "image corrupt: CRC32C is 0x%08X, the image says 0x%08X", (int) crc.getValue(), stored));
        }
    }

    private static void checkReserved(short reserved) {
        if (reserved != 0) { // kept for future use; a writer that sets it means "older readers must refuse"
            throw new IllegalArgumentException("image preamble field reserved is " + reserved + ", must be 0");
        }
    }

    public Family family() {
        return family;
    }

    public int version() {
        return version;
    }

    /** Length of the whole image: preamble, fields and trailer. */
    public int imageLength() {
        return imageLength;
    }

    /** Field bytes not read yet. */
    public long remaining() {
        return buffer.remaining() + bodyLeft;
    }

    public int getByte(String field) {
        ensure(field, 1);
        return buffer.get() & 0xFF;
    }

    public int getInt(String field) {
        ensure(field, 4);
        return buffer.getInt();
    }

    public long getLong(String field) {
        ensure(field, 8);
        return buffer.getLong();
    }

    public double getDouble(String field) {
        ensure(field, 8);
        return buffer.getDouble();
    }

    /** A long value that must lie in [min, max]. */
    public long getLong(String field, long min, long max) {
        long v = getLong(field);
        if (v < min || v > max) {
            throw new IllegalArgumentException("image field " + field + " is " + v + ", must be in [" + min + ", "
                    + max + "]");
        }
        return v;
    }

    /** An int value that must lie in [min, max]. */
    public int getInt(String field, int min, int max) {
        int v = getInt(field);
        if (v < min || v > max) {
            throw new IllegalArgumentException("image field " + field + " is " + v + ", must be in [" + min + ", "
                    + max + "]");
        }
        return v;
    }

    /** Reads {@code count} bytes, after checking the image holds them. */
    public byte[] getBytes(String field, long count) {
        if (count < 0 || count > (Integer.MAX_VALUE - 8)) {
            throw new IllegalArgumentException("image field " + field + " declares " + count + " bytes, limit is "
                    + (Integer.MAX_VALUE - 8));
        }
        need(field, count);
        byte[] out = new byte[(int) count];
        copyBytes(out, 0, out.length);
        return out;
    }

    /** Reads {@code count} bytes into {@code out} at {@code offset}, after checking the image holds them. */
    public void getBytes(String field, byte[] out, int offset, int count) {
        Objects.checkFromIndexSize(offset, count, out.length);
        need(field, count);
        copyBytes(out, offset, count);
    }

    /** Skips {@code count} bytes, after checking the image holds them. */
    public void skip(String field, long count) {
        need(field, count);
        while (count > 0) {
            if (!buffer.hasRemaining()) {
                refill();
            }
            int n = (int) Math.min(count, buffer.remaining());
            buffer.position(buffer.position() + n);
            count -= n;
        }
    }

    /** Fails unless the image holds {@code bytes} more bytes: before a caller allocates for them. */
    public void require(String field, long bytes) {
        need(field, bytes);
    }

    /**
     * The next {@code length} bytes of this image as a source, for an image embedded in this one: read with
     * {@link #read(Source, int, Family, int, Function)} after {@link #require} has checked they are there.
     */
    public Source embedded(String field) {
        return (bytes, offset, length) -> getBytes(field, bytes, offset, length);
    }

    /** Reads {@code count} ints, after checking the image holds them. */
    public int[] getInts(String field, int count) {
        if (count < 0) {
            throw new IllegalArgumentException("image field " + field + " declares " + count + " ints");
        }
        need(field, (long) count * Integer.BYTES);
        int[] out = new int[count];
        int at = 0;
        while (at < count) {
            if (buffer.remaining() < Integer.BYTES) {
                refill();
            }
            int n = Math.min(count - at, buffer.remaining() / Integer.BYTES);
            buffer.asIntBuffer().get(out, at, n);
            buffer.position(buffer.position() + n * Integer.BYTES);
            at += n;
        }
        return out;
    }

    /** Reads {@code count} longs into {@code out} at {@code offset}, after checking the image holds them. */
    public void getLongs(String field, long[] out, int offset, int count) {
        need(field, (long) count * Long.BYTES);
        java.util.Objects.checkFromIndexSize(offset, count, out.length);
        if (count <= SHORT_RUN_LONGS && buffer.remaining() >= count * Long.BYTES) {
            // a few longs, as in a flow table's runs of entries: plain reads, measured faster than a LongBuffer
            // view per call
            int p = buffer.position();
            for (int i = 0; i < count; i++) {
                out[offset + i] = buffer.getLong(p + i * Long.BYTES);
            }
            buffer.position(p + count * Long.BYTES);
            return;
        }
        while (count > 0) {
            if (buffer.remaining() < Long.BYTES) {
                refill();
            }
            int n = Math.min(count, buffer.remaining() / Long.BYTES);
            buffer.asLongBuffer().get(out, offset, n);
            buffer.position(buffer.position() + n * Long.BYTES);
            offset += n;
            count -= n;
        }
    }

    /**
     * Reads {@code count} records of {@code stride} longs each, consecutive in the image, record {@code i} into
     * {@code out} at {@code indexes[i] * stride}, after checking the image holds them all: a scatter of the image's
     * longs, read straight from the loaded window (no call per record, no intermediate array).
     */
    public void getLongRecords(String field, long[] out, int[] indexes, int count, int stride) {
        if (stride < 1 || count < 0 || count > indexes.length) {
            throw new IllegalArgumentException("getLongRecords: " + count + " records of " + stride + " longs, "
                    + indexes.length + " indexes");
        }
        need(field, (long) count * stride * Long.BYTES);
        int recordBytes = stride * Long.BYTES;
        int i = 0;
        if (buffer.capacity() < recordBytes) { // a window smaller than one record (tiny chunks): long by long
            for (; i < count; i++) {
                getLongs(field, out, Math.multiplyExact(indexes[i], stride), stride);
            }
            return;
        }
        byte[] bytes = buffer.array();
        int base = buffer.arrayOffset();
        while (i < count) {
            if (buffer.remaining() < recordBytes) {
                refill(); // the window holds at least one record, and need() says the image has it
            }
            int p = base + buffer.position();
            int end = i + Math.min(count - i, buffer.remaining() / recordBytes);
            for (; i < end; i++) {
                int o = Math.multiplyExact(indexes[i], stride);
                Objects.checkFromIndexSize(o, stride, out.length);
                for (int j = 0; j < stride; j++) {
                    out[o + j] = (long) LONGS.get(bytes, p + j * Long.BYTES);
                }
                p += recordBytes;
            }
            buffer.position(p - base);
        }
    }

    /** Reads {@code count} longs, after checking the image holds them. */
    public long[] getLongs(String field, long count) {
        if (count < 0 || count > (Integer.MAX_VALUE - 8)) {
            throw new IllegalArgumentException("image field " + field + " declares " + count + " longs, limit is "
                    + (Integer.MAX_VALUE - 8));
        }
        need(field, count * Long.BYTES);
        long[] out = new long[(int) count];
        getLongs(field, out, 0, out.length);
        return out;
    }

    /**
     * Fails unless every byte of the image was read; from a source, then reads the trailer and verifies the
     * checksum (a mismatch is reported before trailing bytes, as in the array mode).
     */
    public void finish() {
        if (source == null) {
            if (buffer.hasRemaining()) {
                throw trailing(buffer.remaining());
            }
            return;
        }
        if (verified) {
            return;
        }
        long left = remaining();
        drainAndVerify(null);
        if (left > 0) {
            throw trailing(left);
        }
    }

    private IllegalArgumentException trailing(long bytes) {
        return new IllegalArgumentException("image has " + bytes + " unexpected trailing bytes for a "
                + family + " of version " + version);
    }

    private void need(String field, long bytes) {
        if (remaining() < bytes) {
            throw new IllegalArgumentException("image truncated: field " + field + " needs " + bytes
                    + " bytes, only " + remaining() + " remain");
        }
    }

    /** {@link #need}, then at least {@code bytes} (≤ 8) loaded. */
    private void ensure(String field, int bytes) {
        need(field, bytes);
        if (buffer.remaining() < bytes) {
            refill();
        }
    }

    private void copyBytes(byte[] out, int offset, int count) {
        while (count > 0) {
            if (!buffer.hasRemaining()) {
                refill();
            }
            int n = Math.min(count, buffer.remaining());
            buffer.get(out, offset, n);
            offset += n;
            count -= n;
        }
    }

    /** Stream mode: keeps the unread bytes and loads as many more as the buffer takes (checksummed as they come). */
    private void refill() {
        buffer.compact();
        int n = (int) Math.min(bodyLeft, buffer.remaining());
        int at = buffer.position();
        load(buffer.array(), at, n);
        crc.update(buffer.array(), at, n);
        bodyLeft -= n;
        buffer.position(at + n).flip();
    }

    /**
     * Stream mode: reads what is left of the body through the checksum, then the trailer, and verifies it; a
     * mismatch throws, with {@code cause} (what the reader had rejected) attached as suppressed.
     */
    private void drainAndVerify(RuntimeException cause) {
        byte[] bytes = buffer.array();
        buffer.position(buffer.limit());
        try {
            while (bodyLeft > 0) {
                int n = (int) Math.min(bodyLeft, bytes.length);
                load(bytes, 0, n);
                crc.update(bytes, 0, n);
                bodyLeft -= n;
            }
            load(bytes, 0, ImageWriter.TRAILER_BYTES);
        } catch (RuntimeException e) { // the source's: an I/O failure or its own unchecked exception
            if (cause != null) {
                e.addSuppressed(cause);
            }
            throw e;
        }
        buffer.clear().limit(0);
        verified = true;
        try {
            checkCrc(crc, ByteBuffer.wrap(bytes, 0, 4).order(ByteOrder.LITTLE_ENDIAN).getInt());
        } catch (IllegalArgumentException e) {
            if (cause != null) {
                e.addSuppressed(cause);
            }
            throw e;
        }
    }

    /** Stream mode: {@link #fill}, remembering a failure of the source so that nothing more is read from it. */
    private void load(byte[] bytes, int offset, int length) {
        try {
            fill(source, bytes, offset, length);
        } catch (RuntimeException e) {
            sourceFailed = true;
            throw e;
        }
    }

    private static void fill(Source source, byte[] bytes, int offset, int length) {
        try {
            source.read(bytes, offset, length);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Reads and drops {@code count} bytes of a rejected image, so the source is left after it. */
    private static void skip(Source source, byte[] scratch, long count, RuntimeException cause) {
        try {
            while (count > 0) {
                int n = (int) Math.min(count, scratch.length);
                fill(source, scratch, 0, n);
                count -= n;
            }
        } catch (RuntimeException e) { // the source's
            if (cause != null) {
                e.addSuppressed(cause);
            }
            throw e;
        }
    }
}
