package io.linerate.jobs.format;

import io.linerate.flink.rejects.Rejected;

/**
 * An upper bound of the bytes of the output record an {@link Event} can become: its {@code unique_event} or
 * {@code probable_duplicate} envelope ({@link OutputJson#uniqueEvents()}, {@link OutputJson#probableDuplicates()}),
 * its raw JSON ({@link OutputJson#rawEvents()}), or a {@code rejected} record carrying it as raw JSON with a reason of
 * at most {@link #MAX_REASON_BYTES} ({@link OutputJson#rejected}). Computed without writing the JSON: the writers'
 * fixed text at its longest (measured once) plus the key as the generator escapes it at worst plus the raw text
 * (the value's bytes: {@link JsonEventFormat} keeps the text only of strict UTF-8).
 */
public final class EventRecordSize {

    /** The longest reason a rejected event is allowed for (the dedup operator's reasons are short fixed texts). */
    public static final int MAX_REASON_BYTES = 1024;

    /** The envelope around an empty key and the 1-byte raw value "0", with the longest numbers. */
    private static final int ENVELOPE = OutputJson.probableDuplicates()
            .serialize(new Event("", Long.MAX_VALUE, Long.MAX_VALUE, "0")).length - 1;

    /** A rejected record around an empty reason and the 1-byte raw record "0". */
    private static final int REJECTED = OutputJson.<String>rejected((v, g) -> g.writeRawValue(v))
            .serialize(new Rejected<>("0", "")).length - 1;

    private EventRecordSize() {
    }

    /** At most this many bytes, whichever record {@code e} (read from {@code valueBytes} bytes) becomes. */
    public static long of(Event e, int valueBytes) {
        long envelope = ENVELOPE + escapedBytes(e.key) + valueBytes;
        long rejected = REJECTED + MAX_REASON_BYTES + valueBytes;
        return Math.max(envelope, rejected);
    }

    /** The UTF-8 bytes of {@code s} as a JSON string body at worst: a control character or a surrogate as \\uXXXX. */
    static long escapedBytes(String s) {
        long n = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x20 || Character.isSurrogate(c)) {
                n += 6;
            } else if (c == '"' || c == '\\') {
                n += 2;
            } else if (c < 0x80) {
                n += 1;
            } else if (c < 0x800) {
                n += 2;
            } else {
                n += 3;
            }
        }
        return n;
    }
}
