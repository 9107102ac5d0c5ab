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
    static <T> ValueWriter<T> auto() {
        return (value, g) -> writeAuto(value, g);
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

    private static void writeAuto(Object value, JsonGenerator g) throws IOException {
        if (value == null) {
            g.writeNull();
        } else if (value instanceof Long || value instanceof Integer || value instanceof Short
                || value instanceof Byte) {
            g.writeNumber(((Number) value).longValue());
        } else if (value instanceof Double || value instanceof Float) {
            g.writeNumber(((Number) value).doubleValue());
        } else if (value instanceof Boolean b) {
            g.writeBoolean(b);
        } else if (value instanceof String s) {
            g.writeString(s);
        } else if (value instanceof PacketRecord p) {
            OutputJson.writePacket(p, g);
        } else if (value instanceof FiveTuple t) {
            OutputJson.writeFiveTuple(t, g);
        } else if (value instanceof Event e) {
            g.writeRawValue(e.json);
        } else if (value instanceof PacketBatch b) {
            g.writeStartObject();
            g.writeNumberField("observation_point", b.observationPoint());
            g.writeNumberField("packets", b.size());
            if (!b.isEmpty()) {
                g.writeNumberField("min_timestamp", b.minTimestamp());
                g.writeNumberField("max_timestamp", b.maxTimestamp());
            }
            g.writeEndObject();
        } else {
            g.writeString(value.toString());
        }
    }
}
