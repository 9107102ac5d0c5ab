package io.linerate.jobs.pcap;

import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * A reusable read buffer over a stream that knows the file offset of every byte it holds. {@link #fill(int)}
 * makes a whole record or block contiguous in {@link #buf} from {@link #pos}; the buffer grows only for a
 * structure larger than itself (bounded by the callers' length checks), and only as that structure's bytes arrive.
 */
final class InputBuffer {

    private static final VarHandle BE32 = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle BE16 = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle BE64 = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    private final InputStream in;
    byte[] buf;
    int pos;
    private int limit;
    private long bufStart;
    private boolean eof;
    /** Byte order of the file's own fields (headers, lengths); packet contents are always network order. */
    boolean bigEndian = true;

    InputBuffer(InputStream in, int initialSize) {
        this.in = in;
        this.buf = new byte[initialSize];
    }

    /** File offset of {@code buf[pos]}. */
    long offset() {
        return bufStart + pos;
    }

    /** Makes {@code n} bytes available from {@link #pos}; returns how many are (fewer than n only at end of file). */
    int fill(int n) throws IOException {
        int avail = limit - pos;
        if (avail >= n || eof) {
            return avail;
        }
        if (pos + n > buf.length && pos > 0) { // move what is left to the front
            System.arraycopy(buf, pos, buf, 0, avail);
            bufStart += pos;
            limit = avail;
            pos = 0;
        }
        while (limit - pos < n) {
            if (limit == buf.length) {
                // a structure larger than the buffer (pos is 0 here): grow by doubling as its bytes arrive, so a
                // length field claiming more than the stream holds costs at most twice what is there
                buf = Arrays.copyOf(buf, (int) Math.min(n, 2L * buf.length));
            }
            int r = in.read(buf, limit, buf.length - limit);
            if (r < 0) {
                eof = true;
                break;
            }
            limit += r;
        }
        return limit - pos;
    }

    /** Skips {@code n} bytes that {@link #fill(int)} made available. */
    void advance(int n) {
        pos += n;
    }

    /** A 32-bit field in the file's byte order. */
    int u32(int at) {
        int v = (int) BE32.get(buf, at);
        return bigEndian ? v : Integer.reverseBytes(v);
    }

    /** A 16-bit field in the file's byte order, unsigned. */
    int u16(int at) {
        short v = (short) BE16.get(buf, at);
        return (bigEndian ? v : Short.reverseBytes(v)) & 0xFFFF;
    }

    static int be32(byte[] b, int at) {
        return (int) BE32.get(b, at);
    }

    static int be16(byte[] b, int at) {
        return ((short) BE16.get(b, at)) & 0xFFFF;
    }

    static long be64(byte[] b, int at) {
        return (long) BE64.get(b, at);
    }
}
