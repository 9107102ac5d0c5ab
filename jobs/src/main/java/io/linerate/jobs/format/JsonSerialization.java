package io.linerate.jobs.format;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.util.ByteArrayBuilder;
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

    private final ValueWriter<T> writer;
    private final Encoder<T> encoder;
    private transient JsonFactory factory;
    private transient ByteArrayBuilder buffer;
    private transient JsonOut out;

    /** Writes each record with {@code writer} through a Jackson generator. */
    public JsonSerialization(ValueWriter<T> writer) {
        this(Objects.requireNonNull(writer, "writer"), null);
    }

    private JsonSerialization(ValueWriter<T> writer, Encoder<T> encoder) {
        this.writer = writer;
        this.encoder = encoder;
    }

    /** Writes each record with a hand-written {@code encoder} (the records the jobs write most of). */
    static <T> JsonSerialization<T> encodedBy(Encoder<T> encoder) {
        return new JsonSerialization<>(null, Objects.requireNonNull(encoder, "encoder"));
    }

    /** Writes a record's JSON text into a {@link JsonOut} by hand. */
    @FunctionalInterface
    interface Encoder<T> extends Serializable {
        void encode(T value, JsonOut out) throws IOException;
    }

    @Override
    public void open(InitializationContext context) {
        init();
    }

    private void init() {
        if (factory == null) {
            factory = new JsonFactory();
            if (encoder == null) {
                buffer = new ByteArrayBuilder(512);
            } else {
                // no separator between root values: the generator for generic parts writes value after value
                out = new JsonOut(factory.setRootValueSeparator(null));
            }
        }
    }

    @Override
    public byte[] serialize(T element) {
        init();
        if (encoder != null) {
            out.reset();
            try {
                encoder.encode(element, out);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write " + element + " as JSON", e);
            }
            return out.toByteArray();
        }
        buffer.reset();
        try (JsonGenerator g = factory.createGenerator(buffer, JsonEncoding.UTF8)) {
            writer.write(element, g);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + element + " as JSON", e);
        }
        return buffer.toByteArray();
    }

    /** The JSON text of {@code element} (for tests and logs). */
    public String toJson(T element) {
        return new String(serialize(element), java.nio.charset.StandardCharsets.UTF_8);
    }
}
