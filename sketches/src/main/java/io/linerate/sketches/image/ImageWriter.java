package io.linerate.sketches.image;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
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
 */
public final class ImageWriter {

    public static final int MAGIC = 0x4B53524C;
    static final int PREAMBLE_BYTES = 8;
    static final int TRAILER_BYTES = 4;

    private final ByteBuffer buffer;

    /** @param fieldBytes exact size of the family fields that will be written */
    public ImageWriter(Family family, int version, long fieldBytes) {
        long total = PREAMBLE_BYTES + fieldBytes + TRAILER_BYTES;
        if (total > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("image would have " + total + " bytes; a byte[] holds at most "
                    + (Integer.MAX_VALUE - 8) + ": serialize this structure in parts or shrink it");
        }
        buffer = ByteBuffer.allocate((int) total).order(ByteOrder.LITTLE_ENDIAN);
        buffer.putInt(MAGIC).put((byte) family.id()).put((byte) version).putShort((short) 0);
    }

    public ImageWriter putByte(int v) {
        buffer.put((byte) v);
        return this;
    }

    public ImageWriter putInt(int v) {
        buffer.putInt(v);
        return this;
    }

    public ImageWriter putLong(long v) {
        buffer.putLong(v);
        return this;
    }

    public ImageWriter putDouble(double v) {
        buffer.putDouble(v);
        return this;
    }

    public ImageWriter putBytes(byte[] values, int from, int count) {
        buffer.put(values, from, count);
        return this;
    }

    public ImageWriter putInts(int[] values, int from, int count) {
        buffer.asIntBuffer().put(values, from, count);
        buffer.position(buffer.position() + count * Integer.BYTES);
        return this;
    }

    public ImageWriter putLongs(long[] values, int from, int count) {
        buffer.asLongBuffer().put(values, from, count);
        buffer.position(buffer.position() + count * Long.BYTES);
        return this;
    }

    /** Appends the checksum and returns the image; fails if the declared field size was not filled exactly. */
    public byte[] finish() {
        if (buffer.remaining() != TRAILER_BYTES) {
            throw new IllegalStateException("image fields sized wrongly: " + (buffer.remaining() - TRAILER_BYTES)
                    + " bytes left unwritten");
        }
        CRC32C crc = new CRC32C();
        crc.update(buffer.array(), 0, buffer.position());
        buffer.putInt((int) crc.getValue());
        return buffer.array();
    }
}
