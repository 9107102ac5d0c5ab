package io.linerate.jobs.format;

/**
 * An input record that cannot be decoded: the {@link #reason() reason} (which field, which limit) and the
 * {@link #offset() byte offset} in the record's value where decoding stopped ({@code -1} where no byte offset
 * applies, e.g. a JSON field of the wrong type). Decoders throw nothing else for bad input.
 */
public final class MalformedRecordException extends Exception {

    private static final long serialVersionUID = 1L;

    /** Offset used when the reason is not tied to one byte position. */
    public static final long NO_OFFSET = -1;

    private final String reason;
    private final long offset;

    public MalformedRecordException(String reason, long offset) {
        super(offset >= 0 ? reason + " (at byte " + offset + ")" : reason, null, false, false);
        this.reason = reason;
        this.offset = offset;
    }

    /** Why the record was rejected, naming the field and the limit. */
    public String reason() {
        return reason;
    }

    /** Byte offset in the record's value where the problem was found, or {@link #NO_OFFSET}. */
    public long offset() {
        return offset;
    }
}
