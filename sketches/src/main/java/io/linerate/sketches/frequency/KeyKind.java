package io.linerate.sketches.frequency;

import io.linerate.sketches.hash.FiveTuple;
import io.linerate.sketches.hash.ItemHasher;
import java.util.Arrays;

/**
 * What a heavy-hitter tracker keeps of each item so it can report it: a {@code long}, an IP 5-tuple, or
 * a byte string of bounded length. Keys are stored as fixed-width runs of longs in one primitive array.
 */
public final class KeyKind {

    /** Byte strings longer than this are rejected (the slot width is fixed at construction). */
    public static final int MAX_BYTES_LIMIT = 1024;

    enum Type { LONG, FIVE_TUPLE, BYTES }

    private final Type type;
    private final int maxBytes;

    private KeyKind(Type type, int maxBytes) {
        this.type = type;
        this.maxBytes = maxBytes;
    }

    public static KeyKind longs() {
        return new KeyKind(Type.LONG, 8);
    }

    public static KeyKind fiveTuples() {
        return new KeyKind(Type.FIVE_TUPLE, 40);
    }

    /** Byte strings of at most {@code maxBytes} bytes. */
    public static KeyKind bytes(int maxBytes) {
        if (maxBytes < 1 || maxBytes > MAX_BYTES_LIMIT) {
            throw new IllegalArgumentException("maxBytes must be in [1, " + MAX_BYTES_LIMIT + "], got " + maxBytes);
        }
        return new KeyKind(Type.BYTES, maxBytes);
    }

    Type type() {
        return type;
    }

    int maxBytes() {
        return maxBytes;
    }

    /** Longs per stored key. */
    int width() {
        switch (type) {
            case LONG:
                return 1;
            case FIVE_TUPLE:
                return 5;
            default:
                return 1 + (maxBytes + 7) / 8; // length, then the bytes
        }
    }

    int id() {
        return type.ordinal();
    }

    /**
     * The kind an image's keyKind and maxBytes fields describe: maxBytes must be what {@link #maxBytes()} gives (8 for
     * longs, 40 for 5-tuples), as every writer writes it, not a value ignored and written back differently.
     */
    static KeyKind of(int id, int maxBytes) {
        if (id == Type.LONG.ordinal() || id == Type.FIVE_TUPLE.ordinal()) {
            KeyKind kind = id == Type.LONG.ordinal() ? longs() : fiveTuples();
            if (maxBytes != kind.maxBytes) {
                throw new IllegalArgumentException("image corrupt: maxBytes is " + maxBytes + " for " + kind
                        + " keys, must be " + kind.maxBytes);
            }
            return kind;
        }
        if (id == Type.BYTES.ordinal()) {
            return bytes(maxBytes);
        }
        throw new IllegalArgumentException("key kind id must be 0, 1 or 2, got " + id);
    }

    /** For {@code update(CharSequence, ..)}: text is counted as its UTF-8 bytes, so only a byte-string tracker takes it. */
    void requireBytesForText() {
        if (type != Type.BYTES) {
            throw new IllegalArgumentException("update(CharSequence) counts a string as its UTF-8 bytes and needs a"
                    + " tracker of KeyKind.bytes(maxBytes); this tracker keeps " + this + " keys");
        }
    }

    void require(Type expected) {
        if (type != expected) {
            throw new IllegalArgumentException("this tracker keeps " + this + " keys, not " + expected);
        }
    }

    /** Writes a 5-tuple's fields into {@code out} at {@code at}. */
    static void encode(FiveTuple t, long[] out, int at) {
        out[at] = t.srcHigh();
        out[at + 1] = t.srcLow();
        out[at + 2] = t.dstHigh();
        out[at + 3] = t.dstLow();
        out[at + 4] = ((long) t.srcPort() << 32) | ((long) t.dstPort() << 16) | (t.protocol() << 8)
                | (t.isIpv6() ? 6 : 4);
    }

    /** Fields of the packed ports/protocol/version long written by {@link #encode(FiveTuple, long[], int)}. */
    private static int srcPort(long meta) {
        return (int) (meta >>> 32) & 0xFFFF;
    }

    private static int dstPort(long meta) {
        return (int) (meta >>> 16) & 0xFFFF;
    }

    private static int protocol(long meta) {
        return (int) (meta >>> 8) & 0xFF;
    }

    private static boolean isIpv6(long meta) {
        return (meta & 0xFF) == 6;
    }

