package io.linerate.jobs.format;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The bytes of one JSON record written by hand: pre-encoded ASCII fragments (field names with their quotes, colons and
 * commas), decimal numbers and addresses, with a reused Jackson generator for generic parts ({@link ValueWriter}).
 * Every record of a {@link JsonSerialization} is written here: by hand for the output records that come one per input
 * item in the worst case (flow records under a flood of new flows), where Jackson's per-field checks cost more than
 * everything else the record needs, and wholly through {@link #value} for the others. Not thread-safe: one per
 * serialization schema instance, which Flink calls from one thread.
 */
final class JsonOut {

    private static final byte[] NULL = ascii("null");
    private static final byte[] LONG_MIN = ascii(Long.toString(Long.MIN_VALUE));

    private final JsonFactory factory;
    private byte[] buf = new byte[512];
    private int len;
    /** Writes generic values into this buffer; dropped after a writer fails or leaves its value open. */
    private JsonGenerator generator;

    JsonOut(JsonFactory factory) {
        this.factory = factory;
    }

    /** The ASCII bytes of {@code s}, for the fragments an encoder writes. */
    static byte[] ascii(String s) {
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) >= 0x80) {
                throw new IllegalArgumentException("not ASCII: " + s);
            }
        }
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    void reset() {
        len = 0;
    }

    byte[] toByteArray() {
        return Arrays.copyOf(buf, len);
    }

    /** Pre-encoded JSON text, written as it is. */
    void raw(byte[] text) {
        ensure(text.length);
        System.arraycopy(text, 0, buf, len, text.length);
        len += text.length;
    }

    void nullValue() {
        raw(NULL);
    }

    /** A pre-encoded field name (with its comma, quotes and colon) and then {@code v}, as {@link #number}. */
    void numberField(byte[] name, long v) {
        raw(name);
        number(v);
    }

    /** {@code v} in decimal, as Jackson writes a {@code long} (and an {@code int}). */
    void number(long v) {
        if (v == Long.MIN_VALUE) {
            raw(LONG_MIN);
            return;
        }
        ensure(20);
        if (v < 0) {
            buf[len++] = '-';
            v = -v;
        }
        // 64-bit division is slow on the CPUs we measured on; split into 9-digit groups done in 32-bit arithmetic
        if (v <= Integer.MAX_VALUE) {
            len = digits(buf, len, (int) v);
            return;
        }
        long high = v / BILLION;
        int low = (int) (v - high * BILLION);
        if (high <= Integer.MAX_VALUE) {
            len = digits(buf, len, (int) high);
        } else {
            long top = high / BILLION;
            len = digits(buf, len, (int) top); // at most 9 (Long.MAX_VALUE has 19 digits)
            len = nineDigits(buf, len, (int) (high - top * BILLION));
        }
        len = nineDigits(buf, len, low);
    }

    private static final long BILLION = 1_000_000_000L;

    /** "00", "01", … "99": two digits per division halves the chain of dependent divisions of a long number. */
    private static final byte[] PAIRS = new byte[200];

    static {
        for (int i = 0; i < 100; i++) {
            PAIRS[2 * i] = (byte) ('0' + i / 10);
            PAIRS[2 * i + 1] = (byte) ('0' + i % 10);
        }
    }

    /** Writes {@code v >= 0} without leading zeros; returns the index after it. */
    private static int digits(byte[] b, int at, int v) {
        int end = at + length(v);
        writeBackwards(b, end, at, v);
        return end;
    }

    /** Writes {@code 0 <= v < 10^9} as exactly nine digits (leading zeros kept); returns the index after them. */
    private static int nineDigits(byte[] b, int at, int v) {
        writeBackwards(b, at + 9, at, v);
        return at + 9;
    }

    /** Fills {@code b[from, end)} with the last digits of {@code v}, zero-padded on the left. */
    private static void writeBackwards(byte[] b, int end, int from, int v) {
        int i = end;
        while (i - from >= 2) {
            int q = v / 100;
            int r = (v - q * 100) << 1;
            b[--i] = PAIRS[r + 1];
            b[--i] = PAIRS[r];
            v = q;
        }
        if (i > from) {
            b[--i] = (byte) ('0' + v % 10);
        }
    }

    /** Decimal digits of {@code v >= 0}, by comparison (no division). */
    private static int length(int v) {
        if (v < 100_000) {
            return v < 100 ? (v < 10 ? 1 : 2) : v < 1_000 ? 3 : v < 10_000 ? 4 : 5;
        }
        return v < 10_000_000 ? (v < 1_000_000 ? 6 : 7) : v < 100_000_000 ? 8 : v < 1_000_000_000 ? 9 : 10;
    }

    /** A JSON string of {@code a.b.c.d} for a 32-bit network-order IPv4 address (as {@link Addresses#ipv4(int)}). */
    void quotedIpv4(int address) {
        ensure(Addresses.IPV4_MAX_TEXT + 2);
        buf[len++] = '"';
        len = Addresses.ipv4(buf, len, address);
        buf[len++] = '"';
    }

    /** A JSON string of text known to need no escaping (ASCII letters, digits and punctuation other than quote and backslash). */
    void quotedPlain(String text) {
        ensure(text.length() + 2);
        buf[len++] = '"';
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < 0x20 || c >= 0x7F || c == '"' || c == '\\') {
                throw new IllegalArgumentException("text needs escaping: " + text);
            }
            buf[len++] = (byte) c;
        }
        buf[len++] = '"';
    }

    /** {@code value} as {@code writer} renders it with Jackson, appended here. */
    <V> void value(ValueWriter<? super V> writer, V value) throws IOException {
        JsonGenerator g = generator;
        if (g == null) {
            g = generator = factory.createGenerator(new Sink(), JsonEncoding.UTF8);
        }
        boolean done = false;
        int valuesBefore = g.getOutputContext().getEntryCount();
        try {
            writer.write(value, g);
            int written = g.getOutputContext().getEntryCount() - valuesBefore;
            if (g.getOutputContext().inRoot() && written != 1) {
                // the text around it is written by hand: none would leave "name":, and two would run together
                throw new IOException("a ValueWriter must write exactly one JSON value, " + writer + " wrote "
                        + written);
            }
            done = g.getOutputContext().inRoot();
            g.flush();
        } finally {
            if (!done) {
                // failed, or left its value open: close() completes it, as for any Jackson generator, and the next
                // value starts with a fresh generator
                generator = null;
                g.close();
            }
        }
    }

    private void ensure(int more) {
        if (len + more > buf.length) {
            buf = Arrays.copyOf(buf, Math.max(buf.length * 2, len + more));
        }
    }

    /** Where the generator's bytes go: this buffer. */
    private final class Sink extends OutputStream {
        @Override
        public void write(int b) {
            ensure(1);
            buf[len++] = (byte) b;
        }

        @Override
        public void write(byte[] b, int off, int n) {
            ensure(n);
            System.arraycopy(b, off, buf, len, n);
            len += n;
        }
    }
}
