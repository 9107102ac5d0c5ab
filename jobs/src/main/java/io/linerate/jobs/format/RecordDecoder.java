package io.linerate.jobs.format;

import java.io.Serializable;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Decodes one whole Kafka record (value, key, headers, timestamp), for a job that passes more than the value on; a
 * {@link BytesDecoder} when only the value matters. Throws {@link MalformedRecordException} — and nothing else — for
 * bad input, so {@link KafkaDecoding} can turn it into a {@link DeadLetter}. {@link KafkaDecoding} calls it for
 * records with a value only (a null value is a dead letter before).
 */
@FunctionalInterface
public interface RecordDecoder<T> extends Serializable {

    T decode(ConsumerRecord<byte[], byte[]> record) throws MalformedRecordException;
}