    /** Writes a byte string (length first) into {@code out} at {@code at}, zero-padded. */
    void encode(byte[] b, int off, int len, long[] out, int at) {
        if (len > maxBytes) {
            throw new IllegalArgumentException("key length " + len + " exceeds maxBytes " + maxBytes);
        }
        Arrays.fill(out, at, at + width(), 0L);
        out[at] = len;
        for (int i = 0; i < len; i++) {
            out[at + 1 + (i >>> 3)] |= (b[off + i] & 0xFFL) << ((i & 7) * 8);
        }
    }

    /**
     * Checks that the key stored at {@code at} (read from an image) is exactly what {@link #encode} writes for
     * the item it decodes to: for byte strings a length word in [0, maxBytes] as a whole long and zero bytes
     * past the length; for 5-tuples a version byte of 4 or 6, zero in the 16 bits above the source port, and
     * for IPv4 zero high address words and high halves of the low words. Otherwise two encodings of one item
     * (which hash and decode alike but compare unequal) could be monitored as two items.
     *
     * @param entry names the entry in the exception message, e.g. "entry 3"
     * @throws IllegalArgumentException naming the entry if the encoding is not canonical
     */
    void requireCanonical(long[] keys, int at, String entry) {
        long[] canonical = new long[width()];
        switch (type) {
            case LONG:
                return;
            case FIVE_TUPLE: {
                long version = keys[at + 4] & 0xFF;
                if (version != 4 && version != 6) {
                    throw new IllegalArgumentException("image corrupt: " + entry + " has IP version byte " + version
                            + " in its 5-tuple key, not 4 or 6");
                }
                encode((FiveTuple) decode(keys, at), canonical, 0);
                break;
            }
            default: {
                long len = keys[at];
                if (len < 0 || len > maxBytes) {
                    throw new IllegalArgumentException("image corrupt: " + entry + " has key length " + len
                            + ", not in [0, maxBytes=" + maxBytes + "]");
                }
                encode((byte[]) decode(keys, at), 0, (int) len, canonical, 0);
                break;
            }
        }
        if (!Arrays.equals(keys, at, at + canonical.length, canonical, 0, canonical.length)) {
            throw new IllegalArgumentException("image corrupt: " + entry + " has a non-canonical " + this + " key ("
                    + (type == Type.BYTES ? "non-zero bytes past its length" : "unused address or port bits set")
                    + ")");
        }
    }

    /** The reportable item stored at {@code at}: a {@code Long}, a {@link FiveTuple} or a {@code byte[]}. */
    Object decode(long[] keys, int at) {
        switch (type) {
            case LONG:
                return keys[at];
            case FIVE_TUPLE: {
                long meta = keys[at + 4];
                return isIpv6(meta)
                        ? FiveTuple.ipv6(keys[at], keys[at + 1], keys[at + 2], keys[at + 3], srcPort(meta),
                                dstPort(meta), protocol(meta))
                        : FiveTuple.ipv4((int) keys[at + 1], (int) keys[at + 3], srcPort(meta), dstPort(meta),
                                protocol(meta));
            }
            default: {
                int len = (int) keys[at];
                byte[] b = new byte[len];
                for (int i = 0; i < len; i++) {
                    b[i] = (byte) (keys[at + 1 + (i >>> 3)] >>> ((i & 7) * 8));
                }
                return b;
            }
        }
    }

    /**
     * h1 of the key stored at {@code at}, as the hasher computes it for the original item. No allocation:
     * 5-tuples are hashed from their fields, byte strings are unpacked into {@code scratch} (at least
     * {@link #maxBytes()} long; may be {@code null} for other kinds).
     */
    long hash(ItemHasher hasher, long[] keys, int at, byte[] scratch) {
        switch (type) {
            case LONG:
                return hasher.hash(keys[at]);
            case FIVE_TUPLE: {
                long meta = keys[at + 4];
                return isIpv6(meta)
                        ? hasher.hashIpv6(keys[at], keys[at + 1], keys[at + 2], keys[at + 3], srcPort(meta),
                                dstPort(meta), protocol(meta))
                        : hasher.hashIpv4((int) keys[at + 1], (int) keys[at + 3], srcPort(meta), dstPort(meta),
                                protocol(meta));
            }
            default: {
                long stored = keys[at];
                if (stored < 0 || stored > maxBytes) {
                    throw new IllegalArgumentException("stored key length " + stored + " outside [0, " + maxBytes + "]");
                }
                int len = (int) stored;
                for (int i = 0; i < len; i++) {
                    scratch[i] = (byte) (keys[at + 1 + (i >>> 3)] >>> ((i & 7) * 8));
                }
                return hasher.hash(scratch, 0, len);
            }
        }
    }

    @Override
    public String toString() {
        return type == Type.BYTES ? "BYTES(" + maxBytes + ")" : type.name();
    }
}
