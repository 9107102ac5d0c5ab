package io.linerate.jobs.format;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Objects;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;

/**
 * The original Kafka record of a {@code dead_letter} ({@link OutputJson#deadLetters()}, docs/FORMATS.md), to write
 * it again once the job can read it: the same key, value and headers (in their order), and the record's Kafka
 * timestamp. Only a dead letter that kept the whole record can be replayed: one whose value or key was truncated, or
 * that left headers out, is refused, as is one written before dead letters kept keys and headers (no
 * {@code key_length}).
 */
public final class DeadLetterReplay {

    private static final ObjectMapper JSON = new ObjectMapper();

    private DeadLetterReplay() {
    }

    /**
     * The record to its original topic and partition.
     *
     * @throws IllegalArgumentException if {@code json} is not a dead letter that kept the whole record
     */
    public static ProducerRecord<byte[], byte[]> record(byte[] json) {
        JsonNode d = parse(json);
        JsonNode partition = d.path("partition");
        if (!partition.canConvertToInt() || partition.asInt() < 0) {
            throw new IllegalArgumentException("the dead letter's partition must be an int >= 0, got " + partition);
        }
        return record(d, d.path("topic").asText(), partition.asInt());
    }

    /**
     * The record to {@code topic}, its partition left to the producer's partitioner (by the key, as for the
     * original unless its producer chose the partition).
     *
     * @throws IllegalArgumentException if {@code json} is not a dead letter that kept the whole record
     */
    public static ProducerRecord<byte[], byte[]> record(byte[] json, String topic) {
        return record(parse(json), Objects.requireNonNull(topic, "topic"), null);
    }

    private static ProducerRecord<byte[], byte[]> record(JsonNode d, String topic, Integer partition) {
        String at = d.path("topic").asText() + "-" + d.path("partition").asInt() + "@" + d.path("offset").asLong();
        if (!d.has("key_length")) {
            throw new IllegalArgumentException("the dead letter of " + at + " was written before dead letters kept "
                    + "the key and headers: it cannot be replayed exactly");
        }
        for (String cut : new String[] {"value_truncated", "key_truncated", "headers_truncated"}) {
            if (d.path(cut).asBoolean()) {
                throw new IllegalArgumentException("the dead letter of " + at + " is " + cut.replace('_', ' ')
                        + " (over the deserializer's limits): it cannot be replayed exactly");
            }
        }
        byte[] value = d.path("value_length").asInt() < 0 ? null : base64(d, "value_base64", at);
        byte[] key = d.path("key_length").asInt() < 0 ? null : base64(d, "key_base64", at);
        List<Header> headers = new ArrayList<>();
        int i = 0;
        for (JsonNode h : d.path("headers")) {
            headers.add(new RecordHeader(h.path("key").asText(), h.path("value_base64").isNull() ? null
                    : base64(h, "value_base64", at + " headers[" + i + "]")));
            i++;
        }
        long timestamp = d.path("timestamp").asLong(-1);
        return new ProducerRecord<>(topic, partition, timestamp < 0 ? null : timestamp, key, value, headers);
    }

    private static byte[] base64(JsonNode n, String field, String where) {
        try {
            return Base64.getDecoder().decode(n.path(field).asText());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("the dead letter of " + where + ": " + field + " is not base64 ("
                    + e.getMessage() + ")", e);
        }
    }

    private static JsonNode parse(byte[] json) {
        JsonNode d;
        try {
            d = JSON.readTree(json);
        } catch (IOException e) {
            throw new IllegalArgumentException("not a JSON dead letter: " + e.getMessage(), e);
        }
        if (d == null || !OutputJson.DEAD_LETTER.equals(d.path("type").asText())) {
            throw new IllegalArgumentException("not a dead letter (type " + (d == null ? "none" : d.path("type"))
                    + ")");
        }
        return d;
    }
}
