package io.linerate.jobs.format;

import com.fasterxml.jackson.core.JsonGenerator;
import io.linerate.sketches.hash.FiveTuple;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;

/**
 * {@link ValueWriter#auto()}: one instance (an enum, so it stays the one instance when Flink ships a schema holding
 * it), which lets a hand-written encoder recognise it and write an integral value itself.
 */
enum AutoValueWriter implements ValueWriter<Object> {
    INSTANCE;

    @Override
    public void write(Object value, JsonGenerator g) throws IOException {
        if (value == null) {
            g.writeNull();
        } else if (value instanceof Long || value instanceof Integer || value instanceof Short
                || value instanceof Byte) {
            g.writeNumber(((Number) value).longValue());
        } else if (value instanceof Double || value instanceof Float) {
            g.writeNumber(((Number) value).doubleValue());
        } else if (value instanceof BigInteger i) {
            g.writeNumber(i);
        } else if (value instanceof BigDecimal d) {
            g.writeNumber(d);
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
            if (b.isEmpty()) { // every documented field, null when an empty batch has none
                g.writeNullField("min_timestamp");
                g.writeNullField("max_timestamp");
            } else {
                g.writeNumberField("min_timestamp", b.minTimestamp());
                g.writeNumberField("max_timestamp", b.maxTimestamp());
            }
            g.writeEndObject();
        } else {
            g.writeString(value.toString());
        }
    }
}
