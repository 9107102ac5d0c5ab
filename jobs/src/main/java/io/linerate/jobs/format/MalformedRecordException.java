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

    /** The reason of a decoder that gave none (null or blank): a dead letter always says why. */
    static final String NO_REASON = "malformed (the decoder gave no reason)";

    /** @param reason why; {@code null} or blank becomes {@value #NO_REASON} */
    public MalformedRecordException(String reason, long offset) {
        super(offset >= 0 ? given(reason) + " (at byte " + offset + ")" : given(reason), null, false, false);
        this.reason = given(reason);
        this.offset = offset;
    }

    private static String given(String reason) {
        return reason == null || reason.isBlank() ? NO_REASON : reason;
    }

    /** Why the record was rejected, naming the field and the limit; never null or blank. */
    public String reason() {
        return reason;
    }

    /** Byte offset in the record's value where the problem was found, or {@link #NO_OFFSET}. */
    public long offset() {
        return offset;
    }
}
