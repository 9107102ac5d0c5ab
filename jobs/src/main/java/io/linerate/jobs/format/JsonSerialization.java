package io.linerate.jobs.format;

import com.fasterxml.jackson.core.JsonFactory;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.util.Objects;
import org.apache.flink.api.common.serialization.SerializationSchema;

/**
 * A Flink {@link SerializationSchema} writing each record as one compact UTF-8 JSON object (no trailing newline)
 * with a {@link ValueWriter}; usable as the value schema of a Kafka sink
 * ({@code KafkaRecordSerializationSchema.builder().setValueSerializationSchema(..)}). The schemas are in
 * {@link OutputJson} and {@code docs/FORMATS.md}.
 */
public final class JsonSerialization<T> implements SerializationSchema<T> {

    private static final long serialVersionUID = 1L;

    private final Encoder<T> encoder;
    private transient JsonOut out;

    /** Writes each record with {@code writer} through a Jackson generator. */
    public JsonSerialization(ValueWriter<T> writer) {
        this(new Generic<>(Objects.requireNonNull(writer, "writer")));
    }

    private JsonSerialization(Encoder<T> encoder) {
        this.encoder = encoder;
    }

    /** Writes each record with a hand-written {@code encoder} (the records the jobs write most of). */
    static <T> JsonSerialization<T> encodedBy(Encoder<T> encoder) {
        return new JsonSerialization<>(Objects.requireNonNull(encoder, "encoder"));
    }

    /** Writes a record's JSON text into a {@link JsonOut} by hand. */
    @FunctionalInterface
    interface Encoder<T> extends Serializable {
        void encode(T value, JsonOut out) throws IOException;
    }

    /** The whole record through its {@link ValueWriter}, on the output's reused Jackson generator. */
    private static final class Generic<T> implements Encoder<T> {
        private static final long serialVersionUID = 1L;
        private final ValueWriter<T> writer;

        Generic(ValueWriter<T> writer) {
            this.writer = writer;
        }

        @Override
        public void encode(T value, JsonOut out) throws IOException {
            out.value(writer, value);
        }
    }

    @Override
    public void open(InitializationContext context) {
        init();
    }

    private void init() {
        if (out == null) {
            // no separator between root values: one generator writes record after record into the reset buffer
            out = new JsonOut(new JsonFactory().setRootValueSeparator(null));
        }
    }

    @Override
    public byte[] serialize(T element) {
        init();
        out.reset();
        try {
            encoder.encode(element, out);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + element + " as JSON", e);
        }
        return out.toByteArray();
    }

    /** The JSON text of {@code element} (for tests and logs). */
    public String toJson(T element) {
        return new String(serialize(element), java.nio.charset.StandardCharsets.UTF_8);
    }
}
