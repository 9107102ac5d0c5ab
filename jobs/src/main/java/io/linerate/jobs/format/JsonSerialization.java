package io.linerate.jobs.format;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.util.ByteArrayBuilder;
import java.io.IOException;
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
    private transient JsonFactory factory;
    private transient ByteArrayBuilder buffer;

    public JsonSerialization(ValueWriter<T> writer) {
        this.writer = Objects.requireNonNull(writer, "writer");
    }

    @Override
    public void open(InitializationContext context) {
        init();
    }

    private void init() {
        if (factory == null) {
            factory = new JsonFactory();
            buffer = new ByteArrayBuilder(512);
        }
    }

    @Override
    public byte[] serialize(T element) {
        init();
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
