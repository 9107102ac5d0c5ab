package io.linerate.sketches.image;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * Reads and validates an image written by {@link ImageWriter}. Every failure is an
 * {@link IllegalArgumentException} that names what was wrong; sizes are checked against what the image
 * actually holds before anything is allocated.
 */
public final class ImageReader {

    /** Up to this many longs, {@link #getLongs(String, long[], int, int)} reads them one by one. */
    private static final int SHORT_RUN_LONGS = 32;

    private final ByteBuffer buffer;
    private final Family family;
    private final int version;

    private ImageReader(ByteBuffer buffer, Family family, int version) {
        this.buffer = buffer;
        this.family = family;
        this.version = version;
    }

    /**
     * Opens {@code image}, checking magic, family, version ≤ {@code maxVersion} and checksum.
     *
     * @param expected the family the caller can read, or {@code null} for any
     */
    public static ImageReader open(byte[] image, Family expected, int maxVersion) {
        if (image == null) {
            throw new IllegalArgumentException("image is null");
        }
        int minimum = ImageWriter.PREAMBLE_BYTES + ImageWriter.TRAILER_BYTES;
        if (image.length < minimum) {
            throw new IllegalArgumentException("image truncated: " + image.length + " bytes, at least " + minimum
                    + " needed for preamble and checksum");
        }
        ByteBuffer b = ByteBuffer.wrap(image).order(ByteOrder.LITTLE_ENDIAN);
        int magic = b.getInt();
        if (magic != ImageWriter.MAGIC) {
            throw new IllegalArgumentException(String.format(
                    "not a linerate image: magic is 0x%08X, expected 0x%08X", magic, ImageWriter.MAGIC));
        }
        int familyId = b.get() & 0xFF;
        Family family = Family.ofId(familyId);
        if (family == null) {
            throw new IllegalArgumentException("unknown image family id " + familyId);
        }
        if (expected != null && family != expected) {
            throw new IllegalArgumentException("image holds a " + family + ", expected a " + expected);
        }
        int version = b.get() & 0xFF;
        if (version < 1 || version > maxVersion) {
            throw new IllegalArgumentException("image format version " + version + " of " + family
                    + " is not supported: this library reads versions 1.." + maxVersion);
        }
        short reserved = b.getShort();
        int bodyEnd = image.length - ImageWriter.TRAILER_BYTES;
        CRC32C crc = new CRC32C();
        crc.update(image, 0, bodyEnd);
        int stored = ByteBuffer.wrap(image, bodyEnd, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
        if (stored != (int) crc.getValue()) {
            throw new IllegalArgumentException(String.format(
                    "image corrupt: CRC32C is 0x%08X, the image says 0x%08X", (int) crc.getValue(), stored));
        }
        if (reserved != 0) { // kept for future use; a writer that sets it means "older readers must refuse"
            throw new IllegalArgumentException("image preamble field reserved is " + reserved + ", must be 0");
        }
        b.limit(bodyEnd);
        return new ImageReader(b, family, version);
    }

    /** Family of an image, read from its preamble (after checking the magic) without validating the rest. */
    public static Family peekFamily(byte[] image) {
        if (image == null || image.length < ImageWriter.PREAMBLE_BYTES) {
            throw new IllegalArgumentException("image truncated: fewer than " + ImageWriter.PREAMBLE_BYTES
                    + " bytes of preamble");
        }
        int magic = ByteBuffer.wrap(image, 0, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
        if (magic != ImageWriter.MAGIC) {
            throw new IllegalArgumentException(String.format(
                    "not a linerate image: magic is 0x%08X, expected 0x%08X", magic, ImageWriter.MAGIC));
        }
        Family f = Family.ofId(image[4] & 0xFF);
        if (f == null) {
            throw new IllegalArgumentException("unknown image family id " + (image[4] & 0xFF));
        }
        return f;
    }

    public Family family() {
        return family;
    }

    public int version() {
        return version;
    }

    public int getByte(String field) {
        need(field, 1);
        return buffer.get() & 0xFF;
    }

    public int getInt(String field) {
        need(field, 4);
        return buffer.getInt();
    }

    public long getLong(String field) {
        need(field, 8);
        return buffer.getLong();
    }

    public double getDouble(String field) {
        need(field, 8);
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
        buffer.get(out);
        return out;
    }

    /** Reads {@code count} ints, after checking the image holds them. */
    public int[] getInts(String field, int count) {
        if (count < 0) {
            throw new IllegalArgumentException("image field " + field + " declares " + count + " ints");
        }
        need(field, (long) count * Integer.BYTES);
        int[] out = new int[count];
        buffer.asIntBuffer().get(out);
        buffer.position(buffer.position() + count * Integer.BYTES);
        return out;
    }

    /** Reads {@code count} longs into {@code out} at {@code offset}, after checking the image holds them. */
    public void getLongs(String field, long[] out, int offset, int count) {
        need(field, (long) count * Long.BYTES);
        if (count <= SHORT_RUN_LONGS) {
            // a few longs, as in a flow table's runs of entries: plain reads, measured faster than a LongBuffer
            // view per call
            java.util.Objects.checkFromIndexSize(offset, count, out.length);
            int p = buffer.position();
            for (int i = 0; i < count; i++) {
                out[offset + i] = buffer.getLong(p + i * Long.BYTES);
            }
        } else {
            buffer.asLongBuffer().get(out, offset, count);
        }
        buffer.position(buffer.position() + count * Long.BYTES);
    }

    /** Reads {@code count} longs, after checking the image holds them. */
    public long[] getLongs(String field, long count) {
        if (count < 0 || count > (Integer.MAX_VALUE - 8)) {
            throw new IllegalArgumentException("image field " + field + " declares " + count + " longs, limit is "
                    + (Integer.MAX_VALUE - 8));
        }
        need(field, count * Long.BYTES);
        long[] out = new long[(int) count];
        buffer.asLongBuffer().get(out);
        buffer.position(buffer.position() + out.length * Long.BYTES);
        return out;
    }

    /** Fails unless every byte of the image was read. */
    public void finish() {
        if (buffer.hasRemaining()) {
            throw new IllegalArgumentException("image has " + buffer.remaining() + " unexpected trailing bytes for a "
                    + family + " of version " + version);
        }
    }

    private void need(String field, long bytes) {
        if (buffer.remaining() < bytes) {
            throw new IllegalArgumentException("image truncated: field " + field + " needs " + bytes
                    + " bytes, only " + buffer.remaining() + " remain");
        }
    }
}
