package io.linerate.jobs.fuzz;

import java.util.Arrays;

/**
 * Reads structured values from a fuzzer's bytes, front to back; past the end every read gives 0 (or an empty
 * array), so any input, however short, describes a value. Shared by the fuzz tests of the jobs module.
 */
public final class FuzzBytes {

    private final byte[] data;
    private int pos;

    public FuzzBytes(byte[] data) {
        this.data = data;
    }

    /** Whether unread bytes remain. */
    public boolean more() {
        return pos < data.length;
    }

    public int u8() {
        return pos < data.length ? data[pos++] & 0xFF : 0;
    }

    public int u16() {
        return u8() << 8 | u8();
    }

    public int i32() {
        return u16() << 16 | u16();
    }

    public long i64() {
        return (long) i32() << 32 | (i32() & 0xFFFF_FFFFL);
    }

    public boolean bit() {
        return (u8() & 1) != 0;
    }

    /** A value in [0, n), n > 0. */
    public int below(int n) {
        return Integer.remainderUnsigned(i32(), n);
    }

    /** A value in [0, n], n >= 0. */
    public long atMost(long n) {
        return n == Long.MAX_VALUE ? i64() & Long.MAX_VALUE : Long.remainderUnsigned(i64(), n + 1);
    }

    /** The next {@code n} bytes, fewer (down to none) at the end. */
    public byte[] take(int n) {
        int end = (int) Math.min(data.length, (long) pos + Math.max(0, n));
        byte[] b = Arrays.copyOfRange(data, pos, end);
        pos = end;
        return b;
    }

    /** All unread bytes. */
    public byte[] rest() {
        return take(data.length - pos);
    }
}
