package io.linerate.jobs.format;

import com.fasterxml.jackson.core.JsonGenerator;
import io.linerate.sketches.hash.FiveTuple;
import java.io.IOException;
import java.io.Serializable;

/**
 * Writes one value as ONE JSON value (a number, a string, an object…) with a Jackson generator: how the output
 * schemas render a generic part (a scope key, a query, a rejected record).
 */
@FunctionalInterface
public interface ValueWriter<T> extends Serializable {

    void write(T value, JsonGenerator g) throws IOException;

    /**
     * By the value's class: null as {@code null}; integral numbers, floating-point numbers and booleans as JSON
     * numbers and booleans; a {@link PacketRecord} or {@link FiveTuple} as a packet / 5-tuple object (addresses as
     * text); an {@link Event} as its raw JSON; a {@link PacketBatch} as a summary object; anything else as its
     * {@code toString()} text.
     */
    @SuppressWarnings("unchecked")
    static <T> ValueWriter<T> auto() {
        return (ValueWriter<T>) AutoValueWriter.INSTANCE;
    }

    /** Always the {@code toString()} text (null as {@code null}). */
    static <T> ValueWriter<T> text() {
        return (value, g) -> {
            if (value == null) {
                g.writeNull();
            } else {
                g.writeString(value.toString());
            }
        };
    }
}
