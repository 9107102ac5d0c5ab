package io.linerate.sketches.image;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.function.Consumer;
import java.util.zip.CRC32C;

/** Builds and edits byte images independently of {@link ImageWriter}, with a valid CRC32C trailer. */
public final class TestImages {

    /** Offset of the first family field. */
    public static final int FIELDS = 8;

    private TestImages() {
    }

    /** magic, family id, version, reserved 0, the fields written by {@code fields}, CRC32C of all of that. */
    public static byte[] forge(int magic, int familyId, int version, Consumer<ByteBuffer> fields) {
        ByteBuffer b = ByteBuffer.allocate(1 << 16).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(magic).put((byte) familyId).put((byte) version).putShort((short) 0);
        fields.accept(b);
        return seal(Arrays.copyOf(b.array(), b.position()));
    }

    /** {@code body} followed by its CRC32C (little-endian), as the format requires. */
    public static byte[] seal(byte[] body) {
        CRC32C crc = new CRC32C();
        crc.update(body, 0, body.length);
        byte[] out = Arrays.copyOf(body, body.length + 4);
        ByteBuffer.wrap(out, body.length, 4).order(ByteOrder.LITTLE_ENDIAN).putInt((int) crc.getValue());
        return out;
    }

    /** The image without its 4-byte trailer. */
    public static byte[] body(byte[] image) {
        return Arrays.copyOf(image, image.length - 4);
    }

    /** A copy of {@code image} with {@code edit} applied to its body and the checksum recomputed. */
    public static byte[] edit(byte[] image, Consumer<ByteBuffer> edit) {
        byte[] body = body(image);
        edit.accept(ByteBuffer.wrap(body).order(ByteOrder.LITTLE_ENDIAN));
        return seal(body);
    }
}
